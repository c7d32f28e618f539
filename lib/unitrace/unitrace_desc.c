/* kf: the unitrace descriptor: what the shared stages know of unitrace. */
#include <stddef.h>

#include "unitrace.h"

static const struct kf_prof_lang langs[] = {
	{ "sycl", "query", 1, 0 },
	{ "ocl", "sampling", 2, 0 },
	{ "pytorch", "query", 0, 1 },
	{ "triton", "query", 0, 1 },
	{ NULL, NULL, 0, 0 },
};

static const struct kf_popt opts[] = {
	{ "no-timeline", NULL, 0, 0, "no Chrome kernel and ITT logging" },
	{ NULL, NULL, 0, 0, NULL },
};

/* The /tmp link earlier kf-wraps gave unitrace's -o, one per pass: kept
 * per pass for kf-read to remove (unitrace_read.c). */
static const char *const pass_fields[] = { "unitrace_link", NULL };

static const struct kf_cmp_metric cmp_m[] = {
	{ "bound", "roofline verdict", KF_CMP_STR },
	{ "bound_alu", "busiest ALU", KF_CMP_STR },
	{ "gmem_bw_pct", "global memory bandwidth", KF_CMP_PCT },
	{ "slm_bw_pct", "SLM bandwidth", KF_CMP_PCT },
	{ "ve_stall_pct", "vector engine stalls", KF_CMP_PCT },
	{ "thread_occupancy_pct", "thread occupancy", KF_CMP_PCT },
	{ "slm_bank_conflict_pct", "SLM bank conflicts", KF_CMP_PCT },
	{ NULL, NULL, 0 },
};
static const struct kf_cmp cmp = { cmp_m, 0, 1 };

const struct kf_profiler kf_unitrace = {
	.name = "unitrace",
	.tool = "unitrace",
	.vendor = "intel",
	.npasses = 3,
	.groups = unitrace_groups,
	.langs = langs,
	.opts = opts,
	.gpu_env = "ZE_AFFINITY_MASK",
	.pass_fields = pass_fields,
	.wrap = unitrace_wrap,
	.read = unitrace_read,
	.collate = unitrace_collate,
	.feedback = unitrace_feedback,
	.cmp = &cmp,
};
