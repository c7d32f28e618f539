/* kf: kf-report's roofline chart (log-log): the memory roof, the compute
 * roofs, the ridge, the focus kernel and the other top kernels as points.
 *
 * It reads the analysis core's roof (analysis.focus.roof and
 * analysis.kernels[].roof: units, memory roof, compute roofs, points; see
 * lib/analysis/analysis.h), whatever the profiler; a record without one
 * gets the GPU's roofs from share/kf/gpus.json alone. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "gpu_roofs.h"
#include "html.h"
#include "record.h"
#include "report.h"

enum { RW = 640, RH = 400, ML = 70, MR = 20, MT = 30, MB = 50, MAXPT = 24, MAXCEIL = 4 };

struct roof_chart {
	const char *xunit, *yunit;
	double bw;			/* bytes/s: the memory roof's slope */
	int nceil, npt;
	struct { char name[32]; double peak, ridge; } ceil[MAXCEIL];
	struct { const char *name; char tag[48]; double x, y, pct; int focus; } pt[MAXPT];
	const char *note;		/* why there are no points, or NULL */
};

/* A compute roof; one of the same height as another joins its name. */
static void
add_ceil(struct roof_chart *r, const char *name, double peak)
{
	int i;

	if (r->nceil == MAXCEIL || !(peak > 0) || !isfinite(peak))
		return;
	for (i = 0; i < r->nceil; i++)
		if (fabs(r->ceil[i].peak - peak) <= 1e-9 * peak) {
			size_t n = strlen(r->ceil[i].name);

			snprintf(r->ceil[i].name + n, sizeof r->ceil[0].name - n, "/%s", name);
			return;
		}
	snprintf(r->ceil[r->nceil].name, sizeof r->ceil[0].name, "%s", name);
	r->ceil[r->nceil].ridge = peak / r->bw;
	r->ceil[r->nceil++].peak = peak;
}

static void
add_pt(struct roof_chart *r, const char *name, const char *tag, double x, double y, int focus)
{
	if (r->npt == MAXPT || !(x > 0) || !(y > 0) || !isfinite(x) || !isfinite(y))
		return;
	r->pt[r->npt].name = name ? name : "(no name)";
	snprintf(r->pt[r->npt].tag, sizeof r->pt[0].tag, "%s", tag);
	r->pt[r->npt].x = x;
	r->pt[r->npt].y = y;
	r->pt[r->npt].pct = NAN;
	r->pt[r->npt++].focus = focus;
}

/* The worker's GPU's memory roof (share/kf/gpus.json), where the record's
 * roof has none; with flops, its FP32 roof. */
static void
gpu_peaks(struct roof_chart *r, const cJSON *rec, const char *gpus_file, int flops)
{
	const cJSON *g = kf_gpu_roofs_find(kf_str(kf_obj(rec, "worker"), "gpu_name"), gpus_file, NULL);

	if (!(r->bw > 0) || !isfinite(r->bw))
		r->bw = kf_gpu_roof(g, "GPU_MEMORY_BYTE_READ") * 1e9;
	if (flops && r->nceil == 0 && r->bw > 0)
		add_ceil(r, "FP32", kf_gpu_roof(g, "FP32_TFLOPS") * 1e12);
}

/* The highest point of a kernel's roof: the one its verdict rests on. */
static const cJSON *
top_point(const cJSON *ro)
{
	const cJSON *p, *best = NULL;

	cJSON_ArrayForEach(p, kf_arr(ro, "points"))
		if (best == NULL || kf_num(p, "performance", NAN) > kf_num(best, "performance", NAN))
			best = p;
	return best;
}

static int
is_focus(const cJSON *k, const cJSON *f)
{
	const char *role = kf_str(k, "role");

	return k == f || (role && strcmp(role, "focus") == 0) ||
	    (kf_str(k, "name") && kf_str(f, "name") && strcmp(kf_str(k, "name"), kf_str(f, "name")) == 0);
}

/* analysis.focus.roof, the core's (analysis.h): its units, memory roof,
 * compute roofs and every point of the focus kernel; the highest point of
 * each of the other top kernels with a roof. */
static int
core_roof(struct roof_chart *r, const cJSON *rec, const cJSON *an, const cJSON *ro,
    const char *gpus_file, int n)
{
	const cJSON *f = kf_report_focus(an), *c, *p, *k;

	r->xunit = kf_str(ro, "x_unit") ? kf_str(ro, "x_unit") : "?";
	r->yunit = kf_str(ro, "y_unit") ? kf_str(ro, "y_unit") : "?";
	r->bw = kf_num(ro, "memory_peak", NAN);
	if (!(r->bw > 0) || !isfinite(r->bw))
		gpu_peaks(r, rec, gpus_file, 0);
	if (!(r->bw > 0) || !isfinite(r->bw))
		return 0;
	cJSON_ArrayForEach(c, kf_arr(ro, "compute_peaks")) {
		int had = r->nceil;

		add_ceil(r, kf_str(c, "name") ? kf_str(c, "name") : "compute", kf_num(c, "peak", NAN));
		if (r->nceil > had && kf_num(c, "ridge", NAN) > 0)
			r->ceil[r->nceil - 1].ridge = kf_num(c, "ridge", NAN);
	}
	if (r->nceil == 0 && strcmp(r->yunit, "FLOP/s") == 0)
		gpu_peaks(r, rec, gpus_file, 1);
	cJSON_ArrayForEach(p, kf_arr(ro, "points")) {
		const char *label = kf_str(p, "label");
		char tag[48];
		int had = r->npt;

		snprintf(tag, sizeof tag, "focus%s%.8s", label && *label ? " " : "", label ? label : "");
		add_pt(r, kf_report_kname(f), tag, kf_num(p, "intensity", NAN),
		    kf_num(p, "performance", NAN), 1);
		if (r->npt > had)
			r->pt[r->npt - 1].pct = kf_num(p, "pct_of_roof", NAN);
	}
	cJSON_ArrayForEach(k, kf_arr(an, "kernels")) {
		if (n-- <= 0)
			break;
		if (!is_focus(k, f) && (p = top_point(kf_obj(k, "roof"))) != NULL)
			add_pt(r, kf_report_kname(k), kf_str(p, "label") ? kf_str(p, "label") : "",
			    kf_num(p, "intensity", NAN), kf_num(p, "performance", NAN), 0);
	}
	if (r->npt == 0 && cJSON_GetArraySize(kf_arr(ro, "points")) > 0 &&
	    kf_num(cJSON_GetArrayItem(kf_arr(ro, "points"), 0), "performance", NAN) == 0)
		r->note = "the focus kernel did no floating-point work (0 FLOP/s): "
		    "it has no point on this roofline";
	else if (r->npt == 0)
		r->note = "analysis.focus.roof holds no point with a performance and an intensity";
	return r->nceil > 0;
}

/* No roof in the record: the GPU's roofs (share/kf/gpus.json), no points. */
static int
gpu_roof(struct roof_chart *r, const cJSON *rec, const char *gpus_file)
{
	r->xunit = "FLOP/byte";
	r->yunit = "FLOP/s";
	gpu_peaks(r, rec, gpus_file, 1);
	r->note = "this record holds no achieved FLOP/s (analysis.focus.roof): "
	    "the GPU's roofs only";
	return r->bw > 0 && isfinite(r->bw) && r->nceil;
}

static void
tick_label(struct buf *b, double x, double y, const char *anchor, double v)
{
	struct buf t = { 0 };

	html_si(&t, v, "");
	buf_printf(b, "<text class=\"lab\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%s</text>",
	    x, y, anchor, t.s);
	buf_free(&t);
}

/* A tick every decade, or every few when there are many (at most 8 ticks). */
static double
tick_step(const struct logaxis *a)
{
	double decades = log10(a->hi / a->lo);

	return pow(10, decades <= 8 ? 1 : ceil(decades / 8));
}

static void
axes(struct buf *b, const struct roof_chart *r, const struct logaxis *xa, const struct logaxis *ya)
{
	double xstep = tick_step(xa), ystep = tick_step(ya), v;
	char t[96];

	for (v = xa->lo; v <= xa->hi * 1.001; v *= xstep) {
		svg_line(b, logaxis_px(xa, v), MT, logaxis_px(xa, v), RH - MB, "grid");
		tick_label(b, logaxis_px(xa, v), RH - MB + 15, "middle", v);
	}
	for (v = ya->lo; v <= ya->hi * 1.001; v *= ystep) {
		svg_line(b, ML, logaxis_px(ya, v), RW - MR, logaxis_px(ya, v), "grid");
		tick_label(b, ML - 4, logaxis_px(ya, v) + 4, "end", v);
	}
	svg_line(b, ML, MT, ML, RH - MB, "axis");
	svg_line(b, ML, RH - MB, RW - MR, RH - MB, "axis");
	snprintf(t, sizeof t, "Arithmetic intensity (%s)", r->xunit);
	svg_text(b, (ML + RW - MR) / 2.0, RH - 12, "middle", "lab", t);
	snprintf(t, sizeof t, "Performance (%s)", r->yunit);
	buf_printf(b, "<text class=\"lab\" transform=\"translate(14 %.1f) rotate(-90)\" "
	    "text-anchor=\"middle\">%s</text>", (MT + RH - MB) / 2.0, t);
}

/* The memory roof up to the highest ridge, each compute roof from its ridge. */
static void
roofs(struct buf *b, const struct roof_chart *r, const struct logaxis *xa, const struct logaxis *ya)
{
	struct buf t = { 0 };
	int i;

	for (i = 0; i < r->nceil; i++) {
		double ridge = r->ceil[i].peak / r->bw;
		double x0 = fmax(xa->lo, ya->lo / r->bw);

		svg_line(b, logaxis_px(xa, x0), logaxis_px(ya, x0 * r->bw), logaxis_px(xa, ridge),
		    logaxis_px(ya, r->ceil[i].peak), "roof");
		svg_line(b, logaxis_px(xa, ridge), logaxis_px(ya, r->ceil[i].peak), RW - MR,
		    logaxis_px(ya, r->ceil[i].peak), "roof");
		svg_line(b, logaxis_px(xa, ridge), logaxis_px(ya, r->ceil[i].peak),
		    logaxis_px(xa, ridge), RH - MB, "ridge");
		buf_reset(&t);
		buf_printf(&t, "%s peak ", r->ceil[i].name);
		html_si(&t, r->ceil[i].peak, r->yunit);
		buf_printf(&t, ", ridge %.4g", r->ceil[i].ridge);
		svg_text(b, RW - MR - 2, logaxis_px(ya, r->ceil[i].peak) - 4, "end", "lab", t.s);
	}
	buf_reset(&t);
	html_si(&t, r->bw, "B/s");
	buf_printf(b, "<text class=\"lab\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"start\">memory %s</text>",
	    logaxis_px(xa, fmax(xa->lo, ya->lo / r->bw)) + 4, RH - MB - 6.0, t.s);
	buf_free(&t);
}

static void
points(struct buf *b, const struct roof_chart *r, const struct logaxis *xa,
    const struct logaxis *ya)
{
	int i;

	for (i = 0; i < r->npt; i++) {
		buf_printf(b, "<g class=\"point\"><title>");
		html_text(b, r->pt[i].name);
		buf_printf(b, "</title><circle class=\"pt%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"%d\"/>",
		    r->pt[i].focus ? " focus" : "", logaxis_px(xa, r->pt[i].x),
		    logaxis_px(ya, r->pt[i].y), r->pt[i].focus ? 6 : 4);
		buf_printf(b, "<text class=\"lab\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"start\">%d%s",
		    logaxis_px(xa, r->pt[i].x) + 8, logaxis_px(ya, r->pt[i].y) - 6, i + 1,
		    r->pt[i].tag[0] ? " " : "");
		html_text(b, r->pt[i].tag);	/* holds an ALU's name from the record */
		buf_puts(b, "</text></g>");
	}
}

static void
legend(struct buf *b, const struct roof_chart *r)
{
	int i;

	buf_puts(b, "<figcaption>");
	if (r->note) {
		buf_puts(b, "<span class=\"none\">");
		html_text(b, r->note);
		buf_puts(b, ".</span>");
	}
	if (r->npt)
		buf_puts(b, "<ol class=\"points\">");
	for (i = 0; i < r->npt; i++) {
		buf_puts(b, "<li>");
		html_text_max(b, r->pt[i].name, 90);
		buf_puts(b, r->pt[i].tag[0] ? " (" : "");
		html_text(b, r->pt[i].tag);
		buf_puts(b, r->pt[i].tag[0] ? ")" : "");
		buf_puts(b, ": ");
		html_si(b, r->pt[i].y, r->yunit);
		buf_printf(b, " at %.3g %s", r->pt[i].x, r->xunit);
		if (isfinite(r->pt[i].pct))
			buf_printf(b, ", %.3g%% of the roof", r->pt[i].pct);
		buf_puts(b, "</li>");
	}
	buf_puts(b, r->npt ? "</ol></figcaption>" : "</figcaption>");
}

static void
draw(struct buf *b, const struct roof_chart *r)
{
	double xs[MAXPT + MAXCEIL], ys[MAXPT + 2 * MAXCEIL];
	struct logaxis xa, ya;
	int i, nx = 0, ny = 0;

	for (i = 0; i < r->npt; i++) {
		xs[nx++] = r->pt[i].x;
		ys[ny++] = r->pt[i].y;
	}
	for (i = 0; i < r->nceil; i++) {
		xs[nx++] = r->ceil[i].peak / r->bw;
		ys[ny++] = r->ceil[i].peak;
	}
	logaxis_fit(&xa, xs, nx, ML, RW - MR);
	for (i = 0; i < r->nceil; i++)
		ys[ny++] = xa.lo * r->bw;
	logaxis_fit(&ya, ys, ny, RH - MB, MT);
	buf_puts(b, "<figure class=\"roofline\">");
	svg_begin(b, RW, RH, "roofline", "Roofline");
	svg_text(b, ML, 16, "start", "lab title", "Roofline (log-log)");
	axes(b, r, &xa, &ya);
	roofs(b, r, &xa, &ya);
	points(b, r, &xa, &ya);
	svg_end(b);
	legend(b, r);
	buf_puts(b, "</figure>\n");
}

void
kf_report_roofline(struct buf *b, const cJSON *rec, const cJSON *an, const char *gpus_file,
    int n)
{
	const cJSON *ro = kf_obj(kf_report_focus(an), "roof");
	struct roof_chart r;
	int ok;

	memset(&r, 0, sizeof r);
	ok = ro ? core_roof(&r, rec, an, ro, gpus_file, n) : gpu_roof(&r, rec, gpus_file);
	if (ok)
		draw(b, &r);
	else
		buf_puts(b, "<p class=\"none roofline-none\">No roofline data in this record.</p>");
}
