/* kf: JSON for records, both ways (record.h).
 *
 * Writing: cJSON trees as strict JSON whatever bytes their strings hold
 * (invalid UTF-8 becomes U+FFFD, controls are escaped, C0 80 is \u0000),
 * numbers in one canonical form, into one reused buffer.
 *
 * Reading: a parser that builds the trees cJSON would, faster: object keys
 * are interned (shared, never freed while the program runs), and the
 * members that kf_json_parse_keep's paths name are kept as cJSON_Raw text
 * when writing them back would give the same bytes. kf_json_lazy() parses
 * such a member when it is first read and swaps it into its parent in place,
 * so a pointer to the raw item is stale after it; record.h states the rules. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "buf.h"
#include "err.h"
#include "mem.h"
#include "num.h"
#include "record.h"

/* Length of the valid UTF-8 sequence at s (n bytes left), or 0. */
static size_t
utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len, i;
	unsigned cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, cp = c & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

int
kf_utf8_valid(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str), i = 0, k;

	while (i < n) {
		if ((k = utf8_len(s + i, n - i)) == 0)
			return 0;
		i += k;
	}
	return 1;
}

/* Bytes that cannot go into a JSON string as they are: controls, quote,
 * backslash, DEL and everything above ASCII (checked as UTF-8). */
static const unsigned char special[256] = {
	[0x00] = 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	['"'] = 1, ['\\'] = 1, [0x7f] = 1,
	[0x80] = 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};

/* The first byte from p on that special[] marks; or end. Strings are most
 * of what kf writes and reads: 16 bytes at a time with SSE2 (every x86-64
 * has it), else 8 in a word. */
static inline const unsigned char *
plain_end(const unsigned char *p, const unsigned char *end)
{
#ifdef __SSE2__
	const __m128i q = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\');
	const __m128i sp = _mm_set1_epi8(0x20), del = _mm_set1_epi8(0x7f);

	while (end - p >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		/* Signed: bytes from 0x80 up are below 0x20 too. */
		int m = _mm_movemask_epi8(_mm_or_si128(
		    _mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, bs)),
		    _mm_or_si128(_mm_cmplt_epi8(v, sp), _mm_cmpeq_epi8(v, del))));

		if (m)
			return p + __builtin_ctz((unsigned)m);
		p += 16;
	}
#else
	const unsigned long long ones = 0x0101010101010101ull;
	const unsigned long long high = 0x8080808080808080ull;
	unsigned long long w, x, y;

	while (end - p >= 8) {
		memcpy(&w, p, 8);
		x = w ^ ones * '"';
		y = w ^ ones * '\\';
		/* Above 0x7e, below 0x20, a quote, a backslash (bit tricks of
		 * "Bit Twiddling Hacks"; a flag can be false only above a true
		 * one, so the bytes are looked at one by one from there). */
		if (((w | ((w & ~high) + ones)) & high) | ((w - ones * 0x20) & ~w & high) |
		    ((x - ones) & ~x & high) | ((y - ones) & ~y & high))
			break;
		p += 8;
	}
#endif
	while (p < end && !special[*p])
		p++;
	return p;
}

/* The writer appends a byte or a few at a time: keep the common case
 * (room in the buffer) out of buf.c's calls. */
static inline void
put_c(struct buf *b, char c)
{
	if (b->len + 1 < b->cap) {
		b->s[b->len++] = c;
		b->s[b->len] = '\0';
	} else {
		buf_putc(b, c);
	}
}

static inline void
put_n(struct buf *b, const char *s, size_t n)
{
	if (b->len + n < b->cap) {
		memcpy(b->s + b->len, s, n);
		b->len += n;
		b->s[b->len] = '\0';
	} else {
		buf_add(b, s, n);
	}
}

#define PUT_LIT(b, lit) put_n((b), (lit), sizeof(lit) - 1)

void
kf_json_quote(struct buf *b, const char *str, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, run, k;

	put_c(b, '"');
	while (i < n) {
		unsigned c;

		run = i;
		i = (size_t)(plain_end(s + i, s + n) - s);
		if (i > run)
			put_n(b, (const char *)s + run, i - run);
		if (i == n)
			break;
		switch (c = s[i]) {
		case '"': PUT_LIT(b, "\\\""); i++; continue;
		case '\\': PUT_LIT(b, "\\\\"); i++; continue;
		case '\n': PUT_LIT(b, "\\n"); i++; continue;
		case '\t': PUT_LIT(b, "\\t"); i++; continue;
		case '\r': PUT_LIT(b, "\\r"); i++; continue;
		}
		if (c < 0x20 || c == 0x7f) {
			char u[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };

			put_n(b, u, sizeof u);
			i++;
		} else if (c == 0xc0 && i + 1 < n && s[i + 1] == 0x80) {
			PUT_LIT(b, "\\u0000");
			i += 2;
		} else if ((k = utf8_len(s + i, n - i)) > 0) {
			put_n(b, (const char *)s + i, k);
			i += k;
		} else {
			PUT_LIT(b, "\\ufffd");
			i++;
		}
	}
	put_c(b, '"');
}

/* The digits of v (v < 10^19) at the end of the 24 bytes at end; returns
 * where they start. */
static char *
utoa(char *end, unsigned long long v)
{
	char *p = end;

	do
		*--p = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	return p;
}

/* A finite non-integer in [1e-4, 1e15) that k decimals show exactly: the
 * text %.15g would print, without printf. d equals m / 10^k when that
 * quotient (correctly rounded) is d; m < 10^15 keeps it within the 15
 * significant digits that %.15g rounds to, so both print the same. */
static size_t
short_decimal(char *out, double d)
{
	static const double p10[] = { 1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7,
		1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14 };
	double a = fabs(d);
	char tmp[24], *q, *o = out;
	unsigned long long m;
	size_t nd;
	int k;

	if (!(a >= 1e-4 && a < 1e15))
		return 0;
	for (k = 1; k < 15; k++) {
		double sc = a * p10[k];

		if (sc >= 1e15)
			return 0;
		m = (unsigned long long)llround(sc);
		if ((double)m / p10[k] == a)
			break;
	}
	if (k == 15)
		return 0;
	while (m % 10 == 0 && k > 0)
		m /= 10, k--;
	q = utoa(tmp + sizeof tmp, m);
	nd = (size_t)(tmp + sizeof tmp - q);
	if (d < 0)
		*o++ = '-';
	if (nd <= (size_t)k) {
		*o++ = '0';
		*o++ = '.';
		memset(o, '0', (size_t)k - nd);
		o += (size_t)k - nd;
		memcpy(o, q, nd);
		o += nd;
	} else {
		memcpy(o, q, nd - (size_t)k);
		o += nd - (size_t)k;
		if (k > 0) {
			*o++ = '.';
			memcpy(o, q + nd - (size_t)k, (size_t)k);
			o += k;
		}
	}
	return (size_t)(o - out);
}

/* NaN and infinities are not JSON: null. Integers below 10^15 as such,
 * others in the fewest digits (15, else 17) that read back the same. */
static void
put_number(struct buf *b, double d)
{
	char tmp[64], *p;
	size_t n;

	if (isnan(d) || isinf(d)) {
		PUT_LIT(b, "null");
		return;
	}
	if (d == floor(d) && fabs(d) < 1e15) {
		p = utoa(tmp + sizeof tmp, (unsigned long long)fabs(d));
		if (signbit(d))
			*--p = '-';
		put_n(b, p, (size_t)(tmp + sizeof tmp - p));
		return;
	}
	if ((n = short_decimal(tmp, d)) > 0) {
		put_n(b, tmp, n);
		return;
	}
	snprintf(tmp, sizeof tmp, "%.15g", d);
	if (strtod(tmp, NULL) != d)
		snprintf(tmp, sizeof tmp, "%.17g", d);
	put_n(b, tmp, strlen(tmp));
}

/* Append v to b; with f, hand b's bytes to f whenever they pass a few
 * pages, so that writing a big record never holds a second copy of it. */
static void
put_value(struct buf *b, FILE *f, const cJSON *v)
{
	const cJSON *c;

	if (v == NULL) {
		PUT_LIT(b, "null");
		return;
	}
	switch (v->type & 0xff) {
	case cJSON_False: PUT_LIT(b, "false"); break;
	case cJSON_True: PUT_LIT(b, "true"); break;
	case cJSON_NULL: PUT_LIT(b, "null"); break;
	case cJSON_Number: put_number(b, v->valuedouble); break;
	case cJSON_Raw:
		if (v->valuestring == NULL) {
			PUT_LIT(b, "null");
		} else if (f && strlen(v->valuestring) > 1 << 16) {
			/* A big member kept as text: no copy of it in b. */
			fwrite_unlocked(b->s, 1, b->len, f);
			b->len = 0;
			fputs_unlocked(v->valuestring, f);
		} else {
			put_n(b, v->valuestring, strlen(v->valuestring));
		}
		break;
	case cJSON_String:
		kf_json_quote(b, v->valuestring ? v->valuestring : "",
		    v->valuestring ? strlen(v->valuestring) : 0);
		break;
	case cJSON_Array:
	case cJSON_Object:
		put_c(b, (v->type & 0xff) == cJSON_Array ? '[' : '{');
		for (c = v->child; c; c = c->next) {
			if ((v->type & 0xff) == cJSON_Object) {
				const char *k = c->string ? c->string : "";

				kf_json_quote(b, k, strlen(k));
				put_c(b, ':');
			}
			put_value(b, f, c);
			if (c->next)
				put_c(b, ',');
			if (f && b->len >= 1 << 16) {
				fwrite_unlocked(b->s, 1, b->len, f);
				b->len = 0;
			}
		}
		put_c(b, (v->type & 0xff) == cJSON_Array ? ']' : '}');
		break;
	default:
		PUT_LIT(b, "null");
	}
}

void
kf_json_buf(struct buf *b, const cJSON *v)
{
	put_value(b, NULL, v);
}

/* One buffer for every record a program writes: its capacity stays, so
 * writing allocates nothing once it has grown to 64 KiB and a string. */
void
kf_json_write(FILE *f, const cJSON *v)
{
	static struct buf b;

	if (b.cap == 0) {
		b.cap = (1 << 16) + 4096;
		b.s = xmalloc(b.cap);
	}
	b.len = 0;
	put_value(&b, f, v);
	fwrite_unlocked(b.s, 1, b.len, f);
	b.len = 0;
	/* A huge string grew it: give the memory back. */
	if (b.cap > 1 << 20)
		buf_free(&b);
}

char *
kf_bytes_dup(const char *s, size_t len)
{
	const char *z = memchr(s, '\0', len);
	size_t i, nul = 0;
	char *p, *q;

	if (z == NULL) {
		p = xmalloc(len + 1);
		memcpy(p, s, len);
		p[len] = '\0';
		return p;
	}
	for (i = (size_t)(z - s); i < len; i++)
		nul += s[i] == '\0';
	p = q = xmalloc(len + nul + 1);
	for (i = 0; i < len; i++) {
		if (s[i] == '\0') {
			*q++ = (char)0xc0;
			*q++ = (char)0x80;
		} else {
			*q++ = s[i];
		}
	}
	*q = '\0';
	return p;
}

/* Reading: a JSON parser that builds the same cJSON trees as cJSON's own
 * (freed with cJSON_Delete; the first child's prev is the last one), in
 * fewer allocations and without strtod for plain decimals, because every
 * stage reads every record whole. Stricter than cJSON: trailing bytes and
 * malformed numbers are errors. Kinder: \u0000 becomes C0 80, the way kf
 * keeps a NUL in a C string, and a lone UTF-16 surrogate becomes U+FFFD. */

#define MAX_DEPTH 1000		/* cJSON's nesting limit */
#define INTERN_MAX_LEN 64
#define INTERN_MAX 65536

/* Object keys repeat (ncu's metric names, "unit", "value"), and so do short
 * string values (units): short ones are kept once for the whole run and
 * shared, keys as cJSON_StringIsConst, values as cJSON_IsReference, which
 * cJSON_Delete leaves alone (nothing in kf changes a parsed string in
 * place). Bounded, so hostile input costs at most INTERN_MAX strings; past
 * that, they are allocated as cJSON would. */
static struct key {
	char *s;
	size_t len;
	unsigned long h;
} *keys;
static size_t nkeys, keycap;

static unsigned long
hash_bytes(const char *s, size_t n)
{
	unsigned long h = 2166136261u;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

static void
keys_grow(void)
{
	struct key *old = keys;
	size_t i, j, oldcap = keycap;

	keycap = keycap ? keycap * 2 : 1024;
	keys = xcalloc(keycap, sizeof *keys);
	for (i = 0; i < oldcap; i++) {
		if (old[i].s == NULL)
			continue;
		for (j = old[i].h & (keycap - 1); keys[j].s; j = (j + 1) & (keycap - 1))
			;
		keys[j] = old[i];
	}
	free(old);
}

/* The shared copy of the key s (n bytes, no NUL), or NULL. */
static char *
intern(const char *s, size_t n)
{
	unsigned long h;
	size_t j;

	if (n > INTERN_MAX_LEN || memchr(s, '\0', n))
		return NULL;
	if (keycap == 0)
		keys_grow();
	h = hash_bytes(s, n);
	for (j = h & (keycap - 1); keys[j].s; j = (j + 1) & (keycap - 1))
		if (keys[j].h == h && keys[j].len == n && memcmp(keys[j].s, s, n) == 0)
			return keys[j].s;
	if (nkeys >= INTERN_MAX)
		return NULL;
	if (2 * (nkeys + 1) > keycap) {
		keys_grow();
		return intern(s, n);
	}
	keys[j].s = xstrndup(s, n);
	keys[j].len = n;
	keys[j].h = h;
	nkeys++;
	return keys[j].s;
}

/* kf_json_parse_keep's paths, split: path i is seg[i][0..nseg[i]). */
#define KEEP_MAX 16
struct keep {
	int n;
	unsigned char nseg[KEEP_MAX];
	const char *seg[KEEP_MAX][KEEP_MAX];
	size_t len[KEEP_MAX][KEEP_MAX];
};

struct jp {
	const char *p, *end;
	int depth;
	const struct keep *keep;	/* NULL: keep nothing */
};

static void *
jalloc(size_t n)
{
	void *p = cJSON_malloc(n);

	if (p == NULL)
		kf_die(1, "out of memory (%zu bytes)", n);
	return p;
}

static cJSON *
new_item(int type)
{
	cJSON *c = jalloc(sizeof *c);

	memset(c, 0, sizeof *c);
	c->type = type;
	return c;
}

static void
skip_ws(struct jp *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' ||
	    *j->p == '\r'))
		j->p++;
}

static int
hex4(const char *s, unsigned *v)
{
	int i;

	*v = 0;
	for (i = 0; i < 4; i++) {
		unsigned c = (unsigned char)s[i];

		if (c >= '0' && c <= '9')
			c -= '0';
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			c = (c | 0x20) - 'a' + 10;
		else
			return 0;
		*v = *v << 4 | c;
	}
	return 1;
}

static char *
put_utf8(char *o, unsigned cp)
{
	if (cp == 0) {
		*o++ = (char)0xc0;
		*o++ = (char)0x80;
	} else if (cp < 0x80) {
		*o++ = (char)cp;
	} else if (cp < 0x800) {
		*o++ = (char)(0xc0 | cp >> 6);
		*o++ = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		*o++ = (char)(0xe0 | cp >> 12);
		*o++ = (char)(0x80 | (cp >> 6 & 0x3f));
		*o++ = (char)(0x80 | (cp & 0x3f));
	} else {
		*o++ = (char)(0xf0 | cp >> 18);
		*o++ = (char)(0x80 | (cp >> 12 & 0x3f));
		*o++ = (char)(0x80 | (cp >> 6 & 0x3f));
		*o++ = (char)(0x80 | (cp & 0x3f));
	}
	return o;
}

/* The escapes of the n bytes at s (a string's inside) decoded into o, which
 * has room for n bytes: no escape is shorter than what it stands for.
 * Returns the end, or NULL for a bad escape. */
static char *
unescape(char *o, const char *s, size_t n)
{
	const char *end = s + n;
	unsigned cp, lo;

	while (s < end) {
		if (*s != '\\') {
			*o++ = *s++;
			continue;
		}
		if (++s == end)
			return NULL;
		switch (*s++) {
		case '"': *o++ = '"'; break;
		case '\\': *o++ = '\\'; break;
		case '/': *o++ = '/'; break;
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 't': *o++ = '\t'; break;
		case 'u':
			if (end - s < 4 || !hex4(s, &cp))
				return NULL;
			s += 4;
			if (cp >= 0xd800 && cp <= 0xdbff && end - s >= 6 && s[0] == '\\' &&
			    s[1] == 'u' && hex4(s + 2, &lo) && lo >= 0xdc00 && lo <= 0xdfff) {
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				s += 6;
			} else if (cp >= 0xd800 && cp <= 0xdfff) {
				cp = 0xfffd;
			}
			o = put_utf8(o, cp);
			break;
		default:
			return NULL;
		}
	}
	return o;
}

/* Whether the 8 bytes of w hold the byte c (the bit trick of "Bit
 * Twiddling Hacks"). */
static inline unsigned long long
has_byte(unsigned long long w, unsigned char c)
{
	unsigned long long x = w ^ 0x0101010101010101ull * c;

	return (x - 0x0101010101010101ull) & ~x & 0x8080808080808080ull;
}

/* The first quote or backslash from p on, 16 or 8 bytes at a time (as
 * plain_end); or end. */
static const char *
str_end(const char *p, const char *end)
{
	unsigned long long w;

#ifdef __SSE2__
	const __m128i q = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\');

	while (end - p >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		int m = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, q),
		    _mm_cmpeq_epi8(v, bs)));

		if (m)
			return p + __builtin_ctz((unsigned)m);
		p += 16;
	}
#endif
	while (end - p >= 8) {
		memcpy(&w, p, 8);
		if (has_byte(w, '"') | has_byte(w, '\\'))
			break;
		p += 8;
	}
	while (p < end && *p != '"' && *p != '\\')
		p++;
	return p;
}

/* A string at j->p (its opening quote): its bytes in a new allocation,
 * *shared set when it is an interned key. NULL when malformed. */
static char *
parse_str(struct jp *j, int key, int *shared)
{
	const char *s = ++j->p, *p = s;
	int esc = 0;
	char *out, *e;
	size_t n;

	for (;;) {
		p = str_end(p, j->end);
		if (p >= j->end)
			return NULL;
		if (*p == '"')
			break;
		if (p + 1 >= j->end)
			return NULL;
		esc = 1;
		p += 2;
	}
	n = (size_t)(p - s);
	j->p = p + 1;
	*shared = 0;
	if (key && !esc && (out = intern(s, n)) != NULL) {
		*shared = 1;
		return out;
	}
	out = jalloc(n + 1);
	if (!esc) {
		memcpy(out, s, n);
		e = out + n;
	} else if ((e = unescape(out, s, n)) == NULL) {
		cJSON_free(out);
		return NULL;
	}
	*e = '\0';
	return out;
}

/* A number at j->p: kf_decimal_exact for plain decimals, strtod else. */
static int
parse_num(struct jp *j, double *d)
{
	const char *s = j->p, *p = s, *end = j->end;
	unsigned long long m = 0;
	int neg = 0, nd = 0, e10 = 0, ex = 0, eneg = 0, exact = 1;
	char tmp[64], *big;

	if (p < end && *p == '-')
		neg = 1, p++;
	if (p >= end || *p < '0' || *p > '9')
		return 0;
	if (*p == '0') {
		p++;
	} else {
		for (; p < end && *p >= '0' && *p <= '9'; p++) {
			if (nd < 19)
				m = m * 10 + (unsigned)(*p - '0'), nd++;
			else
				exact = 0, e10++;
		}
	}
	if (p < end && *p == '.') {
		if (++p >= end || *p < '0' || *p > '9')
			return 0;
		for (; p < end && *p >= '0' && *p <= '9'; p++) {
			if (m == 0 && *p == '0') {
				e10--;
			} else if (nd < 19) {
				m = m * 10 + (unsigned)(*p - '0'), nd++, e10--;
			} else {
				exact = 0;
			}
		}
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			eneg = *p++ == '-';
		if (p >= end || *p < '0' || *p > '9')
			return 0;
		for (; p < end && *p >= '0' && *p <= '9'; p++)
			if (ex < 100000)
				ex = ex * 10 + (*p - '0');
		e10 += eneg ? -ex : ex;
	}
	j->p = p;
	if (exact && kf_decimal_exact(m, nd, e10, neg, d))
		return 1;
	if ((size_t)(p - s) < sizeof tmp) {
		memcpy(tmp, s, (size_t)(p - s));
		tmp[p - s] = '\0';
		*d = strtod(tmp, NULL);
	} else {
		big = xstrndup(s, (size_t)(p - s));
		*d = strtod(big, NULL);
		free(big);
	}
	return 1;
}

static int
literal(struct jp *j, const char *word, size_t n)
{
	if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n) != 0)
		return 0;
	j->p += n;
	return 1;
}

static cJSON *parse_value(struct jp *, unsigned);

/* Keeping a member as text (kf_json_parse_keep): only when the text is
 * what kf_json_write would write for its tree, so that writing it as it is
 * gives the same bytes. canon_* move j->p past what they take, and return
 * 0 for anything else: blanks, escapes the writer would not write, invalid
 * UTF-8, numbers it would write otherwise, bad JSON. */

static int
canon_str(struct jp *j)
{
	const unsigned char *p = (const unsigned char *)j->p + 1;
	const unsigned char *end = (const unsigned char *)j->end;
	unsigned v;
	size_t k;

	for (;;) {
		p = plain_end(p, end);
		if (p >= end)
			return 0;
		if (*p == '"')
			break;
		if (*p == '\\') {
			if (end - p < 2)
				return 0;
			if (p[1] == '"' || p[1] == '\\' || p[1] == 'n' || p[1] == 't' ||
			    p[1] == 'r') {
				p += 2;
				continue;
			}
			/* \u00XX in lower case, for the controls the writer
			 * does not name and DEL. */
			if (end - p < 6 || p[1] != 'u' || p[2] != '0' || p[3] != '0' ||
			    (p[4] >= 'A' && p[4] <= 'F') || (p[5] >= 'A' && p[5] <= 'F') ||
			    !hex4((const char *)p + 2, &v) ||
			    !((v < 0x20 && v != '\n' && v != '\t' && v != '\r') || v == 0x7f))
				return 0;
			p += 6;
			continue;
		}
		if (*p < 0x80 || (k = utf8_len(p, (size_t)(end - p))) == 0)
			return 0;
		p += k;
	}
	j->p = (const char *)p + 1;
	return 1;
}

/* Whether the number text [s, e) (valid JSON) is what put_number writes for
 * its value, without writing it: 1 or 0, -1 when only writing it can tell.
 * Up to 15 significant digits name one double each (DBL_DIG), so such an
 * integer, or a decimal in [1e-4, 1e15) with no trailing zero, is what
 * put_number (short_decimal) writes; exponents and longer ones are left to
 * it. */
static int
canon_num_fast(const char *s, const char *e)
{
	const char *p = s + (*s == '-'), *i0 = p, *f0;
	size_t ni, nf, z = 0;

	while (p < e && *p >= '0' && *p <= '9')
		p++;
	ni = (size_t)(p - i0);
	if (p == e)
		return ni <= 15 ? 1 : -1;
	if (*p != '.')
		return -1;
	f0 = ++p;
	while (p < e && *p >= '0' && *p <= '9')
		p++;
	if (p != e)
		return -1;
	nf = (size_t)(p - f0);
	if (e[-1] == '0')
		return 0;
	if (ni == 1 && *i0 == '0') {
		while (f0 + z < e && f0[z] == '0')
			z++;
		return z <= 3 && nf <= 14 ? 1 : -1;
	}
	return ni + nf <= 15 ? 1 : -1;
}

/* The end of the JSON number at p (-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][-+]?[0-9]+)?,
 * taken as parse_num takes it: "01" is "0" and a "1" after it), or NULL. */
static const char *
num_end(const char *p, const char *end)
{
	if (p < end && *p == '-')
		p++;
	if (p >= end || *p < '0' || *p > '9')
		return NULL;
	if (*p == '0')
		p++;
	else
		while (p < end && *p >= '0' && *p <= '9')
			p++;
	if (p < end && *p == '.') {
		if (++p >= end || *p < '0' || *p > '9')
			return NULL;
		while (p < end && *p >= '0' && *p <= '9')
			p++;
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		if (++p < end && (*p == '+' || *p == '-'))
			p++;
		if (p >= end || *p < '0' || *p > '9')
			return NULL;
		while (p < end && *p >= '0' && *p <= '9')
			p++;
	}
	return p;
}

int
kf_json_number_written(const char *s, size_t n)
{
	return num_end(s, s + n) == s + n && canon_num_fast(s, s + n) == 1;
}

static int
canon_value(struct jp *j)
{
	static struct buf nb;
	const char *s = j->p, *e;
	int obj, fast;
	double d;

	if (j->p >= j->end)
		return 0;
	switch (*j->p) {
	case '{':
	case '[':
		obj = *j->p == '{';
		if (++j->depth > MAX_DEPTH)
			return 0;
		j->p++;
		if (j->p < j->end && *j->p == (obj ? '}' : ']')) {
			j->p++;
			j->depth--;
			return 1;
		}
		for (;;) {
			if (obj && (j->p >= j->end || *j->p != '"' || !canon_str(j) ||
			    j->p >= j->end || *j->p++ != ':'))
				return 0;
			if (!canon_value(j) || j->p >= j->end)
				return 0;
			if (*j->p == ',') {
				j->p++;
				continue;
			}
			if (*j->p++ != (obj ? '}' : ']'))
				return 0;
			j->depth--;
			return 1;
		}
	case '"':
		return canon_str(j);
	case 't':
		return literal(j, "true", 4);
	case 'f':
		return literal(j, "false", 5);
	case 'n':
		return literal(j, "null", 4);
	default:
		/* Most numbers tell from their text alone; converting is for
		 * the rest. */
		if ((e = num_end(s, j->end)) == NULL)
			return 0;
		if ((fast = canon_num_fast(s, e)) >= 0) {
			j->p = e;
			return fast;
		}
		if (!parse_num(j, &d))
			return 0;
		nb.len = 0;
		put_number(&nb, d);
		return nb.len == (size_t)(j->p - s) && memcmp(nb.s, s, nb.len) == 0;
	}
}

/* The value at j->p as a cJSON_Raw item when canon_value takes it. */
static cJSON *
keep_value(struct jp *j)
{
	struct jp k = *j;
	cJSON *v;

	if (!canon_value(&k))
		return NULL;
	v = new_item(cJSON_Raw);
	v->valuestring = jalloc((size_t)(k.p - j->p) + 1);
	memcpy(v->valuestring, j->p, (size_t)(k.p - j->p));
	v->valuestring[k.p - j->p] = '\0';
	j->p = k.p;
	return v;
}

/* Which of the paths in live (a bit each) go on through member key of an
 * object (key NULL: an element of an array) at depth d; *keep set when one
 * ends there. */
static unsigned
keep_next(const struct keep *k, unsigned live, int d, const char *key, int *keep)
{
	unsigned next = 0;
	int i;

	*keep = 0;
	for (i = 0; live; i++, live >>= 1) {
		const char *sg;
		size_t n;

		if (!(live & 1) || d >= k->nseg[i])
			continue;
		sg = k->seg[i][d];
		n = k->len[i][d];
		if (!(n == 1 && sg[0] == '*') &&
		    (key == NULL || strlen(key) != n || memcmp(key, sg, n) != 0))
			continue;
		if (d + 1 == k->nseg[i])
			*keep = 1;
		else
			next |= 1u << i;
	}
	return next;
}

/* The members of an array or object at j->p (its opening bracket); live:
 * the keep paths that reach it. */
static cJSON *
parse_container(struct jp *j, int obj, unsigned live)
{
	cJSON *c = new_item(obj ? cJSON_Object : cJSON_Array), *last = NULL, *v;
	char close = obj ? '}' : ']';
	int d = j->depth;

	if (++j->depth > MAX_DEPTH)
		goto bad;
	j->p++;
	skip_ws(j);
	if (j->p < j->end && *j->p == close) {
		j->p++;
		j->depth--;
		return c;
	}
	for (;;) {
		char *key = NULL;
		int shared = 0;
		unsigned next;

		if (obj) {
			if (j->p >= j->end || *j->p != '"' ||
			    (key = parse_str(j, 1, &shared)) == NULL)
				goto bad;
			skip_ws(j);
			if (j->p >= j->end || *j->p != ':') {
				if (!shared)
					cJSON_free(key);
				goto bad;
			}
			j->p++;
			skip_ws(j);
		}
		v = NULL;
		next = 0;
		if (live) {
			int keep;

			next = keep_next(j->keep, live, d, key, &keep);
			if (keep)
				v = keep_value(j);
		}
		if (v == NULL && (v = parse_value(j, next)) == NULL) {
			if (key && !shared)
				cJSON_free(key);
			goto bad;
		}
		v->string = key;
		if (shared)
			v->type |= cJSON_StringIsConst;
		if (last) {
			last->next = v;
			v->prev = last;
		} else {
			c->child = v;
		}
		last = v;
		c->child->prev = last;
		skip_ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			skip_ws(j);
			continue;
		}
		if (j->p < j->end && *j->p == close) {
			j->p++;
			j->depth--;
			return c;
		}
		goto bad;
	}
bad:
	cJSON_Delete(c);
	return NULL;
}

static cJSON *
parse_value(struct jp *j, unsigned live)
{
	cJSON *v;
	double d;
	int shared;

	if (j->p >= j->end)
		return NULL;
	switch (*j->p) {
	case '{':
		return parse_container(j, 1, live);
	case '[':
		return parse_container(j, 0, live);
	case '"':
		v = new_item(cJSON_String);
		if ((v->valuestring = parse_str(j, 1, &shared)) == NULL) {
			cJSON_Delete(v);
			return NULL;
		}
		/* Short values repeat too (units, "null"-like words): shared
		 * like keys; cJSON_Delete leaves a reference's string alone. */
		if (shared)
			v->type |= cJSON_IsReference;
		return v;
	case 't':
		return literal(j, "true", 4) ? new_item(cJSON_True) : NULL;
	case 'f':
		return literal(j, "false", 5) ? new_item(cJSON_False) : NULL;
	case 'n':
		return literal(j, "null", 4) ? new_item(cJSON_NULL) : NULL;
	default:
		if (!parse_num(j, &d))
			return NULL;
		v = new_item(cJSON_Number);
		v->valuedouble = d;
		/* As cJSON does: valueint saturates. */
		if (d >= INT_MAX)
			v->valueint = INT_MAX;
		else if (d <= (double)INT_MIN)
			v->valueint = INT_MIN;
		else
			v->valueint = (int)d;
		return v;
	}
}

cJSON *
kf_json_parse(const char *s, size_t n)
{
	return kf_json_parse_keep(s, n, NULL);
}

cJSON *
kf_json_parse_keep(const char *s, size_t n, const char *const *paths)
{
	size_t stop;

	return kf_json_parse_stop(s, n, paths, &stop);
}

cJSON *
kf_json_parse_stop(const char *s, size_t n, const char *const *paths, size_t *stop)
{
	struct jp j = { s, s + n, 0, NULL };
	struct keep k;
	unsigned live = 0;
	cJSON *v;

	if (paths) {
		memset(&k, 0, sizeof k);
		for (; paths[k.n] && k.n < KEEP_MAX; k.n++) {
			const char *p = paths[k.n], *sl = p - 1;
			int i = k.n, ns = 0;

			do {
				p = sl + 1;
				sl = strchr(p, '/');
				k.seg[i][ns] = p;
				k.len[i][ns++] = sl ? (size_t)(sl - p) : strlen(p);
			} while (sl && ns < KEEP_MAX);
			if (sl == NULL) {	/* a longer path keeps nothing */
				k.nseg[i] = (unsigned char)ns;
				live |= 1u << i;
			}
		}
		j.keep = &k;
	}
	skip_ws(&j);
	v = parse_value(&j, live);
	if (v)
		skip_ws(&j);
	*stop = (size_t)(j.p - s);
	if (v && j.p != j.end) {
		cJSON_Delete(v);
		return NULL;
	}
	return v;
}

cJSON *
kf_json_lazy_item(const cJSON *parent_c, const cJSON *item_c)
{
	/* The tree is the caller's, never const itself: only its reader
	 * sees it as such. */
	cJSON *parent = (cJSON *)parent_c, *item = (cJSON *)item_c, *t;

	if (!cJSON_IsRaw(item) || item->valuestring == NULL)
		return item;
	/* It was kept only when it parses. */
	if ((t = kf_json_parse(item->valuestring, strlen(item->valuestring))) == NULL)
		return item;
	t->string = item->string;
	t->type |= item->type & cJSON_StringIsConst;
	item->string = NULL;
	item->type &= ~cJSON_StringIsConst;
	cJSON_ReplaceItemViaPointer(parent, item, t);
	return t;
}

cJSON *
kf_json_lazy(const cJSON *o, const char *key)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return v ? kf_json_lazy_item(o, v) : NULL;
}

void
kf_json_unkeep_all(cJSON *v)
{
	cJSON *c;

	for (c = v ? v->child : NULL; c; c = c->next) {
		if (cJSON_IsRaw(c))
			c = kf_json_lazy_item(v, c);
		else
			kf_json_unkeep_all(c);
	}
}
