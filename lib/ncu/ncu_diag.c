/* kf: the ncu diagnosis: what limits the launch (ncu_roof.c's units) and
 * the causes its counters and source page show, each with the numbers
 * behind it, its line and one change, as findings in fb->diag
 * (diagnosis.h).
 *
 * impact_pct is the share of the launch's time at stake: the share of its
 * warp samples on the lines the cause holds (ncu samples warps at a fixed
 * interval, so samples are time), or for causes that waste a unit, the
 * wasted share of that unit's work times how busy it is. The limiter's
 * is what its fix saves: a pipe's work moved to a faster unit (FP32
 * matrix math onto the tensor cores, FP64 onto FP32), else the headroom to
 * its unit's roof; a latency-bound kernel's, the share of the samples on
 * its top stall reason (bound_impact, latency; man/kf.7). Every finding
 * says how in its evidence "impact_pct: ...". Source
 * lines count once, in the kernel's own file: code inlined from a header
 * is in the header's block and at its call site. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "gpu_roofs.h"
#include "mem.h"
#include "ncu_diag.h"
#include "ncu_fb.h"
#include "ncu_pages.h"
#include "num.h"
#include "record.h"

/* A cause below this share of the time does not lead anything. */
#define MIN_IMPACT 5
#define WARP 32

/* The hottest main-file line whose ops hold op (NULL: any line), and
 * the share of the samples on all such lines. */
struct hit {
	const cJSON *line;
	double samples, pct;
};

static double
num_or_0(const cJSON *o, const char *key)
{
	return kf_num(o, key, 0);
}

static double
samples_total(const cJSON *k)
{
	double n;

	if (ncu_in(k, "smsp__pcsamp_sample_count", &n) && n > 0)
		return n;
	return num_or_0(kf_obj(k, "source"), "samples");
}

static int
has_op(const cJSON *ln, const char *op)
{
	const cJSON *o;

	cJSON_ArrayForEach(o, kf_arr(ln, "ops"))
		if (cJSON_IsString(o) && strcmp(o->valuestring, op) == 0)
			return 1;
	return 0;
}

static int
main_line(const cJSON *src, const cJSON *ln)
{
	const char *mf = kf_str(src, "main_file"), *f = kf_str(ln, "file");

	return mf == NULL || f == NULL || strcmp(mf, f) == 0;
}

static struct hit
lines_with(const cJSON *k, const char *op1, const char *op2)
{
	const cJSON *src = kf_obj(k, "source"), *ln;
	double total = samples_total(k);
	struct hit h = { NULL, 0, 0 };

	cJSON_ArrayForEach(ln, kf_arr(src, "lines")) {
		double s = num_or_0(ln, "samples");

		if (!main_line(src, ln) || !(has_op(ln, op1) || (op2 && has_op(ln, op2))))
			continue;
		h.samples += s;
		if (h.line == NULL || s > num_or_0(h.line, "samples"))
			h.line = ln;
	}
	h.pct = total > 0 ? 100 * h.samples / total : NAN;
	return h;
}

/* The main-file line with the most of a numeric field ("l2_excessive_sectors"). */
static const cJSON *
line_most(const cJSON *k, const char *key)
{
	const cJSON *src = kf_obj(k, "source"), *ln, *best = NULL;

	cJSON_ArrayForEach(ln, kf_arr(src, "lines"))
		if (main_line(src, ln) && num_or_0(ln, key) > 0 &&
		    (best == NULL || num_or_0(ln, key) > num_or_0(best, key)))
			best = ln;
	return best;
}

static void
at_line(struct kf_finding *f, const cJSON *ln)
{
	if (ln && kf_str(ln, "file"))
		kf_finding_at(f, kf_str(ln, "file"), (long)num_or_0(ln, "line"));
}

static void
ev(struct kf_finding *f, const cJSON *k, const char *metric, const char *unit)
{
	double v;

	if (ncu_in(k, metric, &v))
		kf_finding_ev(f, metric, v, unit);
}

/* The limiter */

/* The stall reasons of the raw page, by share of the samples. */
static const struct { const char *metric, *word, *fix; } reasons[] = {
	{ "barrier", "barrier", "fewer __syncthreads: warp-level primitives, each warp on its own data" },
	{ "long_scoreboard", "long scoreboard (global/local memory)",
	  "more independent loads in flight (unroll, prefetch into registers), or more warps" },
	{ "short_scoreboard", "short scoreboard (shared memory, special functions)",
	  "fewer shared-memory round trips and transcendentals per result" },
	{ "mio_throttle", "MIO throttle (shared memory, special functions)",
	  "fewer shared-memory and special-function instructions per result" },
	{ "wait", "fixed-latency dependencies", "independent instruction chains (unroll, ILP)" },
	{ "lg_throttle", "LG throttle (global/local memory queue)",
	  "fewer, wider global memory instructions (float4)" },
	{ "math_pipe_throttle", "math pipe throttle", "spread the math over other pipes" },
	{ "drain", "drain (stores at exit)", "fewer or coalesced stores at the end" },
	{ "membar", "memory barrier", "fewer __threadfence and memory barriers" },
	{ "branch_resolving", "branch resolving", "fewer divergent branches" },
	{ "no_instructions", "no instructions (instruction cache)", "smaller unrolled loops" },
	{ "not_selected", "not selected (other warps issued)", NULL },
};

/* The stall reasons a cause finding of its own explains (with its line
 * and change): their samples are that finding's, not the limiter's. */
static int
claimed(const struct kf_diag *d, const char *reason)
{
	if (strcmp(reason, "barrier") == 0)
		return kf_diag_find(d, KF_BARRIER_STALL) != NULL;
	if (strcmp(reason, "drain") == 0 || strcmp(reason, "lg_throttle") == 0 ||
	    strcmp(reason, "membar") == 0)
		return kf_diag_find(d, KF_ATOMIC_CONTENTION) != NULL;
	return 0;
}

/* The latency finding's impact and fix: the share of the samples on its
 * top stall reason that no cause finding claims (ncu samples warps at a
 * fixed interval, so the samples that wait on a reason are the share of
 * the time its fix can save, as ncu's CPIStall rule weighs it); with none
 * of 5% or more, the headroom to the busiest unit's roof. Run after the
 * causes. */
static void
latency_impact(struct kf_diag *d, const cJSON *k, const struct ncu_roof *r)
{
	struct kf_finding *f = kf_diag_find(d, KF_LATENCY_BOUND);
	long pick = -1;
	double p, skipped = 0;
	size_t i;

	if (f == NULL)
		return;
	for (i = 0; i < sizeof reasons / sizeof reasons[0]; i++) {
		p = ncu_stall_pct(k, reasons[i].metric);
		if (!isfinite(p))
			continue;
		if (claimed(d, reasons[i].metric)) {
			skipped += p;
			continue;
		}
		if (pick < 0 || p > ncu_stall_pct(k, reasons[pick].metric))
			pick = (long)i;
	}
	if (pick >= 0 && (p = ncu_stall_pct(k, reasons[pick].metric)) >= 5) {
		kf_finding_impact(f, p, "smsp__pcsamp_warps_issue_stalled_%s / "
		    "smsp__pcsamp_sample_count (the samples that wait on the top stall reason%s)",
		    reasons[pick].metric, skipped > 0 ? " that no other finding explains" : "");
		if (reasons[pick].fix)
			kf_finding_fix(f, "%s", reasons[pick].fix);
	} else {
		kf_finding_impact(f, 100 - r->limiter->pct, "100 - %s (headroom to the busiest "
		    "unit's roof; no stall reason of its own holds 5%% of the samples)",
		    r->limiter->metric);
	}
}

/* The two stall reasons with the most samples (5% or more) into b ("long
 * scoreboard (global/local memory) 18%, ..."), with waits only (wait) not
 * "not selected" (a warp ready to issue); the top one's index, or -1, and
 * its share in *best. */
static long
stall_words(const cJSON *k, struct buf *b, double *best, int waits)
{
	double p;
	size_t i, n;
	long top = -1;
	int used[sizeof reasons / sizeof reasons[0]] = { 0 };

	*best = -1;
	for (n = 0; n < 2; n++) {
		long pick = -1;

		for (i = 0; i < sizeof reasons / sizeof reasons[0]; i++) {
			p = ncu_stall_pct(k, reasons[i].metric);
			if (waits && reasons[i].fix == NULL)
				continue;
			if (!used[i] && isfinite(p) && (pick < 0 || p > ncu_stall_pct(k,
			    reasons[pick].metric)))
				pick = (long)i;
		}
		if (pick < 0 || (p = ncu_stall_pct(k, reasons[pick].metric)) < 5)
			break;
		used[pick] = 1;
		if (n == 0) {
			top = pick;
			*best = p;
		}
		buf_printf(b, "%s%s %.0f%%", n ? ", " : "", reasons[pick].word, p);
	}
	return top;
}

static void
latency(struct kf_fb *fb, const cJSON *k, const struct ncu_roof *r)
{
	struct kf_finding *f;
	struct buf b = {0};
	double best;
	long top = stall_words(k, &b, &best, 0);

	f = kf_diag_add(&fb->diag, KF_LATENCY_BOUND, NULL, NAN, "Latency-bound: no unit is "
	    "near its peak (the busiest, %s, at %.1f%%)%s%s%s", ncu_unit_label(r->limiter->unit),
	    r->limiter->pct, b.len ? "; warps wait on " : "", b.len ? b.s : "",
	    b.len ? " of the samples" : "");
	kf_finding_kernel(f, kf_str(k, "name"));
	kf_finding_ev(f, r->limiter->metric, r->limiter->pct, "%");
	if (top >= 0) {
		char m[96];

		snprintf(m, sizeof m, "smsp__pcsamp_warps_issue_stalled_%s", reasons[top].metric);
		kf_finding_ev(f, m, best, "% of samples");
	}
	kf_finding_fix(f, "more independent work per thread and more warps in flight");
	buf_free(&b);
}

/* FP32 math that is matrix math (a GEMM or a convolution: tiles staged
 * through shared memory, or a name that says so) can move to the tensor
 * cores; other FP32 math has no faster unit. */
static int
matrix_math(const cJSON *k, const struct ncu_roof *r)
{
	static const char *const says[] = { "gemm", "GEMM", "conv", "matmul", "xmma", "mma_" };
	const char *name = kf_str(k, "name");
	size_t i;

	for (i = 0; i < r->nunits; i++)
		if (strcmp(r->units[i].unit, "shared") == 0 && r->units[i].pct >= 10)
			return 1;
	for (i = 0; name && i < sizeof says / sizeof says[0]; i++)
		if (strstr(name, says[i]))
			return 1;
	return 0;
}

/* A pipe whose share over all SMs and the whole run is a point or more
 * under its share while its SMs were active (idle SMs, a ramp at either
 * end). */
static int
over_all_sms(const struct ncu_unit *u)
{
	return !u->memory && isfinite(u->elapsed) && u->elapsed < u->pct - 1 &&
	    kf_endswith(u->metric, ".avg.pct_of_peak_sustained_active");
}

/* The limiter's impact: the headroom to its roof (to, for the evidence),
 * over all SMs and the whole run where that is lower. */
static void
headroom(struct kf_finding *f, const struct ncu_unit *u, const char *to)
{
	if (over_all_sms(u))
		kf_finding_impact(f, 100 - u->elapsed, "100 - %.*s.avg.pct_of_peak_sustained_"
		    "elapsed (headroom to %s over all SMs and the whole run; %.1f%% while its SMs "
		    "were active)", (int)(strlen(u->metric) -
		    strlen(".avg.pct_of_peak_sustained_active")), u->metric, to, u->pct);
	else
		kf_finding_impact(f, 100 - u->pct, "100 - %s (headroom to %s)", u->metric, to);
}

/* What the limiter's fix saves, how, and a clause for the text: the FP32
 * pipe's matrix math on the tensor cores (TF32's peak in gpus.json
 * against the FLOP/s now), FP64 math on FP32 (their peaks' ratio), else
 * the headroom to the unit's roof, named small for the tensor pipe (no
 * faster unit at its precision). */
static void
bound_impact(struct kf_finding *f, const cJSON *k, const struct ncu_roof *r, struct buf *what)
{
	const struct ncu_unit *u = r->limiter;
	double tf32 = kf_gpu_roof(r->gpu, "TENSOR_TF32_TFLOPS") * 1e12;
	double fp32 = kf_gpu_roof(r->gpu, "FP32_TFLOPS"), fp64 = kf_gpu_roof(r->gpu, "FP64_TFLOPS");

	if (strcmp(u->unit, "fma") == 0 && !r->tensor && r->flops > 0 && isfinite(tf32) &&
	    r->flops < tf32 && matrix_math(k, r)) {
		buf_printf(what, "; on the tensor cores (TF32, %.1f TFLOP/s peak, share/kf/gpus.json) "
		    "its %.1f TFLOP/s of FP32 matrix math would take %.0f%% of this time",
		    tf32 / 1e12, r->flops / 1e12, 100 * r->flops / tf32);
		kf_finding_impact(f, 100 * (1 - r->flops / tf32), "100 x (1 - achieved FLOP/s / %s's "
		    "TENSOR_TF32_TFLOPS, %.1f TFLOP/s in share/kf/gpus.json): the same FLOPs at the "
		    "tensor cores' TF32 peak", kf_str(r->gpu, "name"), tf32 / 1e12);
	} else if (strcmp(u->unit, "fp64") == 0 && isfinite(fp32) && isfinite(fp64) && fp64 < fp32) {
		buf_printf(what, "; in FP32 (%.0f TFLOP/s peak against FP64's %.0f, "
		    "share/kf/gpus.json) the same math would take %.0f%% of this time",
		    fp32, fp64, 100 * fp64 / fp32);
		kf_finding_impact(f, 100 * (1 - fp64 / fp32), "100 x (1 - FP64_TFLOPS / FP32_TFLOPS) of "
		    "%s (share/kf/gpus.json): the same math at the FP32 peak", kf_str(r->gpu, "name"));
	} else if (r->below_roof) {
		struct buf sw = {0};
		double best;

		stall_words(k, &sw, &best, 1);
		buf_printf(what, "; below its roof: %s, so %s of %s is the roof it can reach, and "
		    "no unit is near its peak: latency keeps it from that roof%s%s%s",
		    r->flops <= 0 ? "it does no floating-point work" : u->memory ? "its FLOPs per "
		    "byte are under the ridge" : "its FLOPs per byte are over the ridge",
		    u->memory ? "the bandwidth" : "the peak", ncu_unit_label(u->unit),
		    sw.len ? " (warps wait on " : "", sw.len ? sw.s : "", sw.len ? " of the samples)" : "");
		buf_free(&sw);
		if (over_all_sms(u))
			buf_printf(what, "; %.1f%% over all SMs and the whole run", u->elapsed);
		headroom(f, u, "the roof its intensity puts it under");
	} else if (over_all_sms(u)) {
		/* Idle SMs and the ramp at either end are headroom too. */
		buf_printf(what, "; %.1f%% over all SMs and the whole run, so %.1f%% headroom "
		    "(SMs idle, or starting and finishing apart)%s", u->elapsed, 100 - u->elapsed,
		    strcmp(u->unit, "tensor") == 0 ? ", and no quicker unit at this precision" : "");
		headroom(f, u, "the unit's roof");
	} else {
		if (strcmp(u->unit, "tensor") == 0)
			buf_printf(what, "; at its roof, with no quicker unit at this precision: "
			    "its gain is the %.1f%% headroom", 100 - u->pct);
		else if (u->memory && u->pct >= NCU_AT_ROOF)
			buf_puts(what, "; at its roof: only fewer bytes gain more than its headroom");
		else if (u->pct >= NCU_AT_ROOF)
			buf_puts(what, "; at its roof, and no other unit does this work: only "
			    "fewer instructions gain more than its headroom");
		kf_finding_impact(f, 100 - u->pct, "100 - %s (headroom to the unit's roof)",
		    u->metric);
	}
}

static void
bound(struct kf_fb *fb, const cJSON *k, const struct ncu_roof *r)
{
	const struct ncu_unit *u = r->limiter, *top, *rival = ncu_roof_rival(r, &top);
	struct kf_finding *f;
	struct buf b = {0}, est = {0};

	if (r->tensor && strcmp(u->unit, "tensor") == 0 && isfinite(r->peak_flops)) {
		buf_printf(&b, "; %.0f TFLOP/s %s of %.0f peak (%.0f%%)", r->flops / 1e12,
		    r->precision, r->peak_flops / 1e12, 100 * r->flops / r->peak_flops);
	} else if (strcmp(u->unit, "tensor") == 0 && !r->tensor_counted) {
		buf_puts(&b, "; ncu did not count its tensor operations (kf's --metrics, "
		    "share/kf/ncu_metrics.txt, were not collected), so its FLOP/s are unknown");
	} else if (strcmp(u->unit, "dram") == 0) {
		buf_printf(&b, "; %.2f TB/s of %.2f", r->bw / 1e12, r->peak_bw / 1e12);
	} else if (strcmp(u->unit, "l2") == 0 && r->l2_hot) {
		buf_printf(&b, " in its busiest slice, %.1f%% over all slices: its traffic falls "
		    "on a few addresses", r->l2_avg);
	}
	ncu_roof_say_rival(&b, r, 0);
	f = kf_diag_add(&fb->diag, u->memory ? KF_MEMORY_BOUND : KF_COMPUTE_BOUND, u->unit, NAN,
	    "%s-bound on %s: %.1f%% of its peak%s", u->memory ? "Memory" : "Compute",
	    ncu_unit_label(u->unit), u->pct, b.len ? b.s : "");
	kf_finding_kernel(f, kf_str(k, "name"));
	kf_finding_ev(f, u->metric, u->pct, "%");
	if (rival)
		kf_finding_ev(f, rival->metric, rival->pct, "%");
	if (r->flops > 0)
		kf_finding_ev(f, r->tensor ? "sm__ops_path_tensor_src_*.sum / gpu__time_duration.sum" :
		    "smsp__sass_thread_inst_executed_op_{fadd,fmul,ffma,...}_pred_on", r->flops,
		    "FLOP/s");
	bound_impact(f, k, r, &est);
	if (est.len) {
		char *w = xasprintf("%s%s", f->what, est.s);

		free(f->what);
		f->what = w;
	}
	if (strcmp(u->unit, "tensor") == 0 && isfinite(u->elapsed) && u->elapsed < NCU_AT_ROOF)
		kf_finding_fix(f, "keep the tensor cores busy all the time: work for every SM "
		    "(smaller tiles, or split-K where the grid is under a wave), loads overlapped "
		    "with the math (more pipeline stages); past that, a lower precision (fp8 has "
		    "twice the bf16 peak)");
	else if (r->below_roof && u->memory)
		kf_finding_fix(f, "more bytes in flight per SM: wider loads and stores (float4, "
		    "bf16x2), several independent loads per thread before their first use "
		    "(unroll), more warps per SM");
	else if (strcmp(u->unit, "l2") == 0 && r->l2_hot)
		kf_finding_fix(f, "spread the traffic over more addresses: combine updates to the "
		    "same address within the warp and the block before they reach L2");
	else
		kf_finding_fix(f, "%s", ncu_unit_fix(r->limiter->unit));
	buf_free(&b);
	buf_free(&est);
}

/* Causes */

/* The busiest memory level's share of its peak: what traffic wasted on a
 * level costs at most. */
static double
memory_busy(const struct ncu_roof *r, const char **metric)
{
	double busy = 0;
	size_t i;

	*metric = "no memory level measured";
	for (i = 0; r && i < r->nunits; i++)
		if (r->units[i].memory && r->units[i].pct > busy) {
			busy = r->units[i].pct;
			*metric = r->units[i].metric;
		}
	return busy;
}

static void
local_memory(struct kf_fb *fb, const cJSON *k, const struct ncu_roof *r)
{
	const char *bm;
	double busy = memory_busy(r, &bm);
	double ld = 0, st = 0, rq = 0, v, glob = 0;
	struct hit h = lines_with(k, "LDL", "STL");
	struct kf_finding *f;

	ncu_in(k, "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", &ld);
	ncu_in(k, "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum", &st);
	if (ncu_in(k, "l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum", &v))
		rq += v;
	if (ncu_in(k, "l1tex__t_requests_pipe_lsu_mem_local_op_st.sum", &v))
		rq += v;
	ncu_in(k, "lts__t_sectors.sum", &glob);
	/* Without lines, local traffic must be a fair part of the memory
	 * traffic to matter. */
	if (ld + st + rq <= 0 || !(h.pct >= MIN_IMPACT ||
	    (h.line == NULL && ld + st > 0.05 * (ld + st + glob))))
		return;
	f = kf_diag_add(&fb->diag, KF_LOCAL_MEMORY, "l1", NAN,
	    "Local memory: %.3g sectors loaded and %.3g stored (l1tex__t_sectors_pipe_lsu_mem_"
	    "local_op_ld/st)%s", ld, st, h.line ? "; LDL/STL on the line" : "");
	kf_finding_kernel(f, kf_str(k, "name"));
	at_line(f, h.line);
	ev(f, k, "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", "sectors");
	ev(f, k, "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum", "sectors");
	ev(f, k, "l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum", "requests");
	ev(f, k, "sass__inst_executed_register_spilling_mem_local", "inst");
	if (h.line)
		kf_finding_impact(f, h.pct, "the samples on lines with LDL or STL instructions");
	else
		kf_finding_impact(f, (ld + st) / (ld + st + glob) * busy, "local sectors / "
		    "(local + lts__t_sectors.sum) x %s (the local share of the memory traffic, "
		    "times how busy the busiest level is; no source lines)", bm);
	kf_finding_fix(f, "keep the per-thread array in registers: index it only with "
	    "compile-time constants (unrolled loops), or move it to shared memory; "
	    "nvcc -Xptxas -v shows the stack frame and spills");
}

static void
fp64_math(struct kf_fb *fb, const cJSON *k, const struct ncu_roof *r)
{
	struct hit h = lines_with(k, "F2F.F64", "FP64");
	struct hit conv = lines_with(k, "F2F.F64", NULL);
	struct kf_finding *f;
	double p64 = 0, xu = 0;

	ncu_in(k, "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active", &p64);
	ncu_in(k, "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active", &xu);
	/* FP64 work of an FP64 kernel is its purpose; only conversions, or
	 * FP64 beside FP32 work, say it is float code doing double math. */
	if (conv.line == NULL && !(r && strcmp(r->precision, "fp64") != 0 && p64 >= MIN_IMPACT))
		return;
	if (!(h.pct >= MIN_IMPACT || (h.line == NULL && p64 >= MIN_IMPACT)))
		return;
	f = kf_diag_add(&fb->diag, KF_FP64_MATH, conv.line && xu > p64 ? "xu" : "fp64",
	    h.line ? h.pct : p64, "FP64 math in float code: %s; FP64 pipe %.1f%%, XU pipe "
	    "%.1f%% (conversions)", conv.line ? "F2F conversions to and from double on the line" :
	    "FP64 instructions", p64, xu);
	kf_finding_kernel(f, kf_str(k, "name"));
	at_line(f, h.line);
	ev(f, k, "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active", "%");
	ev(f, k, "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active", "%");
	if (h.line) {
		kf_finding_ev(f, "source: samples on lines with F2F.F64 or FP64 instructions",
		    h.pct, "% of samples");
		kf_finding_impact(f, h.pct, "the samples on lines with F2F.F64 or FP64 instructions");
	} else {
		kf_finding_impact(f, p64, "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_"
		    "active (the FP64 pipe's busy share; no source lines)");
	}
	kf_finding_fix(f, "write float literals (0.999f, not 0.999) and float functions "
	    "(sqrtf, expf), so the math stays on the FP32 pipe");
}

/* Warps that wait while a unit runs at its peak cost no time: the unit
 * would not go faster. Stall-based causes count only below it. */
static int
saturated(const struct ncu_roof *r)
{
	return r && r->limiter && r->limiter->pct >= 80;
}

static void
barrier(struct kf_fb *fb, const cJSON *k, const struct ncu_roof *r)
{
	double p = ncu_stall_pct(k, "barrier");
	const cJSON *bl = cJSON_GetArrayItem(kf_arr(kf_obj(k, "source"), "barrier_lines"), 0);
	struct kf_finding *f;

	if (!(p >= 10) || saturated(r))
		return;
	f = kf_diag_add(&fb->diag, KF_BARRIER_STALL, NULL, p, "Barrier stalls: %.0f%% of the "
	    "warp samples wait at __syncthreads%s", p, bl ? ", most at the line's barrier" : "");
	kf_finding_kernel(f, kf_str(k, "name"));
	at_line(f, bl);
	ev(f, k, "smsp__pcsamp_warps_issue_stalled_barrier", "samples");
	ev(f, k, "smsp__pcsamp_sample_count", "samples");
	kf_finding_impact(f, p, "smsp__pcsamp_warps_issue_stalled_barrier / "
	    "smsp__pcsamp_sample_count (the samples that wait at a barrier)");
	kf_finding_fix(f, "fewer __syncthreads: give each warp its own share of the work and "
	    "combine within the warp (__shfl_down_sync), one barrier where the block's "
	    "results meet");
}

static void
bank_conflict(struct kf_fb *fb, const cJSON *k)
{
	double w, ideal, sh = 0, ex;
	const cJSON *ln = line_most(k, "shared_excessive_wavefronts");
	struct kf_finding *f;

	if (!ncu_in(k, "memory_l1_wavefronts_shared", &w) ||
	    !ncu_in(k, "memory_l1_wavefronts_shared_ideal", &ideal) || w <= 0 || ideal <= 0)
		return;
	ncu_in(k, "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed",
	    &sh);
	ex = (w - ideal) / w;
	if (ex < 0.2 || 100 * ex * sh / 100 < MIN_IMPACT)
		return;
	f = kf_diag_add(&fb->diag, KF_SHARED_BANK_CONFLICT, "shared", ex * sh,
	    "Shared-memory bank conflicts: %.1f-way on average (%.0f wavefronts for %.0f "
	    "ideal, memory_l1_wavefronts_shared); shared memory %.1f%% busy", w / ideal, w,
	    ideal, sh);
	kf_finding_kernel(f, kf_str(k, "name"));
	at_line(f, ln);
	kf_finding_ev(f, "memory_l1_wavefronts_shared", w, "wavefronts");
	kf_finding_ev(f, "memory_l1_wavefronts_shared_ideal", ideal, "wavefronts");
	kf_finding_ev(f, "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_"
	    "sustained_elapsed", sh, "%");
	kf_finding_impact(f, ex * sh, "(memory_l1_wavefronts_shared - its ideal) / "
	    "memory_l1_wavefronts_shared x shared memory's busy share (the wasted wavefronts' "
	    "share of its work)");
	kf_finding_fix(f, "pad the tile by one column (float tile[32][33]) or swizzle the "
	    "index, so a warp's accesses fall in 32 different banks");
}

static void
uncoalesced(struct kf_fb *fb, const cJSON *k, const struct ncu_roof *r)
{
	double s, ideal, ex, busy;
	const cJSON *ln = line_most(k, "l2_excessive_sectors");
	struct kf_finding *f;
	const char *bm;

	if (!ncu_in(k, "memory_l2_theoretical_sectors_global", &s) ||
	    !ncu_in(k, "memory_l2_theoretical_sectors_global_ideal", &ideal) || s <= 0)
		return;
	ex = (s - ideal) / s;
	busy = memory_busy(r, &bm);
	if (ex < 0.25 || ex * busy < MIN_IMPACT)
		return;
	f = kf_diag_add(&fb->diag, KF_UNCOALESCED_GLOBAL, "l2", ex * busy, "Uncoalesced global "
	    "access: %.0f L2 sectors where %.0f would do (%.1fx, memory_l2_theoretical_"
	    "sectors_global)", s, ideal, s / (ideal > 0 ? ideal : 1));
	kf_finding_kernel(f, kf_str(k, "name"));
	at_line(f, ln);
	kf_finding_ev(f, "memory_l2_theoretical_sectors_global", s, "sectors");
	kf_finding_ev(f, "memory_l2_theoretical_sectors_global_ideal", ideal, "sectors");
	if (ln)
		kf_finding_ev(f, "source: L2 Theoretical Sectors Global Excessive on the line",
		    num_or_0(ln, "l2_excessive_sectors"), "sectors");
	kf_finding_impact(f, ex * busy, "(memory_l2_theoretical_sectors_global - its ideal) / "
	    "memory_l2_theoretical_sectors_global x %s (the wasted sectors' share of the "
	    "traffic, times how busy the busiest level is)", bm);
	kf_finding_fix(f, "make neighbouring threads access neighbouring addresses "
	    "(threadIdx.x in the fastest-moving index), or stage the tile through shared memory");
}

/* The end-of-kernel drain of a kernel whose only global writes are
 * atomics is the atomics' cost too. Without source lines (cuBLAS, PyTorch's
 * own kernels), atomics that are a fair share of the global memory
 * instructions cost what the warps wait on at the memory queue and at exit. */
static void
atomics_unlined(struct kf_fb *fb, const cJSON *k)
{
	double red = 0, atom = 0, ld = 0, st = 0, at, w = 0, p;
	static const char *const waits[] = { "drain", "lg_throttle", "membar" };
	struct kf_finding *f;
	size_t i;

	ncu_in(k, "smsp__inst_executed_op_global_red.sum", &red);
	ncu_in(k, "smsp__inst_executed_op_generic_atom_dot_alu.sum", &atom);
	ncu_in(k, "smsp__sass_inst_executed_op_global_ld.sum", &ld);
	ncu_in(k, "smsp__sass_inst_executed_op_global_st.sum", &st);
	at = red + atom;
	if (!(at > 0) || at < 0.1 * (at + ld + st))
		return;
	for (i = 0; i < sizeof waits / sizeof waits[0]; i++)
		if (isfinite(p = ncu_stall_pct(k, waits[i])))
			w += p;
	if (!(w >= 10))
		return;
	f = kf_diag_add(&fb->diag, KF_ATOMIC_CONTENTION, "l2", NAN, "Atomics: %.0f%% of the "
	    "global memory instructions are atomics (smsp__inst_executed_op_global_red, "
	    "generic_atom), and %.0f%% of the warp samples wait on the memory queue or at exit "
	    "for them to drain", 100 * at / (at + ld + st), w);
	kf_finding_kernel(f, kf_str(k, "name"));
	ev(f, k, "smsp__inst_executed_op_global_red.sum", "inst");
	ev(f, k, "smsp__inst_executed_op_generic_atom_dot_alu.sum", "inst");
	ev(f, k, "smsp__sass_inst_executed_op_global_ld.sum", "inst");
	ev(f, k, "smsp__sass_inst_executed_op_global_st.sum", "inst");
	kf_finding_impact(f, w, "smsp__pcsamp_warps_issue_stalled_{drain,lg_throttle,membar} / "
	    "smsp__pcsamp_sample_count (the samples that wait on the atomics; no source lines)");
	kf_finding_fix(f, "combine the updates before the atomic: reduce within the warp "
	    "(__shfl_down_sync) and the block, or sort or segment the indices so each address "
	    "gets one atomic per block");
}

/* Atomics that serialize in one L2 slice: its atomic unit near its peak
 * while the average over the slices is a quarter of it or less (index_add_
 * into one row on the H200: 99.3% in the busiest slice, 1.1% on average).
 * Spread as evenly as the average, the busiest slice would do avg/max of
 * its work: 1 - avg/max of the time is at stake. */
static void
atomics_hot(struct kf_fb *fb, const cJSON *k)
{
	double mx, avg, red = 0, atom = 0, cas = 0;
	struct kf_finding *f;
	struct hit h = lines_with(k, "ATOM", "RED");

	if (!ncu_in(k, "lts__d_atomic_input_cycles_active.max.pct_of_peak_sustained_elapsed", &mx) ||
	    !ncu_in(k, "lts__d_atomic_input_cycles_active.avg.pct_of_peak_sustained_elapsed", &avg) ||
	    mx < NCU_NEAR_PEAK || 4 * avg > mx)
		return;
	ncu_in(k, "smsp__inst_executed_op_global_red.sum", &red);
	ncu_in(k, "smsp__inst_executed_op_generic_atom_dot_alu.sum", &atom);
	ncu_in(k, "smsp__inst_executed_op_generic_atom_dot_cas.sum", &cas);
	f = kf_diag_add(&fb->diag, KF_ATOMIC_CONTENTION, "l2", NAN, "Atomic contention: the "
	    "atomic unit of one L2 slice was busy %.1f%% of the time, %.1f%% on average over "
	    "the slices (lts__d_atomic_input_cycles_active): the atomics (%.3g instructions) "
	    "fall on a few addresses and wait for each other there", mx, avg, red + atom + cas);
	kf_finding_kernel(f, kf_str(k, "name"));
	at_line(f, h.line);
	kf_finding_ev(f, "lts__d_atomic_input_cycles_active.max.pct_of_peak_sustained_elapsed",
	    mx, "%");
	kf_finding_ev(f, "lts__d_atomic_input_cycles_active.avg.pct_of_peak_sustained_elapsed",
	    avg, "%");
	ev(f, k, "smsp__inst_executed_op_global_red.sum", "inst");
	ev(f, k, "smsp__inst_executed_op_generic_atom_dot_alu.sum", "inst");
	kf_finding_impact(f, 100 * (1 - avg / mx), "100 x (1 - the slices' average / the busiest "
	    "slice) of lts__d_atomic_input_cycles_active (the busiest slice's work spread as "
	    "evenly as the average)");
	kf_finding_fix(f, "combine the updates to one address before the atomic: reduce "
	    "within the warp (__shfl_down_sync) and the block, then one atomic per block; or "
	    "give each block its own copy of the target and add the copies at the end");
}

static void
atomics(struct kf_fb *fb, const cJSON *k)
{
	struct hit h = lines_with(k, "ATOM", NULL), stg = lines_with(k, "STG", NULL);
	double drain = ncu_stall_pct(k, "drain"), st = 0, pct;
	struct kf_finding *f;

	if (kf_diag_find(&fb->diag, KF_ATOMIC_CONTENTION))
		return;
	if (h.line == NULL) {
		if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(kf_obj(k, "source"),
		    "line_info")))
			atomics_unlined(fb, k);
		return;
	}
	ncu_in(k, "smsp__sass_inst_executed_op_global_st.sum", &st);
	pct = h.pct + (stg.line == NULL && st == 0 && isfinite(drain) ? drain : 0);
	if (!(pct >= 10))
		return;
	f = kf_diag_add(&fb->diag, KF_ATOMIC_CONTENTION, "l2", pct, "Atomics: the line's "
	    "atomic holds %.0f%% of the samples%s", h.pct, pct > h.pct ? ", and the wait at "
	    "exit for them to drain more" : "");
	kf_finding_kernel(f, kf_str(k, "name"));
	at_line(f, h.line);
	ev(f, k, "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum", "requests");
	ev(f, k, "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum", "requests");
	if (pct > h.pct)
		kf_finding_ev(f, "smsp__pcsamp_warps_issue_stalled_drain", drain, "% of samples");
	kf_finding_impact(f, pct, "the samples on lines with ATOM or RED instructions%s",
	    pct > h.pct ? ", and smsp__pcsamp_warps_issue_stalled_drain / "
	    "smsp__pcsamp_sample_count (no global store but the atomics)" : "");
	kf_finding_fix(f, "reduce within the warp (__shfl_down_sync) and the block first, "
	    "then one atomic per block");
}

static void
divergence(struct kf_fb *fb, const cJSON *k)
{
	const cJSON *src = kf_obj(k, "source"), *ln, *worst = NULL;
	double total = samples_total(k), lost = 0, wl = 0;

	cJSON_ArrayForEach(ln, kf_arr(src, "lines")) {
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(ln, "avg_threads_executed");
		double l;

		if (!main_line(src, ln) || !cJSON_IsNumber(t) || t->valuedouble >= WARP - 4)
			continue;
		l = num_or_0(ln, "samples") * (1 - t->valuedouble / WARP);
		lost += l;
		if (l > wl) {
			wl = l;
			worst = ln;
		}
	}
	if (worst == NULL || total <= 0 || 100 * lost / total < 10)
		return;
	{
		struct kf_finding *f = kf_diag_add(&fb->diag, KF_BRANCH_DIVERGENCE, NULL,
		    100 * lost / total, "Divergence: the line runs with %.0f of %d threads a "
		    "warp (Thread Instructions Executed / Instructions Executed)",
		    kf_num(worst, "avg_threads_executed", 0), WARP);

		kf_finding_kernel(f, kf_str(k, "name"));
		at_line(f, worst);
		kf_finding_ev(f, "source: Thread Instructions Executed / Instructions Executed",
		    kf_num(worst, "avg_threads_executed", 0), "threads");
		kf_finding_impact(f, 100 * lost / total, "the samples on each line times its "
		    "idle lanes (1 - threads executed / 32), over all samples");
		kf_finding_fix(f, "make the branch the same for a whole warp (branch on "
		    "threadIdx.x / 32, or order the work so neighbouring threads take one path)");
	}
}

static void
grid(struct kf_fb *fb, const cJSON *k)
{
	double g, sms, w;
	struct kf_finding *f;

	if (!ncu_in(k, "launch__grid_size", &g) || !ncu_in(k, "launch__sm_count", &sms) ||
	    g <= 0 || sms <= 0)
		return;
	if (g < sms) {
		f = kf_diag_add(&fb->diag, KF_SMALL_GRID, NULL, 100 * (1 - g / sms), "Small grid: "
		    "%.0f blocks for %.0f SMs, so %.0f SMs idle (launch__grid_size)", g, sms, sms - g);
		kf_finding_kernel(f, kf_str(k, "name"));
		kf_finding_ev(f, "launch__grid_size", g, "blocks");
		kf_finding_ev(f, "launch__sm_count", sms, "SMs");
		kf_finding_impact(f, 100 * (1 - g / sms), "1 - launch__grid_size / "
		    "launch__sm_count (the idle SMs' share)");
		kf_finding_fix(f, "launch at least one block per SM, better several: split the "
		    "work over more blocks (grid = elements / block size)");
		return;
	}
	if (!ncu_in(k, "launch__waves_per_multiprocessor", &w) || w < 1 || w >= 4)
		return;
	if (100 * (ceil(w) - w) / ceil(w) < 10)
		return;
	f = kf_diag_add(&fb->diag, KF_TAIL_EFFECT, NULL, 100 * (ceil(w) - w) / ceil(w),
	    "Partial last wave: %.2f waves of blocks (launch__waves_per_multiprocessor), the "
	    "last %.0f%% full", w, 100 * (w - floor(w)));
	kf_finding_kernel(f, kf_str(k, "name"));
	kf_finding_ev(f, "launch__waves_per_multiprocessor", w, "waves");
	kf_finding_impact(f, 100 * (ceil(w) - w) / ceil(w), "(ceil(waves) - waves) / "
	    "ceil(waves) of launch__waves_per_multiprocessor (the last wave's idle share)");
	kf_finding_fix(f, "size the grid to whole waves (a multiple of SMs x blocks per SM) or "
	    "loop over the work in a persistent grid");
}

/* Low occupancy costs time only when nothing is busy: then its limit. */
static void
occupancy(struct kf_fb *fb, const cJSON *k, const struct ncu_roof *r)
{
	static const struct { const char *metric, *word; } lim[] = {
		{ "launch__occupancy_limit_registers", "registers per thread" },
		{ "launch__occupancy_limit_shared_mem", "shared memory per block" },
		{ "launch__occupancy_limit_warps", "block size" },
		{ "launch__occupancy_limit_blocks", "blocks per SM" },
	};
	double occ, g, sms, v, theo = 0, best = INFINITY;
	const char *why = NULL;
	struct kf_finding *f;
	size_t i;

	if (r == NULL || !(r->latency || r->below_roof) ||
	    !ncu_in(k, "sm__warps_active.avg.pct_of_peak_sustained_active", &occ) || occ >= 40)
		return;
	if (ncu_in(k, "launch__grid_size", &g) && ncu_in(k, "launch__sm_count", &sms) && g < sms)
		return;
	for (i = 0; i < sizeof lim / sizeof lim[0]; i++)
		if (ncu_in(k, lim[i].metric, &v) && v < best) {
			best = v;
			why = lim[i].word;
		}
	f = kf_diag_add(&fb->diag, KF_LOW_OCCUPANCY, NULL, NAN, "Low occupancy while %s: "
	    "%.0f%% of the warp slots active%s%s", r->latency ? "latency-bound" : "short of its "
	    "roof", occ, why ? ", limited by " : "", why ? why : "");
	kf_finding_kernel(f, kf_str(k, "name"));
	kf_finding_ev(f, "sm__warps_active.avg.pct_of_peak_sustained_active", occ, "%");
	if (ncu_rule_speedup(k, "TheoreticalOccupancy", &v))
		kf_finding_impact(f, v, "ncu's TheoreticalOccupancy rule's estimated speedup");
	else if (ncu_rule_speedup(k, "AchievedOccupancy", &v))
		kf_finding_impact(f, v, "ncu's AchievedOccupancy rule's estimated speedup");
	else if (ncu_in(k, "sm__maximum_warps_per_active_cycle_pct", &theo) && theo > 0 &&
	    theo < 100)
		kf_finding_impact(f, 100 - theo, "100 - sm__maximum_warps_per_active_cycle_pct "
		    "(the theoretical occupancy's shortfall, as ncu's TheoreticalOccupancy rule "
		    "estimates it; ncu gave no occupancy rule)");
	else if (theo > 0 && (theo - occ) / theo > 0.1)
		kf_finding_impact(f, 100 * (theo - occ) / theo, "(sm__maximum_warps_per_active_"
		    "cycle_pct - sm__warps_active.avg.pct_of_peak_sustained_active) / sm__maximum_"
		    "warps_per_active_cycle_pct (the achieved occupancy's shortfall, as ncu's "
		    "AchievedOccupancy rule estimates it; ncu gave no occupancy rule)");
	else
		kf_finding_impact(f, NAN, "not estimated: ncu gave no occupancy rule with an "
		    "estimate, and more warps help only as far as they hide the latency");
	kf_finding_fix(f, "more warps per SM: fewer registers (__launch_bounds__), less "
	    "shared memory per block, or larger blocks");
}

/* The units a cause's fix relieves: its gain ends where the busiest unit
 * it leaves as it is reaches its roof. Uncoalesced accesses waste L1 and
 * L2 sectors, and DRAM bytes only where DRAM moved more than the ideal
 * sectors hold; bank conflicts, shared-memory wavefronts (through L1/TEX);
 * local memory, every memory level; atomics in one slice, L2 and L1;
 * divergence and FP64 math, the SM's pipes and issue. Stalls (barriers,
 * occupancy) relieve none. A small grid or a partial wave idles SMs,
 * which the pipes' shares (while the SMs were active) do not see: held
 * to the memory levels measured over the whole run (DRAM, L2, shared). */
static int
relieves(enum kf_find_kind kind, const struct ncu_unit *u, const cJSON *k, const struct ncu_roof *r)
{
	double ideal;

	switch (kind) {
	case KF_UNCOALESCED_GLOBAL:
		if (strcmp(u->unit, "l1") == 0 || strcmp(u->unit, "l2") == 0 ||
		    strcmp(u->unit, "lsu") == 0)
			return 1;
		return strcmp(u->unit, "dram") == 0 && r->duration_s > 0 &&
		    ncu_in(k, "memory_l2_theoretical_sectors_global_ideal", &ideal) &&
		    r->bw * r->duration_s > 32 * ideal;
	case KF_SHARED_BANK_CONFLICT:
		return strcmp(u->unit, "shared") == 0 || strcmp(u->unit, "l1") == 0 ||
		    strcmp(u->unit, "lsu") == 0;
	case KF_LOCAL_MEMORY:
		return u->memory || strcmp(u->unit, "lsu") == 0;
	case KF_ATOMIC_CONTENTION:
		return strcmp(u->unit, "l2") == 0 || strcmp(u->unit, "l1") == 0;
	case KF_BRANCH_DIVERGENCE:
	case KF_FP64_MATH:
		return !u->memory;
	case KF_SMALL_GRID:
	case KF_TAIL_EFFECT:
		/* idle SMs: only the levels measured over the whole run see them */
		return !(strcmp(u->unit, "dram") == 0 || strcmp(u->unit, "l2") == 0 ||
		    strcmp(u->unit, "shared") == 0);
	default:
		return 0;
	}
}

static void
cap_causes(struct kf_diag *d, const cJSON *k, const struct ncu_roof *r)
{
	size_t i, j;

	for (i = 0; r && i < d->n; i++) {
		struct kf_finding *f = &d->v[i];
		const struct ncu_unit *top = NULL;
		const char *how = NULL;

		switch (f->kind) {
		case KF_UNCOALESCED_GLOBAL: case KF_SHARED_BANK_CONFLICT: case KF_LOCAL_MEMORY:
		case KF_FP64_MATH: case KF_BARRIER_STALL: case KF_ATOMIC_CONTENTION:
		case KF_BRANCH_DIVERGENCE: case KF_LOW_OCCUPANCY: case KF_SMALL_GRID:
		case KF_TAIL_EFFECT:
			break;
		default:
			continue;	/* the limiter, and the program-level kinds */
		}
		if (!isfinite(f->impact_pct) || f->kernel == NULL || kf_str(k, "name") == NULL ||
		    strcmp(f->kernel, kf_str(k, "name")) != 0)
			continue;
		for (j = 0; j < r->nunits; j++)
			if (!relieves(f->kind, &r->units[j], k, r) &&
			    (top == NULL || r->units[j].pct > top->pct))
				top = &r->units[j];
		if (top == NULL || f->impact_pct <= 100 - top->pct)
			continue;
		for (j = 0; j < f->nev; j++)
			if (strncmp(f->ev[j].metric, "impact_pct: ", 12) == 0)
				how = f->ev[j].metric + 12;
		{
			char *was = xstrdup(how ? how : "estimated");

			kf_finding_impact(f, 100 - top->pct, "%s, %.1f%%, held to 100 - %s (its fix "
			    "leaves %s as it is: the kernel is no quicker than that at its roof)",
			    was, f->impact_pct, top->metric, ncu_unit_label(top->unit));
			free(was);
		}
	}
}

void
ncu_diag(struct kf_fb *fb, const cJSON *k, const struct ncu_roof *r)
{
	if (r && r->limiter) {
		if (r->latency)
			latency(fb, k, r);
		else
			bound(fb, k, r);
	}
	local_memory(fb, k, r);
	fp64_math(fb, k, r);
	barrier(fb, k, r);
	bank_conflict(fb, k);
	uncoalesced(fb, k, r);
	atomics_hot(fb, k);
	atomics(fb, k);
	divergence(fb, k);
	grid(fb, k);
	occupancy(fb, k, r);
	if (r && r->limiter && r->latency)
		latency_impact(&fb->diag, k, r);
	ncu_limiter_rules(&fb->diag, k);
	cap_causes(&fb->diag, k, r);
}
