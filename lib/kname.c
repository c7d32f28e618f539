/* Kernel names a person can read. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "feedback.h"

/* Index of the bracket closing the one at s[i], or -1. */
static long
closing(const char *s, size_t n, size_t i)
{
	int depth = 0;

	for (; i < n; i++) {
		switch (s[i]) {
		case '<': case '(': case '[': depth++; break;
		case '>':
			/* "->" inside a type is no bracket. */
			if (i > 0 && s[i - 1] == '-')
				break;
			/* fallthrough */
		case ')': case ']':
			if (--depth == 0)
				return (long)i;
			break;
		}
	}
	return -1;
}

static int
is_launch_suffix(const char *p)
{
	/* " {a; b; c} {d; e; f}]" with digits and "; " only. */
	int braces = 0;

	for (; *p; p++) {
		if (*p == '{')
			braces++;
		else if (!(isdigit((unsigned char)*p) || *p == ';' || *p == ' ' || *p == '}'))
			return *p == ']' && p[1] == '\0' && braces == 2;
	}
	return 0;
}

char *
kf_kernel_strip_suffix(const char *name)
{
	size_t n = strlen(name);
	const char *p;

	if (n == 0 || name[n - 1] != ']')
		return xstrdup(name);
	p = strstr(name, "[SIMD");
	while (p) {
		const char *q = p + 5;

		while (isdigit((unsigned char)*q))
			q++;
		if (q > p + 5 && is_launch_suffix(q))
			return xstrndup(name, (size_t)(p - name));
		p = strstr(p + 1, "[SIMD");
	}
	/* SIMD width 0: unitrace leaves out "[SIMD<w>" but keeps the "]". */
	for (p = name + n - 1; p > name; p--) {
		if (p[0] == ' ' && p[1] == '{' && is_launch_suffix(p)) {
			const char *q = p;

			while (q > name && q[-1] == ' ')
				q--;
			/* Only if what follows the name is exactly two brace groups. */
			if (strchr(p + 2, '{'))
				return xstrndup(name, (size_t)(q - name));
		}
	}
	return xstrdup(name);
}

static void
drop(char *s, const char *what)
{
	size_t m = strlen(what);
	char *p;

	while ((p = strstr(s, what)) != NULL)
		memmove(p, p + m, strlen(p + m) + 1);
}

char *
kf_kernel_short(const char *name, size_t limit)
{
	char *s = kf_kernel_strip_suffix(name);
	struct buf b = {0};
	size_t n, i;

	drop(s, "(anonymous namespace)::");
	if (strncmp(s, "void ", 5) == 0)
		memmove(s, s + 5, strlen(s + 5) + 1);
	n = strlen(s);
	for (i = 0; i < n; i++) {
		long close;

		if ((s[i] == '<' || s[i] == '(') && (close = closing(s, n, i)) > 0) {
			size_t inner = (size_t)close - i - 1;

			if (limit && inner > limit) {
				buf_putc(&b, s[i]);
				buf_puts(&b, "...");
				buf_putc(&b, s[close]);
			} else {
				buf_add(&b, s + i, inner + 2);
			}
			i = (size_t)close;
			continue;
		}
		buf_putc(&b, s[i]);
	}
	free(s);
	return buf_take(&b);
}
