/* kf: writing HTML and inline SVG safely, for kf-report.
 *
 * Every string that comes from a record goes through html_text(), which
 * escapes markup characters and turns invalid UTF-8 and control bytes into
 * U+FFFD: a record cannot add elements or attributes to the page. Numbers
 * are formatted here too, with their units. Everything is appended to a
 * struct buf the caller owns. */
#ifndef KF_HTML_H
#define KF_HTML_H

#include "buf.h"

/* s as HTML text or attribute value (quoted with "). */
void html_text(struct buf *b, const char *s);
/* The first n bytes of s, a record's key, in words: each '_' a space,
 * escaped as html_text escapes. */
void html_words(struct buf *b, const char *s, size_t n);
/* The same, cut to at most max characters (code points), with an ellipsis. */
void html_text_max(struct buf *b, const char *s, size_t max);
/* Characters (code points) in s, as html_text would write them. */
size_t html_chars(const char *s);

/* A duration in nanoseconds: "850 ns", "131.7 µs", "1.905 ms", "2.1 s". */
void html_ns(struct buf *b, double ns);
/* v with an SI prefix and a unit: "1.23 TFLOP/s", "456 GB/s", "0.5 FLOP/byte". */
void html_si(struct buf *b, double v, const char *unit);
/* A percentage: "81.3%". */
void html_pct(struct buf *b, double pct);

/* SVG: an image of w x h user units, scaled to the page's width; label is its
 * accessible name (escaped). */
void svg_begin(struct buf *b, int w, int h, const char *cls, const char *label);
void svg_end(struct buf *b);
void svg_line(struct buf *b, double x1, double y1, double x2, double y2, const char *cls);
void svg_rect(struct buf *b, double x, double y, double w, double h, const char *cls);
/* Text at (x, y); anchor "start", "middle" or "end"; s escaped. */
void svg_text(struct buf *b, double x, double y, const char *anchor, const char *cls,
    const char *s);

/* A logarithmic axis: values [lo, hi] (whole decades) onto pixels [p0, p1]. */
struct logaxis {
	double lo, hi, p0, p1;
};
/* Decades that hold every value in v (n of them, positive ones only) with a
 * margin; 0 when none is positive. */
int logaxis_fit(struct logaxis *a, const double *v, int n, double p0, double p1);
double logaxis_px(const struct logaxis *a, double v);

#endif
