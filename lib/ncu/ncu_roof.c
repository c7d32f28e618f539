/* kf: how far the focus launch is from the roof, and what limits it, from
 * the raw page's counters (roofline_inputs): every FLOP against the peak
 * of its precision, DRAM bytes per second against its peak, and every pipe
 * of the SM and memory level against its own (ncu_diag.h).
 *
 * Scalar FLOP/s as ncu's roofline chart counts them: (add + mul + 2 x fma)
 * predicated-on thread instructions per SM cycle, summed over the SM
 * sub-partitions, times SM cycles per second; their peak is 2 x the fma
 * peak per cycle times the same clock. Tensor-core FLOPs from ncu's
 * sm__ops_path_tensor_src_* counters over the duration, against the
 * datasheet peak of their precision (share/kf/gpus.json). */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "buf.h"
#include "feedback.h"
#include "gpu_roofs.h"
#include "mem.h"
#include "ncu_diag.h"
#include "ncu_pages.h"
#include "record.h"

#define IN_FLOP "smsp__sass_thread_inst_executed_op_%s%s_pred_on.sum.per_cycle_elapsed"
#define IN_PEAK "sm__sass_thread_inst_executed_op_%sfma_pred_on.sum.peak_sustained"
#define ACTIVE ".avg.pct_of_peak_sustained_active"

/* ncu's counters of tensor-core operations by source precision (kf's own
 * --metrics, share/kf/ncu_metrics.txt), one FMA counting two (an 8192^3
 * bf16 product counted 2*M*N*K on the H200), and the gpus.json roof of
 * each precision's dense peak. */
static const struct tprec {
	const char *metric, *name, *roof;
} tprecs[] = {
	{ "sm__ops_path_tensor_src_fp16.sum", "fp16", "TENSOR_FP16_TFLOPS" },
	{ "sm__ops_path_tensor_src_fp16_dst_fp16.sum", "fp16", "TENSOR_FP16_TFLOPS" },
	{ "sm__ops_path_tensor_src_fp16_dst_fp32.sum", "fp16", "TENSOR_FP16_TFLOPS" },
	{ "sm__ops_path_tensor_src_bf16_dst_fp32.sum", "bf16", "TENSOR_BF16_TFLOPS" },
	{ "sm__ops_path_tensor_src_tf32_dst_fp32.sum", "tf32", "TENSOR_TF32_TFLOPS" },
	{ "sm__ops_path_tensor_src_fp8.sum", "fp8", "TENSOR_FP8_TFLOPS" },
	{ "sm__ops_path_tensor_src_int8.sum", "int8", "TENSOR_INT8_TOPS" },
	{ "sm__ops_path_tensor_src_int1.sum", "int1", NULL },
	{ "sm__ops_path_tensor_src_fp64.sum", "fp64 tensor", "TENSOR_FP64_TFLOPS" },
};
#define NTPREC (sizeof tprecs / sizeof tprecs[0])

/* The pipes of the SM and the memory levels, each from the metrics that
 * measure it (the largest of them). */
static const struct usrc {
	const char *unit;
	const char *metrics[3];
	int memory;
} usrcs[] = {
	{ "tensor", { "sm__pipe_tensor_cycles_active" ACTIVE, NULL }, 0 },
	{ "fma", { "sm__pipe_fma_cycles_active" ACTIVE, "sm__inst_executed_pipe_fma" ACTIVE,
	  "sm__pipe_fmaheavy_cycles_active" ACTIVE }, 0 },
	{ "fp64", { "sm__pipe_fp64_cycles_active" ACTIVE, "sm__inst_executed_pipe_fp64" ACTIVE,
	  NULL }, 0 },
	{ "alu", { "sm__pipe_alu_cycles_active" ACTIVE, "sm__inst_executed_pipe_alu" ACTIVE,
	  NULL }, 0 },
	{ "xu", { "sm__inst_executed_pipe_xu" ACTIVE, NULL }, 0 },
	{ "lsu", { "sm__inst_executed_pipe_lsu" ACTIVE, NULL }, 0 },
	{ "shared", { "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed",
	  NULL }, 1 },
	{ "l1", { "l1tex__throughput.avg.pct_of_peak_sustained_active", NULL }, 1 },
	{ "l2", { "lts__throughput.avg.pct_of_peak_sustained_elapsed", NULL }, 1 },
	/* The SM's instruction issue: what ncu's Compute (SM) Throughput
	 * takes when no pipe is busier (the H200's raw page has it per
	 * elapsed cycle only). */
	{ "issue", { "sm__issue_active" ACTIVE, "sm__inst_issued" ACTIVE,
	  "sm__issue_active.avg.pct_of_peak_sustained_elapsed" }, 0 },
};

static int
roof_input(const cJSON *ri, const char *name, double *v)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(ri, name);

	if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble))
		return 0;
	*v = x->valuedouble;
	return 1;
}

static double
roof_input_or_0(const cJSON *ri, const char *name)
{
	double v;

	return roof_input(ri, name, &v) ? v : 0;
}

int
ncu_in(const cJSON *k, const char *name, double *v)
{
	return roof_input(kf_obj(k, "roofline_inputs"), name, v);
}

double
ncu_stall_pct(const cJSON *k, const char *name)
{
	char m[128];
	double n, v;

	snprintf(m, sizeof m, "smsp__pcsamp_warps_issue_stalled_%s", name);
	if (!ncu_in(k, "smsp__pcsamp_sample_count", &n) || n <= 0 || !ncu_in(k, m, &v))
		return NAN;
	return 100 * v / n;
}

/* Instructions per cycle of one precision ("f", "d", "h") as FLOPs. */
static double
flop_per_cycle(const cJSON *ri, const char *p, int *any)
{
	static const char *const ops[] = { "add", "mul", "fma" };
	char name[128];
	double v, sum = 0;
	size_t i;

	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof name, IN_FLOP, p, ops[i]);
		if (roof_input(ri, name, &v)) {
			sum += i == 2 ? 2 * v : v;
			*any = 1;
		}
	}
	return sum;
}

static double
peak_per_cycle(const cJSON *ri, const char *p)
{
	char name[128];

	snprintf(name, sizeof name, IN_PEAK, p);
	return 2 * roof_input_or_0(ri, name);
}

/* The scalar precision that did the most FLOPs, with ncu's own peak for
 * it; fp32 when none did any. All scalar FLOPs go into flops. */
static int
scalar_side(const cJSON *ri, struct ncu_roof *r, double hz)
{
	static const struct { const char *p, *name; } prec[] = {
		{ "f", "fp32" }, { "d", "fp64" }, { "h", "fp16" },
	};
	double best = -1;
	size_t i;
	int any = 0;

	for (i = 0; i < 3; i++) {
		double f = flop_per_cycle(ri, prec[i].p, &any), pk = peak_per_cycle(ri, prec[i].p);

		r->flops += f * hz;
		if (pk > 0 && f > best) {
			best = f;
			r->precision = prec[i].name;
			r->peak_flops = pk * hz;
		}
	}
	if (any && best >= 0)
		r->peak_source = xstrdup("ncu's peak for the precision at the measured SM clock");
	return any && best >= 0;
}

/* The tensor cores' FLOPs by precision; when they did more than the
 * scalar pipes, the precision and its peak are theirs (gpus.json; NAN
 * when the GPU or the precision has none). */
static void
tensor_side(const cJSON *ri, struct ncu_roof *r, const cJSON *gpu, double scalar)
{
	double ops[NTPREC] = { 0 }, v, best = 0;
	const struct tprec *bp = NULL;
	size_t i, j;

	for (i = 0; i < NTPREC; i++) {
		if (!roof_input(ri, tprecs[i].metric, &v))
			continue;
		r->tensor_counted = 1;
		for (j = 0; j <= i && strcmp(tprecs[j].name, tprecs[i].name) != 0; j++)
			;
		ops[j] += v;
	}
	if (!r->tensor_counted || r->duration_s <= 0)
		return;
	for (i = 0; i < NTPREC; i++) {
		r->tensor_flops += ops[i] / r->duration_s;
		if (ops[i] > best) {
			best = ops[i];
			bp = &tprecs[i];
		}
	}
	r->flops += r->tensor_flops;
	if (bp == NULL || best / r->duration_s <= scalar)
		return;
	r->precision = bp->name;
	r->tensor = 1;
	free(r->peak_source);
	r->peak_source = NULL;
	r->peak_flops = bp->roof && gpu ? kf_gpu_roof(gpu, bp->roof) * 1e12 : NAN;
	if (isfinite(r->peak_flops))
		r->peak_source = xasprintf("%s, %s (%s)", kf_str(gpu, "name"), bp->roof,
		    kf_gpu_roof_source(gpu, bp->roof) ? kf_gpu_roof_source(gpu, bp->roof) : "gpus.json");
}

static void
add_unit(struct ncu_roof *r, const char *unit, const char *metric, double pct, int memory)
{
	if (r->nunits >= NCU_MAX_UNITS)
		return;
	r->units[r->nunits].unit = unit;
	r->units[r->nunits].metric = metric;
	r->units[r->nunits].pct = pct;
	r->units[r->nunits].elapsed = NAN;
	r->units[r->nunits++].memory = memory;
}

/* A pipe's share of its peak over all SMs and the whole run: its
 * metric's .pct_of_peak_sustained_elapsed twin (idle SMs and the ramp at
 * either end count against it). */
static double
elapsed_twin(const cJSON *ri, const char *metric)
{
	char name[160];
	size_t n = strlen(metric), a = strlen(ACTIVE);
	double v;

	if (n <= a || n - a + sizeof ".avg.pct_of_peak_sustained_elapsed" > sizeof name ||
	    strcmp(metric + n - a, ACTIVE) != 0)
		return NAN;
	snprintf(name, sizeof name, "%.*s.avg.pct_of_peak_sustained_elapsed", (int)(n - a), metric);
	return roof_input(ri, name, &v) ? v : NAN;
}

/* One L2 slice near its peak while the average over slices is a quarter
 * of it or less: that slice limits, as when atomics serialize on a few
 * addresses (index_add_ into one row on the H200: lts__throughput 99.3%
 * in its busiest slice, 2.9% on average). The l2 unit is then that slice. */
static void
l2_slice(const cJSON *ri, struct ncu_roof *r)
{
	double max;
	size_t i;

	if (!roof_input(ri, "lts__throughput.max.pct_of_peak_sustained_elapsed", &max) ||
	    max < NCU_NEAR_PEAK)
		return;
	for (i = 0; i < r->nunits; i++) {
		struct ncu_unit *u = &r->units[i];

		if (strcmp(u->unit, "l2") != 0 || u->pct >= NCU_NEAR_PEAK || 4 * u->pct > max)
			continue;
		r->l2_hot = 1;
		r->l2_avg = u->pct;
		u->pct = max;
		u->metric = "lts__throughput.max.pct_of_peak_sustained_elapsed";
	}
}

static void
units(const cJSON *ri, struct ncu_roof *r)
{
	size_t i, j;
	double v;

	for (i = 0; i < sizeof usrcs / sizeof usrcs[0]; i++) {
		const char *best = NULL;
		double pct = -1;

		for (j = 0; j < 3 && usrcs[i].metrics[j]; j++)
			if (roof_input(ri, usrcs[i].metrics[j], &v) && v > pct) {
				pct = v;
				best = usrcs[i].metrics[j];
			}
		if (best) {
			add_unit(r, usrcs[i].unit, best, pct, usrcs[i].memory);
			if (!usrcs[i].memory)
				r->units[r->nunits - 1].elapsed = elapsed_twin(ri, best);
		}
	}
	if (r->peak_bw > 0)
		add_unit(r, "dram", "dram__bytes.sum.per_second / dram__bytes.sum.peak_sustained",
		    100 * r->bw / r->peak_bw, 1);
	l2_slice(ri, r);
}

static const struct ncu_unit *
unit_of(const struct ncu_roof *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->nunits; i++)
		if (strcmp(r->units[i].unit, name) == 0)
			return &r->units[i];
	return NULL;
}

/* What limits: the unit closest to its peak. L1/TEX throughput counts the
 * shared-memory wavefronts, and a GEMM's tensor pipe is fed through them:
 * within 10 points, the tensor pipe over the rest, and shared memory
 * over L1, DRAM over the caches its bytes pass through (within 10 points,
 * or at its roof itself: a strided copy at 81.2% of DRAM and 95.8% of L2
 * is where ncu's SOLBottleneck rule says to start, DRAM): name the cause
 * rather than the conduit, but never a cause under 60% for a conduit
 * over it (an L1/TEX at 64.8% is L1/TEX's whatever its shared wavefronts'
 * 56.7%, not latency-bound). The SM's instruction issue limits where it is
 * near its peak and no pipe or memory level is, or where it is busier than
 * the busiest unit and that unit is a memory level: issue slots spread
 * over several pipes (ResNet-50's batch-norm backward on the H200: issue
 * 69.2%, the busiest pipe, ALU, 55.9%, and ncu's Compute (SM) Throughput
 * the 69.2% of issue), which is compute-bound, not latency-bound. A busier
 * pipe names the cause itself (an FP32 GEMM: FMA 79.1%, issue 86.6%), and
 * so does a tensor pipe the memory levels feed. Issue weighed against the
 * memory levels on equal terms, not only below 60%, keeps the verdict from
 * turning on noise: PyTorch's layer norm on the H200 gave issue 63.6% and
 * L1/TEX 60.1% in one sweep, 62.5% and 58.3% in the next; with issue as a
 * fallback alone, the first was memory-bound and the second compute-bound.
 * It also sides with ncu's Speed Of Light (bank_fix of the defects: issue
 * 78.7%, L1/TEX 64.8%; Compute (SM) Throughput 78.7%, Memory 62.9%). */
/* A kernel with no unit near its peak whose FLOPs are the tensor cores'
 * and over the ridge per DRAM byte: its roof is the tensor pipe's peak,
 * where that pipe does a fair share of its work (20% of its peak or more,
 * over all SMs and the whole run where ncu says), whatever the memory
 * levels that feed it: compute-bound, below its roof (a bf16 flash
 * attention of 57 us on the H200: 331 FLOP/byte against a ridge of 206,
 * the tensor pipe at 40.4%, XU at 42.1%). */
/* u limits, below its roof. */
static void
below_roof(struct ncu_roof *r, const struct ncu_unit *u)
{
	r->limiter = u;
	r->latency = 0;
	r->below_roof = 1;
	r->bound = u->memory ? "memory" : "compute";
}

static void
under_compute_roof(struct ncu_roof *r)
{
	const struct ncu_unit *u = r->tensor ? unit_of(r, "tensor") : NULL;

	if (u == NULL || u->pct < 20 || (isfinite(u->elapsed) && u->elapsed < 20))
		return;
	below_roof(r, u);
}

/* A kernel with no unit near its peak that sits under the memory roof:
 * its FLOPs per DRAM byte under the ridge (or no FLOPs), memory busier
 * than any pipe (within 10 points, or its warps wait on global memory in
 * 40% of the samples or more: the long scoreboard), a grid that fills the
 * SMs and a memory level at 20% of its peak or more (a kernel that moves
 * next to nothing is not held back by bandwidth). Its roof is that level's
 * bandwidth, DRAM's where DRAM is within 10 points of the busiest level
 * (the caches its bytes pass through run busier), and latency keeps it
 * from it: memory-bound, below its roof (below_roof), not latency-bound.
 * Softmax over 8192 rows of 8192 floats on the H200: 4.37 FLOP/byte
 * against a ridge of 13.9, DRAM at 39.0%, L2 at 47.6%, ALU at 28.1%. */
static void
under_memory_roof(const cJSON *ri, struct ncu_roof *r)
{
	const struct ncu_unit *m = NULL, *p = NULL, *dram = unit_of(r, "dram");
	double g, sms, v, n, ls = 0;
	size_t i;

	if (r->flops > 0 && isfinite(r->ai) && isfinite(r->ridge) && r->ai >= r->ridge) {
		under_compute_roof(r);
		return;
	}
	if (!(r->flops <= 0 || (isfinite(r->ai) && isfinite(r->ridge))))
		return;
	if (!roof_input(ri, "launch__grid_size", &g) || !roof_input(ri, "launch__sm_count", &sms) ||
	    g < sms)
		return;
	for (i = 0; i < r->nunits; i++) {
		const struct ncu_unit *u = &r->units[i];

		if (u->memory && strcmp(u->unit, "shared") != 0 && (m == NULL || u->pct > m->pct))
			m = u;
		else if (!u->memory && strcmp(u->unit, "issue") != 0 && (p == NULL || u->pct > p->pct))
			p = u;
	}
	if (roof_input(ri, "smsp__pcsamp_warps_issue_stalled_long_scoreboard", &v) &&
	    roof_input(ri, "smsp__pcsamp_sample_count", &n) && n > 0)
		ls = 100 * v / n;
	if (m == NULL || m->pct < 20 || (p && m->pct < p->pct - 10 && ls < 40))
		return;
	if (dram && dram != m && dram->pct >= m->pct - 10)
		m = dram;
	below_roof(r, m);
}

static void
limiter(const cJSON *ri, struct ncu_roof *r)
{
	const struct ncu_unit *best = NULL, *t = unit_of(r, "tensor"), *sh = unit_of(r, "shared");
	const struct ncu_unit *dram = unit_of(r, "dram"), *issue = unit_of(r, "issue");
	size_t i;
	int tensor_fed;

	for (i = 0; i < r->nunits; i++)
		if (&r->units[i] != issue && (best == NULL || r->units[i].pct > best->pct))
			best = &r->units[i];
	if (best == NULL)
		return;
	/* the tensor pipe fed through the memory levels names the cause */
	tensor_fed = t && t != best && t->pct >= NCU_NEAR_PEAK && t->pct >= best->pct - 10;
	if (issue && issue->pct >= NCU_NEAR_PEAK && (best->pct < NCU_NEAR_PEAK ||
	    (best->memory && issue->pct > best->pct && !tensor_fed))) {
		r->limiter = issue;
		r->latency = 0;
		r->bound = "compute";
		return;
	}
	if (tensor_fed)
		best = t;
	else if (sh && strcmp(best->unit, "l1") == 0 && sh->pct >= best->pct - 10 &&
	    (sh->pct >= NCU_NEAR_PEAK || best->pct < NCU_NEAR_PEAK))
		best = sh;
	else if (dram && dram != best && best->memory && strcmp(best->unit, "shared") != 0 &&
	    dram->pct >= NCU_NEAR_PEAK && (dram->pct >= best->pct - 10 || dram->pct >= NCU_AT_ROOF))
		best = dram;
	r->limiter = best;
	r->latency = best->pct < NCU_NEAR_PEAK;
	r->bound = r->latency ? "latency" : best->memory ? "memory" : "compute";
	if (r->latency)
		under_memory_roof(ri, r);
}

const struct ncu_unit *
ncu_roof_rival(const struct ncu_roof *r, const struct ncu_unit **top)
{
	const struct ncu_unit *l = r->limiter, *best = NULL, *t = l;
	size_t i;

	*top = l;
	if (l == NULL || r->latency || r->below_roof || strcmp(l->unit, "tensor") == 0 ||
	    strcmp(l->unit, "lsu") == 0)
		return NULL;
	for (i = 0; i < r->nunits; i++)
		if (r->units[i].memory == l->memory && r->units[i].pct > t->pct)
			t = &r->units[i];
	for (i = 0; i < r->nunits; i++) {
		const struct ncu_unit *u = &r->units[i];

		if (u->memory != l->memory && strcmp(u->unit, "tensor") != 0 &&
		    strcmp(u->unit, "lsu") != 0 &&
		    fabs(u->pct - t->pct) <= NCU_TIE && (best == NULL || u->pct > best->pct))
			best = u;
	}
	if (best)
		*top = t;
	return best;
}

void
ncu_roof_say_rival(struct buf *b, const struct ncu_roof *r, int sentence)
{
	const struct ncu_unit *top, *rival = ncu_roof_rival(r, &top);
	char *lab;

	if (rival == NULL)
		return;
	lab = xstrdup(ncu_unit_label(rival->unit));
	if (sentence)
		lab[0] = (char)toupper((unsigned char)lab[0]);
	buf_printf(b, "%s%s%s %.1f%%, within %.1f points of ", sentence ? " " : "; ", lab,
	    sentence ? " is at" : " at", rival->pct, fabs(top->pct - rival->pct));
	if (top == r->limiter)
		buf_puts(b, "it");
	else
		buf_printf(b, "%s (%.1f%%)", ncu_unit_label(top->unit), top->pct);
	buf_printf(b, ": %s at both limits, and which one leads can change from run to run%s",
	    sentence ? "the kernel is" : "it is", sentence ? "." : "");
	free(lab);
}

static void
levels(const cJSON *ri, struct ncu_roof *r)
{
	double sectors, pct, per_cycle, hz;

	if (roof_input(ri, "lts__t_bytes.sum.per_second", &r->l2_bw)) {
		r->has_l2_bw = 1;
	} else if (roof_input(ri, "lts__t_sectors.sum", &sectors) && r->duration_s > 0) {
		r->l2_bw = sectors * 32 / r->duration_s;
		r->has_l2_bw = 1;
	}
	if (roof_input(ri, "lts__t_bytes.sum.peak_sustained", &per_cycle) &&
	    roof_input(ri, "lts__cycles_elapsed.avg.per_second", &hz)) {
		r->l2_peak_bw = per_cycle * hz;
		r->has_l2_peak = 1;
	} else if (r->has_l2_bw &&
	    roof_input(ri, "lts__t_sectors.sum.pct_of_peak_sustained_elapsed", &pct) && pct > 0) {
		r->l2_peak_bw = r->l2_bw / (pct / 100);
		r->has_l2_peak = 1;
	}
	r->has_l2_tp = roof_input(ri, "lts__throughput.avg.pct_of_peak_sustained_elapsed", &r->l2_tp);
	r->has_l1_tp = roof_input(ri, "l1tex__throughput.avg.pct_of_peak_sustained_active", &r->l1_tp);
}

static int
roof_compute(const cJSON *ri, const cJSON *gpu, struct ncu_roof *r)
{
	double per_cycle, hz, scalar;

	memset(r, 0, sizeof *r);
	r->peak_flops = NAN;
	if (!roof_input(ri, "sm__cycles_elapsed.avg.per_second", &hz) || hz <= 0 ||
	    !scalar_side(ri, r, hz) || !roof_input(ri, "dram__bytes.sum.per_second", &r->bw) ||
	    !roof_input(ri, "dram__bytes.sum.peak_sustained", &per_cycle) ||
	    !roof_input(ri, "dram__cycles_elapsed.avg.per_second", &hz) || per_cycle * hz <= 0) {
		free(r->peak_source);
		r->peak_source = NULL;
		return 0;
	}
	r->duration_s = roof_input_or_0(ri, "gpu__time_duration.sum");
	scalar = r->flops;
	tensor_side(ri, r, gpu, scalar);
	r->peak_bw = per_cycle * hz;
	levels(ri, r);
	units(ri, r);
	r->ridge = isfinite(r->peak_flops) ? r->peak_flops / r->peak_bw : NAN;
	r->ai = r->bw > 0 ? r->flops / r->bw : NAN;
	limiter(ri, r);
	if (r->bound == NULL)
		r->bound = "latency";
	/* The roof above the kernel on the DRAM roofline: the peak, or the
	 * bandwidth line at its intensity (then the share is the bandwidth's). */
	if (isfinite(r->ridge) && isfinite(r->ai) && r->ai >= r->ridge)
		r->pct = 100 * r->flops / r->peak_flops;
	else
		r->pct = 100 * r->bw / r->peak_bw;
	return 1;
}

void
ncu_roof_free(struct ncu_roof *r)
{
	free(r->peak_source);
	r->peak_source = NULL;
}

/* Text */

/* 3 significant digits with an SI prefix: "5.49 TFLOP/s", "14.7 GB/s". */
static void
fmt_si(struct buf *b, double v, const char *unit)
{
	static const char pre[] = " KMGTPE";
	size_t i = 0;

	while (fabs(v) >= 1000 && i + 1 < sizeof pre - 1) {
		v /= 1000;
		i++;
	}
	if (fabs(v) >= 100 || v == 0)
		buf_printf(b, "%.0f", v);
	else if (fabs(v) >= 10)
		buf_printf(b, "%.1f", v);
	else
		buf_printf(b, "%.2f", v);
	buf_printf(b, " %s%s", i ? (char[]){ pre[i], 0 } : "", unit);
}

/* Units as the text names them. */
const char *
ncu_unit_label(const char *unit)
{
	static const struct { const char *u, *l; } t[] = {
		{ "tensor", "the tensor pipe" }, { "fma", "the FMA (FP32) pipe" },
		{ "fp64", "the FP64 pipe" }, { "alu", "the ALU pipe" },
		{ "xu", "the XU pipe (conversions, transcendentals)" },
		{ "lsu", "the LSU pipe (memory instructions)" },
		{ "shared", "shared memory (its wavefronts)" }, { "l1", "L1/TEX" },
		{ "l2", "L2" }, { "dram", "DRAM" },
		{ "issue", "the SM's instruction issue (its issue slots, over all pipes)" },
	};
	size_t i;

	for (i = 0; i < sizeof t / sizeof t[0]; i++)
		if (strcmp(t[i].u, unit) == 0)
			return t[i].l;
	return unit;
}

/* The units at 5% or more of their peak, busiest first. */
static void
say_units(struct buf *b, const struct ncu_roof *r)
{
	int used[NCU_MAX_UNITS] = { 0 };
	size_t k, i, n = 0;

	for (k = 0; k < r->nunits; k++) {
		long best = -1;

		for (i = 0; i < r->nunits; i++)
			if (!used[i] && (best < 0 || r->units[i].pct > r->units[best].pct))
				best = (long)i;
		if (best < 0 || r->units[best].pct < 5)
			break;
		used[best] = 1;
		if (strcmp(r->units[best].unit, "issue") == 0)
			continue;	/* not a pipe: the verdict names it where it limits */
		buf_printf(b, "%s%s %.1f%%", n++ ? ", " : "\nUnits by share of their peak "
		    "(pipes while the SM was active): ", r->units[best].unit, r->units[best].pct);
		if (r->l2_hot && strcmp(r->units[best].unit, "l2") == 0)
			buf_printf(b, " (its busiest slice; %.1f%% over all slices)", r->l2_avg);
	}
	if (n)
		buf_putc(b, '.');
}

static void
say_flops(struct buf *b, const struct ncu_roof *r)
{
	fmt_si(b, r->flops, "FLOP/s");
	if (r->tensor)
		buf_printf(b, " (%s on the tensor cores, counted by ncu's sm__ops_path_tensor_* "
		    "counters)", r->precision);
	if (isfinite(r->peak_flops)) {
		buf_puts(b, " achieved of ");
		fmt_si(b, r->peak_flops, "FLOP/s");
		buf_printf(b, " peak (%.1f%%; peak: %s)", 100 * r->flops / r->peak_flops,
		    r->peak_source ? r->peak_source : "?");
		if (isfinite(r->ai))
			buf_printf(b, "; arithmetic intensity %.3g FLOP/byte of DRAM traffic "
			    "against a ridge of %.3g", r->ai, r->ridge);
	} else {
		buf_printf(b, " achieved; no %s peak is known for this GPU (share/kf/gpus.json, "
		    "kf-feedback --gpu), so the kernel is placed by its pipes, not on the "
		    "roofline", r->precision);
	}
	buf_puts(b, ". ");
}

/* Where the verdict and ncu's Speed Of Light test (its Compute (SM) or
 * Memory Throughput at 60% of peak) part, the numbers that part them: a
 * unit over 60% that neither SOL figure reaches (the L2's busiest
 * sub-unit at 69.2% beside a Memory Throughput of 50.5%), or a SOL figure
 * over 60% that no pipe or level reaches. */
static void
say_sol_gap(struct buf *b, const struct ncu_roof *r, double sm, double mem)
{
	int high = (isfinite(sm) && sm >= NCU_NEAR_PEAK) || (isfinite(mem) && mem >= NCU_NEAR_PEAK);

	if (r->limiter == NULL || !isfinite(sm) || !isfinite(mem) || r->below_roof)
		return;
	if (!r->latency && !high)
		buf_printf(b, " ncu's Compute (SM) Throughput (%.1f%%) and Memory Throughput "
		    "(%.1f%%) are both under %d%%; the verdict names %s at %.1f%% (%s), which "
		    "neither reaches.", sm, mem, NCU_NEAR_PEAK, ncu_unit_label(r->limiter->unit),
		    r->limiter->pct, r->limiter->metric);
	else if (r->latency && high)
		buf_printf(b, " ncu's %s (%.1f%%) is at or over %d%% while no pipe or level "
		    "above is: the two disagree, and the profile cannot say which unit limits.",
		    sm >= mem ? "Compute (SM) Throughput" : "Memory Throughput",
		    sm >= mem ? sm : mem, NCU_NEAR_PEAK);
}

static void
say_roofline(struct buf *b, const struct ncu_roof *r, double tensor_pipe, double sm, double mem)
{
	buf_printf(b, "Roofline (%s, from the raw page's counters): ", r->precision);
	if (r->flops == 0 && isfinite(tensor_pipe) && tensor_pipe >= 1)
		buf_printf(b, "the tensor pipe was active %.1f%% of cycles but ncu counted no "
		    "tensor-core operations (kf's --metrics were not collected), so its FLOPs "
		    "are unknown and the kernel is placed by its pipes. ", tensor_pipe);
	else if (r->flops == 0)
		buf_printf(b, "no floating-point arithmetic was counted (0 FLOP/s). ");
	else
		say_flops(b, r);
	buf_puts(b, "DRAM moved ");
	fmt_si(b, r->bw, "B/s");
	buf_puts(b, " of ");
	fmt_si(b, r->peak_bw, "B/s");
	buf_puts(b, " (");
	kf_fmt_pct(b, 100 * r->bw / r->peak_bw);
	buf_puts(b, ").");
	if (r->has_l2_tp)
		buf_printf(b, " L2 throughput %.1f%% of peak (its busiest sub-unit)", r->l2_tp);
	if (r->has_l2_bw) {
		buf_puts(b, r->has_l2_tp ? "; L2 bytes " : " L2 bytes ");
		fmt_si(b, r->l2_bw, "B/s");
		if (r->has_l2_peak && r->l2_peak_bw > 0) {
			buf_puts(b, " of ");
			fmt_si(b, r->l2_peak_bw, "B/s");
			buf_puts(b, " (");
			kf_fmt_pct(b, 100 * r->l2_bw / r->l2_peak_bw);
			buf_putc(b, ')');
		}
	}
	if (r->has_l1_tp)
		buf_printf(b, "%s L1/TEX throughput %.1f%% of peak",
		    r->has_l2_tp || r->has_l2_bw ? ";" : "", r->l1_tp);
	if (r->has_l2_tp || r->has_l2_bw || r->has_l1_tp)
		buf_putc(b, '.');
	if (r->flops > 0 && !r->tensor_counted && isfinite(tensor_pipe) && tensor_pipe >= 1)
		buf_printf(b, " The tensor pipe was active %.1f%% of cycles, but the report has no "
		    "counts of tensor-core operations (kf's --metrics were not collected): their "
		    "FLOPs are not in the numbers above.", tensor_pipe);
	say_units(b, r);
	if (r->limiter == NULL)
		return;
	if (r->latency)
		buf_printf(b, "\nVerdict: no unit runs near its peak (the busiest is %s at "
		    "%.1f%%, under %d%%): the kernel is latency-bound (the diagnosis above "
		    "says on what its warps wait).", ncu_unit_label(r->limiter->unit),
		    r->limiter->pct, NCU_NEAR_PEAK);
	else if (r->below_roof) {
		buf_printf(b, "\nVerdict: %s-bound on %s, at %.1f%% of its peak: below its "
		    "roof. ", r->bound, ncu_unit_label(r->limiter->unit), r->limiter->pct);
		if (r->flops > 0)
			buf_printf(b, "Its %.3g FLOP/byte are %s the ridge of %.3g, so ", r->ai,
			    r->limiter->memory ? "under" : "over", r->ridge);
		else
			buf_puts(b, "It does no floating-point work, so ");
		buf_printf(b, "%s's %s is the roof it can reach; no unit runs near its "
		    "peak (under %d%%, as ncu's SOL figures show): latency keeps it from that "
		    "roof.", ncu_unit_label(r->limiter->unit), r->limiter->memory ? "bandwidth" :
		    "peak", NCU_NEAR_PEAK);
	} else {
		buf_printf(b, "\nVerdict: %s-bound on %s, at %.1f%% of its peak%s.", r->bound,
		    ncu_unit_label(r->limiter->unit), r->limiter->pct,
		    r->l2_hot && strcmp(r->limiter->unit, "l2") == 0 ? " in its busiest slice" : "");
		ncu_roof_say_rival(b, r, 1);
	}
	say_sol_gap(b, r, sm, mem);
}

/* Analysis */

static cJSON *
level(const char *name, int has_bw, double bw, int has_peak, double peak, int has_tp,
    double tp, double flops)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "level", name);
	if (has_bw) {
		cJSON_AddNumberToObject(o, "bytes_per_s", bw);
		if (bw > 0)
			cJSON_AddNumberToObject(o, "arithmetic_intensity", flops / bw);
	}
	if (has_peak)
		cJSON_AddNumberToObject(o, "peak_bytes_per_s", peak);
	if (has_tp)
		cJSON_AddNumberToObject(o, "throughput_pct", tp);
	return o;
}

static cJSON *
roof_json(const struct ncu_roof *r, double tensor_pipe)
{
	cJSON *o = cJSON_CreateObject(), *lv, *u;
	const struct ncu_unit *top, *rival;
	size_t i;

	cJSON_AddStringToObject(o, "precision", r->precision);
	cJSON_AddNumberToObject(o, "achieved_flops", r->flops);
	cJSON_AddNumberToObject(o, "tensor_flops", r->tensor_flops);
	cJSON_AddBoolToObject(o, "tensor_counted", r->tensor_counted);
	cJSON_AddItemToObject(o, "peak_flops", kf_json_num(r->peak_flops));
	cJSON_AddItemToObject(o, "peak_source", r->peak_source ?
	    cJSON_CreateString(r->peak_source) : cJSON_CreateNull());
	cJSON_AddNumberToObject(o, "dram_bytes_per_s", r->bw);
	cJSON_AddNumberToObject(o, "peak_dram_bytes_per_s", r->peak_bw);
	cJSON_AddItemToObject(o, "arithmetic_intensity", kf_json_num(r->ai));
	cJSON_AddItemToObject(o, "ridge", kf_json_num(r->ridge));
	cJSON_AddStringToObject(o, "bound", r->bound);
	cJSON_AddNumberToObject(o, "pct_of_roof", r->pct);
	lv = cJSON_AddArrayToObject(o, "levels");
	if (r->has_l1_tp)
		cJSON_AddItemToArray(lv, level("L1", 0, 0, 0, 0, 1, r->l1_tp, r->flops));
	if (r->has_l2_tp || r->has_l2_bw)
		cJSON_AddItemToArray(lv, level("L2", r->has_l2_bw, r->l2_bw, r->has_l2_peak,
		    r->l2_peak_bw, r->has_l2_tp, r->l2_tp, r->flops));
	cJSON_AddItemToArray(lv, level("DRAM", 1, r->bw, 1, r->peak_bw, 1,
	    100 * r->bw / r->peak_bw, r->flops));
	u = cJSON_AddArrayToObject(o, "units");
	for (i = 0; i < r->nunits; i++) {
		cJSON *x = cJSON_CreateObject();

		cJSON_AddStringToObject(x, "unit", r->units[i].unit);
		cJSON_AddNumberToObject(x, "pct", r->units[i].pct);
		cJSON_AddStringToObject(x, "metric", r->units[i].metric);
		cJSON_AddItemToArray(u, x);
	}
	cJSON_AddItemToObject(o, "limiter", r->limiter ?
	    cJSON_CreateString(r->limiter->unit) : cJSON_CreateNull());
	cJSON_AddItemToObject(o, "limiter_pct", kf_json_num(r->limiter ? r->limiter->pct : NAN));
	if ((rival = ncu_roof_rival(r, &top)) != NULL) {
		cJSON *t = cJSON_AddObjectToObject(o, "limiter_tie");

		cJSON_AddStringToObject(t, "unit", rival->unit);
		cJSON_AddNumberToObject(t, "pct", rival->pct);
		cJSON_AddStringToObject(t, "metric", rival->metric);
		cJSON_AddStringToObject(t, "of", top->unit);
		cJSON_AddNumberToObject(t, "within_points", round(fabs(top->pct - rival->pct) * 10) / 10);
	}
	cJSON_AddBoolToObject(o, "latency_bound", r->latency);
	cJSON_AddBoolToObject(o, "below_roof", r->below_roof);
	if (r->l2_hot)
		cJSON_AddNumberToObject(o, "l2_slices_avg_pct", r->l2_avg);
	if (isfinite(tensor_pipe))
		cJSON_AddNumberToObject(o, "tensor_pipe_pct", tensor_pipe);
	kf_roof_init(o, "FLOP/byte", "FLOP/s", r->peak_bw, "DRAM");
	if (isfinite(r->peak_flops))
		kf_roof_peak(o, r->precision, r->peak_flops, r->ridge);
	kf_roof_point(o, "", r->ai, r->flops, r->bw, r->pct);
	return o;
}

int
ncu_roof_of(const cJSON *k, const cJSON *gpu, struct ncu_roof *r)
{
	const cJSON *ri = kf_obj(k, "roofline_inputs");

	if (ri == NULL || !roof_compute(ri, gpu, r))
		return 0;
	r->gpu = gpu;
	return 1;
}

int
ncu_roof_say(struct kf_fb *fb, const cJSON *k, const cJSON *gpu, cJSON *focus,
    struct ncu_roof *r)
{
	const cJSON *ri = kf_obj(k, "roofline_inputs"), *sol = kf_obj(focus, "throughput");
	struct buf b = {0};
	double tp = NAN;

	if (ri == NULL || !roof_compute(ri, gpu, r))
		return 0;
	r->gpu = gpu;
	roof_input(ri, "sm__pipe_tensor_cycles_active" ACTIVE, &tp);
	say_roofline(&b, r, tp, kf_num(sol, "compute_sm_pct", NAN), kf_num(sol, "memory_pct", NAN));
	kf_fb_add_buf(fb, FB_KEY, &b);
	cJSON_AddItemToObject(focus, "roof", roof_json(r, tp));
	return 1;
}

const char *
ncu_unit_fix(const char *u)
{
	if (strcmp(u, "tensor") == 0)
		return "it runs at the tensor cores' roof: only fewer FLOPs or a lower precision "
		    "(fp8 has twice the bf16 peak) make it faster";
	if (strcmp(u, "fma") == 0)
		return "matrix math belongs on the tensor cores (TF32, BF16 or FP16 mma); else "
		    "fewer instructions per result";
	if (strcmp(u, "fp64") == 0)
		return "use FP32 where the precision allows: the FP64 pipe has a fraction of its rate";
	if (strcmp(u, "xu") == 0)
		return "fewer conversions and transcendentals: float literals and float math, "
		    "__expf/__sinf or tables where accuracy allows";
	if (strcmp(u, "alu") == 0)
		return "fewer integer and logic instructions: hoist index math out of loops, "
		    "use shifts and masks for powers of two";
	if (strcmp(u, "issue") == 0)
		return "fewer instructions per result, since no single pipe is the limit: "
		    "wider loads and stores (float4, bf16x2), index and address math hoisted "
		    "out of loops, fewer conversions; or fuse it with its neighbours so each "
		    "instruction does more";
	if (strcmp(u, "lsu") == 0)
		return "fewer, wider memory instructions (float4 loads, one load reused from registers)";
	if (strcmp(u, "shared") == 0)
		return "fewer shared-memory wavefronts: no bank conflicts, wider accesses, "
		    "reuse values from registers";
	if (strcmp(u, "l1") == 0)
		return "cut L1/TEX traffic per result: reuse data from registers or shared memory, "
		    "coalesce accesses";
	if (strcmp(u, "l2") == 0)
		return "fewer L2 sectors: coalesced accesses, data reused within a block";
	return "move fewer bytes: fuse with the kernels around it, keep data on chip, "
	    "smaller types (bf16 or fp8)";
}
