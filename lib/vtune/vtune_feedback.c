/* kf: feedback from a VTune gpu-hotspots report (the data vtune_read made).
 *
 * Per user kernel, hottest first: runtime, occupancy, XVE activity, stall
 * reasons, pipelines and instruction mix, memory and L3, a bound verdict
 * and the recommendations that follow from it, by the reference's rules
 * (KernelFoundry's VTuneProfilerFeedback). Framework and copy kernels are
 * left out unless there is nothing else. VTune reports times in seconds;
 * they are printed in the unit that fits.
 *
 * Ownership: everything built here goes into fb or is freed. */
#include <math.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "buf.h"
#include "feedback.h"
#include "mem.h"
#include "num.h"
#include "profiler.h"
#include "program.h"
#include "record.h"
#include "vtune.h"

/* Kernels that are not the user's work: copies, fills, framework
 * elementwise and reduce kernels; "[...]" rows are not kernels at all. */
static const char *const overhead[] = {
	"VectorizedElementwiseKernel", "UnrolledElementwiseKernel",
	"zeCommandListAppendMemoryCopy", "zeCommandListAppendMemoryFill",
	"ReduceKernelEmptyFunctor",
	"clEnqueueReadBuffer", "clEnqueueWriteBuffer", "clEnqueueCopyBuffer",
	"clEnqueueFillBuffer",
};

static int
is_pseudo(const char *name)
{
	return name[0] == '[';
}

static int
is_overhead(const char *name)
{
	size_t i;

	if (is_pseudo(name) || kf_machinery_find(name))
		return 1;
	for (i = 0; i < sizeof overhead / sizeof overhead[0]; i++)
		if (strstr(name, overhead[i]))
			return 1;
	return 0;
}

/* A metric: 1 and *v when the report had it. */
static int
get(const cJSON *m, const char *key, double *v)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(m, key);

	if (!cJSON_IsNumber(x))
		return 0;
	*v = x->valuedouble;
	return 1;
}

/* The reference reads a missing metric as 0 in its rules. */
static double
get0(const cJSON *m, const char *key)
{
	double v = 0;

	get(m, key, &v);
	return v;
}

/* ---- the verdict ---- */

static const struct {
	const char *bound, *desc;
} bounds[] = {
	{ "memory_latency", "memory-latency bound (high Send stalls)" },
	{ "compute_xmx", "XMX/matrix compute bound" },
	{ "compute_alu0", "ALU0-compute bound (FP16/FP32)" },
	{ "compute_alu1", "ALU1-compute bound (FP64/INT/Math)" },
	{ "balanced", "balanced (not strongly bound by a single resource)" },
};

/* The reference's rule, in its order: Send stalls that dominate the
 * dependency stalls, then XMX above 20 %, then ALU0, ALU1 above 50 %. The
 * reason (what decided it) goes into why. */
static const char *
bound_of(const cJSON *m, struct buf *why)
{
	double send = get0(m, "stall_send_pct"), sbid = get0(m, "stall_sbid_pct");
	double dist = get0(m, "stall_dist_acc_pct"), stalled = get0(m, "xve_stalled_pct");
	double xmx = get0(m, "xmx_active_pct"), alu0 = get0(m, "alu0_active_pct");
	double alu1 = get0(m, "alu1_active_pct");

	if (send > 5 && stalled > 0 && send >= (sbid > dist ? sbid : dist)) {
		buf_printf(why, "Send (memory) stalls %.1f%% of the time, above 5%% and at "
		    "least the SBID (%.1f%%) and Dist/Acc (%.1f%%) stalls", send, sbid, dist);
		return "memory_latency";
	}
	if (xmx > 20) {
		buf_printf(why, "the XMX pipeline is active %.1f%% of the time (above 20%%)", xmx);
		return "compute_xmx";
	}
	if (alu0 > 50) {
		buf_printf(why, "the ALU0 pipeline is active %.1f%% of the time (above 50%%)", alu0);
		return "compute_alu0";
	}
	if (alu1 > 50) {
		buf_printf(why, "the ALU1 pipeline is active %.1f%% of the time (above 50%%)", alu1);
		return "compute_alu1";
	}
	buf_printf(why, "no pipeline is above 50%% active, XMX is at most 20%%, and Send "
	    "stalls do not dominate");
	return "balanced";
}

static const char *
bound_desc(const char *bound)
{
	size_t i;

	for (i = 0; i < sizeof bounds / sizeof bounds[0]; i++)
		if (strcmp(bounds[i].bound, bound) == 0)
			return bounds[i].desc;
	return bound;
}

/* ---- recommendations ---- */

static void
rec_add(cJSON *recs, struct buf *b, const char *kind, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void
rec_add(cJSON *recs, struct buf *b, const char *kind, const char *fmt, ...)
{
	struct buf t = {0};
	cJSON *r = cJSON_CreateObject();
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(&t, fmt, ap);
	va_end(ap);
	buf_printf(b, "\n  [%s] %s", kind, t.s);
	cJSON_AddStringToObject(r, "kind", kind);
	cJSON_AddStringToObject(r, "text", t.s);
	cJSON_AddItemToArray(recs, r);
	buf_free(&t);
}

/* The reference's recommendations, under the same conditions. */
static void
recommend(const cJSON *m, const char *bound, struct buf *b, cJSON *recs)
{
	double send = get0(m, "stall_send_pct"), sbid = get0(m, "stall_sbid_pct");
	double dist = get0(m, "stall_dist_acc_pct"), barrier = get0(m, "stall_barrier_pct");
	double xmx = get0(m, "xmx_active_pct"), alu0 = get0(m, "alu0_active_pct");
	double alu1 = get0(m, "alu1_active_pct"), occ = 0, peak = 0, miss = 0;
	int has_occ = get(m, "occupancy_pct", &occ), has_peak = get(m, "peak_occupancy_pct", &peak);

	if (strcmp(bound, "memory_latency") == 0)
		rec_add(recs, b, "memory_latency", "Send stalls (%.1f%%) dominate: the kernel "
		    "waits for memory loads and stores. Hide or cut the latency: tensor (block) "
		    "descriptors, prefetching, or narrower inputs such as bf16.", send);
	else if (strcmp(bound, "compute_xmx") == 0)
		rec_add(recs, b, "compute_xmx", "The XMX pipeline is the bottleneck (%.1f%% "
		    "active): the kernel is matrix-compute bound, which is good. Larger tiles or "
		    "chained DPAS keep it fed.", xmx);
	else if (strcmp(bound, "compute_alu0") == 0)
		rec_add(recs, b, "compute_alu", "The ALU0 (FP16/FP32) pipeline is active %.1f%% "
		    "of the time: the kernel is ALU bound. Use XMX/DPAS for matrix work, or "
		    "vectorise scalar loops.", alu0);
	else if (strcmp(bound, "compute_alu1") == 0)
		rec_add(recs, b, "compute_alu", "The ALU1 (FP64/INT/Math) pipeline is active "
		    "%.1f%% of the time: the kernel is ALU bound. Use XMX/DPAS for matrix work, or "
		    "vectorise scalar loops.", alu1);

	if (has_occ && occ < 50)
		rec_add(recs, b, "low_occupancy", "Average thread occupancy %.0f%% is low. Try "
		    "larger work-groups, fewer registers, or a persistent kernel.", occ);
	else if (has_peak && peak < 50)
		rec_add(recs, b, "low_peak_occupancy", "Peak occupancy %.0f%%: try larger tiles, "
		    "fewer registers, or a persistent kernel.", peak);
	if (sbid > 5 || dist > 5)
		rec_add(recs, b, "dependency_stalls", "SBID (%.1f%%) and Dist/Acc (%.1f%%) stalls "
		    "mean instructions wait on results still in flight. Reorder instructions to "
		    "hide the latency, or shorten register dependency chains.", sbid, dist);
	if (barrier > 5)
		rec_add(recs, b, "barrier_stalls", "Barrier stalls at %.1f%%: work-group "
		    "synchronisation holds the kernel back. Use fewer barriers, or restructure "
		    "the algorithm.", barrier);
	if (get(m, "l3_miss_pct", &miss) && miss > 50)
		rec_add(recs, b, "l3_thrashing", "L3 miss ratio %.0f%%: much of the traffic goes "
		    "to GPU memory. Smaller tiles or more data reuse keep the working set in L3.",
		    miss);
	if (xmx < 5 && alu0 > 40)
		rec_add(recs, b, "no_xmx", "The XMX pipeline is unused. If the kernel multiplies "
		    "matrices, DPAS/XMX instructions (joint_matrix in SYCL) give up to about 8x "
		    "the throughput on matrix work.");
}

/* ---- the diagnosis (diagnosis.h) of the focus kernel ---- */

/* Evidence: the report's column (vtune_read's names, without "(%)"). */
static void
ev(struct kf_finding *f, const cJSON *m, const char *key, const char *column, const char *unit)
{
	double v;

	if (get(m, key, &v))
		kf_finding_ev(f, column, v, unit);
}

static void
diag_occupancy(struct kf_fb *fb, const cJSON *m, const char *name)
{
	static const char *const fixes[][2] = {
		{ "work size", "launch more or larger work-groups" },
		{ "SLM use", "less SLM per work-group, so that more work-groups fit" },
		{ "barrier use", "fewer barriers per work-group, or smaller work-groups, so "
		    "that more of them fit" },
	};
	static const char *const lim_key[] = {
		"peak_occupancy_work_size_limit_pct", "peak_occupancy_slm_limit_pct",
		"peak_occupancy_barriers_limit_pct",
	};
	double occ, peak = NAN, y;
	struct kf_finding *f;
	int i, lim = -1;

	if (!get(m, "occupancy_pct", &occ) || occ >= 50)
		return;
	get(m, "peak_occupancy_pct", &peak);
	/* A limit below 100 % that equals the peak is what caps it. */
	for (i = 0; i < 3 && lim < 0; i++)
		if (get(m, lim_key[i], &y) && y < 100 && !isnan(peak) && y <= peak + 0.05)
			lim = i;
	f = kf_diag_add(&fb->diag, KF_LOW_OCCUPANCY, NULL, NAN, "%s: thread occupancy %.1f%%%s%s%s, "
	    "little other work to run while threads wait", name, occ,
	    lim >= 0 ? " (its peak capped by " : "", lim >= 0 ? fixes[lim][0] : "",
	    lim >= 0 ? ")" : "");
	kf_finding_kernel(f, name);
	ev(f, m, "occupancy_pct", "XVE Threads Occupancy", "%");
	ev(f, m, "peak_occupancy_pct", "Peak XVE Threads Occupancy", "%");
	if (lim >= 0)
		ev(f, m, lim_key[lim], lim == 0 ? "Peak XVE Threads Occupancy:Work Size Limit" :
		    lim == 1 ? "Peak XVE Threads Occupancy:SLM Use Limit" :
		    "Peak XVE Threads Occupancy:Barriers Use Limit", "%");
	kf_finding_impact(f, NAN, "not estimated: more threads help only as far as they hide "
	    "the stalls, which VTune's columns do not split");
	kf_finding_fix(f, "%s", lim >= 0 ? fixes[lim][1] : "more work-groups, or fewer "
	    "registers and less SLM per work-group so that more of them fit");
}

static void
diag_verdict(struct kf_fb *fb, const cJSON *m, const char *bound, const char *name)
{
	double send = get0(m, "stall_send_pct"), stalled = get0(m, "xve_stalled_pct");
	double xmx = get0(m, "xmx_active_pct"), alu0 = get0(m, "alu0_active_pct");
	double alu1 = get0(m, "alu1_active_pct"), miss;
	struct kf_finding *f;

	if (strcmp(bound, "memory_latency") == 0) {
		f = kf_diag_add(&fb->diag, KF_LATENCY_BOUND, "lsu", send, "%s waits on memory: "
		    "Send stalls %.1f%% of the time (%.1f%% stalled in all)", name, send, stalled);
		ev(f, m, "stall_send_pct", "XVE Stall Reasons:Send", "%");
		ev(f, m, "xve_stalled_pct", "XVE Array:Stalled", "%");
		ev(f, m, "l3_miss_pct", "GPU L3:Miss Ratio", "%");
		kf_finding_impact(f, send, "XVE Stall Reasons:Send (the time the XVEs wait on "
		    "memory)");
		if (get(m, "l3_miss_pct", &miss) && miss > 50)
			kf_finding_fix(f, "keep the working set in L3 (miss ratio %.1f%%): more "
			    "reuse per load, and more loads in flight (block loads, prefetch, "
			    "unrolling)", miss);
		else
			kf_finding_fix(f, "hide the latency: more independent loads in flight per "
			    "thread (block loads, prefetch, unrolling), or narrower inputs (bf16)");
	} else if (strcmp(bound, "compute_xmx") == 0) {
		f = kf_diag_add(&fb->diag, KF_COMPUTE_BOUND, "tensor", 100 - xmx, "%s is "
		    "compute-bound on the XMX matrix engine, active %.1f%% of the time", name, xmx);
		ev(f, m, "xmx_active_pct", "XVE Pipelines:XMX active", "%");
		kf_finding_impact(f, 100 - xmx, "100 - XVE Pipelines:XMX active (headroom to the "
		    "roof)");
		kf_finding_fix(f, "keep XMX fed: larger tiles, chained DPAS, and the next tiles "
		    "loaded while these multiply");
	} else if (strcmp(bound, "compute_alu0") == 0 || strcmp(bound, "compute_alu1") == 0) {
		int one = bound[11] == '1';
		double act = one ? alu1 : alu0;

		f = kf_diag_add(&fb->diag, KF_COMPUTE_BOUND, one ? "alu" : "fma", 100 - act, "%s "
		    "is compute-bound on ALU%d (%s), active %.1f%% of the time; XMX is active "
		    "%.1f%%", name, one, one ? "FP64, integer, math" : "FP32/FP16", act, xmx);
		ev(f, m, one ? "alu1_active_pct" : "alu0_active_pct", one ?
		    "XVE Pipelines:ALU1 active" : "XVE Pipelines:ALU0 active", "%");
		ev(f, m, "xmx_active_pct", "XVE Pipelines:XMX active", "%");
		kf_finding_impact(f, 100 - act, "100 - XVE Pipelines:ALU%d active (headroom to "
		    "the roof)", one);
		kf_finding_fix(f, "%s", one ? "cut integer and math work (hoist index arithmetic, "
		    "fp32 and native math instead of fp64), or move matrix work to XMX" :
		    "run matrix work on XMX (joint_matrix, DPAS), or vectorise scalar loops");
	} else {
		f = kf_diag_add(&fb->diag, KF_LATENCY_BOUND, NULL, stalled, "%s runs no pipeline "
		    "near its peak (ALU0 %.1f%%, ALU1 %.1f%%, XMX %.1f%% active) and Send stalls "
		    "do not dominate: its XVEs are stalled %.1f%% of the time", name, alu0, alu1,
		    xmx, stalled);
		ev(f, m, "xve_stalled_pct", "XVE Array:Stalled", "%");
		ev(f, m, "stall_sbid_pct", "XVE Stall Reasons:SBID", "%");
		ev(f, m, "stall_dist_acc_pct", "XVE Stall Reasons:Dist or Acc", "%");
		ev(f, m, "alu0_active_pct", "XVE Pipelines:ALU0 active", "%");
		kf_finding_impact(f, stalled, "XVE Array:Stalled (the time the XVEs wait)");
		kf_finding_fix(f, "shorten dependency chains and interleave independent "
		    "instructions, so that each thread has work while its results are in flight");
	}
	kf_finding_kernel(f, name);
}

/* The findings of the focus kernel: its verdict (the reference's rule),
 * barrier stalls, and low occupancy where it waits. */
static void
diagnose(struct kf_fb *fb, const cJSON *m, const char *bound, const char *name)
{
	double barrier = get0(m, "stall_barrier_pct");
	struct kf_finding *f;

	diag_verdict(fb, m, bound, name);
	if (barrier > 5) {
		f = kf_diag_add(&fb->diag, KF_BARRIER_STALL, NULL, barrier, "%s's XVEs wait at "
		    "work-group barriers %.1f%% of the time", name, barrier);
		kf_finding_kernel(f, name);
		ev(f, m, "stall_barrier_pct", "XVE Stall Reasons:Barrier", "%");
		kf_finding_impact(f, barrier, "XVE Stall Reasons:Barrier (the time the XVEs "
		    "wait at barriers)");
		kf_finding_fix(f, "use fewer barriers: sub-group operations (shuffles, "
		    "reductions) instead of SLM round trips, or more work between barriers");
	}
	if (strcmp(bound, "memory_latency") == 0 || strcmp(bound, "balanced") == 0)
		diag_occupancy(fb, m, name);
}

/* ---- the text ---- */

static void
put_pct(struct buf *b, cJSON *a, const cJSON *m, const char *key, const char *label,
    cJSON *missing)
{
	double v;

	if (get(m, key, &v)) {
		buf_printf(b, "%s: %.1f%%", label, v);
		cJSON_AddNumberToObject(a, key, v);
	} else {
		buf_printf(b, "%s: missing", label);
		cJSON_AddItemToArray(missing, cJSON_CreateString(key));
	}
}

static void
fmt_count(struct buf *b, double n)
{
	if (n >= 1e12)
		buf_printf(b, "%.1fT", n / 1e12);
	else if (n >= 1e9)
		buf_printf(b, "%.1fB", n / 1e9);
	else if (n >= 1e6)
		buf_printf(b, "%.1fM", n / 1e6);
	else
		buf_printf(b, "%.0f", n);
}

static void
say_runtime_section(const cJSON *k, const cJSON *m, struct buf *b, cJSON *a, cJSON *missing)
{
	const cJSON *vs = kf_arr(k, "variants"), *v;
	double x, y;
	int nv = cJSON_GetArraySize(vs), from = (int)kf_num_long(k, "metrics_from_variant", 0, -1, INT_MAX), i;

	buf_puts(b, "Runtime and occupancy:\n");
	if (get(m, "simd_width", &x)) {
		buf_printf(b, "SIMD width: %.0f, ", x);
		cJSON_AddNumberToObject(a, "simd_width", x);
	} else {
		buf_puts(b, "SIMD width: missing, ");
	}
	if (get(m, "instance_count", &x)) {
		buf_printf(b, "%.0f instances, ", x);
		cJSON_AddNumberToObject(a, "instance_count", x);
	} else {
		buf_puts(b, "instance count missing, ");
	}
	if (get(m, "average_time_s", &x)) {
		buf_puts(b, "average time ");
		kf_fmt_ns(b, x * 1e9);
		cJSON_AddNumberToObject(a, "average_time_ns", floor(x * 1e9 + 0.5));
	} else {
		buf_puts(b, "average time missing");
		cJSON_AddItemToArray(missing, cJSON_CreateString("average_time_s"));
	}
	if (get(m, "total_time_s", &x)) {
		buf_puts(b, ", total time ");
		kf_fmt_ns(b, x * 1e9);
		cJSON_AddNumberToObject(a, "total_time_s", x);
		cJSON_AddNumberToObject(a, "total_time_ns", floor(x * 1e9 + 0.5));
	}
	buf_puts(b, ".");
	if (nv > 1) {
		buf_printf(b, "\nThe report has %d rows for this kernel (compiled variants), "
		    "merged:", nv);
		i = 0;
		cJSON_ArrayForEach(v, vs) {
			buf_printf(b, "%s", i ? ";" : "");
			if (get(v, "simd_width", &x))
				buf_printf(b, " SIMD%.0f", x);
			else
				buf_printf(b, " row %d", i + 1);
			buf_puts(b, ":");
			if (get(v, "instance_count", &x))
				buf_printf(b, " %.0f instances", x);
			if (get(v, "total_time_s", &y)) {
				buf_puts(b, get(v, "instance_count", &x) ? ", " : " ");
				kf_fmt_ns(b, y * 1e9);
			}
			i++;
		}
		buf_printf(b, ". Total time is their sum; the other numbers are those of the "
		    "longest, row %d", from + 1);
		if (get(m, "instance_count_all", &x)) {
			buf_printf(b, " (%.0f instances in all)", x);
			cJSON_AddNumberToObject(a, "instance_count_all", x);
		}
		buf_puts(b, ".");
		cJSON_AddNumberToObject(a, "variants", nv);
	}
	buf_puts(b, "\n");
	if (get(m, "occupancy_pct", &x)) {
		buf_printf(b, "Average thread occupancy: %.1f%%", x);
		cJSON_AddNumberToObject(a, "thread_occupancy_pct", x);
	} else {
		buf_puts(b, "Average thread occupancy: missing");
		cJSON_AddItemToArray(missing, cJSON_CreateString("occupancy_pct"));
	}
	if (get(m, "peak_occupancy_pct", &x)) {
		static const char *const lim[][2] = {
			{ "peak_occupancy_work_size_limit_pct", "work size" },
			{ "peak_occupancy_slm_limit_pct", "SLM use" },
			{ "peak_occupancy_barriers_limit_pct", "barrier use" },
		};
		int said = 0;

		buf_printf(b, ", peak: %.1f%%", x);
		cJSON_AddNumberToObject(a, "peak_occupancy_pct", x);
		/* A limit below 100 % that equals the peak is what caps it. */
		for (i = 0; i < 3; i++) {
			if (get(m, lim[i][0], &y) && y < 100 && y <= x + 0.05) {
				buf_printf(b, "%s%s %.1f%%", said ? ", " : " (limited by ",
				    lim[i][1], y);
				if (!said)
					cJSON_AddStringToObject(a, "peak_occupancy_limited_by", lim[i][1]);
				said = 1;
			}
		}
		if (said)
			buf_puts(b, ")");
	}
	buf_puts(b, ".");
}

struct stall {
	const char *label, *key, *reason;
	double v;
};

static int
by_value(const void *a, const void *b)
{
	const struct stall *x = a, *y = b;

	return x->v < y->v ? 1 : x->v > y->v ? -1 : 0;
}

static void
xve(const cJSON *m, struct buf *b, cJSON *a, cJSON *missing)
{
	struct stall st[] = {
		{ "Send (memory)", "stall_send_pct", "send", 0 },
		{ "SBID", "stall_sbid_pct", "sbid", 0 },
		{ "Dist/Acc", "stall_dist_acc_pct", "dist_acc", 0 },
		{ "Instruction Fetch", "stall_instruction_fetch_pct", "instruction_fetch", 0 },
		{ "Barrier", "stall_barrier_pct", "barrier", 0 },
	};
	struct stall have[5];
	size_t i, n = 0;
	cJSON *arr;

	buf_puts(b, "\n\nXVE utilisation:\n");
	put_pct(b, a, m, "xve_active_pct", "Active", missing);
	buf_puts(b, " | ");
	put_pct(b, a, m, "xve_stalled_pct", "Stalled", missing);
	buf_puts(b, " | ");
	put_pct(b, a, m, "xve_idle_pct", "Idle", missing);

	for (i = 0; i < 5; i++) {
		if (get(m, st[i].key, &st[i].v))
			have[n++] = st[i];
		else
			cJSON_AddItemToArray(missing, cJSON_CreateString(st[i].key));
	}
	buf_puts(b, "\n\nStall reasons:\n");
	if (n == 0) {
		buf_puts(b, "missing from the report.");
		return;
	}
	/* Stable order for equal values: the listing order above. */
	for (i = 1; i < n; i++) {
		size_t j = i;
		struct stall t = have[i];

		while (j > 0 && by_value(&have[j - 1], &t) > 0) {
			have[j] = have[j - 1];
			j--;
		}
		have[j] = t;
	}
	arr = cJSON_AddArrayToObject(a, "stalls");
	for (i = 0; i < n; i++) {
		cJSON *s = cJSON_CreateObject();

		buf_printf(b, "%s%s: %.1f%%", i ? ", " : "", have[i].label, have[i].v);
		cJSON_AddNumberToObject(a, have[i].key, have[i].v);
		cJSON_AddStringToObject(s, "reason", have[i].reason);
		cJSON_AddNumberToObject(s, "pct", have[i].v);
		cJSON_AddItemToArray(arr, s);
	}
	buf_puts(b, " (shares of the time; they can add up to more than the stalled share)");
}

static void
pipelines(const cJSON *m, struct buf *b, cJSON *a, cJSON *missing)
{
	static const char *const p[][4] = {
		{ "ALU0 (FP16/FP32)", "alu0_active_pct", "alu0_instructions", "alu0_instr_pct" },
		{ "ALU1 (FP64/INT/Math)", "alu1_active_pct", "alu1_instructions", "alu1_instr_pct" },
		{ "XMX (Matrix/DPAS)", "xmx_active_pct", "xmx_instructions", "xmx_instr_pct" },
	};
	static const char *const mix[] = { "ALU0", "ALU1", "XMX" };
	double cnt[3], total = 0, act;
	int has[3], i, said = 0;

	for (i = 0; i < 3; i++) {
		has[i] = get(m, p[i][2], &cnt[i]);
		total += has[i] ? cnt[i] : 0;
	}
	buf_puts(b, "Pipeline utilisation:");
	for (i = 0; i < 3; i++) {
		buf_printf(b, "\n  %s: ", p[i][0]);
		if (get(m, p[i][1], &act)) {
			buf_printf(b, "%.1f%% active", act);
			cJSON_AddNumberToObject(a, p[i][1], act);
		} else {
			buf_puts(b, "activity missing");
			cJSON_AddItemToArray(missing, cJSON_CreateString(p[i][1]));
		}
		if (has[i]) {
			buf_puts(b, ", ");
			fmt_count(b, cnt[i]);
			buf_puts(b, " instructions");
			cJSON_AddNumberToObject(a, p[i][2], cnt[i]);
			if (total > 0) {
				buf_printf(b, " (%.1f%%)", 100 * cnt[i] / total);
				cJSON_AddNumberToObject(a, p[i][3], 100 * cnt[i] / total);
			}
		} else {
			buf_puts(b, ", instruction count missing");
			cJSON_AddItemToArray(missing, cJSON_CreateString(p[i][2]));
		}
	}
	if (total > 0) {
		buf_puts(b, "\nInstruction mix: ");
		for (i = 0; i < 3; i++) {
			if (has[i] && cnt[i] > 0) {
				buf_printf(b, "%s%s %.1f%%", said ? ", " : "", mix[i],
				    100 * cnt[i] / total);
				said = 1;
			}
		}
		buf_puts(b, ".");
	}
}

static void
say_memory_section(const cJSON *m, struct buf *b, cJSON *a, cJSON *missing)
{
	double rd, wr, x, y;
	int hr = get(m, "gpu_memory_read_gbps", &rd), hw = get(m, "gpu_memory_write_gbps", &wr);

	buf_puts(b, "\n\nMemory:\nGPU memory bandwidth (VTune-sampled, approximate): ");
	if (hr || hw) {
		if (hr) {
			buf_printf(b, "read %.1f GB/s", rd);
			cJSON_AddNumberToObject(a, "gpu_memory_read_gbps", rd);
		} else {
			buf_puts(b, "read missing");
		}
		if (hw) {
			buf_printf(b, ", write %.1f GB/s", wr);
			cJSON_AddNumberToObject(a, "gpu_memory_write_gbps", wr);
		} else {
			buf_puts(b, ", write missing");
		}
		if (hr && hw) {
			buf_printf(b, ", %.1f GB/s in all", rd + wr);
			cJSON_AddNumberToObject(a, "gpu_memory_rw_gbps", rd + wr);
		}
		buf_puts(b, ".");
	} else {
		buf_puts(b, "missing.");
		cJSON_AddItemToArray(missing, cJSON_CreateString("gpu_memory_read_gbps"));
		cJSON_AddItemToArray(missing, cJSON_CreateString("gpu_memory_write_gbps"));
	}
	hr = get(m, "l3_read_gbps", &x);
	hw = get(m, "l3_write_gbps", &y);
	if (hr || hw) {
		buf_puts(b, "\nL3 bandwidth:");
		if (hr) {
			buf_printf(b, " read %.1f GB/s", x);
			cJSON_AddNumberToObject(a, "l3_read_gbps", x);
		}
		if (hw) {
			buf_printf(b, "%s write %.1f GB/s", hr ? "," : "", y);
			cJSON_AddNumberToObject(a, "l3_write_gbps", y);
		}
		buf_puts(b, ".");
	}
	if (get(m, "l3_miss_pct", &x)) {
		buf_printf(b, "\nL3 miss ratio: %.1f%% (the share of L3 requests served from GPU "
		    "memory)", x);
		cJSON_AddNumberToObject(a, "l3_miss_pct", x);
	} else {
		buf_puts(b, "\nL3 miss ratio: missing");
		cJSON_AddItemToArray(missing, cJSON_CreateString("l3_miss_pct"));
	}
	if (get(m, "l3_busy_pct", &x)) {
		buf_printf(b, "; L3 busy %.1f%%", x);
		cJSON_AddNumberToObject(a, "l3_busy_pct", x);
	}
	if (get(m, "l3_stalled_pct", &x)) {
		buf_printf(b, ", stalled %.1f%%", x);
		cJSON_AddNumberToObject(a, "l3_stalled_pct", x);
	}
	buf_puts(b, ".");
	if (get(m, "tlb_misses", &x)) {
		buf_printf(b, "\nTLB misses: %.0f.", x);
		cJSON_AddNumberToObject(a, "tlb_misses", x);
	}
}

/* The core's time and limiter (analysis.h) for verdict bound: the pipe it
 * names, or the send (load/store) stalls of a memory-latency verdict. */
static void
core_json(cJSON *a, const cJSON *m, const char *bound)
{
	static const struct { const char *bound, *word, *unit, *metric; } v[] = {
		{ "memory_latency", "latency", "lsu", "stall_send_pct" },
		{ "compute_xmx", "compute", "tensor", "xmx_active_pct" },
		{ "compute_alu0", "compute", "fma", "alu0_active_pct" },
		{ "compute_alu1", "compute", "alu", "alu1_active_pct" },
		{ "balanced", "balanced", NULL, NULL },
	};
	size_t i;
	double pct = NAN;

	kf_core_time(a, kf_num(a, "average_time_ns", NAN), "average time");
	for (i = 0; i < sizeof v / sizeof v[0]; i++)
		if (strcmp(bound, v[i].bound) == 0) {
			if (v[i].metric)
				get(m, v[i].metric, &pct);
			kf_core_limiter(a, v[i].word, v[i].unit, pct, bound, v[i].metric);
			return;
		}
	kf_core_limiter(a, NULL, NULL, NAN, bound, NULL);
}

/* The focus kernel's recommendations as the core's advice. */
static void
core_advice(struct kf_fb *fb, const cJSON *recs)
{
	const cJSON *r;

	cJSON_ArrayForEach(r, recs)
		kf_core_advice(fb, "vtune", "recommendation", kf_str(r, "kind"), NULL, NAN, NULL,
		    kf_str(r, "text"), NULL);
}

/* The sections for one kernel; focus: the hottest one, whose parts get the
 * priorities that keep them under --max-chars. */
static cJSON *
kernel_feedback(const cJSON *k, int focus, const char *note, const struct kf_rank *rank,
    struct kf_fb *fb)
{
	const cJSON *m = kf_obj(k, "metrics");
	const char *name = kf_str(k, "name"), *bound;
	char *full = kf_kernel_strip_suffix(name), *shown = kf_rank_shown(rank, name);
	cJSON *a = cJSON_CreateObject(), *missing = cJSON_CreateArray(), *recs;
	struct buf b = {0}, why = {0};
	size_t i;

	cJSON_AddStringToObject(a, "name", full);
	if (strcmp(shown, full) != 0)
		cJSON_AddStringToObject(a, "short_name", shown);
	bound = bound_of(m, &why);
	cJSON_AddStringToObject(a, "bound", bound);
	cJSON_AddStringToObject(a, "bound_reason", why.s);
	if (is_overhead(name))
		cJSON_AddTrueToObject(a, "overhead");

	if (focus)
		diagnose(fb, m, bound, shown);
	kf_fb_kernel(&b, shown, NAN);
	buf_putc(&b, '\n');
	if (note)
		buf_printf(&b, "%s\n", note);
	buf_printf(&b, "The kernel is %s [%s]: %s.", bound_desc(bound), bound, why.s);
	for (i = 0; i < rank->n; i++) {
		if (strcmp(rank->v[i].name, name) == 0 && rank->n > 1) {
			buf_printf(&b, " It takes %.1f%% of the GPU time of all computing tasks "
			    "(rank %zu of %zu).", rank->v[i].share, i + 1, rank->n);
			cJSON_AddNumberToObject(a, "share_pct", rank->v[i].share);
		}
	}
	kf_fb_add_buf(fb, focus ? FB_HEAD : FB_MINOR, &b);

	say_runtime_section(k, m, &b, a, missing);
	core_json(a, m, bound);
	xve(m, &b, a, missing);
	kf_fb_add_buf(fb, focus ? FB_KEY : FB_MINOR, &b);

	pipelines(m, &b, a, missing);
	say_memory_section(m, &b, a, missing);
	kf_fb_add_buf(fb, focus ? FB_DETAIL : FB_MINOR, &b);

	recs = cJSON_AddArrayToObject(a, "recommendations");
	buf_puts(&b, "Recommendations:");
	recommend(m, bound, &b, recs);
	if (focus)
		core_advice(fb, recs);
	if (recs->child)
		kf_fb_add_buf(fb, focus ? FB_ADVICE : FB_MINOR, &b);
	buf_free(&b);
	if (missing->child)
		cJSON_AddItemToObject(a, "missing", missing);
	else
		cJSON_Delete(missing);
	buf_free(&why);
	free(full);
	free(shown);
	return a;
}

/* After the focus kernel: the verdict in the analysis, then the ranking. */
static void
focus_done(struct kf_fb *fb, const cJSON *akernels, const struct kf_rank *rank,
    enum kf_focus_how how, const char *why)
{
	const cJSON *a = cJSON_GetArrayItem(akernels, 0);
	cJSON *f = cJSON_Duplicate(a, 1);
	struct buf b = {0};

	kf_set_str(fb->analysis, "dominant_kernel", kf_str(a, "name"));
	kf_set_str(fb->analysis, "bound", kf_str(a, "bound"));
	kf_set_str(f, "reason", kf_focus_how_name(how));
	if (why && kf_startswith(why, "Why this kernel: "))
		kf_set_str(f, "why", why + strlen("Why this kernel: "));
	kf_set(fb->analysis, "focus", f);
	kf_rank_machinery_text(rank, &b);
	if (b.len)
		kf_fb_add_buf(fb, FB_KEY, &b);
	if (rank->n > 1) {
		kf_rank_text(rank, &b, fb->opt ? fb->opt->top : 5);
		kf_fb_add_buf(fb, FB_RANK, &b);
	}
	buf_free(&b);
}

/* The user kernel --focus picks: a name that matches one, else the one with
 * the most time; why: the line that says why (empty with one kernel). */
static const cJSON *
pick_user(const struct kf_fb *fb, const struct kf_rank *rank, const cJSON *ks,
    struct buf *why, enum kf_focus_how *howp)
{
	const struct kf_rank_ent *e, *fe;
	enum kf_focus_how how;
	size_t matches;
	const cJSON *k, *first = NULL, *named = NULL;
	struct buf tmp = {0};

	e = kf_fb_pick_totals(fb, rank, &how, &matches, &tmp);
	*howp = how;
	cJSON_ArrayForEach(k, ks) {
		const char *name = kf_str(k, "name");

		if (name == NULL || is_overhead(name))
			continue;
		if (first == NULL)
			first = k;
		if (named == NULL && e && how == KF_FOCUS_NAMED && strcmp(name, e->name) == 0)
			named = k;
	}
	if (named == NULL && how == KF_FOCUS_NAMED)
		*howp = KF_FOCUS_UNMATCHED;
	if (rank->n < 2) {
		buf_free(&tmp);
		return named ? named : first;
	}
	if (named) {
		buf_puts(why, tmp.s);
	} else if ((fe = kf_rank_find(rank, kf_str(first, "name"), NULL)) != NULL) {
		buf_puts(why, "Why this kernel: ");
		if (how == KF_FOCUS_NAMED || how == KF_FOCUS_UNMATCHED)
			buf_printf(why, "no kernel of your own matches --focus \"%s\", so ",
			    fb->opt->focus);
		buf_puts(why, "it has the most GPU time of the kernels of your own (copies and "
		    "framework kernels left out): ");
		kf_fmt_pct(why, fe->share);
		buf_puts(why, ", ");
		kf_fmt_ns(why, fe->total_ns);
		buf_printf(why, " over %ld launch%s.", fe->launches, fe->launches == 1 ? "" : "es");
	}
	buf_free(&tmp);
	return named ? named : first;
}

/* launch_bound and machinery (program.h): each computing task's launches
 * by its Average Time (VTune keeps no launch of its own). */
static void
program_findings(struct kf_fb *fb, const struct kf_rank *rank, const cJSON *ks)
{
	struct kf_launches ls = { .metric = "Computing Task:Average Time" };
	const cJSON *k;

	cJSON_ArrayForEach(k, ks) {
		const cJSON *m = kf_obj(k, "metrics");
		double avg, n = 0;

		if (kf_str(k, "name") == NULL || is_pseudo(kf_str(k, "name")))
			continue;
		if (!get(m, "instance_count_all", &n))
			get(m, "instance_count", &n);
		if (get(m, "average_time_s", &avg) && n >= 1 && n < 9e18)
			kf_launches_add(&ls, avg * 1e9, (long)n);
	}
	kf_prog_findings(fb, rank, &ls);
	kf_launches_free(&ls);
}

void
vtune_feedback(const cJSON *rec, struct kf_fb *fb)
{
	const cJSON *data = kf_obj(rec, "collated"), *ks = kf_arr(data, "kernels"), *k;
	const cJSON *hottest = NULL;
	struct kf_rank rank = {0};
	cJSON *akernels = cJSON_CreateArray();
	double best = -1;
	int users = 0;
	struct buf why = {0};

	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(data, "incomplete")))
		kf_fb_add(fb, FB_HEAD, "Note: VTune's report command failed (%s), so the report "
		    "below may be incomplete.", kf_str(data, "warning") ? kf_str(data, "warning") :
		    "no details");
	/* Rank every computing task (copies too: they take GPU time). */
	cJSON_ArrayForEach(k, ks) {
		const cJSON *m = kf_obj(k, "metrics");
		const char *name = kf_str(k, "name");
		double t = kf_num(m, "total_time_s", 0), n = 0;

		if (name == NULL || is_pseudo(name))
			continue;
		if (!get(m, "instance_count_all", &n))
			get(m, "instance_count", &n);
		kf_rank_add(&rank, name, t * 1e9, n >= 0 && n < 9e18 ? (long)n : 0);
		if (!is_overhead(name))
			users++;
		else if (t > best) {
			best = t;
			hottest = k;
		}
	}
	if (rank.n > 0)
		kf_rank_sort(&rank);

	if (users == 0 && hottest == NULL) {
		kf_fb_add(fb, FB_HEAD, "VTune's report holds no GPU computing task, so there "
		    "is nothing to analyse. The collection starts paused: the program must "
		    "resume it around its timed loop, and its kernels must run on the GPU.");
		kf_set_str(fb->analysis, "status", "no_kernels");
		cJSON_Delete(akernels);
		kf_rank_free(&rank);
		return;
	}
	/* The focus: the user kernel --focus picks (by default the one with
	 * the most time), then the others, sorted by total time (vtune_read). */
	if (users > 0) {
		enum kf_focus_how how;
		const cJSON *fk = pick_user(fb, &rank, ks, &why, &how);

		cJSON_AddItemToArray(akernels, kernel_feedback(fk, 1, why.s, &rank, fb));
		focus_done(fb, akernels, &rank, how, why.s);
		cJSON_ArrayForEach(k, ks) {
			const char *name = kf_str(k, "name");

			if (name == NULL || is_overhead(name) || k == fk)
				continue;
			cJSON_AddItemToArray(akernels, kernel_feedback(k, 0, NULL, &rank, fb));
		}
	}
	if (users == 0) {
		char *s = kf_kernel_short(kf_str(hottest, "name"), 60);
		char *note = xasprintf("Only copies and framework kernels were captured, no "
		    "kernel of your own; this is the hottest of them, %s.", s);

		cJSON_AddItemToArray(akernels, kernel_feedback(hottest, 1, note, &rank, fb));
		focus_done(fb, akernels, &rank, KF_FOCUS_TIME, NULL);
		free(note);
		free(s);
	}
	buf_free(&why);
	program_findings(fb, &rank, ks);
	cJSON_AddBoolToObject(fb->analysis, "only_overhead_kernels", users == 0);
	kf_set(fb->analysis, "kernels", akernels);
	kf_set(fb->analysis, "ranking", kf_rank_json(&rank, fb->opt ? fb->opt->top : 5));
	kf_rank_free(&rank);
}
