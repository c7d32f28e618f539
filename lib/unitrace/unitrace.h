/* kf: the Intel unitrace path: metrics tables, timelines, metric groups.
 *
 * Ownership: every cJSON tree returned belongs to the caller (cJSON_Delete);
 * strings passed in are only read. */
#ifndef KF_UNITRACE_H
#define KF_UNITRACE_H

#include <cJSON.h>

#include "profiler.h"

kf_wrap_fn unitrace_wrap;		/* unitrace_wrap.c */
kf_read_fn unitrace_read;		/* unitrace_read.c */
kf_collate_fn unitrace_collate;	/* unitrace_collate.c */
kf_feedback_fn unitrace_feedback;	/* unitrace_feedback.c */

/* The metric groups kf-select asks for, in pass order. */
extern const char *const unitrace_groups[3];

/* What a metrics file held, besides its tables. */
struct unitrace_csv_info {
	long lines;		/* lines read */
	long rows;		/* kernel rows (samples in sampling layout) */
	long skipped;		/* lines after a header that were no row */
	long nuls;		/* NUL bytes dropped */
	int sampling;		/* ", "-separated --metric-sampling layout */
	int legacy;		/* "== Kernel Metrics ==", repeated headers, trailing commas */
};

/* Read one trace.metrics.<pid> file and append its device sections to
 * sections (a JSON array). Each section:
 *   {"file", "device", "layout": "query"|"sampling"|"legacy", "group",
 *    "columns": [...], "rows": [[...], ...]}
 * A row holds one value per column: numbers as numbers, the Kernel column
 * as the name with its launch suffix, empty fields as null. In the sampling
 * layout the rows are averaged per kernel: each row is the mean of its
 * samples and the section also has "samples" and "instances" (one count per
 * row) and "idle_samples" (NoKernel rows, left out). Problems are appended
 * to warnings as strings. -1 and errno when the file cannot be read. */
int unitrace_csv_read(const char *path, cJSON *sections, cJSON *warnings,
    struct unitrace_csv_info *info);

/* The metric group a header belongs to ("ComputeBasic", "MemoryProfile",
 * "VectorEngineProfile"), or NULL. */
const char *unitrace_group_of(const cJSON *columns);

/* Index of column name in columns, or -1. */
int unitrace_col(const cJSON *columns, const char *name);

/* Number in row at column i, or NAN. */
double unitrace_val(const cJSON *row, int i);

/* Median instance index as the reference picks it: the row at n/2 after a
 * stable sort of the GpuTime values. Returns the index into v. */
size_t unitrace_median_pick(const double *v, size_t n);

#endif
