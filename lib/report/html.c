/* kf: HTML escaping, numbers with units and SVG primitives for kf-report. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "html.h"
#include "mem.h"

/* Length of the valid UTF-8 sequence at s (1 to 4), or 0 when it is not one. */
static size_t
utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];
	unsigned char lo = 0x80, hi = 0xBF;
	size_t n, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		n = 2;
	else if (c >= 0xE0 && c <= 0xEF)
		n = 3;
	else if (c >= 0xF0 && c <= 0xF4)
		n = 4;
	else
		return 0;
	if (c == 0xE0)
		lo = 0xA0;
	else if (c == 0xED)
		hi = 0x9F;
	else if (c == 0xF0)
		lo = 0x90;
	else if (c == 0xF4)
		hi = 0x8F;
	for (i = 1; i < n; i++, lo = 0x80, hi = 0xBF)
		if (s[i] < lo || s[i] > hi)
			return 0;
	return n;
}

static const char *
escape_of(unsigned char c)
{
	switch (c) {
	case '&': return "&amp;";
	case '<': return "&lt;";
	case '>': return "&gt;";
	case '"': return "&quot;";
	case '\'': return "&#39;";
	case '\t': case '\n': return NULL;
	}
	return c < 0x20 || c == 0x7F ? "\xEF\xBF\xBD" : NULL;
}

/* Write at most max characters of s; returns 1 when s was cut. */
static int
put_text(struct buf *b, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t chars = 0;

	while (*p) {
		/* C0 80 is how kf keeps a NUL byte: one U+FFFD, as for a control byte. */
		size_t n = p[0] == 0xC0 && p[1] == 0x80 ? 2 : utf8_len(p);
		const char *e = n == 1 ? escape_of(*p) : n == 0 || *p == 0xC0 ? "\xEF\xBF\xBD" : NULL;

		if (chars++ == max)
			return 1;
		if (e)
			buf_puts(b, e);
		else
			buf_add(b, (const char *)p, n);
		p += n ? n : 1;
	}
	return 0;
}

void
html_text(struct buf *b, const char *s)
{
	put_text(b, s, (size_t)-1);
}

void
html_words(struct buf *b, const char *s, size_t n)
{
	char *w = xstrndup(s, n), *c;

	for (c = w; *c; c++)
		if (*c == '_')
			*c = ' ';
	html_text(b, w);
	free(w);
}

void
html_text_max(struct buf *b, const char *s, size_t max)
{
	if (max == 0)
		return;
	if (html_chars(s) <= max) {
		html_text(b, s);
		return;
	}
	put_text(b, s, max - 1);
	buf_puts(b, "\xE2\x80\xA6");
}

size_t
html_chars(const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t chars = 0, n;

	for (; *p; p += n ? n : 1, chars++)
		n = p[0] == 0xC0 && p[1] == 0x80 ? 2 : utf8_len(p);
	return chars;
}

/* v to 4 significant digits without trailing zeros: "131.7", "2", "0.05". */
static void
put_sig(struct buf *b, double v)
{
	char s[64];

	snprintf(s, sizeof s, "%.4g", v);
	buf_puts(b, s);
}

void
html_ns(struct buf *b, double ns)
{
	static const struct { double div; const char *unit; } u[] = {
		{ 1e9, "s" }, { 1e6, "ms" }, { 1e3, "\xC2\xB5s" }, { 1, "ns" },
	};
	size_t i;

	if (!isfinite(ns)) {
		buf_puts(b, "n/a");
		return;
	}
	for (i = 0; i < 3 && fabs(ns) < u[i].div * 0.99995; i++)
		;
	put_sig(b, ns / u[i].div);
	buf_printf(b, " %s", u[i].unit);
}

void
html_si(struct buf *b, double v, const char *unit)
{
	static const char *const pre[] = { "", "k", "M", "G", "T", "P", "E" };
	int e = 0;

	if (!isfinite(v)) {
		buf_puts(b, "n/a");
		return;
	}
	/* Only large values get a prefix: 0.5 FLOP/byte, not 500 mFLOP/byte. */
	while (e < 6 && fabs(v) >= pow(10, 3 * (e + 1)) * 0.99995)
		e++;
	put_sig(b, v / pow(10, 3 * e));
	buf_printf(b, " %s", pre[e]);
	html_text(b, unit);
}

void
html_pct(struct buf *b, double pct)
{
	char s[64];

	if (!isfinite(pct)) {
		buf_puts(b, "n/a");
		return;
	}
	snprintf(s, sizeof s, "%.1f%%", pct);
	buf_puts(b, s);
}

void
svg_begin(struct buf *b, int w, int h, const char *cls, const char *label)
{
	buf_printf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"%s\" viewBox=\"0 0 %d %d\" "
	    "role=\"img\" aria-label=\"", cls, w, h);
	html_text(b, label);
	buf_puts(b, "\">");
}

void
svg_end(struct buf *b)
{
	buf_puts(b, "</svg>\n");
}

void
svg_line(struct buf *b, double x1, double y1, double x2, double y2, const char *cls)
{
	buf_printf(b, "<line class=\"%s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
	    cls, x1, y1, x2, y2);
}

void
svg_rect(struct buf *b, double x, double y, double w, double h, const char *cls)
{
	buf_printf(b, "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>",
	    cls, x, y, w < 0 ? 0 : w, h < 0 ? 0 : h);
}

void
svg_text(struct buf *b, double x, double y, const char *anchor, const char *cls, const char *s)
{
	buf_printf(b, "<text class=\"%s\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">",
	    cls, x, y, anchor);
	html_text(b, s);
	buf_puts(b, "</text>");
}

int
logaxis_fit(struct logaxis *a, const double *v, int n, double p0, double p1)
{
	double lo = INFINITY, hi = -INFINITY;
	int i;

	for (i = 0; i < n; i++) {
		if (!(v[i] > 0) || !isfinite(v[i]))
			continue;
		lo = fmin(lo, v[i]);
		hi = fmax(hi, v[i]);
	}
	if (!isfinite(lo))
		return 0;
	a->lo = pow(10, floor(log10(lo)) - (log10(lo) - floor(log10(lo)) < 0.3));
	a->hi = pow(10, ceil(log10(hi)) + (ceil(log10(hi)) - log10(hi) < 0.3));
	a->p0 = p0;
	a->p1 = p1;
	return 1;
}

double
logaxis_px(const struct logaxis *a, double v)
{
	double t = (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo));

	return a->p0 + t * (a->p1 - a->p0);
}
