/* kf: error reporting, memory and string buffers shared by every program.
 *
 * Ownership: every function that returns a pointer returns memory the caller
 * owns and frees with free(), unless its comment says otherwise. */
#ifndef KF_UTIL_H
#define KF_UTIL_H

#include <stdarg.h>
#include <stddef.h>

extern const char *kf_progname;	/* "kf-read"; set by kf_init() */

void kf_init(const char *argv0);

/* Print "prog: msg" to stderr: the one printer of every message kf writes
 * there. A format ending in ':' gets " strerror(errno)". */
void kf_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void kf_vwarn(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
/* kf_warn, then exit(status). */
void kf_die(int status, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

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

/* A growable byte buffer, always NUL-terminated. */
struct buf {
	char *s;
	size_t len, cap;
};
void buf_add(struct buf *b, const char *s, size_t n);
void buf_puts(struct buf *b, const char *s);
void buf_putc(struct buf *b, int c);
void buf_printf(struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void buf_vprintf(struct buf *b, const char *fmt, va_list ap);
void buf_reset(struct buf *b);
void buf_free(struct buf *b);
/* Hand the string over to the caller and leave b empty. */
char *buf_take(struct buf *b);

#endif
