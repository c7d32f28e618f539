/* kf: the tracer's descriptor: what the shared stages know of kf trace. */
#include <stddef.h>

#include "trace.h"

/* Never a language's default: ncu is, and --top uses the tracer for its
 * timing run (trace_select.c). */
static const struct kf_prof_lang langs[] = {
	{ "cuda", "query", 2, 0 },
	{ "pytorch", "query", 2, 0 },
	{ "triton", "query", 2, 0 },
	{ NULL, NULL, 0, 0 },
};

static const struct kf_popt opts[] = {
	{ "max-mb", "MB", 1, 1 << 20, "bound each process's trace file (256 MiB); "
	  "later records are counted, not kept" },
	{ NULL, NULL, 0, 0, NULL },
};

const struct kf_profiler kf_trace = {
	.name = "trace",
	.vendor = "nvidia",
	.npasses = 1,
	.langs = langs,
	.opts = opts,
	.gpu_env = "CUDA_VISIBLE_DEVICES",
	.wrap = trace_wrap,
	.read = trace_read,
	.feedback = trace_feedback,
	.select = trace_select,
};
