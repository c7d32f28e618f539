/* kf: where a record's time went, for people (kf-feedback --timings):
 * kf-run's account of each pass (run.elapsed_s) and the profiler's own
 * (collated.timings: kf-ncu's ncu_timings.json, man/kf.7), each number
 * with the field it comes from. */
#ifndef KF_TIMINGS_H
#define KF_TIMINGS_H

#include <cjson/cJSON.h>

#include "buf.h"

/* Appends the account of collated record rec to b, a heading and lines
 * each ending in a newline, or one line saying none was recorded. */
void kf_timings_text(struct buf *b, const cJSON *rec);
/* Its lines alone, without the heading: the number of rows, 0 (nothing
 * written) when none was recorded. */
int kf_timings_rows(struct buf *b, const cJSON *rec);

#endif
