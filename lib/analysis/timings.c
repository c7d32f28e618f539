/* kf: where a record's time went, for people (kf-feedback --timings). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"
#include "record.h"
#include "timings.h"

/* The profiler's account, in the order a run spends it: depth 1 is a part
 * of the whole, depth 2 and 3 a part of the row above. Keys not here are listed
 * after them as they are named, so nothing in the record is left out. */
static const struct row {
	const char *key;
	int depth;
	const char *words;
} rows[] = {
	{ "total_s", 0, "kf-ncu in all" },
	{ "timing_run_s", 1, "the timing run" },
	{ "timing_before_cuda_s", 2,
	    "of it, the program's start-up to its first CUDA call, without a sweep's GPU lock" },
	{ "timing_before_range_s", 2,
	    "of it, its work before its profiler range, the GPU's lock shared with other jobs" },
	{ "choose_s", 1, "choosing the kernels from it" },
	{ "startup_s", 1, "the program's start-up, to its first CUDA call, where ncu holds it" },
	{ "listen_wait_s", 1, "after the timing run, the wait for the held program to listen" },
	{ "early_before_range_s", 1, "the held program's work before its profiler range, under a "
	    "first attach that profiles nothing, beside the timing run" },
	{ "early_end_s", 1, "that first attach ended, the program waiting at its range" },
	{ "early_wait_s", 1, "the timing run's range waiting for the held program, attached "
	    "early, to reach its own (not in the timing run's seconds)" },
	{ "gpu_wait_s", 1, "waiting for a sweep's GPU lock" },
	{ "range_wait_s", 2, "of it, the program's profiler range waiting for the GPU alone" },
	{ "sections_s", 1, "ncu's own sections written beside kf's sampled source counters "
	    "(--sampled-source)" },
	{ "detailed_s", 1, "the detailed run: ncu's start or attach to its end, less the waits" },
	{ "ncu_connect_s", 2, "ncu's start, to the program connected" },
	{ "to_first_profiled_s", 2,
	    "the program's run to its first profiled launch, that launch's replays included" },
	{ "profiling_s", 2, "the other profiled launches, with their replays" },
	{ "after_last_profiled_s", 2, "after the last profiled launch, to the program's end" },
	{ "program_under_ncu_s", 2, "the program under ncu, to its end (the GPU's part)" },
	{ "before_range_s", 3,
	    "of it, its work before its profiler range asked for the GPU, beside other jobs" },
	{ "exports_s", 1, "the exports of ncu's pages, side by side" },
	{ "export_details_s", 2, "the longest export of the details page" },
	{ "export_mangled_s", 2, "the longest export of the details page by mangled name" },
	{ "export_raw_s", 2, "the longest export of the raw page" },
	{ "export_source_s", 2, "the longest export of the source page" },
	{ "export_timing_s", 2, "the longest export of ncu's timing run's details page" },
	{ "gpu_held_s", 1,
	    "the GPU held alone under a sweep's lock: what paces a sweep (the sum over its jobs)" },
	{ "gpu_shared_s", 1, "the GPU's lock held shared: the program's own GPU work outside "
	    "its profiler ranges, beside other jobs' such work, never beside a range" },
};

/* Counts and flags, said in sentences after the table. */
static const char *const said[] = { "launches_profiled", "replay_passes", "range_unseen",
	"replay_host_backups", "early_retaken", NULL };

static int
known(const char *key)
{
	size_t i;

	for (i = 0; i < sizeof rows / sizeof rows[0]; i++)
		if (strcmp(rows[i].key, key) == 0)
			return 1;
	for (i = 0; said[i]; i++)
		if (strcmp(said[i], key) == 0)
			return 1;
	return 0;
}

static void
line(struct buf *b, double s, int depth, const char *words, const char *field)
{
	/* a number no run could take is shown as it is, not as 300 digits */
	buf_printf(b, fabs(s) < 1e7 ? "%9.2f  %*s%s (%s)\n" : "%9.3g  %*s%s (%s)\n", s,
	    2 * depth, "", words, field);
}

/* rec's object a.b, parsed now if a reader kept either as text (kf-report
 * keeps each member of "collated"). */
static const cJSON *
lazy2(const cJSON *rec, const char *a, const char *b)
{
	const cJSON *o = kf_json_lazy(rec, a);

	o = cJSON_IsObject(o) ? kf_json_lazy(o, b) : NULL;
	return cJSON_IsObject(o) ? o : NULL;
}

/* What timed the program for --top (collated.timing.detailed_run.timing). */
static const char *
timing_words(const cJSON *rec)
{
	const char *by = kf_str(kf_obj(lazy2(rec, "collated", "timing"), "detailed_run"), "timing");

	if (by && strcmp(by, "trace") == 0)
		return "the timing run: the program alone, under kf's tracer";
	if (by && strcmp(by, "ncu") == 0)
		return "the timing run: the program under ncu, timing every launch";
	return "the timing run";
}

/* kf-run's time of each pass: the profiler's whole run. */
static int
runs(struct buf *b, const cJSON *rec)
{
	const cJSON *p, *passes = kf_arr(rec, "passes");
	int n = 0, many = cJSON_GetArraySize(passes) > 1, i = 0;
	char field[64];

	cJSON_ArrayForEach(p, passes) {
		double s = kf_num(kf_obj(p, "run"), "elapsed_s", NAN);
		const char *name = kf_str(p, "pass");

		if (isfinite(s)) {
			char *words = many ? xasprintf("pass %s, its whole run under kf-run",
			    name ? name : "?") : xstrdup("the whole run under kf-run");

			snprintf(field, sizeof field, "passes[%d].run.elapsed_s", i);
			line(b, s, 0, words, field);
			free(words);
			n++;
		}
		i++;
	}
	if (passes == NULL && isfinite(kf_num(kf_obj(rec, "run"), "elapsed_s", NAN))) {
		line(b, kf_num(kf_obj(rec, "run"), "elapsed_s", 0), 0, "the whole run under kf-run",
		    "run.elapsed_s");
		n++;
	}
	return n;
}

int
kf_timings_rows(struct buf *b, const cJSON *rec)
{
	const cJSON *t = lazy2(rec, "collated", "timings"), *e;
	const char *from = "collated.timings";
	double launches, passes, total, timing, unseen, backups;
	int n;
	size_t i;

	if (t == NULL) {
		t = lazy2(rec, "data", "timings");
		from = "data.timings";
	}
	n = runs(b, rec);
	for (i = 0; t && i < sizeof rows / sizeof rows[0]; i++) {
		double s = kf_num(t, rows[i].key, NAN);

		if (isfinite(s)) {
			char *field = xasprintf("%s.%s", from, rows[i].key);

			line(b, s, rows[i].depth, strcmp(rows[i].key, "timing_run_s") == 0 ?
			    timing_words(rec) : rows[i].words, field);
			free(field);
			n++;
		}
	}
	cJSON_ArrayForEach(e, t) {
		if (cJSON_IsNumber(e) && e->string && !known(e->string)) {
			char *field = xasprintf("%s.%s", from, e->string);

			line(b, e->valuedouble, 1, e->string, field);
			free(field);
			n++;
		}
	}
	if (n == 0)
		return 0;
	total = kf_num(t, "total_s", NAN);
	timing = kf_num(t, "timing_run_s", NAN);
	if (isfinite(total) && isfinite(timing) && total >= timing)
		buf_printf(b, "kf-ncu's time beyond the timing run: %.2f s (total_s less "
		    "timing_run_s).\n", total - timing);
	launches = kf_num(t, "launches_profiled", NAN);
	passes = kf_num(t, "replay_passes", NAN);
	if (isfinite(launches) && launches > 0) {
		buf_printf(b, "ncu profiled %.0f launch%s (launches_profiled)", launches,
		    launches == 1 ? "" : "es");
		if (isfinite(passes))
			buf_printf(b, " in %.0f replay passes (replay_passes), %.1f a launch", passes,
			    passes / launches);
		buf_puts(b, ".\n");
	} else if (isfinite(launches)) {
		buf_puts(b, "ncu profiled no launch (launches_profiled).\n");
	}
	if ((backups = kf_num(t, "replay_host_backups", 0)) > 0)
		buf_printf(b, "ncu said %.0f time%s that it backed up device memory in system memory "
		    "(replay_host_backups): the GPU had no room for its copy of the memory a kernel can "
		    "reach, so before each replay pass it restored what the kernel wrote from host "
		    "memory, which slows the passes; fewer jobs at once on the GPU, or a program that "
		    "holds less of its memory, leave it room.\n", backups, backups == 1 ? "" : "s");
	if (kf_num(t, "early_retaken", 0) > 0)
		buf_puts(b, "The timing run failed before its profiler range while the program held "
		    "for the detailed run worked beside it on the GPU, and was taken again alone "
		    "(early_retaken).\n");
	if ((unseen = kf_num(t, "range_unseen", 0)) > 0)
		buf_printf(b, "The range gate found %.0f run%s not gated (a launch profiled before the "
		    "program's profiler range asked for the GPU alone, or a timing run in which no "
		    "range asked), each taken again with the GPU held alone (range_unseen).\n",
		    unseen, unseen == 1 ? "" : "s");
	buf_puts(b, "kf-read, kf-collate and kf-feedback come after these and are not in "
	    "them.\n");
	return n;
}

void
kf_timings_text(struct buf *b, const cJSON *rec)
{
	struct buf lines = {0};

	if (kf_timings_rows(&lines, rec) > 0) {
		buf_puts(b, "Where the time went, in seconds:\n");
		buf_add(b, lines.s, lines.len);
	} else {
		buf_puts(b, "Where the time went: not recorded (the record has no run.elapsed_s "
		    "and no profiler's account, collated.timings).\n");
	}
	buf_free(&lines);
}
