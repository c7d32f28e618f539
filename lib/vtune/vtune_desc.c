/* kf: the VTune descriptor: what the shared stages know of VTune. */
#include <stddef.h>

#include "vtune.h"

static const struct kf_prof_lang langs[] = {
	{ "sycl", "query", 2, 0 },
	{ "ocl", "query", 1, 0 },
	{ NULL, NULL, 0, 0 },
};

static const struct kf_cmp_metric cmp_m[] = {
	{ "bound", "bound verdict", KF_CMP_STR },
	{ "xve_active_pct", "XVE active", KF_CMP_PCT },
	{ "xve_stalled_pct", "XVE stalled", KF_CMP_PCT },
	{ "xve_idle_pct", "XVE idle", KF_CMP_PCT },
	{ "thread_occupancy_pct", "thread occupancy", KF_CMP_PCT },
	{ "xmx_active_pct", "XMX active", KF_CMP_PCT },
	{ "gpu_memory_rw_gbps", "GPU memory bandwidth", KF_CMP_GBPS },
	{ "l3_miss_pct", "L3 misses", KF_CMP_PCT },
	{ NULL, NULL, 0 },
};
static const struct kf_cmp cmp = { cmp_m, 1, 1 };

const struct kf_profiler kf_vtune = {
	.name = "vtune",
	.tool = "vtune",
	.vendor = "intel",
	.npasses = 1,
	.langs = langs,
	.gpu_env = "ZE_AFFINITY_MASK",
	.wrap = vtune_wrap,
	.read = vtune_read,
	.collate = vtune_collate,
	.feedback = vtune_feedback,
	.cmp = &cmp,
};
