/* kf: allocation that cannot fail (it exits with a message), allocating
 * string helpers, sorting and growing arrays (mem.c).
 *
 * Ownership: every function that returns a pointer returns memory the caller
 * owns and frees with free(). */
#ifndef KF_MEM_H
#define KF_MEM_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* realloc for n elements of size bytes, checked for overflow. */
void *xreallocarray(void *p, size_t n, size_t size);

/* qsort that accepts an empty array, whatever its pointer (qsort(NULL, 0)
 * is undefined): the one way to sort. */
void kf_sort(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *));

/* The one way to grow an array: a capacity of at least need, doubling
 * cap (first when 0). */
size_t kf_grow_cap(size_t cap, size_t need, size_t first);
/* Room in the array v (n used, cap allocated) for one more element. */
#define KF_GROW(v, n, cap, first) do { \
	if ((size_t)(n) >= (cap)) { \
		(cap) = kf_grow_cap((cap), (size_t)(n) + 1, (first)); \
		(v) = xreallocarray((v), (cap), sizeof *(v)); \
	} \
} while (0)

#endif
