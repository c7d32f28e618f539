/* kf: the Nsight Compute path: names shared by its reader and feedback,
 * and its functions (the descriptor kf_ncu is in ncu_desc.c). */
#ifndef KF_NCU_H
#define KF_NCU_H

#include "profiler.h"

kf_wrap_fn ncu_wrap;		/* ncu_wrap.c */
kf_read_fn ncu_read;		/* ncu_read.c */
kf_feedback_fn ncu_feedback;	/* ncu_feedback.c */

/* v in unit ("us", "msecond", ...) as nanoseconds into *ns; 0 when the
 * unit is not a time (ncu_feedback.c). */
int ncu_to_ns(const char *unit, double v, double *ns);

/* Section display names, as metric rows carry them. */
#define NCU_SOL "GPU Speed Of Light Throughput"
#define NCU_LAUNCH "Launch Statistics"
#define NCU_OCCUPANCY "Occupancy"

/* The files of kf-wrap ncu --top (libexec/kf/kf-ncu): the timing run's CSV,
 * and the same with mangled kernel names (--print-kernel-base mangled). */
#define NCU_TIMING "ncu_timing.csv"
#define NCU_TIMING_MANGLED "ncu_timing_mangled.csv"

struct kf_map;

/* kf-read --profiler ncu --select K CSV (profiler.h): the ncu filter
 * arguments for the K kernels with the most GPU time in CSV; with
 * KF_SELECT_WRITE, also CSV's folder's ncu_top.json. ncu_top.c. */
kf_select_fn ncu_select;
/* data.timing from dir's ncu_timing.csv (NULL when there is none); seen
 * holds the names of the kernels the details page has. */
cJSON *ncu_timing_data(const char *dir, const struct kf_map *seen);

struct kf_rank;
/* kf-feedback: the ranking from data.timing (every launch of the timing
 * run), sorted; 0 when there is none. */
int ncu_timing_rank(const cJSON *data, struct kf_rank *rank);
/* What the timing run covered, and the chosen kernels the detailed run
 * missed. */
void ncu_timing_say(struct kf_fb *fb, const cJSON *data, size_t nl);

#endif
