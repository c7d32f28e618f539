/* kf: building feedback text and its analysis, shared by the three paths.
 *
 * A profiler's feedback function adds sections in reading order, each with a
 * priority (0 must stay; higher numbers go first when --max-chars is short),
 * and fills fb->analysis with the same findings as data. The struct owns its
 * sections and analysis. */
#ifndef KF_FEEDBACK_H
#define KF_FEEDBACK_H

#include <stddef.h>
#include <cJSON.h>

#include "util.h"
#include "diagnosis.h"

enum {
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

struct kf_fb {
	const struct kf_fb_opts *opt;
	cJSON *analysis;	/* an object; "kernels" etc. */
	struct kf_diag diag;	/* the findings; kf_fb_lead() writes them */
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
/* Sort fb->diag, write it as analysis.diagnosis, and put its first three
 * findings before every other section (priority FB_HEAD). Called once,
 * after the profiler's feedback. */
void kf_fb_lead(struct kf_fb *fb);
/* Add the text of b as a section and empty b. */
void kf_fb_add_buf(struct kf_fb *fb, int prio, struct buf *b);
/* The text: sections joined by blank lines, in reading order, within
 * max_chars: sections get room by priority (0 first, then reading order),
 * whole or as many whole lines as fit (a list keeps its first items), so
 * that most of the budget is used; priority 0 always stays, cut at a line
 * end as the last resort. */
char *kf_fb_render(const struct kf_fb *fb, size_t max_chars);

/* How a run ended when it did not end by itself ("kf-run stopped it at its
 * inactivity limit of 600 s ... after 601 s"), from a "run" object; NULL
 * when it ended by itself. A new string. */
char *kf_run_stopped(const cJSON *run);
/* kf-read: when rec's run was stopped, fail rec (kind "stopped") naming
 * that as the cause of what is missing; 1 if it did. */
int kf_fail_if_stopped(cJSON *rec, const char *profiler, const char *what);
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

/* "131.7 us", "3.13 ms", "1.24 s" */
void kf_fmt_ns(struct buf *b, double ns);
/* A percentage: "81.3%" */
void kf_fmt_pct(struct buf *b, double pct);

/* A readable kernel name: no return type, no "(anonymous namespace)::",
 * no [SIMD...] launch suffix, template and parameter lists longer than
 * limit shortened to "<...>"/"(...)", still identifiable. */
char *kf_kernel_short(const char *name, size_t limit);
/* Shown names for n distinct kernel names: each kf_kernel_short(limit),
 * lengthened where two would look alike, so that no two are the same. */
char **kf_kernel_shorts(const char *const *names, size_t n, size_t limit);
/* The kernel name without a trailing unitrace "[SIMD.. {..} {..}]" suffix. */
char *kf_kernel_strip_suffix(const char *name);

/* Framework machinery (share/kf/machinery.tsv): kernels a framework
 * launches for itself. The table is read once. */
struct kf_machine {
	char *pattern, *framework, *what;
};
/* The entry whose pattern matches name, or NULL. */
const struct kf_machine *kf_machinery_find(const char *name);
/* Why the table could not be read (or a bad line), or NULL. */
const char *kf_machinery_error(void);

/* Kernels ranked by total GPU time; framework machinery after the rest. */
struct kf_rank_ent {
	char *name;
	char *shown;		/* kf_kernel_short, unique within the ranking */
	double total_ns;
	long launches;
	double share;		/* of the total, 0..100 */
	const struct kf_machine *machine;	/* NULL: the program's own work */
};
struct kf_rank {
	struct kf_rank_ent *v;
	size_t n, cap;
	double total_ns;
	void *index;
};
void kf_rank_add(struct kf_rank *r, const char *name, double ns, long launches);
/* Sort by total time, largest first, machinery last; compute shares and
 * the shown names. */
void kf_rank_sort(struct kf_rank *r);
/* The entry of name, or NULL; its place in the ranking of the program's own
 * kernels (from 1; 0 for machinery) in *place. */
const struct kf_rank_ent *kf_rank_find(const struct kf_rank *r, const char *name,
    size_t *place);
/* How many entries are the program's own work (not machinery). */
size_t kf_rank_own(const struct kf_rank *r);
/* The name to show for a kernel of the ranking (a new string). */
char *kf_rank_shown(const struct kf_rank *r, const char *name);
/* "Kernels by total GPU time ..." listing the top ones and the rest summed,
 * then the machinery set aside. */
void kf_rank_text(const struct kf_rank *r, struct buf *b, int top);
/* "Set aside as framework machinery ..." or nothing. */
void kf_rank_machinery_text(const struct kf_rank *r, struct buf *b);
cJSON *kf_rank_json(const struct kf_rank *r, int top);

/* The focus: how --focus chose it. */
enum kf_focus_how {
	KF_FOCUS_TIME,		/* the program's kernel with the most GPU time */
	KF_FOCUS_LONGEST,	/* the longest launch (--focus longest) */
	KF_FOCUS_NAMED,		/* --focus NAME, part of a name or a glob */
	KF_FOCUS_UNMATCHED,	/* --focus NAME matched nothing: by time */
};
/* The kernel --focus want picks: NULL, "time" and "longest" pick the
 * program's kernel with the most time (machinery only if nothing else ran;
 * a profiler with launches picks the longest itself), a name the matching
 * kernel with the most time. *matches: how many matched. */
const struct kf_rank_ent *kf_rank_pick(const struct kf_rank *r, const char *want,
    enum kf_focus_how *how, size_t *matches);
/* "Why this kernel: ..." (one line, no newline) for e, picked as how. */
void kf_rank_why(const struct kf_rank *r, const struct kf_rank_ent *e,
    enum kf_focus_how how, const char *want, size_t matches, struct buf *b);
/* kf_rank_pick and kf_rank_why for a profiler whose data are totals per
 * kernel, not launches (unitrace, VTune): --focus longest falls back to the
 * most time, and the line says so. NULL if the ranking is empty. */
const struct kf_rank_ent *kf_fb_pick_totals(const struct kf_fb *fb, const struct kf_rank *r,
    enum kf_focus_how *how, size_t *matches, struct buf *why);
/* The reason as data: "most_time", "longest_launch", "named", "unmatched". */
const char *kf_focus_how_name(enum kf_focus_how how);
void kf_rank_free(struct kf_rank *r);

#endif
