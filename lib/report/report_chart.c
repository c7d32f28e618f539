/* kf: kf-report's bar charts: GPU time by kernel, the focus kernel's
 * percentages. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "html.h"
#include "mem.h"
#include "record.h"
#include "report.h"

enum { W = 540, BAR_X = 210, BAR_W = 220, ROW_H = 22, TOP = 26, AXIS_H = 40 };
enum { LABEL_CHARS = 32 };

/* The scale of an axis: its unit and a tick step of 1, 2 or 5 times 10^k. */
struct scale {
	double div, step, max;
	const char *unit;
};

static void
scale_fit(struct scale *s, double max, int kind)
{
	static const struct { double div; const char *unit; } tu[] = {
		{ 1e9, "s" }, { 1e6, "ms" }, { 1e3, "\xC2\xB5s" }, { 1, "ns" },
	};
	double m, p;
	size_t i = 0;

	s->div = 1;
	s->unit = kind == KF_BAR_RATIO ? "\xC3\x97" : "%";
	if (kind == KF_BAR_TIME) {
		while (i < 3 && max < tu[i].div)
			i++;
		s->div = tu[i].div;
		s->unit = tu[i].unit;
	}
	m = max > 0 ? max / s->div : 1;
	p = pow(10, floor(log10(m / 4)));
	s->step = m / 4 / p <= 1 ? p : m / 4 / p <= 2 ? 2 * p : m / 4 / p <= 5 ? 5 * p : 10 * p;
	s->max = ceil(m / s->step - 1e-9) * s->step;
	if (kind == KF_BAR_PCT && s->max > 100 && max <= 100)
		s->max = 100;
}

static void
axis(struct buf *b, const struct scale *s, double y, const char *title)
{
	char t[64];
	double v;

	svg_line(b, BAR_X, TOP - 4, BAR_X, y, "axis");
	svg_line(b, BAR_X, y, BAR_X + BAR_W, y, "axis");
	for (v = 0; v <= s->max + s->step / 2; v += s->step) {
		double x = BAR_X + BAR_W * v / s->max;

		svg_line(b, x, y, x, y + 4, "axis");
		snprintf(t, sizeof t, "%g", v);
		svg_text(b, x, y + 15, "middle", "lab", t);
	}
	snprintf(t, sizeof t, "%s (%s)", title, s->unit);
	svg_text(b, BAR_X + BAR_W / 2.0, y + 32, "middle", "lab", t);
}

static void
bar_row(struct buf *b, const struct kf_report_bar *r, const struct scale *s, double y, int kind)
{
	struct buf v = { 0 };

	buf_puts(b, "<g class=\"row\"><title>");
	html_text(b, r->full ? r->full : r->label);
	buf_puts(b, "</title>");
	buf_puts(b, "<text class=\"lab name\" x=\"0\" y=\"");
	buf_printf(b, "%.1f\" text-anchor=\"start\">", y + 15);
	html_text_max(b, r->label, LABEL_CHARS);
	buf_puts(b, "</text>");
	svg_rect(b, BAR_X, y + 3, BAR_W * (r->v / s->div) / s->max, ROW_H - 6, r->cls);
	if (kind == KF_BAR_TIME)
		html_ns(&v, r->v);
	else if (kind == KF_BAR_RATIO)
		buf_printf(&v, "%.3g\xC3\x97", r->v);
	else
		html_pct(&v, r->v);
	if (isfinite(r->pct)) {
		buf_puts(&v, " \xC2\xB7 ");
		html_pct(&v, r->pct);
	}
	buf_printf(b, "<text class=\"lab val\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"start\">%s</text></g>",
	    BAR_X + BAR_W * (r->v / s->div) / s->max + 4, y + 15, v.s);
	buf_free(&v);
}

void
kf_report_bars(struct buf *b, const char *cls, const char *title, const char *axis_title,
    struct kf_report_bar *r, int n, int kind)
{
	struct scale s;
	double max = 0;
	int i, h = TOP + n * ROW_H + AXIS_H;

	/* A hostile or broken record's NaN, infinity or negative time is drawn as 0. */
	for (i = 0; i < n; i++) {
		if (!isfinite(r[i].v) || r[i].v < 0)
			r[i].v = 0;
		max = fmax(max, r[i].v);
	}
	scale_fit(&s, max, kind);
	buf_printf(b, "<figure class=\"%s\">", cls);
	svg_begin(b, W, h, cls, title);
	svg_text(b, 0, 14, "start", "lab title", title);
	for (i = 0; i < n; i++)
		bar_row(b, &r[i], &s, TOP + i * ROW_H, kind);
	axis(b, &s, TOP + n * ROW_H, axis_title);
	if (kind == KF_BAR_RATIO)	/* no change */
		svg_line(b, BAR_X + BAR_W / s.max, TOP - 4, BAR_X + BAR_W / s.max, TOP + n * ROW_H, "one");
	svg_end(b);
	buf_puts(b, "</figure>\n");
}

/* The short name analysis.kernels gives the kernel called name. */
static const char *
short_of(const cJSON *an, const char *name)
{
	const cJSON *k;

	cJSON_ArrayForEach(k, kf_arr(an, "kernels")) {
		const char *n = kf_str(k, "name");

		if (n && name && strcmp(n, name) == 0)
			return kf_report_kname(k);
	}
	return name;
}

void
kf_report_time_chart(struct buf *b, const cJSON *an, int n)
{
	const cJSON *rk = kf_obj(an, "ranking"), *k;
	double total = kf_num(rk, "total_ns", NAN), shown = 0;
	int count = 0, all = 0;
	struct kf_report_bar *r;

	cJSON_ArrayForEach(k, kf_arr(rk, "kernels"))
		all++;
	if (all == 0) {
		buf_puts(b, "<p class=\"none\">No GPU time by kernel in this record.</p>");
		return;
	}
	r = xcalloc((size_t)(n < all ? n : all) + 1, sizeof *r);
	cJSON_ArrayForEach(k, kf_arr(rk, "kernels")) {
		if (count == n)
			break;
		r[count] = (struct kf_report_bar){ short_of(an, kf_str(k, "name")), kf_str(k, "name"),
		    kf_num(k, "total_ns", 0), kf_num(k, "share_pct", NAN), "bar" };
		if (r[count].label == NULL)
			r[count].label = "(no name)";
		shown += r[count++].v;
	}
	if (isfinite(total) && total - shown > 0.5)
		r[count++] = (struct kf_report_bar){ "all other kernels", NULL, total - shown,
		    100 * (total - shown) / total, "rest" };
	kf_report_bars(b, "time", "GPU time by kernel (all launches)", "GPU time", r, count, KF_BAR_TIME);
	free(r);
}

static const struct { const char *obj, *key, *label; } pcts[] = {
	{ "throughput", "compute_sm_pct", "Compute (SM) throughput" },
	{ "throughput", "memory_pct", "Memory throughput" },
	{ "throughput", "l1tex_pct", "L1/TEX throughput" },
	{ "throughput", "l2_pct", "L2 throughput" },
	{ "throughput", "dram_pct", "DRAM throughput" },
	{ "occupancy", "achieved_pct", "Achieved occupancy" },
	{ NULL, "thread_occupancy_pct", "Thread occupancy" },
	{ NULL, "gmem_bw_pct", "GPU memory bandwidth" },
	{ NULL, "slm_bw_pct", "SLM bandwidth" },
	{ NULL, "ve_stall_pct", "Vector engine stalled" },
	{ NULL, "xve_active_pct", "XVE active" },
	{ NULL, "xve_stalled_pct", "XVE stalled" },
	{ NULL, "xmx_active_pct", "XMX active" },
	{ NULL, "l3_busy_pct", "L3 busy" },
};

void
kf_report_pct_chart(struct buf *b, const cJSON *an)
{
	const cJSON *f = kf_report_focus(an);
	struct kf_report_bar r[sizeof pcts / sizeof *pcts];
	int n = 0;
	size_t i;

	for (i = 0; i < sizeof pcts / sizeof *pcts; i++) {
		const cJSON *o = pcts[i].obj ? kf_obj(f, pcts[i].obj) : f;
		double v = kf_num(o, pcts[i].key, NAN);

		if (isfinite(v))
			r[n++] = (struct kf_report_bar){ pcts[i].label, NULL, fmax(v, 0), NAN, "bar" };
	}
	if (n)
		kf_report_bars(b, "pct", "Focus kernel: share of peak, of time", "share", r, n, KF_BAR_PCT);
}
