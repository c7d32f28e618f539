/* kf: the diagnosis, the same for every profiler: findings of what limits
 * the kernel (or the program), where, and what to change, most time at stake
 * first (man/kf.7, "The diagnosis").
 *
 * A profiler's feedback function fills fb->diag (feedback.h) with
 * kf_diag_add() and the kf_finding_*() setters; kf-feedback then writes it as
 * analysis.diagnosis and leads the text with it (kf_fb_lead()). One finding
 * is one function's verdict on its own evidence: it says what it measured
 * (kf_finding_ev), where (kf_finding_at) and the change it advises
 * (kf_finding_fix). The diag owns its findings and every string in them. */
#ifndef KF_DIAGNOSIS_H
#define KF_DIAGNOSIS_H

#include <stddef.h>
#include <cJSON.h>

#include "buf.h"

/* The words of the record contract, in this order (kf_find_kind_name). */
enum kf_find_kind {
	KF_PROGRAM_FAILED,
	KF_PROFILER_FAILED,
	KF_NOT_STARTED,
	KF_FUSION,
	KF_LAYOUT_COPY,
	KF_FP32_MATMUL,
	KF_LAUNCH_BOUND,
	KF_MACHINERY,
	KF_COMPUTE_BOUND,
	KF_MEMORY_BOUND,
	KF_LATENCY_BOUND,
	KF_UNCOALESCED_GLOBAL,
	KF_SHARED_BANK_CONFLICT,
	KF_LOCAL_MEMORY,
	KF_FP64_MATH,
	KF_BARRIER_STALL,
	KF_ATOMIC_CONTENTION,
	KF_BRANCH_DIVERGENCE,
	KF_SMALL_GRID,
	KF_TAIL_EFFECT,
	KF_LOW_OCCUPANCY,
	KF_OTHER,
	KF_NKINDS
};

/* One measured number behind a finding: the metric or column it came from
 * (ncu's "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
 * unitrace's "XVE_STALL[%]"), its value and unit ("%", "ns", "bytes", ...). */
struct kf_evidence {
	char *metric;
	double value;
	char *unit;		/* NULL: a plain number */
};

struct kf_finding {
	enum kf_find_kind kind;
	char *unit;		/* "tensor", "fma", "fp64", "alu", "xu", "lsu",
				 * "shared", "l1", "l2", "dram", "issue", ...;
				 * NULL */
	char *kernel;		/* the kernel it concerns; NULL: the program */
	char **kernels;		/* program-level: the kernels it names, most
				 * time first (nkernels); NULL: none named */
	size_t nkernels;
	char *file;		/* source file, when the profiler gives lines */
	long line;		/* from 1; 0: none */
	double impact_pct;	/* the share of the program's time its fix
				 * would save (basis); NAN: not known. A
				 * profiler's kernel-level finding adds it as a
				 * share of its kernel's time, and
				 * kf_diag_program() makes it the program's */
	double kernel_impact_pct;	/* kernel-level: the share of its
					 * kernel's time; NAN otherwise */
	enum kf_basis { KF_BASIS_GPU_TIME, KF_BASIS_WINDOW } basis;
				/* impact_pct's whole: the ranking's total GPU
				 * time, or the traced window (the GPU's working
				 * time: busy, and idle under 1 ms at a time) */
	double key;		/* the sort's: impact_pct in one unit for all
				 * (kf_diag_program); NAN: impact_pct */
	char *what;		/* one or two sentences: what limits it, with
				 * the numbers that say so */
	char *fix;		/* one concrete change; NULL: none to advise */
	struct kf_evidence *ev;
	size_t nev, evcap;
	size_t seq;		/* order of adding: ties keep it */
};

struct kf_diag {
	struct kf_finding *v;
	size_t n, cap;
};

/* The contract's word for kind ("memory_bound"), and back (-1: unknown). */
const char *kf_find_kind_name(enum kf_find_kind kind);
int kf_find_kind_parse(const char *word);

/* Add a finding; what is printf-formatted. The pointer stays valid until the
 * next kf_diag_add or kf_diag_sort. unit may be NULL; impact_pct NAN when it
 * cannot be estimated. */
struct kf_finding *kf_diag_add(struct kf_diag *d, enum kf_find_kind kind,
    const char *unit, double impact_pct, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
void kf_finding_kernel(struct kf_finding *f, const char *kernel);
/* Name one more kernel of a program-level finding. */
void kf_finding_names(struct kf_finding *f, const char *kernel);
void kf_finding_at(struct kf_finding *f, const char *file, long line);
void kf_finding_fix(struct kf_finding *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void kf_finding_ev(struct kf_finding *f, const char *metric, double value,
    const char *unit);
/* The finding's impact_pct (NAN: not known) and how it was estimated, as
 * its evidence "impact_pct: <how>" with the value in % (null when NAN: the
 * how then says why it cannot be estimated); how is printf-formatted. A
 * second call replaces the first's. */
void kf_finding_impact(struct kf_finding *f, double pct, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The first finding of kind, or NULL. */
struct kf_finding *kf_diag_find(const struct kf_diag *d, enum kf_find_kind kind);

/* Most time at stake first: not_started always leads (nothing ran), then
 * program_failed, then profiler_failed (what the run could not measure
 * comes before what it did); then by
 * impact_pct, largest first, unknown impacts after the known ones; ties in
 * the order added. */
void kf_diag_sort(struct kf_diag *d);
/* analysis.diagnosis: an array of {kind, unit, kernel, kernels, file,
 * line, impact_pct, kernel_impact_pct, impact_basis ("gpu_time",
 * "traced_window"), evidence: [{metric, value, unit}], what, fix}; null
 * where a field is not known or does not apply. */
cJSON *kf_diag_json(const struct kf_diag *d);
/* The first max findings as the text's lead, one numbered paragraph each:
 * "1. <what> (file:line; about N% of the program's GPU time at stake, M%
 * of this kernel's). Fix: <fix>". Nothing when there are none. */
void kf_diag_text(const struct kf_diag *d, struct buf *b, size_t max);
void kf_diag_free(struct kf_diag *d);

#endif
