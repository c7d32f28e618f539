/* kf: kf-feedback given pass records that kf-collate did not merge: the
 * passes of one job that arrive together are merged here; a lone pass of a
 * profiler with several (unitrace) is an error that says to run kf-collate.
 *
 * Ownership: kf_fb_next() returns a record the caller deletes. */
#ifndef KF_FB_PASSES_H
#define KF_FB_PASSES_H

#include <cJSON.h>

#include "record.h"

/* The next record of in, as kf_in_next(), except that consecutive pass
 * records of one job of a profiler with several passes (same "id" and
 * "profiler", no "collated") come back merged by kf_collate_job() once all
 * its passes ("passes_total", else the profiler's count) are in. Records
 * that are not such passes, or a job's passes that do not all arrive
 * together, come back as they are. */
cJSON *kf_fb_next(struct kf_in *in);

/* A record read but not collated that is one pass of a profiler with
 * several: marked with an error of kind not_collated that says to run
 * kf-collate; 1 then, else 0. */
int kf_fb_one_of_passes(cJSON *rec);

#endif
