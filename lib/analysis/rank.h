/* kf: kernels ranked by GPU time and the focus picked from them (rank.c).
 * A kf_rank owns its entries (kf_rank_free). */
#ifndef KF_RANK_H
#define KF_RANK_H

#include <stddef.h>
#include <cJSON.h>

#include "buf.h"
#include "machinery.h"

struct kf_fb;

/* Kernels ranked by total GPU time; framework machinery after the rest. */
struct kf_rank_ent {
	char *name;
	char *shown;		/* kf_kernel_short, unique within the ranking */
	double total_ns;
	long launches;
	double share;		/* of the total, 0..100 */
	long short_launches;	/* launches added one by one that were shorter
				 * than KF_SHORT_LAUNCH_NS (program.h) */
	double short_ns;	/* their time */
	int grouped;		/* some launches were added in groups: the
				 * short ones among them are not counted */
	const struct kf_machine *machine;	/* NULL: the program's own work */
};
struct kf_rank {
	struct kf_rank_ent *v;
	size_t n, cap;
	double total_ns;
	void *index;
};
/* A launch (or launches) of kernel name, NULL as "unnamed kernel". */
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
