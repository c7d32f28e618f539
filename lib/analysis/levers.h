/* kf: the program as a whole (levers.c): every ranked kernel's class, and
 * the levers that lie between kernels (man/kf.7, "The diagnosis"):
 *   fusion       memory-bound elementwise and reduction kernels to fuse into
 *                their producer or one kernel
 *   layout_copy  conversions, transposes, copies and fills to remove
 *   fp32_matmul  FP32 matrix math off the tensor cores, all such kernels
 *   launch_bound the GPU idle between launches (a traced window), or,
 *                without timestamps, the short launches counted
 * and the one unit every finding's impact_pct is in: the share of the
 * program's measured time its fix would save.
 *
 * A profiler's feedback tells the program what it measured, profiler-
 * neutral: its ranking (kf_prog_findings, program.h), where it profiled a
 * kernel in detail (kf_prog_measured), the launch order's chains
 * (kf_prog_chains, chains.h) and a timeline (kf_prog_timeline); kf-feedback
 * then calls kf_prog_finish() once, after the profiler's feedback and
 * before the lead is written. The struct is fb's (kf_fb_free frees it). */
#ifndef KF_LEVERS_H
#define KF_LEVERS_H

#include <cJSON.h>

#include "feedback.h"
#include "kclass.h"
#include "program.h"

/* A lever is a finding when its fix saves at least this share of the
 * program's time (in its unit). */
#define KF_LEVER_MIN_PCT 5.0
/* analysis.program.kernels lists at most this many, most time first. */
#define KF_PROG_KERNELS 1000

/* What a detailed profile measured of one kernel (its longest launch). */
struct kf_kmeas {
	const char *bound;	/* "compute", "memory", "latency"; NULL: none */
	const char *unit;	/* what limits it: "tensor", "fma", "dram",
				 * "issue", ...; NULL: none named */
	double unit_pct;	/* its share of its peak; NAN */
	double tensor_pct;	/* the tensor pipe's share of its peak; NAN */
	double fma_pct;		/* the FMA pipe's; NAN */
	double flops;		/* FLOP/s of every precision; NAN */
	double bytes_per_s;	/* DRAM bytes per second; NAN */
	double peak_bytes_per_s;	/* DRAM's peak; NAN */
	const char *metric;	/* where the pipes came from, for evidence */
};

struct kf_pkern {
	char *name, *shown;
	double ns, share;	/* total GPU time; its share of the ranking */
	long launches;
	int machinery;
	struct kf_kclass_of by_name;
	enum kf_kclass cls;	/* by name, or as measured */
	enum kf_kmath math;
	int measured;		/* m holds what a detailed profile measured */
	int overridden;		/* the measurement changed the class or math */
	struct kf_kmeas m;
	char *m_bound, *m_unit, *m_metric;	/* m's strings, owned */
};

struct kf_prog {
	struct kf_pkern *k;
	size_t n;
	double total_ns;	/* the ranking's GPU time */
	struct kf_launches ls;	/* launch durations (may be empty) */
	cJSON *chains;		/* chains.h's, or NULL */
	cJSON *timeline;	/* a trace's timeline, or NULL */
	const cJSON *gpu;	/* the GPU the profiler's feedback found (gpu_roofs.h);
				 * NULL: the record's worker's */
};

/* Take the ranking r and the launch durations l (may be NULL) as the
 * program's (a copy; a second call replaces the first). */
void kf_prog_rank(struct kf_fb *fb, const struct kf_rank *r, const struct kf_launches *l);
/* Kernel name was profiled in detail: m (copied). Nothing when the
 * ranking has no such kernel. */
void kf_prog_measured(struct kf_fb *fb, const char *name, const struct kf_kmeas *m);
/* The chains of the launch order (chains.h's JSON; copied). */
void kf_prog_chains(struct kf_fb *fb, const cJSON *chains);
/* A timeline with timestamps, as kf trace's data.timeline writes it
 * (busy_ns, kernel_ns, launches, median_launch_ns, gaps.{under_10us,
 * 10us_to_1ms, over_1ms}.{count, ns}); copied. */
void kf_prog_timeline(struct kf_fb *fb, const cJSON *tl);

/* The GPU whose roofs the profiler's feedback used (gpu_roofs.h's, not
 * copied), for fp32_matmul's peaks. */
void kf_prog_gpu(struct kf_fb *fb, const cJSON *gpu);

/* After the profiler's feedback: the classes into analysis (ranking,
 * kernels, focus, and analysis.program), the program-level findings, and
 * every finding's impact_pct in the program's unit (kernel-level ones
 * scaled by their kernel's share, kernel_impact_pct keeping the kernel's
 * own). rec is the record (its worker names the GPU for fp32_matmul). */
void kf_prog_finish(struct kf_fb *fb, const cJSON *rec);
void kf_prog_free(struct kf_prog *p);

#endif
