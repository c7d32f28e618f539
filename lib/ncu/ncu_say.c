/* The ncu --top path, its words: kf-feedback's ranking from data.timing,
 * what the timing run covered, the chosen kernels the detailed run missed
 * and why, what the detailed run did when it did not end well
 * (profiler_failed), and the notes on XLA's autotuning. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "feedback.h"
#include "machinery.h"
#include "mem.h"
#include "ncu.h"
#include "ncu_top.h"
#include "record.h"
#include "signame.h"

/* kf-feedback */

/* The launches data.timing (t) sets aside from the program's steady state
 * (ncu_steady.c), by the name of their entry: set_aside's, or in a record
 * of before, autotuning's. Each one's entry, or NULL. */
static const cJSON *
aside_entry(const cJSON *t, const char *name)
{
	const cJSON *e;

	if (name == NULL)
		return NULL;
	cJSON_ArrayForEach(e, kf_arr(t, "set_aside"))
		if (kf_str(e, "name") && strcmp(kf_str(e, "name"), name) == 0)
			return e;
	e = kf_obj(t, "autotuning");
	return !kf_arr(t, "set_aside") && kf_str(e, "name") && strcmp(kf_str(e, "name"), name) == 0 ?
	    e : NULL;
}

/* The ranking is of the steady state: the entries the timing run set
 * aside before it (XLA's or an autotuner's candidates, cache flushes,
 * launches outside the program's own profiler range) are not the work the
 * detailed run repeats, so they are neither ranked nor in its total, the
 * whole of every share and finding; timing_head says what they were. */
int
ncu_timing_rank(const cJSON *data, struct kf_rank *rank)
{
	const cJSON *t = kf_obj(data, "timing"), *k;
	int n = 0;

	cJSON_ArrayForEach(k, kf_arr(t, "kernels")) {
		const cJSON *ns = cJSON_GetObjectItemCaseSensitive(k, "total_ns");

		if (kf_str(k, "name") && cJSON_IsNumber(ns) && !aside_entry(t, kf_str(k, "name"))) {
			kf_rank_add(rank, kf_str(k, "name"), ns->valuedouble,
			    (long)kf_num(k, "launches", 0));
			n++;
		}
	}
	if (n > 0)
		kf_rank_sort(rank);
	return n > 0;
}

/* The signal a shell's status 128 + N names (139: SIGSEGV), as text. */
static const char *
signame_of(double n)
{
	const char *s = n >= 1 && n < 65 ? kf_signame((int)n) : NULL;

	return s ? s : "a signal";
}

/* A note when most of the timing run's GPU time (t: data.timing) came
 * before its steady state (XLA's autotuning, an autotuner's timed runs
 * between cache flushes: ncu_steady.c), or is XLA's machinery in a ranking
 * of before. Measured on the H200 with a Flax CNN: 99.5% of 135 ms in
 * XLA's autotuning, the 5 steps' 135 launches after it. */
void
ncu_xla_note(struct kf_fb *fb, const struct kf_rank *rank, const cJSON *t)
{
	const cJSON *warm = NULL, *e;
	double ns = 0, all = kf_num(t, "total_ns", 0), share;
	const char *wn;
	size_t i;

	/* what came before the steady state: XLA's autotuning first, an
	 * autotuner's timed runs; in a record of before, its one entry */
	cJSON_ArrayForEach(e, kf_arr(t, "set_aside"))
		if ((wn = kf_str(e, "name")) && (strcmp(wn, TUNE_NAME) == 0 || strcmp(wn, BENCH_NAME) == 0)) {
			ns += kf_num(e, "total_ns", 0);
			if (warm == NULL || strcmp(wn, TUNE_NAME) == 0)
				warm = e;
		}
	if (!kf_arr(t, "set_aside") && (warm = kf_obj(t, "autotuning")) != NULL)
		ns += kf_num(warm, "total_ns", 0);
	for (i = 0; i < rank->n; i++)
		if (rank->v[i].machine && strcmp(rank->v[i].machine->framework, "XLA") == 0)
			ns += rank->v[i].total_ns;
	share = all > 0 ? 100 * ns / all : 0;
	if ((e = aside_entry(t, TRIAL_NAME)) != NULL && all > 0 &&
	    100 * kf_num(e, "total_ns", 0) / all >= 50)
		kf_fb_add(fb, FB_KEY, "Note: %.1f%% of the timing run's GPU time was an autotuner's "
		    "timed trials of candidates (set aside above: %.0f launches), so the kernels "
		    "ranked are the program's own work beside them.",
		    100 * kf_num(e, "total_ns", 0) / all, kf_num(e, "launches", 0));
	if (share < 50)
		return;
	wn = warm ? kf_str(warm, "name") : NULL;
	if (warm)
		kf_fb_add(fb, FB_KEY, "Note: %.1f%% of the timing run's GPU time came before "
		    "its steady state (%s, set aside above: %.0f launches, the autotuner's timed "
		    "runs of candidates among them), so the kernels ranked are those the "
		    "program ran after it, which the detailed run repeats.", share,
		    wn && strncmp(wn, "XLA ", 4) == 0 ? "XLA's autotuning" :
		    "autotuning timed between cache flushes", kf_num(warm, "launches", 0));
	else
		kf_fb_add(fb, FB_KEY, "Note: %.1f%% of the timing run's GPU time is XLA's "
		    "autotuning (set aside above), so the kernels ranked after it may be the "
		    "autotuner's candidates, not the program's steps.", share);
}

/* A note when the detailed run of what looks like an XLA program (XLA's
 * machinery in the ranking, or its fusions' names: "loop_add_fusion")
 * failed. Measured on the H200 (ncu 2025.3.1) with a Flax CNN: the
 * detailed run crashed (SIGSEGV) with XLA's command buffers (CUDA graphs)
 * on, with or without autotuning, and with --replay-mode application; with
 * command buffers off and the timing run's autotuning results loaded (what
 * kf-ncu gives a detailed run of XLA's kernels) it profiled the three
 * chosen convolutions. */
static void
xla_crash_note(struct kf_fb *fb, const struct kf_rank *rank, const cJSON *run)
{
	size_t i;
	int xla = 0;

	for (i = 0; i < rank->n && !xla; i++)
		xla = (rank->v[i].machine && strcmp(rank->v[i].machine->framework, "XLA") == 0) ||
		    strstr(rank->v[i].name, "_fusion") != NULL;
	if (!xla)
		return;
	if (kf_str(run, "xla_flags_added"))
		kf_fb_add(fb, FB_KEY, "Note: its kernels are XLA's (JAX, TensorFlow), and the "
		    "detailed run ran with XLA_FLAGS+=\"%s\" already (kf-wrap(1), JAX and XLA).",
		    kf_str(run, "xla_flags_added"));
	else
		kf_fb_add(fb, FB_KEY, "Note: its kernels are XLA's (JAX, TensorFlow). ncu's "
		    "detailed run of an XLA program crashed on an H200 while XLA replayed its "
		    "steps as CUDA graphs (command buffers), and ran when they were off and the "
		    "timing run's autotuning results loaded, which kf's detailed run does "
		    "(kf-wrap(1), JAX and XLA).");
}

/* What the detailed run did, when it did not end well: "was stopped after
 * 120 s (...)", "failed: ncu exited with status 1"; NULL when it ended
 * well (kf-ncu's ncu_detailed.json: status "ok"), or no account is kept. */
static void
run_what(const cJSON *t, struct buf *b)
{
	const cJSON *r = kf_obj(t, "detailed_run");
	const char *st = kf_str(r, "status"), *err = kf_str(r, "ncu_error");

	if (st == NULL || strcmp(st, "ok") == 0)
		return;
	if (strcmp(st, "timeout") == 0)
		buf_printf(b, "was stopped after %.0f s, kf-ncu's limit for it "
		    "(KF_NCU_DETAIL_TIMEOUT; by default twice the timing run's %.0f s, plus 120 s)",
		    kf_num(r, "seconds", 0), kf_num(r, "timing_s", 0));
	else if (strcmp(st, "stopped") == 0)
		buf_printf(b, "was stopped from outside after %.0f s (kf-run's --timeout or "
		    "an interrupt)", kf_num(r, "seconds", 0));
	else
		buf_printf(b, "failed: ncu exited with status %.0f after %.0f s%s%s%s",
		    kf_num(r, "exit_code", 0), kf_num(r, "seconds", 0),
		    kf_num(r, "report", 1) ? "" : " and left no report",
		    kf_num(r, "exit_code", 0) > 128 ? ", the status of a program ended by " : "",
		    kf_num(r, "exit_code", 0) > 128 ? signame_of(kf_num(r, "exit_code", 0) - 128) : "");
	if (err)
		buf_printf(b, " (ncu: \"%s\")", err);
}

static void attempt_what(const cJSON *a, struct buf *b);

/* Why the detailed run of an XLA program ran with the XLA_FLAGS kf-ncu
 * added (ncu_detailed.json's xla_flags_added, xla_autotune). */
static const char *
xla_why(const cJSON *r)
{
	if (strcmp(kf_str(r, "xla_autotune") ? kf_str(r, "xla_autotune") : "", "loaded") == 0)
		return "the autotuning results of the timing run loaded, so that XLA runs the "
		    "kernels it chose there without autotuning under ncu, and its command "
		    "buffers (CUDA graphs, on which ncu crashed on an H200) off";
	return "XLA's command buffers, CUDA graphs, and its autotuning crashed ncu's "
	    "detailed run on an H200";
}

/* A note that the details come from a run with the XLA_FLAGS (and the
 * environment) kf-ncu added, when it loaded the timing run's autotuning
 * results. */
static void
xla_loaded_say(struct kf_fb *fb, const cJSON *t)
{
	const cJSON *r = kf_obj(t, "detailed_run");
	const char *env = kf_str(r, "xla_env_added");
	struct buf b = {0};

	if (strcmp(kf_str(r, "xla_autotune") ? kf_str(r, "xla_autotune") : "", "loaded") != 0 ||
	    strcmp(kf_str(r, "status") ? kf_str(r, "status") : "", "ok") != 0)
		return;
	buf_printf(&b, "Note: its kernels are XLA's: the detailed run ran with XLA_FLAGS+=\"%s\"",
	    kf_str(r, "xla_flags_added") ? kf_str(r, "xla_flags_added") : "");
	if (env)
		buf_printf(&b, " and %s in its environment", env);
	buf_printf(&b, " (%s%s).", xla_why(r), env ? "; JAX's memory pool not taken whole at "
	    "its start, since ncu saves and restores the memory a kernel can write for each "
	    "pass" : "");
	kf_fb_add_buf(fb, FB_KEY, &b);
	buf_free(&b);
}

/* A detailed run that ended well after attempts that did not: which, and
 * how they ended (what failed is not left unsaid). */
static void
retried_say(struct kf_fb *fb, const cJSON *t)
{
	const cJSON *r = kf_obj(t, "detailed_run"), *a;
	struct buf b = {0};
	int n = 0;

	if (strcmp(kf_str(r, "status") ? kf_str(r, "status") : "", "ok") != 0)
		return;
	cJSON_ArrayForEach(a, kf_arr(r, "attempts")) {
		buf_puts(&b, n++ ? "; another " : "Note: ncu's detailed run was tried first held "
		    "beside the timing run (ncu --mode launch, then attach), where it ");
		attempt_what(a, &b);
	}
	if (n == 0)
		return;
	buf_puts(&b, "; it was run again after the timing run, and the details below are "
	    "from that run.");
	kf_fb_add_buf(fb, FB_KEY, &b);
	buf_free(&b);
}

/* After what the timing run set aside (t: data.timing): "; the ranking
 * below and every share, the findings' included, are of the other N
 * launches, its steady state (T)". */
static void
steady_say(struct buf *b, const cJSON *t)
{
	double ns = kf_num(t, "total_ns", 0), l = kf_num(t, "launches", 0);
	const cJSON *e;
	int n = 0;

	cJSON_ArrayForEach(e, kf_arr(t, "kernels"))
		if (aside_entry(t, kf_str(e, "name"))) {
			ns -= kf_num(e, "total_ns", 0);
			l -= kf_num(e, "launches", 0);
			n++;
		}
	if (n == 0)
		return;
	buf_printf(b, "; the ranking below and every share, the findings' included, are of "
	    "the other %.0f launch%s, its steady state (", l, l == 1 ? "" : "es");
	kf_fmt_ns(b, ns > 0 ? ns : 0);
	buf_putc(b, ')');
}

/* "A timing run measured all N kernel launches (T of GPU time in K
 * kernels", and what the launches set aside from its steady state are
 * (ncu_steady.c), or, in a record of before, XLA's timed runs of
 * candidates. */
static void
timing_head(struct buf *b, const cJSON *t)
{
	const cJSON *at = kf_obj(t, "autotuning"), *e;
	const char *n;

	buf_printf(b, "A timing run measured all %.0f kernel launches (", kf_num(t, "launches", 0));
	kf_fmt_ns(b, kf_num(t, "total_ns", 0));
	buf_printf(b, " of GPU time in %.0f kernels", kf_num(t, "kernel_count", 0));
	if (at && !kf_arr(t, "set_aside")) {
		buf_printf(b, ", one of them \"%s\": %.0f launches of %.0f kernels between "
		    "launches of XLA's autotuner, its timed runs of candidates",
		    kf_str(at, "name") ? kf_str(at, "name") : "XLA autotuning",
		    kf_num(at, "launches", 0), kf_num(at, "kernel_count", 0));
		steady_say(b, t);
		return;
	}
	cJSON_ArrayForEach(e, kf_arr(t, "set_aside")) {
		if ((n = kf_str(e, "name")) == NULL)
			continue;
		buf_printf(b, ", one of them \"%s\": %.0f launches of %.0f kernel%s", n,
		    kf_num(e, "launches", 0), kf_num(e, "kernel_count", 0),
		    kf_num(e, "kernel_count", 0) == 1 ? "" : "s");
		if (strcmp(n, TUNE_NAME) == 0)
			buf_puts(b, " up to the last launch of XLA's autotuner, its timed runs of "
			    "candidates among them");
		else if (strcmp(n, BENCH_NAME) == 0)
			buf_puts(b, " up to the last change of candidate among timed runs between "
			    "cache flushes, an autotuner's");
		else if (strcmp(n, TRIAL_NAME) == 0)
			buf_puts(b, " " KF_TRIALS_WORDS);
		else if (strcmp(n, OUTSIDE_NAME) == 0)
			buf_puts(b, " outside the program's own profiler range");
	}
	steady_say(b, t);
}

void
ncu_timing_say(struct kf_fb *fb, const cJSON *data, size_t nl)
{
	const cJSON *t = kf_obj(data, "timing"), *c;
	const cJSON *missing = kf_arr(t, "missing");
	struct buf b = {0}, what = {0};
	double procs = kf_num(t, "process_count", 1);
	int top = (int)kf_num(t, "top", 0), n = 0;

	if (t == NULL)
		return;
	if (kf_num(t, "launches", 0) <= 0) {
		kf_fb_add(fb, FB_KEY, "Note: the timing run's %s holds no launch duration, so "
		    "the ranking covers only the %zu launch%s profiled in detail.",
		    kf_str(t, "file") ? kf_str(t, "file") : NCU_TIMING, nl, nl == 1 ? "" : "es");
		return;
	}
	timing_head(&b, t);
	if (procs > 1)
		buf_printf(&b, ", in %.0f processes", procs);
	buf_puts(&b, "); ");
	if (top > 0)
		buf_printf(&b, "the details below come from a second run that profiled "
		    "the %d kernel%s with the most GPU time (%zu launch%s%s).", top,
		    top == 1 ? "" : "s", nl, nl == 1 ? "" : "es", procs > 1 ? ": the first "
		    "launch of each in every process that ran it, since a process's ID "
		    "differs between the two runs; each kernel's numbers are from its "
		    "longest" : "");
	else
		buf_printf(&b, "the details below come from %zu profiled launch%s.", nl,
		    nl == 1 ? "" : "es");
	kf_fb_add_buf(fb, FB_KEY, &b);
	retried_say(fb, t);
	xla_loaded_say(fb, t);
	run_what(t, &what);
	cJSON_ArrayForEach(c, missing) {
		char *s = kf_kernel_short(c->valuestring, 60);

		if (n++ > 0)
			buf_puts(&b, "; ");
		else if (what.len)
			buf_printf(&b, "Note: the detailed run %s before it profiled these "
			    "kernels chosen from the timing run, so they have no details: ", what.s);
		else if (kf_str(kf_obj(t, "detailed_run"), "xla_flags_added"))
			buf_printf(&b, "Note: the detailed run ran with XLA_FLAGS+=\"%s\" (%s), "
			    "and with them these kernels chosen from the timing run did not run "
			    "in it, so they have no details: ",
			    kf_str(kf_obj(t, "detailed_run"), "xla_flags_added"),
			    xla_why(kf_obj(t, "detailed_run")));
		else
			buf_puts(&b, "Note: the program runs twice (timing, then details), and "
			    "these kernels chosen from the timing run did not run in the "
			    "detailed run (random shapes, autotuning or caches can change "
			    "which kernels run), so they have no details: ");
		buf_puts(&b, s);
		free(s);
	}
	n = 0;
	cJSON_ArrayForEach(c, kf_arr(t, "spares_detailed")) {
		char *s = kf_kernel_short(c->valuestring, 60);

		buf_puts(&b, n++ ? "; " : b.len ? ". In their place the same run detailed the "
		    "next kernels by GPU time that ran after them: " : "Note: a chosen kernel did "
		    "not run first, and the same run detailed in its place the next kernel by "
		    "GPU time: ");
		buf_puts(&b, s);
		free(s);
	}
	if (b.len) {
		buf_putc(&b, '.');
		kf_fb_add_buf(fb, FB_KEY, &b);
	}
	kf_set(fb->analysis, "missing_from_details", missing ? cJSON_Duplicate(missing, 1) :
	    cJSON_CreateArray());
	buf_free(&what);
	buf_free(&b);
}

/* With several processes: where kernel name ran in the timing run (the
 * process IDs are that run's; the detailed run's differ). */
void
ncu_timing_procs(struct kf_fb *fb, const cJSON *data, const char *name)
{
	const cJSON *t = kf_obj(data, "timing"), *k, *p;
	struct buf b = {0};
	int n = 0;

	if (kf_num(t, "process_count", 1) <= 1 || name == NULL)
		return;
	cJSON_ArrayForEach(k, kf_arr(t, "kernels")) {
		if (strcmp(kf_str(k, "name") ? kf_str(k, "name") : "", name) != 0)
			continue;
		cJSON_ArrayForEach(p, kf_arr(k, "processes")) {
			if (n++ == 0)
				buf_printf(&b, "In the timing run it ran %.0f of its %.0f launches "
				    "in process %.0f", kf_num(p, "launches", 0),
				    kf_num(k, "launches", 0), kf_num(p, "pid", 0));
			else
				buf_printf(&b, ", %.0f in process %.0f", kf_num(p, "launches", 0),
				    kf_num(p, "pid", 0));
		}
		break;
	}
	if (n > 0) {
		buf_printf(&b, " (that run's process IDs%s).", n > 1 ? "; the launch above is "
		    "the longest of the detailed run's, one in each process" : "");
		kf_fb_add_buf(fb, FB_KEY, &b);
	}
	buf_free(&b);
}

/* The feedback of a --top run whose detailed run profiled nothing: the
 * timing run's ranking and what the detailed run did. 0 when there is no
 * timing run to tell of. */
int
ncu_timing_only(struct kf_fb *fb, const cJSON *data)
{
	const cJSON *t = kf_obj(data, "timing");
	const char *st = kf_str(kf_obj(t, "detailed_run"), "status");
	struct kf_rank rank = {0};
	struct buf b = {0}, what = {0};
	const struct kf_rank_ent *e;
	cJSON *focus;
	enum kf_focus_how how;
	size_t matches;

	if (kf_num(t, "launches", 0) <= 0 || !ncu_timing_rank(data, &rank))
		return 0;
	run_what(t, &what);
	timing_head(&b, t);
	buf_printf(&b, "); the second run, which was to profile "
	    "the %.0f kernel%s with the most GPU time in detail, %s, so no kernel has "
	    "details: below is the timing run's ranking only.",
	    kf_num(t, "top", 0), kf_num(t, "top", 0) == 1 ? "" : "s",
	    what.len ? what.s : "profiled no launch");
	kf_fb_add_buf(fb, FB_HEAD, &b);
	e = kf_rank_pick(&rank, fb->opt->focus, &how, &matches);
	focus = cJSON_AddObjectToObject(fb->analysis, "focus");
	if (e) {
		char *s = kf_kernel_short(e->name, 200);

		kf_fb_add(fb, FB_HEAD, "Kernel: %s (no launch profiled in detail)", s);
		free(s);
		kf_rank_why(&rank, e, how, fb->opt->focus, matches, &b);
		kf_fb_add_buf(fb, FB_HEAD, &b);
		cJSON_AddStringToObject(focus, "name", e->name);
		cJSON_AddNumberToObject(focus, "share_pct", e->share);
		cJSON_AddNumberToObject(focus, "total_ns", e->total_ns);
		cJSON_AddNumberToObject(focus, "launches", (double)e->launches);
		cJSON_AddBoolToObject(focus, "detailed", 0);
	}
	if (kf_rank_own(&rank) < rank.n) {
		kf_rank_machinery_text(&rank, &b);
		kf_fb_add_buf(fb, FB_KEY, &b);
	}
	ncu_xla_note(fb, &rank, t);
	if (st && strcmp(st, "ok") != 0)
		xla_crash_note(fb, &rank, kf_obj(t, "detailed_run"));
	kf_rank_text(&rank, &b, fb->opt->top);
	kf_fb_add_buf(fb, FB_RANK, &b);
	kf_set_str(fb->analysis, "status", "no_details");
	kf_set(fb->analysis, "missing_from_details", cJSON_Duplicate(kf_arr(t, "chosen") ?
	    kf_arr(t, "chosen") : kf_arr(t, "missing"), 1));
	cJSON_AddItemToObject(fb->analysis, "ranking", kf_rank_json(&rank, fb->opt->top));
	kf_rank_free(&rank);
	buf_free(&what);
	buf_free(&b);
	return 1;
}

/* How one attempt of the detailed run ended, into b: "exited with status 11
 * (SIGSEGV) after 5 s", "was stopped at kf-ncu's limit of 142 s", "was
 * stopped from outside after 30 s". */
static void
attempt_what(const cJSON *a, struct buf *b)
{
	const char *st = kf_str(a, "status");
	double code = kf_num(a, "exit_code", 0), s = kf_num(a, "seconds", 0);

	if (st && strcmp(st, "timeout") == 0)
		buf_printf(b, "was stopped at kf-ncu's limit of %.0f s for it "
		    "(KF_NCU_DETAIL_TIMEOUT; by default twice the timing run's %.0f s, plus 120 s)",
		    kf_num(a, "limit_s", s), kf_num(a, "timing_s", 0));
	else if (st && strcmp(st, "stopped") == 0)
		buf_printf(b, "was stopped from outside after %.0f s (kf-run's --timeout or "
		    "an interrupt)", s);
	else
		buf_printf(b, "exited with status %.0f%s%s%s after %.0f s%s", code,
		    code > 128 ? " (" : "", code > 128 ? signame_of(code - 128) : "",
		    code > 128 ? ")" : "", s, cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(a,
		    "report")) ? " and left no report" : "");
}

void
ncu_profiler_failed(struct kf_fb *fb, const cJSON *data)
{
	const cJSON *t = kf_obj(data, "timing"), *r = kf_obj(t, "detailed_run"), *a;
	const char *st = kf_str(r, "status"), *err = kf_str(r, "ncu_error");
	const char *xla = kf_str(r, "xla_flags_added");
	double chosen = cJSON_GetArraySize(kf_arr(t, "chosen"));
	double missing = cJSON_GetArraySize(kf_arr(t, "missing"));
	double profiled = chosen - missing;
	struct buf b = {0};
	struct kf_finding *f;
	int n = 0;

	/* The program's own run is the timing run: only when it was clean
	 * (kf-ncu says so: timing_exit_code) is the failure the profiler's. */
	if (st == NULL || strcmp(st, "ok") == 0 ||
	    !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(r, "timing_exit_code")) ||
	    kf_num(r, "timing_exit_code", 1) != 0)
		return;
	if (profiled < 0 || chosen == 0)
		profiled = 0;
	buf_printf(&b, "ncu's detailed run failed, not the program: the program's own run "
	    "(the timing run, %s) exited with status 0 after %.0f s, and ncu's detailed run "
	    "of it%s ", strcmp(kf_str(r, "timing") ? kf_str(r, "timing") : "", "trace") == 0 ?
	    "under kf's tracer" : "under ncu", kf_num(r, "timing_s", 0),
	    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "overlapped")) ?
	    " (held beside the timing run, then attached to)" : " (after the timing run)");
	attempt_what(r, &b);
	if (err)
		buf_printf(&b, " (ncu: \"%s\")", err);
	cJSON_ArrayForEach(a, kf_arr(r, "attempts")) {
		buf_puts(&b, n++ ? "; and one " : ". kf tried it first held beside the timing "
		    "run (ncu --mode launch, then attach), where it ");
		attempt_what(a, &b);
	}
	if (xla)
		buf_printf(&b, ". Its kernels are XLA's, so it ran with XLA_FLAGS+=\"%s\" (%s)",
		    xla, xla_why(r));
	buf_printf(&b, ". The timing run's ranking of all %.0f launches is whole; ",
	    kf_num(t, "launches", 0));
	if (profiled > 0)
		buf_printf(&b, "%.0f of the %.0f kernels chosen have ncu's details, the other "
		    "%.0f none", profiled, chosen, missing);
	else
		buf_puts(&b, "no kernel has ncu's details");
	f = kf_diag_add(&fb->diag, KF_PROFILER_FAILED, NULL, NAN, "%s", b.s);
	kf_finding_ev(f, "detailed_run.exit_code", kf_num(r, "exit_code", 0), NULL);
	kf_finding_ev(f, "detailed_run.seconds", kf_num(r, "seconds", 0), "s");
	if (strcmp(st, "timeout") == 0)
		kf_finding_ev(f, "detailed_run.limit_s", kf_num(r, "limit_s", 0), "s");
	kf_finding_ev(f, "detailed_run.timing_exit_code", 0, NULL);
	kf_finding_ev(f, "detailed_run.timing_s", kf_num(r, "timing_s", 0), "s");
	kf_finding_ev(f, "timing.launches", kf_num(t, "launches", 0), NULL);
	kf_finding_ev(f, "kernels detailed", profiled, NULL);
	if (strcmp(st, "timeout") == 0)
		kf_finding_fix(f, "give the detailed run more time (KF_NCU_DETAIL_TIMEOUT=SECONDS "
		    "in kf's environment) or detail fewer kernels (--top 1); the timing run's "
		    "ranking needs no second run");
	else if (strcmp(st, "stopped") == 0)
		kf_finding_fix(f, "give kf-run a longer --timeout (kf -t SECONDS): the detailed "
		    "run needs about the timing run's time plus ncu's replay of each chosen kernel");
	else
		kf_finding_fix(f, "the program is not at fault: detail fewer kernels (--top 1), or "
		    "run ncu on it by hand (the command in the record's argv) to see where ncu "
		    "fails; the timing run's ranking needs no second run");
	buf_free(&b);
}

