/* kf: kf-report's HTML page of final records (kf-feedback's output).
 *
 * kf_report_add() turns a record into a row of the index and a section of
 * the page at once, so the record can be freed right after and the report
 * grows linearly with the jobs; kf_report_write() writes the page: inline
 * CSS and SVG, nothing loaded from anywhere, no script. Ownership: the
 * report owns its buffers; records stay the caller's. */
#ifndef KF_REPORT_H
#define KF_REPORT_H

#include <stdio.h>
#include <cJSON.h>

#include "util.h"

struct kf_report_opts {
	const char *title;	/* the page's title */
	int top;		/* kernels in a job's time chart, the rest summed */
	int rules;		/* optimisation rules listed per job */
	int lines;		/* hot source lines listed per job */
	const char *gpus_file;	/* more GPUs for the roofs (as share/kf/gpus.json) */
};

struct kf_report;
struct kf_report *kf_report_new(const struct kf_report_opts *o);
void kf_report_add(struct kf_report *r, const cJSON *rec);
/* 0, or -1 when writing failed (errno). */
int kf_report_write(struct kf_report *r, FILE *f);
void kf_report_free(struct kf_report *r);

/* The parts of a job's section (lib/report_chart.c, lib/report_roof.c). */
/* The focus kernel of an analysis: focus, else the first of kernels. */
const cJSON *kf_report_focus(const cJSON *an);
/* A kernel's name for people: short_name, else name. */
const char *kf_report_kname(const cJSON *k);
/* GPU time by kernel: the top n of analysis.ranking and the rest. */
void kf_report_time_chart(struct buf *b, const cJSON *an, int n);
/* Bars of percentages (throughput, occupancy, stalls) of the focus kernel. */
void kf_report_pct_chart(struct buf *b, const cJSON *an);
/* Before and after a baseline (analysis.delta). */
void kf_report_delta(struct buf *b, const cJSON *an);
/* The roofline chart, or a line saying why there is none. */
void kf_report_roofline(struct buf *b, const cJSON *rec, const cJSON *an,
    const char *gpus_file, int n);

#endif
