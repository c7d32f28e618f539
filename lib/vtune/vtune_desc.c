/* kf: the VTune descriptor: what the shared stages know of VTune. */
#include <stddef.h>

#include "vtune.h"

static const struct kf_prof_lang langs[] = {
	{ "sycl", "query", 2, 0 },
	{ "ocl", "query", 1, 0 },
	{ NULL, NULL, 0, 0 },
};

const struct kf_profiler kf_vtune = {
	.name = "vtune",
	.vendor = "intel",
	.npasses = 1,
	.langs = langs,
	.gpu_env = "ZE_AFFINITY_MASK",
	.wrap = vtune_wrap,
	.read = vtune_read,
	.collate = vtune_collate,
	.feedback = vtune_feedback,
};
