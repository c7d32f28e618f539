/* kf: what limits an ncu-profiled launch (ncu_roof.c) and why
 * (ncu_diag.c): every pipe of the SM and every memory level against its
 * peak, the FLOPs of every precision (tensor cores included), and the
 * causes the counters and the source page show.
 *
 * The struct is filled from the launch's roofline_inputs (kf-read keeps
 * them from the raw page) and is the caller's; it points into the record
 * and the GPU table. */
#ifndef KF_NCU_DIAG_H
#define KF_NCU_DIAG_H

#include <cJSON.h>

#include "feedback.h"

/* Below this share of its peak, nothing is near its peak: latency-bound
 * (ncu's SOLBottleneck rule draws the line at 60 %). */
#define NCU_NEAR_PEAK 60
/* At or over this share of its peak a unit is at its roof: its headroom is
 * what it gains at the same work (ncu's SOLBottleneck rule says 80 %). */
#define NCU_AT_ROOF 80
/* Within this many points of the busiest unit of the limiter's side, a
 * unit of the other side (a memory level against a pipe or the issue
 * slots) is as busy: run-to-run noise moves either by as much (softmax on
 * an H100: issue 66.5% and L2 65.8% in one sweep, L2 67.3% over issue in
 * the next). */
#define NCU_TIE 3

struct ncu_unit {
	const char *unit;	/* "tensor", "fma", ..., "dram" */
	const char *metric;	/* where pct came from */
	double pct;		/* share of its peak */
	double elapsed;		/* a pipe's share over all SMs and the whole run
				 * (its .pct_of_peak_sustained_elapsed); NAN: none */
	int memory;		/* a memory level, not a pipe */
};

#define NCU_MAX_UNITS 12

struct ncu_roof {
	const char *precision;	/* "fp32", "bf16", "fp8", ... */
	int tensor;		/* the precision is the tensor cores' */
	double flops;		/* every FLOP counted, per second */
	double tensor_flops;	/* the tensor cores' share of flops */
	int tensor_counted;	/* ncu counted tensor operations */
	double peak_flops;	/* NAN: unknown */
	char *peak_source;	/* where peak_flops came from; NULL */
	double bw, peak_bw, ai, ridge, pct;
	const char *bound;	/* "compute", "memory", "latency" */
	double l2_bw, l2_peak_bw, l2_tp, l1_tp;
	int has_l2_bw, has_l2_peak, has_l2_tp, has_l1_tp;
	struct ncu_unit units[NCU_MAX_UNITS];
	size_t nunits;
	const struct ncu_unit *limiter;	/* the unit that limits, or the busiest */
	int latency;		/* nothing near its peak */
	int below_roof;		/* nothing near its peak, but the kernel sits under
				 * the memory roof: memory-bound, short of it */
	double l2_avg;		/* with l2_hot, the L2 slices' average share */
	int l2_hot;		/* one L2 slice near its peak, the average far under:
				 * the l2 unit is that slice */
	double duration_s;
	const cJSON *gpu;	/* its roofs (gpus.json); NULL: unknown */
};

/* analysis.focus.roof and its paragraph, for launch k; the GPU (NULL:
 * unknown) gives the tensor peaks. 1 and r filled, or 0 (nothing added)
 * when the launch has no roofline_inputs. r->peak_source is r's: free it
 * with ncu_roof_free. */
int ncu_roof_say(struct kf_fb *fb, const cJSON *k, const cJSON *gpu, cJSON *focus,
    struct ncu_roof *r);
void ncu_roof_free(struct ncu_roof *r);
/* The busiest unit of the other side than the limiter (a memory level
 * for a pipe or the issue slots, and the reverse) within NCU_TIE points of
 * the busiest of the limiter's side (*top: the limiter, or the conduit it
 * was named over, as L2 for DRAM), where the limiter is near its peak and
 * is not the tensor pipe (fed through the memory levels, it names the
 * cause); the LSU pipe, which issues the memory levels' work, is neither
 * a rival of theirs nor has one. NULL: none. */
const struct ncu_unit *ncu_roof_rival(const struct ncu_roof *r, const struct ncu_unit **top);
/* The rival's words onto b, where r's limiter has one: as a sentence of
 * the verdict (" L2 is at 65.8%, within 0.7 points of it: ..."), or as a
 * clause of the limiter finding ("; L2 at 65.8%, within ..."). */
void ncu_roof_say_rival(struct buf *b, const struct ncu_roof *r, int sentence);
/* r for launch k without a word of text: 1, or 0 when the launch has no
 * roofline_inputs. Free r with ncu_roof_free. */
int ncu_roof_of(const cJSON *k, const cJSON *gpu, struct ncu_roof *r);

/* The findings for launch k into fb->diag: the limiter (r: NULL when the
 * launch had no roofline inputs) and every cause the counters show. */
void ncu_diag(struct kf_fb *fb, const cJSON *k, const struct ncu_roof *r);

/* A memory-bound finding of d whose level's waste ncu's own rules estimate
 * (MemoryCacheAccessPattern, UncoalescedGlobalAccess; for shared memory
 * UncoalescedSharedAccess) above its headroom takes their estimate, unless
 * a cause finding of d (uncoalesced access, bank conflicts) already
 * claims that waste. Where the record has no Uncoalesced rule (a
 * collection without SourceCounters: kf-wrap ncu --sampled-source), kf
 * makes the rule's estimate itself from the counters it reads
 * (ncu_rules.c). */
void ncu_limiter_rules(struct kf_diag *d, const cJSON *k);

/* The change that relieves a limiting unit ("l2", "dram", "tensor", as in
 * ncu_roof.c), one sentence. */
const char *ncu_unit_fix(const char *unit);

/* A value of the launch's roofline_inputs: 1 and *v, or 0. */
int ncu_in(const cJSON *k, const char *name, double *v);

/* The share of the launch's warp samples with stall reason name
 * ("barrier", as in smsp__pcsamp_warps_issue_stalled_barrier): NAN when
 * the counters are missing. */
double ncu_stall_pct(const cJSON *k, const char *name);

#endif
