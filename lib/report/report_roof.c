/* kf: kf-report's roofline chart (log-log): the memory roof, the compute
 * roofs, the ridge, the focus kernel and the other top kernels as points.
 *
 * ncu records carry analysis.focus.roof (FLOP/s against bytes/s); without
 * it the GPU's roofs from share/kf/gpus.json are drawn alone. unitrace
 * records carry each ALU's instructions per byte and per ns, and the roofs
 * are the GPU's instruction rates and memory bandwidth. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "html.h"
#include "hw.h"
#include "record.h"
#include "report.h"

enum { RW = 640, RH = 400, ML = 70, MR = 20, MT = 30, MB = 50, MAXPT = 24, MAXCEIL = 4 };

struct roof {
	const char *xunit, *yunit;
	double bw;			/* bytes/s: the memory roof's slope */
	int nceil, npt;
	struct { char name[32]; double peak, ridge; } ceil[MAXCEIL];
	struct { const char *name; char tag[48]; double x, y, pct; int focus; } pt[MAXPT];
	const char *note;		/* why there are no points, or NULL */
};

/* A compute roof; one of the same height as another joins its name. */
static void
add_ceil(struct roof *r, const char *name, double peak)
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
add_pt(struct roof *r, const char *name, const char *tag, double x, double y, int focus)
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

/* The GPU's DRAM roof, where the record has none; with ceil, its FP32 roof
 * too, where the record has no compute roof. */
static void
gpu_peaks(struct roof *r, const cJSON *rec, const char *gpus_file, int ceil)
{
	const cJSON *g = kf_hw_find(kf_str(kf_obj(rec, "worker"), "gpu_name"), gpus_file, NULL);

	if (!(r->bw > 0) || !isfinite(r->bw))
		r->bw = kf_hw_roof(g, "GPU_MEMORY_BYTE_READ") * 1e9;
	if (ceil && r->nceil == 0 && r->bw > 0)
		add_ceil(r, "FP32", kf_hw_roof(g, "FP32_TFLOPS") * 1e12);
}

/* ncu: analysis.focus.roof, and the roof of the other top kernels; peaks
 * the record lacks from gpus.json. */
static int
flop_roof(struct roof *r, const cJSON *rec, const cJSON *an, const char *gpus_file, int n)
{
	const cJSON *f = kf_report_focus(an), *ro = kf_obj(f, "roof"), *k;
	const char *prec = kf_str(ro, "precision");
	char name[32];

	if (ro == NULL)
		return 0;
	r->xunit = "FLOP/byte";
	r->yunit = "FLOP/s";
	r->bw = kf_num(ro, "peak_dram_bytes_per_s", NAN);
	snprintf(name, sizeof name, "%.20s", prec ? prec : "compute");
	gpu_peaks(r, rec, gpus_file, 0);
	if (r->bw > 0)
		add_ceil(r, name, kf_num(ro, "peak_flops", NAN));
	gpu_peaks(r, rec, gpus_file, 1);
	/* The record's own ridge, when it gives one, is the one to print. */
	if (r->nceil && kf_num(ro, "ridge", NAN) > 0)
		r->ceil[0].ridge = kf_num(ro, "ridge", NAN);
	add_pt(r, kf_report_kname(f), "focus", kf_num(ro, "arithmetic_intensity", NAN),
	    kf_num(ro, "achieved_flops", NAN), 1);
	if (r->npt)
		r->pt[0].pct = kf_num(ro, "pct_of_roof", NAN);
	cJSON_ArrayForEach(k, kf_arr(an, "kernels")) {
		const cJSON *kr = kf_obj(k, "roof");
		const char *role = kf_str(k, "role");

		if (n-- <= 0)
			break;
		if (kr && !(role && strcmp(role, "focus") == 0))
			add_pt(r, kf_report_kname(k), "", kf_num(kr, "arithmetic_intensity", NAN),
			    kf_num(kr, "achieved_flops", NAN), 0);
	}
	if (r->npt == 0 && kf_num(ro, "achieved_flops", NAN) == 0)
		r->note = "the focus kernel did no floating-point work (0 FLOP/s): "
		    "it has no point on this roofline";
	else if (r->npt == 0)
		r->note = "analysis.focus.roof holds no achieved FLOP/s and arithmetic intensity";
	return r->bw > 0 && isfinite(r->bw) && r->nceil;
}

/* ncu without roof: the GPU's roofs, no points. */
static int
gpu_roof(struct roof *r, const cJSON *rec, const char *gpus_file)
{
	r->xunit = "FLOP/byte";
	r->yunit = "FLOP/s";
	gpu_peaks(r, rec, gpus_file, 1);
	r->note = "this record holds no achieved FLOP/s (analysis.focus.roof): "
	    "the GPU's roofs only";
	return r->bw > 0 && isfinite(r->bw) && r->nceil;
}

/* unitrace: each ALU's instructions per byte and per second. */
static void
alu_points(struct roof *r, const cJSON *k, int focus)
{
	const cJSON *a;

	cJSON_ArrayForEach(a, kf_arr(k, "alus")) {
		const char *alu = kf_str(a, "name");
		char tag[48];

		if (!focus && !(alu && kf_str(k, "bound_alu") && strcmp(alu, kf_str(k, "bound_alu")) == 0))
			continue;
		snprintf(tag, sizeof tag, "%s%.8s", focus ? "focus " : "", alu ? alu : "?");
		add_pt(r, kf_report_kname(k), tag, kf_num(a, "arithmetic_intensity", NAN),
		    kf_num(a, "inst_per_ns", NAN) * 1e9, focus);
	}
}

static int
alu_roof(struct roof *r, const cJSON *an, const char *gpus_file, int n)
{
	const cJSON *gi = kf_obj(an, "gpu"), *f = kf_report_focus(an), *k, *a;
	const cJSON *g = kf_hw_find(kf_str(gi, "roofs"), gpus_file, NULL);

	r->xunit = "inst/byte";
	r->yunit = "inst/s";
	r->bw = kf_num(gi, "dram_gbps", NAN) * 1e9;
	cJSON_ArrayForEach(a, kf_arr(f, "alus")) {
		const char *alu = kf_str(a, "name");
		char metric[64], name[32];

		if (alu == NULL || g == NULL)
			continue;
		snprintf(metric, sizeof metric, "XVE_INST_EXECUTED_%.8s_ALL", alu);
		snprintf(name, sizeof name, "%.8s", alu);
		add_ceil(r, name, kf_hw_roof(g, metric) * 1e9);
	}
	alu_points(r, f, 1);
	cJSON_ArrayForEach(k, kf_arr(an, "kernels")) {
		if (n-- <= 0)
			break;
		if (k != f && !(kf_str(k, "name") && kf_str(f, "name") &&
		    strcmp(kf_str(k, "name"), kf_str(f, "name")) == 0))
			alu_points(r, k, 0);
	}
	return g && r->bw > 0 && isfinite(r->bw) && r->nceil;
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
axes(struct buf *b, const struct roof *r, const struct logaxis *xa, const struct logaxis *ya)
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
roofs(struct buf *b, const struct roof *r, const struct logaxis *xa, const struct logaxis *ya)
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
points(struct buf *b, const struct roof *r, const struct logaxis *xa, const struct logaxis *ya)
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
legend(struct buf *b, const struct roof *r)
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
draw(struct buf *b, const struct roof *r)
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
	const cJSON *f = kf_report_focus(an);
	struct roof r;
	int ok = 0;

	/* By what the analysis holds, not by profiler: instruction roofs per
	 * ALU (unitrace), a FLOP roofline (ncu's raw page), or only shares of
	 * peak, drawn against the GPU's roofs. */
	memset(&r, 0, sizeof r);
	if (kf_arr(f, "alus"))
		ok = alu_roof(&r, an, gpus_file, n);
	else if (kf_obj(f, "roof"))
		ok = flop_roof(&r, rec, an, gpus_file, n);
	else if (kf_obj(f, "throughput"))
		ok = gpu_roof(&r, rec, gpus_file);
	if (ok)
		draw(b, &r);
	else
		buf_puts(b, "<p class=\"none roofline-none\">No roofline data in this record.</p>");
}
