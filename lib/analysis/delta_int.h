/* kf: what lib/analysis/baseline.c and lib/analysis/delta.c share (not for
 * the programs). */
#ifndef KF_DELTA_INT_H
#define KF_DELTA_INT_H

#include <cJSON.h>

#include "buf.h"
#include "map.h"

struct kf_baseline {
	char *path;
	char *error;		/* the whole file is unusable: why */
	struct kf_map ids;	/* id -> cJSON record: id, profiler, analysis, error */
	long records, bad, first_bad;	/* bad: lines not kf-feedback records */
	double noise_pct;
};

/* The analysis of the baseline record for id (status ok, same profiler),
 * or NULL with the reason in msg. */
const cJSON *kf_baseline_find(const struct kf_baseline *b, const char *id,
    const char *prof, struct buf *msg);

/* analysis.delta.levers and their lines under "What moved" (delta_levers.c):
 * each program-level finding of either run (fusion, layout_copy,
 * fp32_matmul, launch_bound) with its stake before and after, and which of
 * the kernels it named in the baseline are gone; diag: after's findings
 * (kf-feedback writes them into the analysis last). */
struct kf_diag;
void kf_delta_levers(const cJSON *before, const cJSON *after, const struct kf_diag *diag,
    cJSON *delta, struct buf *moved);

#endif
