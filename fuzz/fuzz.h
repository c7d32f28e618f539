/* kf fuzzing: what every libFuzzer target shares.
 *
 * The targets drive the real entry points (ncu_read, unitrace_read, ...):
 * the input is written into a scratch directory on tmpfs, the reader's
 * record is captured from standard output and sent on through kf-collate's
 * and kf-feedback's code, as a pipeline would. Strings returned belong to
 * the caller (free). */
#ifndef KF_FUZZ_H
#define KF_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <cJSON.h>

/* Once per process: program name, data directory, scratch directory,
 * standard output to /dev/null. */
void fz_init(const char *prog);
/* The scratch directory (absolute). */
const char *fz_dir(void);
/* Write n bytes as file name in the scratch directory. */
void fz_put(const char *name, const uint8_t *d, size_t n);
void fz_rm(const char *name);
/* A record {"id", "profiler", "output_dir": the scratch directory}. */
cJSON *fz_record(const char *profiler);

/* Capture standard output between these two; fz_end returns what was
 * written (NUL-terminated, *n bytes). */
void fz_begin(void);
char *fz_end(size_t *n);

/* The profiler's reader on the scratch directory (its files put there),
 * as kf-read runs it: one record in, one line out, whole; then that line
 * through fz_pipeline. */
void fz_read(const char *profiler, int npass, int variant);
/* Every line of out parsed as kf-collate and kf-feedback would take it:
 * the records collated as npass passes of one job, then given feedback. */
void fz_pipeline(const char *out, size_t n, int npass, int variant);
/* Feedback for one record, as kf-feedback does it (rec is kept); variant
 * picks the options: 0 plain, 1 --max-chars 300 --top 1 --rules 0 --gpu. */
void fz_feedback(cJSON *rec, int variant);

#endif
