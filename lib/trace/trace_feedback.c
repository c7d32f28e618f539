/* kf trace: kf-feedback. What a trace of every launch says and a counter
 * profiler cannot: the ranking of every kernel by GPU time (machinery set
 * aside), how much of the time the GPU was busy, where it waited and for
 * how long, host-device copies, launch rate and size; and the findings that
 * follow from them: launch_bound and machinery as every profiler finds them
 * (program.h), with the timeline's evidence, and copies that take the time
 * (kind "other", unit "pcie"). Reads
 * rec["collated"] as trace_read wrote it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "feedback.h"
#include "gpu_roofs.h"
#include "levers.h"
#include "machinery.h"
#include "mem.h"
#include "program.h"
#include "record.h"
#include "trace.h"
#include "trials.h"

/* Copies between host and device this share of the time are a finding. */
#define COPY_PCT 20.0

static double
gap_ns(const cJSON *tl, const char *bucket)
{
	return kf_num(kf_obj(kf_obj(tl, "gaps"), bucket), "ns", 0);
}

static double
gap_n(const cJSON *tl, const char *bucket)
{
	return kf_num(kf_obj(kf_obj(tl, "gaps"), bucket), "count", 0);
}

static void
say_head(struct kf_fb *fb, const cJSON *d)
{
	const cJSON *tl = kf_obj(d, "timeline"), *w, *e;
	struct buf b = {0};
	double procs = kf_num(d, "processes", 0), n = kf_num(d, "launches", 0), an = 0, ans = 0;
	const char *nm;

	cJSON_ArrayForEach(e, kf_arr(d, "set_aside")) {
		an += kf_num(e, "launches", 0);
		ans += kf_num(e, "total_ns", 0);
	}
	buf_printf(&b, "kf trace (CUPTI) timed every GPU activity of %.0f process%s: %.0f "
	    "kernel launch%s (", procs, procs == 1 ? "" : "es", n, n == 1 ? "" : "es");
	if (an > 0) {
		/* autotuning set aside (trace_data.c) */
		kf_fmt_ns(&b, kf_num(d, "total_ns", 0) + ans);
		buf_puts(&b, " of GPU time)");
		cJSON_ArrayForEach(e, kf_arr(d, "set_aside")) {
			nm = kf_str(e, "name") ? kf_str(e, "name") : "?";
			buf_printf(&b, "; %.0f of them (", kf_num(e, "launches", 0));
			kf_fmt_ns(&b, kf_num(e, "total_ns", 0));
			buf_printf(&b, ", %.0f kernels) %s, set aside as \"%s\"",
			    kf_num(e, "kernel_count", 0), strcmp(nm, KF_XLA_TUNE_NAME) == 0 ?
			    "up to the last launch of XLA's autotuner in their process, its timed runs "
			    "of candidates among them" : KF_TRIALS_WORDS, nm);
		}
		buf_printf(&b, "; the kernels below and every share are of the other %.0f launches (",
		    n - an);
		kf_fmt_ns(&b, kf_num(d, "total_ns", 0));
		buf_printf(&b, " in %.0f kernels)", kf_num(d, "kernel_count", 0));
		nm = kf_str(kf_obj(tl, "window"), "from");
		if (nm && strcmp(nm, "steady_state") == 0)
			buf_puts(&b, ", and the traced window begins after the last of them");
		buf_puts(&b, ". The GPU was busy ");
	} else {
		kf_fmt_ns(&b, kf_num(d, "total_ns", 0));
		buf_printf(&b, " of GPU time in %.0f kernels). The GPU was busy ", kf_num(d,
		    "kernel_count", 0));
	}
	kf_fmt_pct(&b, kf_num(tl, "busy_pct", 0));
	buf_puts(&b, " of the ");
	kf_fmt_ns(&b, kf_num(tl, "span_ns", 0));
	buf_puts(&b, " from its first work to its last (");
	kf_fmt_ns(&b, kf_num(tl, "busy_ns", 0));
	buf_puts(&b, " busy; the trace covers ");
	kf_fmt_ns(&b, kf_num(tl, "traced_ns", 0));
	buf_puts(&b, " from CUDA's start to the end, ");
	kf_fmt_ns(&b, kf_num(tl, "start_after_ns", 0));
	buf_puts(&b, " of it before the first GPU work).");
	kf_fb_add_buf(fb, FB_HEAD, &b);
	cJSON_ArrayForEach(w, kf_arr(d, "warnings"))
		if (cJSON_IsString(w))
			kf_fb_add(fb, FB_HEAD, "Note: %s.", w->valuestring);
	buf_free(&b);
}

static void
say_launches(struct kf_fb *fb, const cJSON *tl)
{
	struct buf b = {0};
	double n = kf_num(tl, "launches", 0), sn = kf_num(kf_obj(tl, "short_launches"), "count", 0);

	if (n <= 0)
		return;
	buf_printf(&b, "Launches: %.0f a second over the GPU's working time; the median "
	    "launch ran ", kf_num(tl, "launch_rate_per_s", 0));
	kf_fmt_ns(&b, kf_num(tl, "median_launch_ns", 0));
	buf_printf(&b, "; %.0f of the %.0f (", sn, n);
	kf_fmt_pct(&b, 100 * sn / n);
	buf_puts(&b, ") ran under 10 µs, ");
	kf_fmt_ns(&b, kf_num(kf_obj(tl, "short_launches"), "ns", 0));
	buf_puts(&b, " in all.");
	kf_fb_add_buf(fb, FB_KEY, &b);
	buf_free(&b);
}

static void
gap_line(struct buf *b, const cJSON *g)
{
	char *after = kf_kernel_short(kf_str(g, "after") ? kf_str(g, "after") : "?", 50);
	char *before = kf_kernel_short(kf_str(g, "before") ? kf_str(g, "before") : "?", 50);

	buf_puts(b, "\n- ");
	kf_fmt_ns(b, kf_num(g, "ns", 0));
	buf_puts(b, " at ");
	kf_fmt_ns(b, kf_num(g, "at_ns", 0));
	buf_printf(b, ", after %s, before %s", after, before);
	if (kf_str(g, "range"))
		buf_printf(b, ", in NVTX range \"%s\"", kf_str(g, "range"));
	free(after);
	free(before);
}

static void
say_gaps(struct kf_fb *fb, const cJSON *tl)
{
	static const char *const bk[] = { "under_10us", "10us_to_1ms", "over_1ms" };
	static const char *const bw[] = { "under 10 µs", "10 µs to 1 ms", "over 1 ms" };
	const cJSON *g;
	struct buf b = {0};
	int i;

	if (kf_num(kf_obj(tl, "gaps"), "count", 0) <= 0)
		return;
	buf_puts(&b, "The GPU was idle ");
	kf_fmt_ns(&b, kf_num(tl, "idle_ns", 0));
	buf_printf(&b, " in %.0f gaps between its work:", kf_num(kf_obj(tl, "gaps"), "count", 0));
	for (i = 0; i < 3; i++) {
		buf_printf(&b, "%s %.0f %s (", i ? ";" : "", gap_n(tl, bk[i]), bw[i]);
		kf_fmt_ns(&b, gap_ns(tl, bk[i]));
		buf_putc(&b, ')');
	}
	buf_puts(&b, ". Short gaps are the host launching the next kernel; long ones, "
	    "the host's own work or a wait. The longest, from the GPU's first work:");
	cJSON_ArrayForEach(g, kf_arr(tl, "largest_gaps"))
		gap_line(&b, g);
	kf_fb_add_buf(fb, FB_KEY, &b);
	buf_free(&b);
}

/* Host-device copy time, and the copies' lines. */
static double
say_copies(struct kf_fb *fb, const cJSON *d, double span)
{
	const cJSON *c;
	struct buf b = {0};
	double hd = 0;
	int n = 0;

	cJSON_ArrayForEach(c, kf_obj(d, "copies")) {
		double ns = kf_num(c, "ns", 0), bytes = kf_num(c, "bytes", 0);

		buf_puts(&b, n++ ? "; " : "Memory copies: ");
		buf_printf(&b, "%s %.0f (%.1f MB, ", c->string, kf_num(c, "count", 0), bytes / 1e6);
		kf_fmt_ns(&b, ns);
		if (ns > 0)
			buf_printf(&b, ", %.1f GB/s", bytes / ns);
		buf_putc(&b, ')');
		if (strcmp(c->string, "HtoD") == 0 || strcmp(c->string, "DtoH") == 0)
			hd += ns;
	}
	if (n == 0)
		return 0;
	if (span > 0) {
		buf_puts(&b, "; host-device copies took ");
		kf_fmt_pct(&b, 100 * hd / span);
		buf_puts(&b, " of the GPU's working time");
	}
	buf_putc(&b, '.');
	kf_fb_add_buf(fb, FB_KEY, &b);
	buf_free(&b);
	return hd;
}

static void
say_ranges(struct kf_fb *fb, const cJSON *d)
{
	const cJSON *r;
	struct buf b = {0};
	int n = 0;

	cJSON_ArrayForEach(r, kf_arr(d, "ranges")) {
		if (n == 8) {
			buf_puts(&b, "; ...");
			break;
		}
		buf_printf(&b, "%s\"%s\" x%.0f, ", n++ ? "; " : "NVTX ranges: ",
		    kf_str(r, "name") ? kf_str(r, "name") : "", kf_num(r, "count", 0));
		kf_fmt_ns(&b, kf_num(r, "ns", 0));
	}
	if (n == 0)
		return;
	buf_putc(&b, '.');
	kf_fb_add_buf(fb, FB_DETAIL, &b);
	buf_free(&b);
}

/* The launch configuration of the top kernels (their longest launch). */
static void
say_configs(struct kf_fb *fb, const cJSON *d, const struct kf_rank *rank, int top)
{
	const cJSON *k, *g, *bl;
	struct buf b = {0};
	int n = 0;

	cJSON_ArrayForEach(k, kf_arr(d, "kernels")) {
		char *shown;

		if (n >= top)
			break;
		if (kf_str(k, "machinery") || !kf_str(k, "name"))
			continue;
		g = kf_arr(k, "grid");
		bl = kf_arr(k, "block");
		shown = kf_rank_shown(rank, kf_str(k, "name"));
		buf_printf(&b, "%s%s: grid (%d, %d, %d), block (%d, %d, %d), %.0f registers, "
		    "%.0f B static + %.0f B dynamic shared memory", n++ ? "\n" :
		    "Launch configuration of the longest launch of each:\n", shown,
		    cJSON_GetArrayItem(g, 0) ? cJSON_GetArrayItem(g, 0)->valueint : 0,
		    cJSON_GetArrayItem(g, 1) ? cJSON_GetArrayItem(g, 1)->valueint : 0,
		    cJSON_GetArrayItem(g, 2) ? cJSON_GetArrayItem(g, 2)->valueint : 0,
		    cJSON_GetArrayItem(bl, 0) ? cJSON_GetArrayItem(bl, 0)->valueint : 0,
		    cJSON_GetArrayItem(bl, 1) ? cJSON_GetArrayItem(bl, 1)->valueint : 0,
		    cJSON_GetArrayItem(bl, 2) ? cJSON_GetArrayItem(bl, 2)->valueint : 0,
		    kf_num(k, "registers_per_thread", 0), kf_num(k, "static_shared_bytes", 0),
		    kf_num(k, "dynamic_shared_bytes", 0));
		if (kf_num(k, "graph_launches", 0) > 0)
			buf_printf(&b, "; %.0f of its %.0f launches from a CUDA graph",
			    kf_num(k, "graph_launches", 0), kf_num(k, "launches", 0));
		free(shown);
	}
	if (n > 0)
		kf_fb_add_buf(fb, FB_DETAIL, &b);
	buf_free(&b);
}

/* The program as a whole (levers.h): the ranking, every launch counted by
 * duration, the timeline, and the chains of the launch order. */
static void
program_findings(struct kf_fb *fb, const cJSON *d, const cJSON *tl, const struct kf_rank *rank)
{
	const cJSON *sl = kf_obj(tl, "short_launches");
	struct kf_launches ls = { .metric = "kf trace: every kernel launch" };

	kf_launches_add_counted(&ls, kf_num(tl, "kernel_ns", 0), (long)kf_num(tl, "launches", 0),
	    kf_num(sl, "ns", 0), (long)kf_num(sl, "count", 0));
	kf_prog_findings(fb, rank, &ls);
	kf_launches_free(&ls);
	if (tl)
		kf_prog_timeline(fb, tl);
	if (kf_obj(d, "chains"))
		kf_prog_chains(fb, kf_obj(d, "chains"));
}

/* small_grid from the launch configuration alone: a kernel of the program's
 * whose longest launch has fewer blocks than the GPU has SMs (gpus.json's
 * arch.sm_count) leaves the rest idle: the idle SMs' share of its time is
 * at stake, at most; said where that is KF_LEVER_MIN_PCT of the program's
 * GPU time or more (a hint without counters: no smaller ones). */
static void
find_small_grids(struct kf_fb *fb, const cJSON *rec, const cJSON *d, const struct kf_rank *rank)
{
	const char *via, *gname;
	struct buf msg = {0};
	const cJSON *gpu = kf_gpu_roofs_for(rec, NULL, fb->opt ? fb->opt->gpu : NULL,
	    fb->opt ? fb->opt->gpus_file : NULL, &via, &gname, &msg);
	double sms = kf_num(kf_obj(gpu, "arch"), "sm_count", 0);
	const cJSON *k, *g;

	buf_free(&msg);
	if (sms <= 0)
		return;
	cJSON_ArrayForEach(k, kf_arr(d, "kernels")) {
		const struct kf_rank_ent *e = kf_rank_find(rank, kf_str(k, "name"), NULL);
		double blocks = 1;
		struct kf_finding *f;
		int i;

		if (e == NULL || e->machine || cJSON_GetArraySize(g = kf_arr(k, "grid")) != 3)
			continue;
		for (i = 0; i < 3; i++)
			blocks *= cJSON_GetArrayItem(g, i)->valuedouble;
		if (blocks <= 0 || blocks >= sms ||
		    e->share * (1 - blocks / sms) < KF_LEVER_MIN_PCT)
			continue;
		f = kf_diag_add(&fb->diag, KF_SMALL_GRID, NULL, NAN, "Small grid: %s's longest "
		    "launch has %.0f block%s for the %.0f SMs of the %s, so %.0f SMs idle (kf trace's "
		    "launch configuration)", e->shown, blocks, blocks == 1 ? "" : "s", sms,
		    kf_str(gpu, "name"), sms - blocks);
		kf_finding_kernel(f, e->name);
		kf_finding_ev(f, "kernels[].grid (its longest launch): blocks", blocks, "blocks");
		kf_finding_ev(f, "share/kf/gpus.json: arch.sm_count", sms, "SMs");
		kf_finding_impact(f, 100 * (1 - blocks / sms), "1 - blocks / SMs (the idle SMs' "
		    "share, at most: what more blocks could use)");
		kf_finding_fix(f, "launch at least one block per SM, better several: more work per "
		    "launch (a larger batch, more sequences or heads at once), or split the work over "
		    "more blocks");
	}
}

/* Host-device copies in the traced window, a share of it (levers.h). */
static void
find_copies(struct kf_fb *fb, const cJSON *tl, double hd)
{
	const cJSON *w = kf_obj(tl, "window");
	double window = kf_num(w, "ns", 0);
	struct kf_finding *f;
	struct buf b = {0};

	/* A trace of an older kf has no window: the busy time and the gaps
	 * under 1 ms, every copy. */
	if (w)
		hd = kf_num(w, "host_copy_ns", 0);
	else
		window = kf_num(tl, "busy_ns", 0) + gap_ns(tl, "under_10us") +
		    gap_ns(tl, "10us_to_1ms");
	if (window <= 0 || 100 * hd / window < COPY_PCT)
		return;
	buf_puts(&b, "Copies between host and device took ");
	kf_fmt_ns(&b, hd);
	buf_puts(&b, " (");
	kf_fmt_pct(&b, 100 * hd / window);
	buf_puts(&b, ") of the traced window, between the first kernel and the last: the program "
	    "is bound by host-device copies");
	f = kf_diag_add(&fb->diag, KF_OTHER, "pcie", NAN, "%s", b.s);
	f->basis = KF_BASIS_WINDOW;
	kf_finding_ev(f, w ? "timeline.window.host_copy_ns" : "copies HtoD+DtoH ns", hd, "ns");
	kf_finding_ev(f, w ? "timeline.window.ns" : "timeline.busy_ns + gaps under 1 ms", window,
	    "ns");
	kf_finding_impact(f, fmin(100, 100 * hd / window), "the host-device copies in the traced "
	    "window / the window");
	kf_finding_fix(f, "keep the data on the GPU between steps; where it must move, copy "
	    "from pinned memory (pin_memory()) with non_blocking=True so copies overlap work");
	buf_free(&b);
}

static void
rank_of(const cJSON *d, struct kf_rank *rank)
{
	const cJSON *k;

	cJSON_ArrayForEach(k, kf_arr(d, "kernels"))
		if (kf_str(k, "name"))
			kf_rank_add(rank, kf_str(k, "name"), kf_num(k, "total_ns", 0),
			    (long)kf_num(k, "launches", 0));
	if (rank->n > 0)
		kf_rank_sort(rank);
}

void
trace_feedback(const cJSON *rec, struct kf_fb *fb)
{
	const cJSON *d = kf_obj(rec, "collated"), *tl = kf_obj(d, "timeline");
	struct kf_rank rank = {0};
	struct buf b = {0};
	int top = fb->opt && fb->opt->top > 0 ? fb->opt->top : 5;
	double hd, span = kf_num(tl, "span_ns", 0);

	say_head(fb, d);
	rank_of(d, &rank);
	if (rank.n == 0) {
		kf_fb_add(fb, FB_HEAD, "The trace holds no kernel launch: the program ran no "
		    "GPU kernel while it was traced.");
		kf_set_str(fb->analysis, "status", "no_kernels");
	} else {
		kf_rank_text(&rank, &b, top);
		kf_fb_add_buf(fb, FB_RANK, &b);
		kf_rank_machinery_text(&rank, &b);
		if (b.len)
			kf_fb_add_buf(fb, FB_RANK, &b);
	}
	say_launches(fb, tl);
	say_gaps(fb, tl);
	hd = say_copies(fb, d, span);
	say_ranges(fb, d);
	say_configs(fb, d, &rank, top);
	program_findings(fb, d, tl, &rank);
	find_copies(fb, tl, hd);
	find_small_grids(fb, rec, d, &rank);
	kf_set(fb->analysis, "ranking", kf_rank_json(&rank, top));
	kf_set(fb->analysis, "timeline", tl ? cJSON_Duplicate(tl, 1) : cJSON_CreateNull());
	kf_set(fb->analysis, "copies", kf_obj(d, "copies") ?
	    cJSON_Duplicate(kf_obj(d, "copies"), 1) : cJSON_CreateObject());
	kf_set_num(fb->analysis, "host_device_copy_ns", hd);
	buf_free(&b);
	kf_rank_free(&rank);
}
