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

#include "buf.h"

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

/* The parts of a job's section (lib/report/report_chart.c,
 * lib/report/report_delta.c, lib/report/report_roof.c). */
/* The focus kernel of an analysis: focus, else the first of kernels. */
const cJSON *kf_report_focus(const cJSON *an);
/* A kernel's name for people: short_name, else name. */
const char *kf_report_kname(const cJSON *k);
/* A figure of horizontal bars of values of one kind: percentages, times in
 * ns, or ratios (speedups, with a line at 1). */
enum { KF_BAR_PCT, KF_BAR_TIME, KF_BAR_RATIO };
struct kf_report_bar {
	const char *label, *full;	/* full: the tooltip, NULL: the label */
	double v, pct;			/* pct: NAN when the value alone says it */
	const char *cls;		/* "bar", "rest", "after" */
};
void kf_report_bars(struct buf *b, const char *cls, const char *title, const char *axis_title,
    struct kf_report_bar *r, int n, int kind);
/* GPU time by kernel: the top n of analysis.ranking and the rest. */
void kf_report_time_chart(struct buf *b, const cJSON *an, int n);
/* Bars of percentages (throughput, occupancy, stalls) of the focus kernel. */
void kf_report_pct_chart(struct buf *b, const cJSON *an);
/* Before and after a baseline (analysis.delta; lib/report/report_delta.c): the
 * verdict, or why there is no comparison. */
void kf_report_delta(struct buf *b, const cJSON *an);
/* Its times as bars: total GPU time and the focus kernel's. */
void kf_report_delta_chart(struct buf *b, const cJSON *an);
/* Its details: the focus kernel's metrics, the top n kernels, the rules. */
void kf_report_delta_details(struct buf *b, const cJSON *an, int n);
/* The focus kernel's launch statistics (analysis.focus.launch and
 * occupancy, lib/report/report_focus.c), its warp stalls on the hot lines as bars,
 * and the hot lines with their stalls and excess sectors. */
void kf_report_launch(struct buf *b, const cJSON *f);
void kf_report_stalls(struct buf *b, const cJSON *f);
void kf_report_lines(struct buf *b, const cJSON *f, int max);
/* "bench.cu:93", the source file as the feedback text names it, the whole
 * path its tooltip; line NAN: none. */
void kf_report_where(struct buf *b, const char *file, double line);
/* The roofline chart, or a line saying why there is none. */
void kf_report_roofline(struct buf *b, const cJSON *rec, const cJSON *an,
    const char *gpus_file, int n);

#endif
