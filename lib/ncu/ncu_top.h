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

#define MAX_LISTED 1000		/* kernels listed in the ranking */
#define TUNE_NAME "XLA autotuning: timed runs of candidate kernels"

/* One launch with a duration, as a row of the CSV gives it. */
struct trow {
	const char *id, *name, *pid, *block, *grid;
	double ns;
};
typedef void launch_fn(void *arg, const struct trow *r);

struct timing_rd {
	struct kf_lines l;
	struct kf_csvrow row;
	launch_fn *fn;
	void *arg;
	long c_id, c_pid, c_name, c_block, c_grid, c_sec, c_metric, c_unit, c_value, c_raw;
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
/* The framework that launches kernel name for itself (machinery.tsv), or
 * NULL. */
const char *ncu_machinery(const char *name);
/* A JSON file, or NULL with errno. */
cJSON *ncu_json_load(const char *path);
/* A ranking file: an object with a "kernels" array of objects with a "key"
 * and "total_ns"; NULL with errno. */
cJSON *ncu_ranking_load(const char *path);

#endif
