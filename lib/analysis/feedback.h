/* kf: building feedback text and its analysis, shared by the three paths.
 *
 * A profiler's feedback function adds sections in reading order, each with a
 * priority (0 must stay; higher numbers go first when --max-chars is short),
 * and fills fb->analysis with the same findings as data. The struct owns its
 * sections and analysis. Declared here: feedback.c's API; the headers it
 * includes declare the units every feedback uses with it (rank.c, kname.c,
 * machinery.c, runend.c). */
#ifndef KF_FEEDBACK_H
#define KF_FEEDBACK_H

#include <stddef.h>
#include <cJSON.h>

#include "buf.h"
#include "diagnosis.h"
#include "kname.h"
#include "machinery.h"
#include "rank.h"
#include "runend.h"

enum {
	FB_LEAD = -1,		/* the diagnosis (kf_fb_lead): room first */
	FB_HEAD = 0,		/* the kernel named, the verdict */
	FB_KEY = 1,		/* key numbers of the focus kernel */
	FB_ADVICE = 2,		/* what to try: top rules, recommendations */
	FB_RANK = 3,		/* kernels by time */
	FB_DETAIL = 4,		/* more numbers, more rules */
	FB_MINOR = 5,		/* other kernels' details */
};

struct kf_fb_opts {
	size_t max_chars;	/* 0: no limit */
	int top;		/* kernels listed by name in rankings */
	int max_rules;		/* rules listed */
	const char *gpu;	/* --gpu: the GPU whose roofs to use */
	const char *gpus_file;	/* --gpus-file: more GPUs */
	const char *focus;	/* --focus: NULL or "time", "longest", a name or glob */
};

struct kf_fb_sec {
	int prio;
	char *text;
};

struct kf_prog;

struct kf_fb {
	const struct kf_fb_opts *opt;
	cJSON *analysis;	/* an object; "kernels" etc. */
	struct kf_diag diag;	/* the findings; kf_fb_lead() writes them */
	struct kf_prog *prog;	/* the program as a whole (levers.h); NULL */
	struct kf_fb_sec *sec;
	size_t n, cap;
};

/* kf-feedback reads records keeping what the profilers' descriptors name
 * as text (kf_profiler_keep_paths, kf_json_lazy); kf_fb_unkeep() parses it
 * all for a profiler whose feedback reads whole trees. */
void kf_fb_unkeep(cJSON *rec);

void kf_fb_init(struct kf_fb *fb, const struct kf_fb_opts *opt);
void kf_fb_free(struct kf_fb *fb);
/* Add a section (a paragraph; no trailing newline needed). */
void kf_fb_add(struct kf_fb *fb, int prio, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Sort fb->diag, write it as analysis.diagnosis, and put its first
 * findings, at most three in about KF_LEAD_CHARS (at least one), before
 * every other section (priority FB_LEAD). Called once, after the
 * profiler's feedback. */
#define KF_LEAD_CHARS 1600
void kf_fb_lead(struct kf_fb *fb);
/* Add the text of b as a section and empty b. */
void kf_fb_add_buf(struct kf_fb *fb, int prio, struct buf *b);
/* The text: sections joined by blank lines, in reading order, within
 * max_chars: sections get room by priority (the diagnosis first, then 0,
 * then reading order), whole or as many whole lines as fit (a list keeps
 * its first items), so that most of the budget is used. The diagnosis
 * keeps as many whole findings as fit; without one, priority 0 always
 * stays, cut at a line end as the last resort. */
char *kf_fb_render(const struct kf_fb *fb, size_t max_chars);

/* The first lines of feedback for a run that was stopped: what stopped it,
 * the limit, the option, and that the numbers cover only what ran. */
void kf_fb_say_run(struct kf_fb *fb, const cJSON *rec);

/* The headings of every profiler's text have one style: a plain line
 * ending in ':' ("Stall reasons:"), sentence case, British spelling; the
 * sections every profiler has are written here, once: a kernel's heading
 * (kf_fb_kernel), the diagnosis (kf_fb_lead), the ranking and the
 * machinery set aside (kf_rank_text, kf_rank_machinery_text), a stopped
 * run (kf_fb_say_run). kf_fb_kernel writes "Kernel: SHOWN", with " (12.3%
 * of the GPU time here)" when share_pct is a number. */
void kf_fb_kernel(struct buf *b, const char *shown, double share_pct);

/* A duration, the one way the text and the report page say it: "850 ns",
 * "131.7 µs", "3.13 ms", "1.24 s". */
void kf_fmt_ns(struct buf *b, double ns);
/* A percentage, one decimal: "81.3%", "50.0%"; "< 0.05%" for a share
 * that is not 0 but rounds to 0.0. */
void kf_fmt_pct(struct buf *b, double pct);
/* A count of events, three digits at most: "58.7 M", "12.3 K", "950". */
void kf_fmt_count(struct buf *b, double n);

/* What failed, for a record with an error (lib/analysis/failwhat.c): the
 * input (not a record), preparing the job (kf-select, kf-wrap), starting
 * it (kf-run, no run), its profiler or program that could not be started
 * (PROGRAM_NOT_STARTED, PROFILER_NOT_STARTED), the analysis (kf-feedback),
 * an interrupt before the profiler wrote its outputs, or the profiling. */
enum kf_failed {
	KF_FAILED_INPUT, KF_FAILED_PREPARE, KF_FAILED_NOT_RUN, KF_FAILED_ANALYSIS,
	KF_FAILED_INTERRUPTED, KF_FAILED_PROFILING, KF_FAILED_PROGRAM_NOT_STARTED,
	KF_FAILED_PROFILER_NOT_STARTED, KF_FAILED_PROGRAM
};
enum kf_failed kf_what_failed(const cJSON *rec);
/* The sentence that says it, for the feedback and the report page; the
 * caller frees it. */
char *kf_what_failed_text(const cJSON *rec);
/* not_started: the profiler or the program of rec (an error record) could
 * not be started, so nothing ran: the finding, with the path that was
 * tried (the error's message), its stage and kind, the exit status as a
 * shell gives it, and the error's hint as its fix. 1 when rec is one. */
int kf_not_started(struct kf_diag *d, const cJSON *rec);

#endif
