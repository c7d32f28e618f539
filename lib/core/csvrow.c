/* CSV rows fed a line at a time: on libcsv, or split with memchr. */
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "buf.h"
#include "csvrow.h"
#include "mem.h"

/* libcsv */

static void
on_field(void *s, size_t n, void *data)
{
	struct kf_csvrow *r = data;

	if (r->n == r->cap) {
		r->cap = kf_grow_cap(r->cap, r->n + 1, 32);
		r->off = xreallocarray(r->off, r->cap, sizeof *r->off);
		r->len = xreallocarray(r->len, r->cap, sizeof *r->len);
	}
	r->off[r->n] = r->store.len;
	r->len[r->n] = s ? n : 0;
	buf_add(&r->store, s ? s : "", s ? n : 0);
	buf_putc(&r->store, '\0');
	r->n++;
}

static void
on_row(int c, void *data)
{
	(void)c;
	((struct kf_csvrow *)data)->done = 1;
}

/* Only the LF this reader adds ends a row: a stray CR inside a line is
 * data, not a row end that would lose the fields before it. */
static int
is_term(unsigned char c)
{
	return c == '\n';
}

static int
setup(struct kf_csvrow *r, unsigned char delim)
{
	/* REPALL_NL: a blank line is a row of its own, so every line fed
	 * outside quotes ends a row, and "not done" means "inside quotes". */
	if (csv_init(&r->p, CSV_REPALL_NL) != 0)
		return -1;
	csv_set_delim(&r->p, delim);
	csv_set_term_func(&r->p, is_term);
	csv_set_realloc_func(&r->p, xrealloc);
	r->done = 1;
	return 0;
}

static int
libcsv_feed(struct kf_csvrow *r, const char *line, size_t n)
{
	static const char nl = '\n';

	if (csv_parse(&r->p, line, n, on_field, on_row, r) != n ||
	    csv_parse(&r->p, &nl, 1, on_field, on_row, r) != 1)
		return -1;
	return r->done;
}

/* The fast splitter: libcsv's states (row or field not begun, unquoted,
 * quoted, "might have ended" after a quote in a quoted field) with memchr
 * for the runs between quotes and delimiters. */

static int
blank(const struct kf_csvrow *r, char c)
{
	return (c == ' ' || c == '\t') && (unsigned char)c != r->delim;
}

static void
new_field(struct kf_csvrow *r, const char *at)
{
	if (r->n == r->cap) {
		r->cap = kf_grow_cap(r->cap, r->n + 1, 32);
		r->off = xreallocarray(r->off, r->cap, sizeof *r->off);
		r->len = xreallocarray(r->len, r->cap, sizeof *r->len);
	}
	r->off[r->n++] = (size_t)(at - r->store.s);
}

static char *
end_field(struct kf_csvrow *r, char *o)
{
	r->len[r->n - 1] = (size_t)(o - r->store.s) - r->off[r->n - 1];
	*o++ = '\0';
	return o;
}

/* mid: s is just after a delimiter of the row in progress (its first
 * fields reused), not at the start of a line. */
static int
fast_feed(struct kf_csvrow *r, const char *s, size_t n, int mid)
{
	const char *line = s, *end = s + n, *q, *t;
	char d = (char)r->delim, *o;
	size_t sp;
	/* A row that starts on this line may leave its first pk fields to
	 * the next one. */
	int record = r->pk > 0 && !mid && !r->inq && r->nlines == 1;

	/* A line adds at most its bytes, an LF and a NUL per field; and a
	 * quoted field's copy may write 15 bytes past its end. */
	if (r->store.len + 2 * n + 20 > r->store.cap) {
		r->store.cap = r->store.len + 2 * n + 20 + r->store.cap;
		r->store.s = xrealloc(r->store.s, r->store.cap);
	}
	o = r->store.s + r->store.len;
	if (record)
		r->plen = 0;
	if (r->inq) {
		r->inq = 0;
		goto quoted;
	}
	while (s < end && blank(r, *s))
		s++;
	if (s == end && !mid)
		goto row;
	for (;;) {
		new_field(r, o);
		if (s < end && *s == '"') {
			s++;
			goto quoted;
		}
		q = memchr(s, d, (size_t)(end - s));
		for (t = q ? q : end; t > s && blank(r, t[-1]); t--)
			;
		memcpy(o, s, (size_t)(t - s));
		o += t - s;
		s = q ? q : end;
		goto field_end;
quoted:
		for (;;) {
#ifdef __SSE2__
			/* Most fields are quoted and short: copied 16 bytes at
			 * a time while looking for the quote, no calls. */
			while (end - s >= 16) {
				__m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);
				int m = _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')));

				_mm_storeu_si128((__m128i *)(void *)o, v);
				if (m) {
					sp = (size_t)__builtin_ctz((unsigned)m);
					o += sp;
					s += sp;
					goto quote;
				}
				o += 16;
				s += 16;
			}
#endif
			if ((q = memchr(s, '"', (size_t)(end - s))) == NULL) {
				memcpy(o, s, (size_t)(end - s));
				o += end - s;
				*o++ = '\n';
				r->inq = 1;
				r->store.len = (size_t)(o - r->store.s);
				*o = '\0';
				return 0;
			}
			memcpy(o, s, (size_t)(q - s));
			o += q - s;
			s = q;
#ifdef __SSE2__
quote:
#endif
			*o++ = '"';
			s++;
			/* After a quote: the field may have ended. */
			for (sp = 0;;) {
				if (s == end || *s == d) {
					o -= sp + 1;
					goto field_end;
				}
				if (blank(r, *s)) {
					*o++ = *s++;
					sp++;
				} else if (*s == '"' && sp) {
					*o++ = *s++;
					sp = 0;
				} else if (*s == '"') {
					s++;
					break;
				} else {
					*o++ = *s++;
					break;
				}
			}
		}
field_end:
		o = end_field(r, o);
		if (s == end)
			break;
		if (record && r->n == r->pk) {
			r->plen = (size_t)(s + 1 - line);
			r->pstore = (size_t)(o - r->store.s);
			buf_reset(&r->pre);
			buf_add(&r->pre, line, r->plen);
		}
		for (s++; s < end && blank(r, *s); s++)
			;
	}
row:
	r->store.len = (size_t)(o - r->store.s);
	*o = '\0';
	r->done = 1;
	return 1;
}

/* Both */

int
kf_csvrow_init(struct kf_csvrow *r, unsigned char delim)
{
	memset(r, 0, sizeof *r);
	r->delim = delim;
	r->done = 1;
	return 0;
}

int
kf_csvrow_init_libcsv(struct kf_csvrow *r, unsigned char delim)
{
	memset(r, 0, sizeof *r);
	r->libcsv = 1;
	r->delim = delim;
	return setup(r, delim);
}

int
kf_csvrow_feed(struct kf_csvrow *r, const char *line, size_t n)
{
	if (r->done) {
		r->n = 0;
		r->nlines = 0;
		r->store.len = 0;	/* its bytes kept: the first fields may be reused */
		r->done = 0;
	}
	r->nlines++;
	if (r->libcsv)
		return libcsv_feed(r, line, n);
	if (r->nlines == 1 && r->plen > 0 && n >= r->plen &&
	    memcmp(line, r->pre.s, r->plen) == 0) {
		r->n = r->pk;
		r->store.len = r->pstore;
		return fast_feed(r, line + r->plen, n - r->plen, 1);
	}
	return fast_feed(r, line, n, 0);
}

void
kf_csvrow_reuse(struct kf_csvrow *r, size_t k)
{
	r->pk = r->libcsv ? 0 : k;
	r->plen = 0;
}

int
kf_csvrow_pending(const struct kf_csvrow *r)
{
	return !r->done;
}

void
kf_csvrow_drop(struct kf_csvrow *r)
{
	r->n = 0;
	r->nlines = 0;
	r->inq = 0;
	r->plen = 0;
	buf_reset(&r->store);
	if (r->libcsv) {
		csv_free(&r->p);
		setup(r, r->delim);
	}
	r->done = 1;
}

const char *
kf_csvrow_field(const struct kf_csvrow *r, size_t i, size_t *len)
{
	if (i >= r->n || !r->done) {
		if (len)
			*len = 0;
		return "";
	}
	if (len)
		*len = r->len[i];
	return r->store.s + r->off[i];
}

void
kf_csvrow_free(struct kf_csvrow *r)
{
	if (r->libcsv)
		csv_free(&r->p);
	buf_free(&r->store);
	buf_free(&r->pre);
	free(r->off);
	free(r->len);
	memset(r, 0, sizeof *r);
}
