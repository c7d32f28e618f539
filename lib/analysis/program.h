/* kf: findings about the whole program, the same for every profiler
 * (man/kf.7, "The diagnosis"): it failed (program_failed), most of its
 * launches were too short to fill the GPU (launch_bound), framework
 * machinery took part of its GPU time (machinery).
 *
 * A profiler's feedback calls kf_prog_findings() with its ranking and the
 * launch durations its timing data hold; kf-feedback calls kf_prog_failed()
 * for every record, profiled or failed. The levers between kernels are
 * levers.h's. */
#ifndef KF_PROGRAM_H
#define KF_PROGRAM_H

#include <stddef.h>
#include <cJSON.h>

#include "diagnosis.h"
#include "feedback.h"

/* A launch shorter than this cannot fill the GPU for long enough to pay
 * for its launch: what launch_bound counts. */
#define KF_SHORT_LAUNCH_NS 10000.0
/* Fewer launches than this say nothing about the program as a whole. */
#define KF_LAUNCH_BOUND_MIN 50

/* Launch durations, as a profiler's timing data hold them: each launch's
 * own (ncu's Duration of each launch profiled, a trace's kernels: n = 1),
 * a kernel's launches with the short ones counted (ncu's timing run), or,
 * where a profiler gives only a kernel's mean (VTune's Average Time,
 * unitrace's total over its instances when its shortest and longest launch
 * lie on both sides of KF_SHORT_LAUNCH_NS), n launches of that mean. */
struct kf_launch_grp {
	double total_ns, short_ns;	/* all n launches; the short ones */
	long n, nshort;
};
struct kf_launches {
	struct kf_launch_grp *v;
	size_t n, cap;
	int means;		/* some short launches are estimated from a mean */
	const char *metric;	/* the metric or column they came from (static) */
};
/* Add n launches of ns each (n > 1: a kernel's mean); ignores n < 1 and
 * durations that are not finite. */
void kf_launches_add(struct kf_launches *l, double ns, long n);
/* Add n launches of total_ns in all, nshort of them (short_ns in all)
 * shorter than KF_SHORT_LAUNCH_NS, as counted launch by launch. */
void kf_launches_add_counted(struct kf_launches *l, double total_ns, long n, double short_ns,
    long nshort);
void kf_launches_free(struct kf_launches *l);

/* launch_bound from launch durations alone: at least KF_LAUNCH_BOUND_MIN
 * launches, more than half of them shorter than KF_SHORT_LAUNCH_NS. What
 * fewer launches save is the GPU's idle time between them, which durations
 * do not measure: impact_pct is null, and the finding says so; evidence
 * the counts and times, named after l->metric. kf_prog_finish calls it
 * where the profiler gave no timeline (levers.h). 1 if added. */
int kf_prog_launch_bound(struct kf_diag *d, const struct kf_launches *l);
/* machinery: the kernels r set aside as framework machinery, their share
 * of r's GPU time (evidence "share_pct"), as kf_rank_machinery_text says
 * it. impact_pct is null: it is not time the program's own kernels can win
 * back. 1 if added. */
int kf_prog_machinery(struct kf_diag *d, const struct kf_rank *r);
/* The ranking and the launch durations as the program's (kf_prog_rank,
 * levers.h: the program-level findings follow from them in
 * kf_prog_finish), and machinery; l may be NULL (no launch durations). */
void kf_prog_findings(struct kf_fb *fb, const struct kf_rank *r, const struct kf_launches *l);

/* program_failed: rec (collated, or an error record) holds a run that
 * exited with a non-zero status, was killed by a signal, or was stopped by
 * kf-run at a limit, and its failure is not the profiler's own (no
 * permission, profiler or program not found). The finding says which
 * (run.exit_code, run.signal, run.ended_by), the profiler's own error lines
 * where it gave them (ncu's "==ERROR==" lines, in collated.messages or the
 * run's output), the last lines of the program's stderr (else of its
 * stdout), and whether numbers of kernels that ran before it follow. It
 * always leads (kf_diag_sort). 1 if added. */
int kf_prog_failed(struct kf_diag *d, const cJSON *rec);

#endif
