/* kf: names shared by the Nsight Compute reader and its feedback. */
#ifndef KF_NCU_H
#define KF_NCU_H

/* Section display names, as metric rows carry them. */
#define NCU_SOL "GPU Speed Of Light Throughput"
#define NCU_LAUNCH "Launch Statistics"
#define NCU_OCCUPANCY "Occupancy"

/* The files of kf-wrap ncu --top (libexec/kf/kf-ncu): the timing run's CSV,
 * and the same with mangled kernel names (--print-kernel-base mangled). */
#define NCU_TIMING "ncu_timing.csv"
#define NCU_TIMING_MANGLED "ncu_timing_mangled.csv"

#include <cJSON.h>

struct kf_map;

/* kf-read --ncu-select K CSV: print the ncu filter arguments (one a line)
 * that profile one launch of each launch configuration of each of the K
 * kernels with the most GPU time in CSV; with NCU_SELECT_WRITE, also CSV's
 * folder's ncu_top.json; with NCU_SELECT_IDS, print instead the ID of each
 * one's first launch. 0, or 1 after a message (no kernel, unreadable). */
enum { NCU_SELECT_WRITE = 1, NCU_SELECT_IDS = 2 };
int ncu_select(long k, const char *csv, int flags);
/* data.timing from dir's ncu_timing.csv (NULL when there is none); seen
 * holds the names of the kernels the details page has. */
cJSON *ncu_timing_data(const char *dir, const struct kf_map *seen);

struct kf_rank;
struct kf_fb;
/* kf-feedback: the ranking from data.timing (every launch of the timing
 * run), sorted; 0 when there is none. */
int ncu_timing_rank(const cJSON *data, struct kf_rank *rank);
/* Which of the n detailed launches (kernel names, durations) to focus on:
 * the longest launch of the kernel ranked highest; n when none is ranked. */
size_t ncu_timing_focus(const struct kf_rank *rank, const char *const *names,
    const double *ns, size_t n);
/* What the timing run covered, and the chosen kernels the detailed run
 * missed. */
void ncu_timing_say(struct kf_fb *fb, const cJSON *data, size_t nl);

#endif
