/* kf: the ncu --top path's parts, shared among its files: the timing run's
 * CSVs read launch by launch and made a ranking (ncu_timing.c), the choice
 * (ncu_choose.c), the account kf-read gives (ncu_account.c) and its words
 * in the feedback (ncu_say.c). Not for use outside lib/ncu.
 *
 * Ownership: what is returned is the caller's (cJSON_Delete); struct
 * timing_rd is the caller's and holds nothing after ncu_timing_scan. */
#ifndef KF_NCU_TOP_H
#define KF_NCU_TOP_H

#include <cJSON.h>

#include "csvrow.h"
#include "lines.h"
#include "machinery.h"
#include "trials.h"

#define MAX_LISTED 1000		/* kernels listed in the ranking */
/* The ranking's entries of launches set aside, each one entry of framework
 * machinery (machinery.tsv names them): before the steady state, after
 * XLA's autotuning or after other autotuning timed between cache flushes;
 * the flushes; an autotuner's candidates timed one by one (cuDNN's
 * benchmark mode); outside the program's profiler range (ncu_steady.c). */
#define TUNE_NAME KF_XLA_TUNE_NAME	/* machinery.h */
#define BENCH_NAME "Autotuning: the launches before the steady state"
#define FLUSH_NAME "Cache flushes: fills of a scratch buffer between timed runs"
#define TRIAL_NAME KF_TRIALS_NAME	/* trials.h */
#define OUTSIDE_NAME "Outside the profiler range: launches before cudaProfilerStart or after cudaProfilerStop"

/* One launch with a duration, as a row of the CSV gives it. */
struct trow {
	const char *id, *name, *pid, *block, *grid, *stream;
	const char *range;	/* KF_RANGE_COL's: "in", "out", "" or NULL */
	int waited;		/* KF_WAIT_COL's "yes": the host waited after it */
	double ns;
};
typedef void launch_fn(void *arg, const struct trow *r);

struct timing_rd {
	struct kf_lines l;
	struct kf_csvrow row;
	launch_fn *fn;
	void *arg;
	long c_id, c_pid, c_name, c_block, c_grid, c_stream, c_sec, c_metric, c_unit, c_value;
	long c_raw, c_range, c_wait;
	char *raw_unit;		/* raw page: the unit of gpu__time_duration.sum */
	char *last_id;		/* ids_only: the launch of the rows before */
	int have_hdr, want_units, ids_only;
	long launches, bad_rows;
	int truncated;
};

/* Each launch of path with a duration to fn (with ids_only, each launch
 * once, duration NAN). 0, or -1 with errno when it cannot be opened. */
int ncu_timing_scan(const char *path, launch_fn *fn, void *arg, struct timing_rd *t,
    int ids_only);
/* The steady state (ncu_steady.c): every launch seen once, in order
 * (ncu_steady_see), then ncu_steady_end, then each launch again in the same
 * order for the entry it goes to (ncu_steady_entry: NULL its kernel's, or
 * one of the names above). ncu_steady_from says what set the steady
 * state's start: "xla_autotuning", "autotuning" (an autotuner's timed runs
 * set aside), "profiler_range" or "all". */
struct ncu_steady;
struct ncu_steady *ncu_steady_new(void);
void ncu_steady_see(struct ncu_steady *s, const struct trow *r);
void ncu_steady_end(struct ncu_steady *s);
const char *ncu_steady_entry(struct ncu_steady *s, const struct trow *r);
/* Each launch again from the first, for ncu_steady_entry. */
void ncu_steady_rewind(struct ncu_steady *s);
const char *ncu_steady_from(const struct ncu_steady *s);
int ncu_steady_ranges(const struct ncu_steady *s);
void ncu_steady_free(struct ncu_steady *s);

/* The framework that launches kernel name for itself (machinery.tsv), or
 * NULL. */
const char *ncu_machinery(const char *name);
/* A JSON file, or NULL with errno. */
cJSON *ncu_json_load(const char *path);
/* A ranking file: an object with a "kernels" array of objects with a "key"
 * and "total_ns"; NULL with errno. */
cJSON *ncu_ranking_load(const char *path);

#endif
