/* kf: merging the passes of one job into one record (kf-collate, and
 * kf-feedback when it is given records that were not collated). */
#ifndef KF_COLLATE_H
#define KF_COLLATE_H

#include <cJSON.h>

/* Fields that belong to one pass and are left out of the merged record. */
extern const char *const kf_pass_fields[];
/* What kf-collate reads as text (kf_in_keep): "data", which it passes on
 * (one-pass profilers) or parses to merge (kf_collate_job does). */
extern const char *const kf_collate_keep[];

/* One record for the job whose pass records are recs[0..n) (any order; the
 * caller keeps them; they may be modified). It has the job's fields,
 * "profiler", "passes" (each pass: name, group, status, run summary, error)
 * and "collated", or the error of its passes when none of them is good. */
cJSON *kf_collate_job(cJSON **recs, int n);

#endif
