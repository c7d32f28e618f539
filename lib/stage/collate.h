/* kf: the one definition of a job's passes (kf-collate, and kf-feedback
 * when it is given records that were not collated): pass records grouped by
 * "id" in any order, a job merged into one record once all its passes
 * ("passes_total", else the profiler's count) are in, the others at the
 * end with the passes that came.
 *
 * Ownership: kf_collator_add takes rec; every record returned is the
 * caller's (cJSON_Delete). */
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

/* A job's record as kf-collate (or kf-feedback) wrote it, split back into
 * one pass record for each of its "passes": the job's fields, the pass's
 * (its name, output_dir, run, and an error of a stage before kf-read) and
 * passes_total, for kf-read to read again (a saved final record keeps the
 * run's status). NULL when rec has no passes or has an output_dir of its
 * own (a pass record). The array is the caller's. */
cJSON *kf_job_passes(const cJSON *rec);

struct kf_collator;
struct kf_collator *kf_collator_new(void);
/* Add a pass record: the job's merged record when this was its last pass,
 * rec itself marked bad_record when it has no "id", else NULL. */
cJSON *kf_collator_add(struct kf_collator *c, cJSON *rec);
/* At the end: the merged record of the next job whose passes did not all
 * come, in the order the jobs began; NULL when none is left. */
cJSON *kf_collator_rest(struct kf_collator *c);
/* Frees what is left too. */
void kf_collator_free(struct kf_collator *c);

#endif
