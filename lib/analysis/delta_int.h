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

#endif
