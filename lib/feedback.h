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
};

struct kf_fb_sec {
	int prio;
	char *text;
};

struct kf_fb {
	const struct kf_fb_opts *opt;
	cJSON *analysis;	/* an object; "kernels" etc. */
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
/* Add the text of b as a section and empty b. */
void kf_fb_add_buf(struct kf_fb *fb, int prio, struct buf *b);
/* The text: sections joined by blank lines, dropping the least important
 * (the last of the highest priority number first) until it fits max_chars,
 * and cutting the last resort at a line end. */
char *kf_fb_render(const struct kf_fb *fb, size_t max_chars);

/* "131.7 us", "3.13 ms", "1.24 s" */
void kf_fmt_ns(struct buf *b, double ns);
/* A percentage: "81.3%" */
void kf_fmt_pct(struct buf *b, double pct);

/* A readable kernel name: no return type, no "(anonymous namespace)::",
 * no [SIMD...] launch suffix, template and parameter lists longer than
 * limit shortened to "<...>"/"(...)", still identifiable. */
char *kf_kernel_short(const char *name, size_t limit);
/* The kernel name without a trailing unitrace "[SIMD.. {..} {..}]" suffix. */
char *kf_kernel_strip_suffix(const char *name);

/* Kernels ranked by total GPU time. */
struct kf_rank_ent {
	char *name;
	double total_ns;
	long launches;
	double share;		/* of the total, 0..100 */
};
struct kf_rank {
	struct kf_rank_ent *v;
	size_t n, cap;
	double total_ns;
	void *index;
};
void kf_rank_add(struct kf_rank *r, const char *name, double ns, long launches);
/* Sort by total time, largest first, and compute shares. */
void kf_rank_sort(struct kf_rank *r);
/* "Kernels by total GPU time ..." listing the top ones and the rest summed. */
void kf_rank_text(const struct kf_rank *r, struct buf *b, int top);
cJSON *kf_rank_json(const struct kf_rank *r, int top);
void kf_rank_free(struct kf_rank *r);

#endif
