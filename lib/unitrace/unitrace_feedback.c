/* The unitrace path, feedback: per benchmark segment and kernel, the median
 * instance's runtime, occupancy, stalls, the roofline verdict from the
 * arithmetic intensity of the busiest ALU against the GPU's roofs, ALU use
 * and instruction mix, memory and SLM bandwidth, SLM bank conflicts, and
 * what to try, as KernelFoundry's intel_profiler_kernel_feedback template
 * says it; plus a ranking of kernels by GPU time. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feedback.h"
#include "levers.h"
#include "gpu_roofs.h"
#include "analysis.h"
#include "profiler.h"
#include "program.h"
#include "record.h"
#include "unitrace.h"
#include "buf.h"
#include "mem.h"

enum { NALU = 3 };

static const char *const alu_metric[NALU] = {
	"XVE_INST_EXECUTED_ALU0_ALL[events]",
	"XVE_INST_EXECUTED_ALU1_ALL[events]",
	"XVE_INST_EXECUTED_ALU2_ALL[events]",
};
static const char *const alu_roof[NALU] = {
	"XVE_INST_EXECUTED_ALU0_ALL",
	"XVE_INST_EXECUTED_ALU1_ALL",
	"XVE_INST_EXECUTED_ALU2_ALL",
};
static const char *const alu_name[NALU] = { "ALU0", "ALU1", "ALU2" };
/* The instruction types each ALU executes, as VectorEngineProfile counts them. */
static const char *const alu_types[NALU][6] = {
	{ "FP16", "FP32", NULL },
	{ "FP64", "INT16", "INT32", "INT64", "MATH", NULL },
	{ "XMX_BF16", "XMX_FP16", "XMX_INT2", "XMX_INT4", "XMX_INT8", NULL },
};

/* Everything said about one kernel, computed once. */
struct kernel_analysis {
	const cJSON *k, *cb, *mp, *vep;
	double runtime;		/* ns, the base of every rate */
	double shown_ns;	/* the runtime to state; NAN when unknown */
	double rate[NALU], util[NALU], ai[NALU];
	int have[NALU];
	int order[NALU];	/* ALUs by use, busiest first */
	const char *bound;
	int bound_alu;
	double lo, hi;		/* ridge band of the bound ALU */
	double gmem, gmem_pct, slm_pct, conflicts, stall, occupancy;
	cJSON *missing;
};

static double
m(const cJSON *row, const char *metric)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(row, metric);

	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static void
missing(struct kernel_analysis *a, const char *what)
{
	cJSON_AddItemToArray(a->missing, cJSON_CreateString(what));
}

static void
rooflines(struct kernel_analysis *a, const cJSON *gpu)
{
	double bytes = m(a->cb, "GPU_MEMORY_BYTE_READ[bytes]") + m(a->cb, "GPU_MEMORY_BYTE_WRITE[bytes]");
	double bw = kf_gpu_roof(gpu, "GPU_MEMORY_BYTE_READ"), best = -1;
	int i, j;

	a->bound = NULL;
	a->bound_alu = -1;
	for (i = 0; i < NALU; i++) {
		double n = m(a->cb, alu_metric[i]), peak = kf_gpu_roof(gpu, alu_roof[i]);

		a->order[i] = i;
		a->have[i] = !isnan(n) && a->runtime > 0;
		if (!a->have[i]) {
			missing(a, alu_metric[i]);
			a->rate[i] = a->util[i] = a->ai[i] = NAN;
			continue;
		}
		a->rate[i] = n / a->runtime;
		a->util[i] = 100 * a->rate[i] / peak;
		a->ai[i] = bytes > 0 ? n / bytes : isnan(bytes) ? NAN : INFINITY;
		/* The reference takes the verdict of the ALU with the highest
		 * instruction rate, the first of equals. */
		if (a->rate[i] > best) {
			best = a->rate[i];
			a->bound_alu = i;
		}
	}
	/* Busiest first; a stable insertion sort keeps ALU order among equals. */
	for (i = 1; i < NALU; i++)
		for (j = i; j > 0 && (isnan(a->util[a->order[j - 1]]) ? -1 : a->util[a->order[j - 1]]) <
		    (isnan(a->util[a->order[j]]) ? -1 : a->util[a->order[j]]); j--) {
			int t = a->order[j];

			a->order[j] = a->order[j - 1];
			a->order[j - 1] = t;
		}
	if (a->bound_alu < 0 || isnan(bw))
		return;
	i = a->bound_alu;
	{
		double peak = kf_gpu_roof(gpu, alu_roof[i]);

		if (isnan(peak) || isnan(a->ai[i]))
			return;
		a->lo = 0.9 * peak / bw;
		a->hi = peak / (0.9 * bw);
		a->bound = a->ai[i] < a->lo ? "memory" : a->ai[i] > a->hi ? "compute" : "balanced";
	}
}

static void
analyse(struct kernel_analysis *a, const cJSON *k, const cJSON *gpu, int sampling)
{
	double slm, r, w, peak;

	memset(a, 0, sizeof *a);
	a->k = k;
	a->cb = kf_obj(k, "compute_basic");
	a->mp = kf_obj(k, "memory_profile");
	a->vep = kf_obj(k, "vector_engine_profile");
	a->missing = cJSON_CreateArray();
	a->runtime = m(a->cb, "GpuTime[ns]");
	a->shown_ns = kf_num(kf_obj(k, "gpu_time_ns"), "median", NAN);
	(void)sampling;
	rooflines(a, gpu);
	r = m(a->cb, "GPU_MEMORY_BYTE_READ_RATE[GBpS]");
	w = m(a->cb, "GPU_MEMORY_BYTE_WRITE_RATE[GBpS]");
	a->gmem = r + w;
	if (isnan(a->gmem))	/* older layouts: no rate columns; bytes per ns is GB/s */
		a->gmem = (m(a->cb, "GPU_MEMORY_BYTE_READ[bytes]") +
		    m(a->cb, "GPU_MEMORY_BYTE_WRITE[bytes]")) / a->runtime;
	if (isnan(a->gmem))
		missing(a, "GPU_MEMORY_BYTE_READ/WRITE");
	a->gmem_pct = 100 * a->gmem / kf_gpu_roof(gpu, "GPU_MEMORY_BYTE_READ");
	slm = (m(a->cb, "SLM_BYTE_READ[bytes]") + m(a->cb, "SLM_BYTE_WRITE[bytes]")) / a->runtime;
	peak = kf_gpu_roof(gpu, "SLM_BYTE_READ") + kf_gpu_roof(gpu, "SLM_BYTE_WRITE");
	a->slm_pct = 100 * slm / peak;
	if (isnan(slm))
		missing(a, "SLM_BYTE_READ/WRITE");
	a->stall = m(a->cb, "XVE_STALL[%]");
	if (isnan(a->stall))
		missing(a, "XVE_STALL");
	a->occupancy = m(a->vep, "XVE_THREADS_OCCUPANCY_ALL[%]");
	if (isnan(a->occupancy))
		a->occupancy = m(a->cb, "XVE_THREADS_OCCUPANCY_ALL[%]");
	if (a->mp == NULL) {
		a->conflicts = NAN;
		missing(a, "MemoryProfile");
	} else {
		double acc = m(a->mp, "SLM_ACCESS_COUNT[events]");

		a->conflicts = acc > 0 ? 100 * m(a->mp, "SLM_BANK_CONFLICT_COUNT[events]") / acc : 0;
	}
	if (a->vep == NULL)
		missing(a, "VectorEngineProfile");
}

static void
add_number_or_null(cJSON *o, const char *key, double v)
{
	if (isnan(v) || isinf(v))
		cJSON_AddNullToObject(o, key);
	else
		cJSON_AddNumberToObject(o, key, v);
}

/* The instruction mix of ALU i: each type's share of the ALU's instructions. */
static cJSON *
mix(const struct kernel_analysis *a, int i)
{
	cJSON *v = cJSON_CreateArray();
	double all = m(a->vep, alu_metric[i]);
	int t;

	for (t = 0; alu_types[i][t]; t++) {
		char *metric = xasprintf("XVE_INST_EXECUTED_%s[events]", alu_types[i][t]);
		double n = m(a->vep, metric);
		cJSON *o;

		free(metric);
		if (isnan(n))
			continue;
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", alu_types[i][t]);
		add_number_or_null(o, "pct", all > 0 ? 100 * n / all : 0);
		cJSON_AddItemToArray(v, o);
	}
	return v;
}

static const char *
alu_label(int i)
{
	static const char *const l[NALU] = {
		"ALU0 (FP16/FP32)", "ALU1 (FP64, INT16/32/64, MATH)", "ALU2 (XMX matrix engine)",
	};

	return l[i];
}

static void
mix_text(struct buf *b, const struct kernel_analysis *a, int i)
{
	cJSON *v = mix(a, i), *e;
	int any = 0;

	cJSON_ArrayForEach(e, v) {
		double p = kf_num(e, "pct", 0);

		if (p <= 0)
			continue;
		buf_printf(b, "%s%s %.2f%%", any ? ", " : " Instruction mix: ", kf_str(e, "name"), p);
		any = 1;
	}
	if (any)
		buf_putc(b, '.');
	else if (a->vep == NULL)
		buf_puts(b, " Instruction mix unknown (no VectorEngineProfile pass).");
	cJSON_Delete(v);
}

/* The contract's unit words for the ALUs (man/kf.7), the same in the
 * limiter and the diagnosis: ALU0 runs FP32/FP16 (the FMA pipe), ALU1
 * integer, FP64 and math, ALU2 the XMX matrix engine. */
static const char *const alu_unit[NALU] = { "fma", "alu", "tensor" };

/* The core's limiter and roof (analysis.h): the roofline verdict, the ALU
 * or the memory it rests on; each ALU's instructions per byte and per
 * second against the GPU's roofs, the ALU of the verdict first. */
static void
core_json(cJSON *o, const struct kernel_analysis *a, const cJSON *gpu)
{
	double bw = kf_gpu_roof(gpu, "GPU_MEMORY_BYTE_READ") * 1e9;
	int mem = a->bound && strcmp(a->bound, "memory") == 0;
	int bal = a->bound && strcmp(a->bound, "balanced") == 0;
	cJSON *roof;
	int i;

	kf_core_time(o, a->shown_ns, "median time");
	kf_core_limiter(o, a->bound, a->bound == NULL || bal ? NULL : mem ? "dram" :
	    alu_unit[a->bound_alu], a->bound == NULL || bal ? NAN : mem ? a->gmem_pct :
	    a->util[a->bound_alu], NULL, a->bound == NULL || bal ? NULL : mem ?
	    "GPU_MEMORY_BYTE_READ+WRITE" : alu_metric[a->bound_alu]);
	if (gpu == NULL || !(bw > 0) || a->bound_alu < 0)
		return;
	roof = cJSON_AddObjectToObject(o, "roof");
	kf_roof_init(roof, "inst/byte", "inst/s", bw, "GPU memory");
	if (a->bound)
		cJSON_AddStringToObject(roof, "bound", a->bound);
	for (i = 0; i < NALU; i++)
		if (a->have[a->order[i]])
			kf_roof_peak(roof, alu_name[a->order[i]],
			    kf_gpu_roof(gpu, alu_roof[a->order[i]]) * 1e9, NAN);
	kf_roof_point(roof, alu_name[a->bound_alu], a->ai[a->bound_alu],
	    a->rate[a->bound_alu] * 1e9, a->gmem * 1e9, NAN);
	for (i = 0; i < NALU; i++) {
		int j = a->order[i];

		if (a->have[j] && j != a->bound_alu)
			kf_roof_point(roof, alu_name[j], a->ai[j], a->rate[j] * 1e9, a->gmem * 1e9,
			    NAN);
	}
}

static cJSON *
kernel_json(const struct kernel_analysis *a, const char *segment, double share,
    const struct kf_rank *rank, const cJSON *gpu)
{
	const cJSON *k = a->k, *t = kf_obj(k, "gpu_time_ns");
	cJSON *o = cJSON_CreateObject(), *u, *alus;
	char *s = kf_rank_shown(rank, kf_str(k, "name"));
	int i;

	cJSON_AddStringToObject(o, "name", kf_str(k, "name"));
	cJSON_AddStringToObject(o, "short_name", s);
	free(s);
	cJSON_AddStringToObject(o, "full_name", kf_str(k, "full_name"));
	cJSON_AddItemToObject(o, "launch", kf_str(k, "launch") ?
	    cJSON_CreateString(kf_str(k, "launch")) : cJSON_CreateNull());
	cJSON_AddStringToObject(o, "segment", segment);
	if (kf_str(k, "device_name"))
		cJSON_AddStringToObject(o, "device", kf_str(k, "device_name"));
	add_number_or_null(o, "instances", kf_num(k, "instances", NAN));
	if (cJSON_GetObjectItemCaseSensitive(k, "samples")) {
		add_number_or_null(o, "samples", kf_num(k, "samples", NAN));
		add_number_or_null(o, "timed_instances", kf_num(k, "timed_instances", NAN));
	}
	add_number_or_null(o, "median_gpu_time_ns", a->shown_ns);
	add_number_or_null(o, "total_gpu_time_ns", kf_num(t, "total", NAN));
	add_number_or_null(o, "min_gpu_time_ns", kf_num(t, "min", NAN));
	add_number_or_null(o, "max_gpu_time_ns", kf_num(t, "max", NAN));
	add_number_or_null(o, "share_pct", share);
	if (a->bound) {
		cJSON_AddStringToObject(o, "bound", a->bound);
		cJSON_AddStringToObject(o, "bound_alu", alu_name[a->bound_alu]);
		add_number_or_null(o, "arithmetic_intensity", a->ai[a->bound_alu]);
		u = cJSON_AddArrayToObject(o, "ridge");
		cJSON_AddItemToArray(u, cJSON_CreateNumber(a->lo));
		cJSON_AddItemToArray(u, cJSON_CreateNumber(a->hi));
	}
	u = cJSON_AddObjectToObject(o, "alu_util");
	alus = cJSON_AddArrayToObject(o, "alus");
	for (i = 0; i < NALU; i++) {
		int j = a->order[i];
		cJSON *x;

		if (!a->have[j])
			continue;
		add_number_or_null(u, alu_name[j], a->util[j]);
		x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "name", alu_name[j]);
		add_number_or_null(x, "inst_per_ns", a->rate[j]);
		add_number_or_null(x, "util_pct", a->util[j]);
		add_number_or_null(x, "arithmetic_intensity", a->ai[j]);
		cJSON_AddItemToObject(x, "instr_mix", mix(a, j));
		cJSON_AddItemToArray(alus, x);
	}
	add_number_or_null(o, "gmem_bw_gbps", a->gmem);
	add_number_or_null(o, "gmem_bw_pct", a->gmem_pct);
	add_number_or_null(o, "slm_bw_pct", a->slm_pct);
	add_number_or_null(o, "slm_bank_conflict_pct", a->conflicts);
	add_number_or_null(o, "ve_stall_pct", a->stall);
	add_number_or_null(o, "thread_occupancy_pct", a->occupancy);
	cJSON_AddItemToObject(o, "missing", cJSON_Duplicate(a->missing, 1));
	core_json(o, a, gpu);
	return o;
}

static void
compute_block(struct buf *b, const struct kernel_analysis *a)
{
	int top = a->order[0], i;

	buf_printf(b, "\n%s is the most used compute resource at %.2f%% of its peak, likely "
	    "the bottleneck of this kernel.", alu_name[top], a->util[top]);
	mix_text(b, a, top);
	for (i = 1; i < NALU; i++) {
		int j = a->order[i];

		if (!a->have[j])
			continue;
		if (a->util[j] > 0) {
			buf_printf(b, "\n%s is used at %.2f%%.", alu_name[j], a->util[j]);
			mix_text(b, a, j);
		} else if (j == 2) {
			buf_puts(b, "\nALU2, the XMX hardware acceleration of matrix multiplication, is not used.");
		} else {
			buf_printf(b, "\n%s is not used.", alu_label(j));
		}
	}
	buf_puts(b, "\nTo improve compute performance, shift the instruction mix towards more "
	    "efficient instructions or balance the use of the compute resources better.");
}

static void
memory_block(struct buf *b, const struct kernel_analysis *a)
{
	buf_printf(b, "\nThe kernel's global memory bandwidth is %.2f GB/s, %.2f%% of the peak.",
	    a->gmem, a->gmem_pct);
	if (!isnan(a->stall))
		buf_printf(b, " The vector engines are stalled %.2f%% of the time, likely waiting "
		    "for memory operations to complete.", a->stall);
	if (a->slm_pct == 0)
		buf_puts(b, "\nThe kernel does not use shared local memory (SLM). Consider staging "
		    "reused data in SLM to reduce global memory traffic.");
	else if (a->slm_pct > 70)
		buf_printf(b, "\nThe kernel uses shared local memory heavily (%.2f%% of the peak "
		    "SLM bandwidth), which may be a bottleneck.", a->slm_pct);
	if (a->slm_pct > 0 && a->conflicts > 0)
		buf_printf(b, "\n%.2f%% of the SLM accesses cause bank conflicts. Consider changing "
		    "the SLM access pattern (padding, a different index mapping) to reduce them.",
		    a->conflicts);
}

/* The paragraphs for one kernel: head, numbers, what to try. */
static void
kernel_text(struct kf_fb *fb, const struct kernel_analysis *a, double share, int focus,
    const cJSON *gpu, const struct kf_rank *rank)
{
	struct buf b = {0};
	const cJSON *t = kf_obj(a->k, "gpu_time_ns");
	char *s = kf_rank_shown(rank, kf_str(a->k, "name"));
	int head = focus ? FB_HEAD : FB_MINOR, key = focus ? FB_KEY : FB_MINOR;
	int adv = focus ? FB_ADVICE : FB_MINOR, det = focus ? FB_DETAIL : FB_MINOR;

	kf_fb_kernel(&b, s, share);
	free(s);
	if (a->bound)
		buf_printf(&b, "\nRoofline: %s bound. ", a->bound);
	else
		buf_puts(&b, "\n");
	if (a->bound && strcmp(a->bound, "compute") == 0)
		buf_puts(&b, "The kernel is using compute more than memory bandwidth");
	else if (a->bound && strcmp(a->bound, "memory") == 0)
		buf_puts(&b, "The kernel is using memory bandwidth more than compute");
	else if (a->bound)
		buf_puts(&b, "The kernel is balanced between compute and memory bandwidth");
	if (a->bound)
		buf_printf(&b, ": %s, the ALU with the highest instruction rate, runs %.3f "
		    "instructions per byte of GPU memory traffic against a ridge band of "
		    "%.3f-%.3f for this GPU.", alu_name[a->bound_alu],
		    a->ai[a->bound_alu], a->lo, a->hi);
	else if (gpu == NULL)
		buf_puts(&b, "No roofline verdict: the GPU's roofs are unknown.");
	else
		buf_puts(&b, "No roofline verdict: the ALU or memory counters are missing.");
	kf_fb_add_buf(fb, head, &b);

	buf_printf(&b, "Launch configuration: %s. ", kf_str(a->k, "launch") ?
	    kf_str(a->k, "launch") : "not recorded");
	if (!isnan(a->shown_ns)) {
		buf_puts(&b, "Median runtime ");
		kf_fmt_ns(&b, a->shown_ns);
		if (!isnan(kf_num(t, "min", NAN))) {
			buf_puts(&b, " (min ");
			kf_fmt_ns(&b, kf_num(t, "min", 0));
			buf_puts(&b, ", max ");
			kf_fmt_ns(&b, kf_num(t, "max", 0));
			buf_puts(&b, ")");
		}
		if (!isnan(kf_num(a->k, "samples", NAN)))
			buf_printf(&b, " over %.0f timed launches; metrics are the mean of %.0f samples.",
			    kf_num(a->k, "timed_instances", 0), kf_num(a->k, "samples", 0));
		else
			buf_printf(&b, " over %.0f launches.", kf_num(a->k, "instances", 0));
	} else {
		buf_printf(&b, "No launch inside the benchmark loop was timed; metrics are the "
		    "mean of %.0f samples.", kf_num(a->k, "samples", 0));
	}
	if (!isnan(a->occupancy))
		buf_printf(&b, "\nThread occupancy %.2f%%.", a->occupancy);
	if (!isnan(a->stall))
		buf_printf(&b, "%sThe vector engine stall rate is %.2f%%.",
		    isnan(a->occupancy) ? "\n" : " ", a->stall);
	if (a->have[a->order[0]] && !isnan(a->util[a->order[0]]))
		buf_printf(&b, "\nThe most used compute resource is %s at %.2f%% of its peak.",
		    alu_name[a->order[0]], a->util[a->order[0]]);
	if (!isnan(a->gmem_pct))
		buf_printf(&b, "\nGlobal memory bandwidth: %.2f GB/s, %.2f%% of the peak.",
		    a->gmem, a->gmem_pct);
	else if (!isnan(a->gmem))
		buf_printf(&b, "\nGlobal memory bandwidth: %.2f GB/s.", a->gmem);
	if (!isnan(a->slm_pct) && a->slm_pct > 0)
		buf_printf(&b, " Shared local memory bandwidth: %.2f%% of the peak.", a->slm_pct);
	if (!isnan(a->conflicts))
		buf_printf(&b, " SLM bank conflicts: %.2f%% of SLM accesses.", a->conflicts);
	else
		buf_puts(&b, " SLM bank conflicts unknown (no MemoryProfile pass).");
	kf_fb_add_buf(fb, key, &b);

	if (a->bound && strcmp(a->bound, "compute") == 0) {
		compute_block(&b, a);
	} else if (a->bound && strcmp(a->bound, "memory") == 0) {
		memory_block(&b, a);
	} else if (a->bound) {
		buf_puts(&b, "\nThe kernel is balanced between compute and memory bandwidth: "
		    "improve both together.");
		compute_block(&b, a);
		memory_block(&b, a);
	}
	if (b.len) {
		memmove(b.s, b.s + 1, b.len);	/* the first line break */
		b.len--;
		kf_fb_add_buf(fb, adv, &b);
	}
	if (!a->bound && a->have[a->order[0]]) {
		int i;

		buf_puts(&b, "Instructions per ns:");
		for (i = 0; i < NALU; i++)
			if (a->have[i]) {
				buf_printf(&b, " %s %.2f (%.3f per byte of memory traffic).",
				    alu_name[i], a->rate[i], a->ai[i]);
				mix_text(&b, a, i);
			}
		kf_fb_add_buf(fb, det, &b);
	}
	buf_free(&b);
}

/* ---- the diagnosis (diagnosis.h) of the focus kernel ---- */

/* A unit at or above this share of its peak is what limits the kernel;
 * below it on every unit, the kernel waits (latency-bound). */
#define NEAR_PEAK 50.0
/* SLM bank conflicts below this share of SLM accesses are not a finding. */
#define CONFLICTS_MIN 5.0

/* The share of ALU i's instructions that are type t, or NAN. */
static double
mix_share(const struct kernel_analysis *a, int i, const char *t)
{
	char *metric = xasprintf("XVE_INST_EXECUTED_%s[events]", t);
	double n = m(a->vep, metric), all = m(a->vep, alu_metric[i]);

	free(metric);
	return all > 0 && !isnan(n) ? 100 * n / all : NAN;
}

static void
ev_alu(struct kf_finding *f, const struct kernel_analysis *a, int i)
{
	char *name = xasprintf("%s / GpuTime[ns], share of peak", alu_metric[i]);

	kf_finding_ev(f, alu_metric[i], m(a->cb, alu_metric[i]), NULL);
	kf_finding_ev(f, name, round(a->util[i] * 100) / 100, "%");
	free(name);
}

static void
ev_gmem(struct kf_finding *f, const struct kernel_analysis *a)
{
	kf_finding_ev(f, "GPU_MEMORY_BYTE_READ_RATE[GBpS] + GPU_MEMORY_BYTE_WRITE_RATE[GBpS]",
	    a->gmem, "GB/s");
	kf_finding_ev(f, "GPU memory bandwidth, share of peak", round(a->gmem_pct * 100) / 100, "%");
}

static void
ev_ai(struct kf_finding *f, const struct kernel_analysis *a)
{
	char *name = xasprintf("%s / (GPU_MEMORY_BYTE_READ[bytes] + GPU_MEMORY_BYTE_WRITE[bytes])",
	    alu_metric[a->bound_alu]);

	kf_finding_ev(f, name, round(a->ai[a->bound_alu] * 1000) / 1000, "instructions/byte");
	free(name);
}

static void
diag_memory(struct kf_fb *fb, const struct kernel_analysis *a, const char *name, int balanced)
{
	struct kf_finding *f = kf_diag_add(&fb->diag, KF_MEMORY_BOUND, "dram", 100 - a->gmem_pct,
	    "%s is %s GPU memory bandwidth: %.2f GB/s, %.1f%% of the peak, at %.3f %s "
	    "instructions per byte (ridge %.3f-%.3f)", name,
	    balanced ? "balanced on the ridge and limited by" : "memory-bound on",
	    a->gmem, a->gmem_pct, a->ai[a->bound_alu], alu_name[a->bound_alu], a->lo, a->hi);

	kf_finding_kernel(f, name);
	ev_gmem(f, a);
	ev_ai(f, a);
	kf_finding_impact(f, 100 - a->gmem_pct, "100 - GPU memory bandwidth's share of its peak "
	    "(headroom to the roof)");
	kf_finding_fix(f, "move fewer bytes: reuse data from SLM or registers, fuse with the "
	    "kernels that touch the same tensors, or use narrower types (bf16, fp16)");
}

static void
diag_compute(struct kf_fb *fb, const struct kernel_analysis *a, const char *name, int i,
    int balanced)
{
	double fp64 = i == 1 ? mix_share(a, 1, "FP64") : NAN;
	int is64 = !isnan(fp64) && fp64 >= 50;
	struct kf_finding *f = kf_diag_add(&fb->diag, is64 ? KF_FP64_MATH : KF_COMPUTE_BOUND,
	    is64 ? "fp64" : alu_unit[i], 100 - a->util[i],
	    "%s is %s %s (%s): %.1f%% of its peak instruction rate%s", name,
	    balanced ? "balanced on the ridge and limited by" : "compute-bound on",
	    alu_name[i], i == 0 ? "FP32/FP16" : i == 1 ? "FP64, integer, math" : "XMX matrix engine",
	    a->util[i], is64 ? "" : "");

	kf_finding_kernel(f, name);
	ev_alu(f, a, i);
	if (a->bound_alu == i)
		ev_ai(f, a);
	if (is64)
		kf_finding_impact(f, fp64 * fmin(100, a->util[i]) / 100, "XVE_INST_EXECUTED_FP64 "
		    "/ XVE_INST_EXECUTED_ALU1_ALL x ALU1's share of its peak (the FP64 share of "
		    "the busy pipe's work, which FP32 does at many times the rate)");
	else
		kf_finding_impact(f, 100 - a->util[i], "100 - %s's share of its peak instruction "
		    "rate (headroom to the roof; gpus.json gives no other unit's FLOP rate to move "
		    "to)", alu_name[i]);
	if (is64) {
		kf_finding_ev(f, "XVE_INST_EXECUTED_FP64[events] / XVE_INST_EXECUTED_ALU1_ALL[events]",
		    round(fp64 * 100) / 100, "%");
		kf_finding_fix(f, "compute in fp32: float literals (1.0f), float variables and "
		    "the float math functions; keep fp64 only where the precision is needed");
	} else if (i == 2) {
		kf_finding_fix(f, "keep the XMX engines fed: larger tiles per sub-group, and load "
		    "the next tiles (2D block loads, prefetch) while DPAS runs on these");
	} else if (i == 0) {
		kf_finding_fix(f, "run the matrix work on XMX (joint_matrix, DPAS: ALU2 is at "
		    "%.1f%%), or do less arithmetic per output", a->have[2] ? a->util[2] : 0);
	} else {
		kf_finding_fix(f, "cut integer and math work: hoist index arithmetic out of loops, "
		    "use native or fp32 math functions, keep fp64 out of hot loops");
	}
}

static void
diag_latency(struct kf_fb *fb, const struct kernel_analysis *a, const char *name)
{
	int top = a->order[0];
	struct kf_finding *f = kf_diag_add(&fb->diag, KF_LATENCY_BOUND, NULL, a->stall,
	    "%s runs near no peak (GPU memory %.1f%%, busiest ALU %s %.1f%%): it waits; the "
	    "vector engines are stalled %.1f%% of the time", name, a->gmem_pct,
	    alu_name[top], a->util[top], a->stall);

	kf_finding_kernel(f, name);
	kf_finding_ev(f, "XVE_STALL[%]", a->stall, "%");
	ev_gmem(f, a);
	ev_alu(f, a, top);
	kf_finding_impact(f, a->stall, "XVE_STALL[%%] (the time the vector engines wait)");
	kf_finding_fix(f, "give each vector engine more independent work in flight: more "
	    "loads issued before their results are used (unroll, prefetch), and enough "
	    "work-groups to fill the GPU");
	if (!isnan(a->occupancy) && a->occupancy < 50) {
		f = kf_diag_add(&fb->diag, KF_LOW_OCCUPANCY, NULL, NAN, "%s: thread occupancy "
		    "%.1f%%, little other work to run while threads wait", name, a->occupancy);
		kf_finding_kernel(f, name);
		kf_finding_ev(f, "XVE_THREADS_OCCUPANCY_ALL[%]", a->occupancy, "%");
		kf_finding_impact(f, NAN, "not estimated: more threads help only as far as they "
		    "hide the stalls, which the counters do not split");
		kf_finding_fix(f, "more work-groups, or fewer registers and less SLM per "
		    "work-group so that more of them fit");
	}
}

static void
diag_slm(struct kf_fb *fb, const struct kernel_analysis *a, const char *name)
{
	struct kf_finding *f;

	if (isnan(a->conflicts) || a->conflicts < CONFLICTS_MIN || !(a->slm_pct > 0))
		return;
	f = kf_diag_add(&fb->diag, KF_SHARED_BANK_CONFLICT, "shared", NAN, "%.1f%% of %s's SLM "
	    "accesses are bank conflicts", a->conflicts, name);
	kf_finding_kernel(f, name);
	kf_finding_ev(f, "SLM_BANK_CONFLICT_COUNT[events]",
	    m(a->mp, "SLM_BANK_CONFLICT_COUNT[events]"), NULL);
	kf_finding_ev(f, "SLM_ACCESS_COUNT[events]", m(a->mp, "SLM_ACCESS_COUNT[events]"), NULL);
	kf_finding_ev(f, "SLM_BANK_CONFLICT_COUNT / SLM_ACCESS_COUNT", round(a->conflicts * 100) / 100,
	    "%");
	kf_finding_impact(f, a->conflicts * a->slm_pct / 100, "SLM_BANK_CONFLICT_COUNT / "
	    "SLM_ACCESS_COUNT x SLM bandwidth's share of its peak (the conflicting share of "
	    "SLM's work)");
	kf_finding_fix(f, "pad each SLM row by one element or swizzle the index, so that a "
	    "sub-group's work-items reach different banks");
}

/* The findings of the focus kernel: what limits it by the roofline (a unit
 * near its peak), else that it waits, and its SLM bank conflicts. */
static void
diagnose(struct kf_fb *fb, const struct kernel_analysis *a, const char *name)
{
	int i = a->bound_alu, bal;
	double u;

	if (a->bound == NULL) {
		diag_slm(fb, a, name);
		return;
	}
	bal = strcmp(a->bound, "balanced") == 0;
	u = a->util[i];
	if (strcmp(a->bound, "memory") == 0 && a->gmem_pct >= NEAR_PEAK)
		diag_memory(fb, a, name, 0);
	else if (strcmp(a->bound, "compute") == 0 && u >= NEAR_PEAK)
		diag_compute(fb, a, name, i, 0);
	else if (bal && a->gmem_pct >= NEAR_PEAK && a->gmem_pct >= u)
		diag_memory(fb, a, name, 1);
	else if (bal && u >= NEAR_PEAK)
		diag_compute(fb, a, name, i, 1);
	else if (!isnan(a->stall))
		diag_latency(fb, a, name);
	diag_slm(fb, a, name);
}

/* More than three segments: the median and the slowest by runtime, in
 * their order, as the reference. */
static void
select_segments(const cJSON *segs, int *sel, int n)
{
	int *idx = xcalloc((size_t)n + 1, sizeof *idx), i, j;

	for (i = 0; i < n; i++) {
		sel[i] = n <= 3;
		idx[i] = i;
	}
	if (n > 3) {
		for (i = 1; i < n; i++)
			for (j = i; j > 0 && kf_num(cJSON_GetArrayItem(segs, idx[j - 1]), "runtime_ns", 0) >
			    kf_num(cJSON_GetArrayItem(segs, idx[j]), "runtime_ns", 0); j--) {
				int t = idx[j];

				idx[j] = idx[j - 1];
				idx[j - 1] = t;
			}
		sel[idx[(n - 1) / 2]] = 1;
		sel[idx[n - 1]] = 1;
	}
	free(idx);
}

static void
explain_passes(const cJSON *rec, struct kf_fb *fb, const cJSON *col, cJSON *an)
{
	const cJSON *p, *g;
	struct buf b = {0};

	cJSON_ArrayForEach(p, kf_arr(rec, "passes")) {
		const cJSON *e = kf_obj(p, "error");

		if (e == NULL)
			continue;
		const char *pass = kf_str(p, "pass"), *grp = kf_str(p, "group");
		int no;

		/* Replayed passes may have no group: unitrace.00N is group N. */
		if (!grp && pass && sscanf(pass, "unitrace.%d", &no) == 1 && no >= 0 && no < 3)
			grp = unitrace_groups[no];
		buf_printf(&b, "Pass %s (%s) failed: %s", pass ? pass : "?",
		    grp ? grp : "unknown group",
		    kf_str(e, "message") ? kf_str(e, "message") : "no message");
		if (kf_str(e, "hint"))
			buf_printf(&b, "\nWhat to do: %s", kf_str(e, "hint"));
		kf_fb_add_buf(fb, FB_KEY, &b);
	}
	cJSON_ArrayForEach(g, kf_arr(col, "missing_groups")) {
		if (!cJSON_IsString(g))
			continue;
		buf_printf(&b, "No %s metrics: %s.", g->valuestring,
		    strcmp(g->valuestring, "MemoryProfile") == 0 ? "SLM bank conflicts are unknown" :
		    "thread occupancy (from ComputeBasic instead) and the instruction mix are unknown");
		kf_fb_add_buf(fb, FB_DETAIL, &b);
	}
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(col, "timeline_truncated")))
		kf_fb_add(fb, FB_KEY, "The timeline ends early (the program or unitrace was cut off): "
		    "only the kernels recorded before that are analysed.");
	kf_set(an, "warnings", cJSON_Duplicate(kf_arr(col, "warnings"), 1));
	buf_free(&b);
}

static void
segment_heading(struct kf_fb *fb, const cJSON *seg, int no, int prio)
{
	const char *label = kf_str(seg, "label");
	const cJSON *itt = cJSON_GetObjectItemCaseSensitive(seg, "itt_event");

	if (!cJSON_IsString(itt))
		kf_fb_add(fb, prio, "All kernels of the run (no benchmark loop marked with '%s'):",
		    "ittapi::model run loop");
	else if (label == NULL)
		kf_fb_add(fb, prio, "Benchmark %d:", no);
	else if (strcmp(label, "default") == 0)
		kf_fb_add(fb, prio, "Benchmark %d: the model run loop", no);
	else
		kf_fb_add(fb, prio, "Benchmark %d: pytest test %s", no, label);
}

/* The shown names of every kernel of every segment, none alike (names),
 * and the ranking of the focus segment made to use the same. */
static void
same_names(struct kf_rank *rank, struct kf_rank *names, const cJSON *segs)
{
	const cJSON *seg, *k;
	size_t i;

	cJSON_ArrayForEach(seg, segs)
		cJSON_ArrayForEach(k, kf_arr(seg, "kernels"))
			kf_rank_add(names, kf_str(k, "name") ? kf_str(k, "name") : "", 0, 0);
	if (names->n > 0)
		kf_rank_sort(names);
	for (i = 0; i < rank->n; i++) {
		free(rank->v[i].shown);
		rank->v[i].shown = kf_rank_shown(names, rank->v[i].name);
	}
}

/* What the program as a whole learns of a kernel (levers.h): its
 * roofline verdict and how busy the XMX engine (the tensor unit) and ALU0
 * (the FMA pipe) were. */
static void
measured(struct kf_fb *fb, const struct kernel_analysis *a, const char *name)
{
	int mem = a->bound && strcmp(a->bound, "memory") == 0;
	int known = a->bound && strcmp(a->bound, "balanced") != 0 && (mem || a->bound_alu >= 0);
	struct kf_kmeas m = {
		.bound = known ? a->bound : NULL,
		.unit = !known ? NULL : mem ? "dram" : alu_unit[a->bound_alu],
		.unit_pct = !known ? NAN : mem ? a->gmem_pct : a->util[a->bound_alu],
		.tensor_pct = a->have[2] ? a->util[2] : NAN,
		.fma_pct = a->have[0] ? a->util[0] : NAN,
		.flops = NAN, .bytes_per_s = NAN, .peak_bytes_per_s = NAN,
		.metric = "XVE_INST_EXECUTED_ALU{0,2}_ALL_UTILIZATION[%]",
	};

	kf_prog_measured(fb, name, &m);
}

/* launch_bound and machinery (program.h) of the focus segment, from each
 * kernel's GPU time (GpuTime[ns], or the timeline's in sampling mode). */
static void
program_findings(struct kf_fb *fb, const struct kf_rank *rank, const cJSON *seg, int sampling)
{
	struct kf_launches ls = { .metric = sampling ? "the timeline's kernel durations" :
	    "GpuTime[ns]" };
	const cJSON *k;

	cJSON_ArrayForEach(k, kf_arr(seg, "kernels")) {
		long n = kf_num_long(k, sampling ? "timed_instances" : "instances", 0, 0, LONG_MAX);
		const cJSON *t = kf_obj(k, "gpu_time_ns");
		double total = kf_num(t, "total", NAN);

		/* Its shortest and longest launch say how many are short when
		 * both lie on one side; else its mean stands for them. */
		if (kf_num(t, "max", INFINITY) < KF_SHORT_LAUNCH_NS)
			kf_launches_add_counted(&ls, total, n, total, n);
		else if (kf_num(t, "min", 0) >= KF_SHORT_LAUNCH_NS)
			kf_launches_add_counted(&ls, total, n, 0, 0);
		else if (n > 0)
			kf_launches_add(&ls, total / (double)n, n);
	}
	kf_prog_findings(fb, rank, &ls);
	kf_launches_free(&ls);
}

void
unitrace_feedback(const cJSON *rec, struct kf_fb *fb)
{
	const cJSON *col = kf_obj(rec, "collated"), *segs = kf_arr(col, "segments"), *seg, *k;
	const char *via, *gname;
	const cJSON *gpu;
	struct buf gpu_msg = {0};
	cJSON *an = fb->analysis, *asegs, *akern, *g;
	int n = cJSON_GetArraySize(segs), *sel, i, no = 0, focus = -1, focus_done = 0;
	int sampling = kf_str(col, "mode") && strcmp(kf_str(col, "mode"), "sampling") == 0;
	struct kf_rank rank = {0}, names = {0};
	struct buf b = {0}, why = {0};
	const struct kf_rank_ent *pick;
	enum kf_focus_how how;
	size_t matches;
	char *why_data = NULL;

	gpu = kf_gpu_roofs_for(rec, kf_arr(col, "devices"), fb->opt->gpu, fb->opt->gpus_file,
	    &via, &gname, &gpu_msg);
	kf_set_str(an, "mode", sampling ? "sampling" : "query");
	g = cJSON_AddObjectToObject(an, "gpu");
	cJSON_AddItemToObject(g, "name", gname ? cJSON_CreateString(gname) : cJSON_CreateNull());
	cJSON_AddItemToObject(g, "via", via ? cJSON_CreateString(via) : cJSON_CreateNull());
	if (gpu) {
		cJSON_AddStringToObject(g, "roofs", kf_str(gpu, "name"));
		add_number_or_null(g, "dram_gbps", kf_gpu_roof(gpu, "GPU_MEMORY_BYTE_READ"));
	} else {
		cJSON_AddStringToObject(g, "error", gpu_msg.s);
		kf_fb_add(fb, FB_KEY, "Hardware roofs: %s. The roofline verdict and the shares of "
		    "peak are left out; the rest does not need them.", gpu_msg.s);
	}
	buf_free(&gpu_msg);
	explain_passes(rec, fb, col, an);
	sel = xcalloc((size_t)n + 1, sizeof *sel);
	select_segments(segs, sel, n);
	/* The focus: the slowest selected segment, its kernel with most time. */
	for (i = 0, seg = segs ? segs->child : NULL; seg; seg = seg->next, i++)
		if (sel[i] && (focus < 0 || kf_num(seg, "runtime_ns", 0) >
		    kf_num(cJSON_GetArrayItem(segs, focus), "runtime_ns", 0)))
			focus = i;
	asegs = cJSON_AddArrayToObject(an, "segments");
	akern = cJSON_AddArrayToObject(an, "kernels");
	if (focus < 0) {
		kf_fb_add(fb, FB_HEAD, "unitrace recorded no kernel to analyse.");
		free(sel);
		return;
	}
	cJSON_ArrayForEach(k, kf_arr(cJSON_GetArrayItem(segs, focus), "kernels"))
		kf_rank_add(&rank, kf_str(k, "name"), kf_num(kf_obj(k, "gpu_time_ns"), "total", 0),
		    kf_num_long(k, sampling ? "timed_instances" : "instances", 0, 0, LONG_MAX));
	kf_rank_sort(&rank);
	same_names(&rank, &names, segs);
	pick = kf_fb_pick_totals(fb, &rank, &how, &matches, &why);
	why_data = why.s ? xstrdup(why.s + strlen("Why this kernel: ")) : xstrdup("");
	program_findings(fb, &rank, cJSON_GetArrayItem(segs, focus), sampling);
	for (i = 0, seg = segs->child; seg; seg = seg->next, i++) {
		cJSON *s = cJSON_CreateObject();
		double total = 0;

		cJSON_AddStringToObject(s, "label", kf_str(seg, "label"));
		cJSON_AddItemToObject(s, "itt_event",
		    cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(seg, "itt_event"), 1));
		add_number_or_null(s, "runtime_ns", kf_num(seg, "runtime_ns", NAN));
		add_number_or_null(s, "kernel_count", cJSON_GetArraySize(kf_arr(seg, "kernels")));
		cJSON_AddBoolToObject(s, "selected", sel[i]);
		cJSON_AddItemToArray(asegs, s);
		if (!sel[i])
			continue;
		segment_heading(fb, seg, ++no, i == focus ? FB_HEAD : FB_MINOR);
		if (i == focus && rank.n > 1) {
			kf_fb_add_buf(fb, FB_HEAD, &why);
			kf_rank_machinery_text(&rank, &b);
			kf_fb_add_buf(fb, FB_KEY, &b);
			kf_rank_text(&rank, &b, fb->opt->top);
			kf_fb_add_buf(fb, FB_RANK, &b);
		}
		cJSON_ArrayForEach(k, kf_arr(seg, "kernels"))
			total += kf_num(kf_obj(k, "gpu_time_ns"), "total", 0);
		cJSON_ArrayForEach(k, kf_arr(seg, "kernels")) {
			struct kernel_analysis a;
			double share = total > 0 ?
			    100 * kf_num(kf_obj(k, "gpu_time_ns"), "total", 0) / total : NAN;
			cJSON *kj;
			int is_focus = i == focus && !focus_done && pick &&
			    strcmp(kf_str(k, "name") ? kf_str(k, "name") : "", pick->name) == 0;

			analyse(&a, k, gpu, sampling);
			if (i == focus && kf_str(k, "name"))
				measured(fb, &a, kf_str(k, "name"));
			kernel_text(fb, &a, share, is_focus, gpu, &names);
			kj = kernel_json(&a, kf_str(seg, "label"), share, &names, gpu);
			cJSON_AddItemToArray(akern, kj);
			if (is_focus) {
				cJSON *fj = cJSON_Duplicate(kj, 1);
				char *shown = kf_rank_shown(&names, kf_str(k, "name"));

				diagnose(fb, &a, shown);
				free(shown);

				cJSON_AddStringToObject(fj, "reason", kf_focus_how_name(how));
				if (rank.n > 1)
					cJSON_AddStringToObject(fj, "why", why_data);
				kf_set(an, "focus", fj);
				focus_done = 1;
			}
			cJSON_Delete(a.missing);
		}
	}
	kf_set(an, "ranking", kf_rank_json(&rank, fb->opt->top));
	kf_rank_free(&rank);
	kf_rank_free(&names);
	free(sel);
	buf_free(&b);
	buf_free(&why);
	free(why_data);
}
