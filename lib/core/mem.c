/* kf: allocation that cannot fail (it exits with a message), and
 * allocating string helpers (mem.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "mem.h"

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		kf_die(1, "out of memory (%zu bytes)", n);
	return p;
}

void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (p == NULL)
		kf_die(1, "out of memory");
	return p;
}

void
kf_sort(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(v, n, size, cmp);
}

void *
xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (p == NULL)
		kf_die(1, "out of memory (%zu bytes)", n);
	return p;
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *
xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *
xasprintf(const char *fmt, ...)
{
	struct buf b = {0};
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	return buf_take(&b);
}

void *
xreallocarray(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		kf_die(1, "out of memory (%zu x %zu bytes)", n, size);
	return xrealloc(p, n * size);
}

size_t
kf_grow_cap(size_t cap, size_t need, size_t first)
{
	if (cap == 0)
		cap = first;
	while (cap < need) {
		if (cap > SIZE_MAX / 2)
			kf_die(1, "out of memory (an array of %zu)", need);
		cap *= 2;
	}
	return cap;
}
