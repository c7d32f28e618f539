/* Kernel names a person can read. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "feedback.h"
#include "map.h"
#include "mem.h"

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

static int
is_ident(int c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* s[0..n) without namespace qualifiers ("at::native::", "<unnamed>::"):
 * inside template and parameter lists they only take room. */
static void
put_no_ns(struct buf *b, const char *s, size_t n)
{
	size_t i = 0, j;

	while (i < n) {
		if (n - i >= 11 && memcmp(s + i, "<unnamed>::", 11) == 0) {
			i += 11;
			continue;
		}
		if (is_ident(s[i]) && (i == 0 || !is_ident(s[i - 1]))) {
			for (j = i; j < n && is_ident(s[j]); j++)
				;
			if (j + 1 < n && s[j] == ':' && s[j + 1] == ':') {
				i = j + 2;
				continue;
			}
			buf_add(b, s + i, j - i);
			i = j;
			continue;
		}
		buf_putc(b, s[i++]);
	}
}

/* How deep put_args follows nested template lists: deeper ones are "...",
 * so that a hostile name cannot make it slow or the stack deep. */
#define MAX_DEPTH 8

/* The end of the argument starting at s[i]: the next top-level comma, or n. */
static size_t
arg_end(const char *s, size_t n, size_t i)
{
	for (; i < n; i++) {
		long c;

		if (s[i] == ',')
			return i;
		if ((s[i] == '<' || s[i] == '(' || s[i] == '[') && (c = closing(s, n, i)) > 0)
			i = (size_t)c;
	}
	return n;
}

/* An argument that does not tell kernels apart on its own: a number or a
 * plain scalar type ("float", "unsigned int", "c10::BFloat16 *"). */
static int
is_plain(const char *s, size_t n)
{
	static const char *const words[] = {
		"float", "double", "int", "long", "unsigned", "short", "char", "bool",
		"signed", "const", "half", "Half", "__half", "BFloat16", "bfloat16",
		"__nv_bfloat16", "size_t", "int64_t", "int32_t", "uint32_t", "uint64_t",
		"true", "false",
	};
	size_t i = 0, j, w;

	while (i < n) {
		if (!is_ident(s[i])) {
			if (strchr(" *&-:", s[i]) == NULL)
				return 0;
			i++;
			continue;
		}
		for (j = i; j < n && is_ident(s[j]); j++)
			;
		for (w = 0; w < sizeof words / sizeof words[0]; w++)
			if (strlen(words[w]) == j - i && memcmp(words[w], s + i, j - i) == 0)
				break;
		if (w == sizeof words / sizeof words[0] && !isdigit((unsigned char)s[i]))
			return 0;
		i = j;
	}
	return 1;
}

/* The arguments of a template list (s[0..n), inside the brackets) that fit
 * in budget, whole, in order; the first one that says something (not a
 * number or a plain scalar type) is kept even when long, its own arguments cut the same way, so
 * that "AUnaryFunctor<..., MulFunctor<float>>" is not lost behind "...". */
static void
put_args(struct buf *b, const char *s, size_t n, size_t budget, int depth)
{
	size_t i = 0, used = 0;
	int said = 0;

	while (i < n) {
		size_t end = arg_end(s, n, i), an, h, sep = used ? 2 : 0;
		const char *a;
		long c;

		while (i < end && s[i] == ' ')
			i++;
		a = s + i;
		an = end - i;
		if (used + sep + an <= budget) {
			buf_puts(b, sep ? ", " : "");
			buf_add(b, a, an);
			used += sep + an;
			said |= !is_plain(a, an);
			i = end + 1;
			continue;
		}
		buf_puts(b, sep ? ", " : "");
		if (said) {
			buf_puts(b, "...");
			return;
		}
		h = strcspn(a, "<([");
		if (h > an)
			h = an;
		buf_add(b, a, h);
		if (h < an && a[h] == '<' && depth < MAX_DEPTH && (c = closing(a, an, h)) > 0) {
			size_t room = budget > used + sep + h + 2 ? budget - used - sep - h - 2 : 0;

			buf_putc(b, '<');
			put_args(b, a + h + 1, (size_t)c - h - 1, room < 16 ? 16 : room, depth + 1);
			buf_putc(b, '>');
		} else if (h < an) {
			buf_puts(b, "...");
		}
		if (end < n)
			buf_puts(b, ", ...");
		return;
	}
}

char *
kf_kernel_short(const char *name, size_t limit)
{
	char *s = kf_kernel_strip_suffix(name);
	struct buf b = {0}, rest = {0};
	size_t n, i, head;

	drop(s, "(anonymous namespace)::");
	if (strncmp(s, "void ", 5) == 0)
		memmove(s, s + 5, strlen(s + 5) + 1);
	/* The kernel's own qualified name stays; its lists lose namespaces. */
	head = strcspn(s, "<(");
	buf_add(&b, s, head);
	put_no_ns(&rest, s + head, strlen(s + head));
	buf_puts(&rest, "");
	n = rest.len;
	for (i = 0; i < n; i++) {
		long close;

		if ((rest.s[i] == '<' || rest.s[i] == '(') &&
		    (close = closing(rest.s, n, i)) > 0) {
			size_t inner = (size_t)close - i - 1;

			if (limit && inner > limit && rest.s[i] == '<') {
				buf_putc(&b, '<');
				put_args(&b, rest.s + i + 1, inner, limit, 0);
				buf_putc(&b, '>');
			} else if (limit && inner > limit) {
				buf_puts(&b, "(...)");
			} else {
				buf_add(&b, rest.s + i, inner + 2);
			}
			i = (size_t)close;
			continue;
		}
		buf_putc(&b, rest.s[i]);
	}
	free(s);
	buf_free(&rest);
	buf_puts(&b, "");
	return buf_take(&b);
}

/* The name at one level of detail: 0 shortened to limit, 1 no list cut,
 * 2 as the profiler wrote it (launch suffix off), 3 exactly as written. */
static char *
shown_at(const char *name, size_t limit, int level)
{
	switch (level) {
	case 0: return kf_kernel_short(name, limit);
	case 1: return kf_kernel_short(name, 0);
	case 2: return kf_kernel_strip_suffix(name);
	default: return xstrdup(name);
	}
}

char **
kf_kernel_shorts(const char *const *names, size_t n, size_t limit)
{
	char **out = xcalloc(n + 1, sizeof *out);
	int *level = xcalloc(n + 1, sizeof *level), again = 1;
	size_t i;

	for (i = 0; i < n; i++)
		out[i] = shown_at(names[i], limit, 0);
	while (again) {
		struct kf_map seen = {0};

		again = 0;
		for (i = 0; i < n; i++) {
			int created;
			struct kf_map_ent *e = kf_map_slot(&seen, out[i], &created);

			e->val = (void *)((size_t)e->val + 1);
		}
		for (i = 0; i < n; i++) {
			if ((size_t)kf_map_get(&seen, out[i]) > 1 && level[i] < 3) {
				free(out[i]);
				out[i] = shown_at(names[i], limit, ++level[i]);
				again = 1;
			}
		}
		kf_map_free(&seen);
	}
	free(level);
	return out;
}
