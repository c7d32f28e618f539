/* kf: the Nsight Compute descriptor: what the shared stages know of ncu. */
#include "ncu.h"

static const struct kf_prof_lang langs[] = {
	{ "cuda", "query", 1, 0 },
	{ "pytorch", "query", 0, 0 },
	{ "triton", "query", 0, 0 },
	{ NULL, NULL, 0, 0 },
};

/* kf-feedback reads the rules of one launch and a section or two of the
 * others' metrics; the rest is never parsed. */
static const struct kf_popt opts[] = {
	{ "top", "K", 0, 1000, "time every launch, then profile in detail one launch "
	  "of each of the K kernels with the most GPU time" },
	{ "import", "FILE", 0, 0, "no run: read FILE, a report (.ncu-rep) of an earlier "
	  "ncu -o run, through ncu -i (no CMD)" },
	{ "sampled-source", NULL, 0, 0, "the source counters without ncu's count of each "
	  "instruction's executions, a replay pass that runs the kernel patched, hundreds of "
	  "times its own time: warp-stall samples and memory counts stay, divergence goes" },
	{ NULL, NULL, 0, 0, NULL },
};

/* The sets and clock modes of ncu 2025.3.1 (ncu --list-sets, --help, as
 * recorded on the H200 in tests/fixtures/ncu-h200/ncu-list-sets.txt). */
static const char *const sets[] = { "basic", "detailed", "full", "nvlink", "pmsampling",
	"roofline", NULL };
static const char *const clocks[] = { "base", "none", NULL };
static const struct kf_tool_opt tool_opts[] = {
	{ "--set", sets },
	{ "--clock-control", clocks },
	{ NULL, NULL },
};

static const char *const keep[] = { "kernels/*/metrics/*", "kernels/*/rules", NULL };

static const struct kf_cmp_metric cmp_m[] = {
	{ "throughput/compute_sm_pct", "Compute (SM)", KF_CMP_PCT },
	{ "throughput/memory_pct", "Memory", KF_CMP_PCT },
	{ "throughput/l1tex_pct", "L1/TEX", KF_CMP_PCT },
	{ "throughput/l2_pct", "L2", KF_CMP_PCT },
	{ "throughput/dram_pct", "DRAM", KF_CMP_PCT },
	{ "occupancy/achieved_pct", "achieved occupancy", KF_CMP_PCT },
	{ "launch/registers_per_thread", "registers per thread", KF_CMP_NUM },
	{ NULL, NULL, 0 },
};
static const struct kf_cmp cmp = { cmp_m, 0, 0 };

const struct kf_profiler kf_ncu = {
	.name = "ncu",
	.tool = "ncu",
	.vendor = "nvidia",
	.npasses = 1,
	.langs = langs,
	.opts = opts,
	.tool_opts = tool_opts,
	.gpu_env = "CUDA_VISIBLE_DEVICES",
	.keep = keep,
	.less = "fewer launches: ncu's -a --launch-count -a N",
	.silent = "ncu writes its progress to its --log-file, so it is silent on the output "
	    "kf-run watches while it profiles, and a long profile looks like a hang",
	.wrap = ncu_wrap,
	.read = ncu_read,
	.feedback = ncu_feedback,
	.select = ncu_select,
	.cmp = &cmp,
};
