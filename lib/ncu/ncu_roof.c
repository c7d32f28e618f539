/* kf: how far the focus launch is from the roof, from the raw page's
 * counters (roofline_inputs): achieved FLOP/s against the device's peak,
 * DRAM bytes per second against its peak, arithmetic intensity against
 * the ridge, and the L2 and L1 levels where the counters have them.
 *
 * FLOP/s as ncu's roofline chart counts them: (add + mul + 2 x fma)
 * predicated-on thread instructions per SM cycle, summed over the SM
 * sub-partitions, times SM cycles per second; the peak is 2 x the fma
 * peak per cycle times the same clock. Tensor-core work is not in them. */
#include <math.h>
#include <string.h>

#include "analysis.h"
#include "ncu_pages.h"
#include "record.h"

#define IN_FLOP "smsp__sass_thread_inst_executed_op_%s%s_pred_on.sum.per_cycle_elapsed"
/* Below this share of peak everywhere, a kernel is latency-bound (ncu's
 * SOLBottleneck rule draws the line at 60 %). */
#define LATENCY_PCT 60
#define IN_PEAK "sm__sass_thread_inst_executed_op_%sfma_pred_on.sum.peak_sustained"

struct roof {
	const char *precision;
	double flops, peak_flops, bw, peak_bw, ai, ridge, pct;
	const char *bound;
	double l2_bw, l2_peak_bw, l2_tp, l1_bw, l1_peak_bw, l1_tp, tensor;
	int has_l2_bw, has_l2_peak, has_l2_tp, has_l1_bw, has_l1_peak, has_l1_tp,
	    has_tensor;
	const char *limiter;
	double limiter_pct;
	int latency;		/* nothing near its peak */
};

static int
in(const cJSON *ri, const char *name, double *v)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(ri, name);

	if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble))
		return 0;
	*v = x->valuedouble;
	return 1;
}

static double
in0(const cJSON *ri, const char *name)
{
	double v;

	return in(ri, name, &v) ? v : 0;
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
		if (in(ri, name, &v)) {
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
	return 2 * in0(ri, name);
}

/* The precision that did the most FLOPs; fp32 when none did any. */
static int
compute_side(const cJSON *ri, struct roof *r)
{
	static const struct { const char *p, *name; } prec[] = {
		{ "f", "fp32" }, { "d", "fp64" }, { "h", "fp16" },
	};
	double hz, best = -1;
	size_t i;
	int any = 0;

	if (!in(ri, "sm__cycles_elapsed.avg.per_second", &hz) || hz <= 0)
		return 0;
	for (i = 0; i < 3; i++) {
		double f = flop_per_cycle(ri, prec[i].p, &any), pk = peak_per_cycle(ri, prec[i].p);

		if (pk > 0 && f > best) {
			best = f;
			r->precision = prec[i].name;
			r->flops = f * hz;
			r->peak_flops = pk * hz;
		}
	}
	return any && best >= 0;
}

static void
levels(const cJSON *ri, struct roof *r)
{
	double sectors, dur, pct, per_cycle, hz;

	if (in(ri, "lts__t_bytes.sum.per_second", &r->l2_bw)) {
		r->has_l2_bw = 1;
	} else if (in(ri, "lts__t_sectors.sum", &sectors) &&
	    in(ri, "gpu__time_duration.sum", &dur) && dur > 0) {
		r->l2_bw = sectors * 32 / dur;
		r->has_l2_bw = 1;
	}
	if (in(ri, "lts__t_bytes.sum.peak_sustained", &per_cycle) &&
	    in(ri, "lts__cycles_elapsed.avg.per_second", &hz)) {
		r->l2_peak_bw = per_cycle * hz;
		r->has_l2_peak = 1;
	} else if (r->has_l2_bw &&
	    in(ri, "lts__t_sectors.sum.pct_of_peak_sustained_elapsed", &pct) && pct > 0) {
		r->l2_peak_bw = r->l2_bw / (pct / 100);
		r->has_l2_peak = 1;
	}
	r->has_l2_tp = in(ri, "lts__throughput.avg.pct_of_peak_sustained_elapsed", &r->l2_tp);
	r->has_l1_bw = in(ri, "l1tex__t_bytes.sum.per_second", &r->l1_bw);
	if (in(ri, "l1tex__t_bytes.sum.peak_sustained", &per_cycle) &&
	    in(ri, "l1tex__cycles_elapsed.avg.per_second", &hz)) {
		r->l1_peak_bw = per_cycle * hz;
		r->has_l1_peak = 1;
	}
	r->has_l1_tp = in(ri, "l1tex__throughput.avg.pct_of_peak_sustained_active", &r->l1_tp);
	r->has_tensor = in(ri, "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
	    &r->tensor);
}

/* What runs closest to its peak: the FP pipe, DRAM, L2 or L1. */
static void
limiter(struct roof *r)
{
	r->limiter = "fp";
	r->limiter_pct = r->peak_flops > 0 ? 100 * r->flops / r->peak_flops : 0;
	if (r->peak_bw > 0 && 100 * r->bw / r->peak_bw > r->limiter_pct) {
		r->limiter = "DRAM";
		r->limiter_pct = 100 * r->bw / r->peak_bw;
	}
	if (r->has_l2_tp && r->l2_tp > r->limiter_pct) {
		r->limiter = "L2";
		r->limiter_pct = r->l2_tp;
	}
	if (r->has_l1_tp && r->l1_tp > r->limiter_pct) {
		r->limiter = "L1";
		r->limiter_pct = r->l1_tp;
	}
	if (r->has_tensor && r->tensor > r->limiter_pct) {
		r->limiter = "tensor";
		r->limiter_pct = r->tensor;
	}
	r->latency = r->limiter_pct < LATENCY_PCT;
}

static int
roof_compute(const cJSON *ri, struct roof *r)
{
	double per_cycle, hz;

	memset(r, 0, sizeof *r);
	if (!compute_side(ri, r) || !in(ri, "dram__bytes.sum.per_second", &r->bw) ||
	    !in(ri, "dram__bytes.sum.peak_sustained", &per_cycle) ||
	    !in(ri, "dram__cycles_elapsed.avg.per_second", &hz) || per_cycle * hz <= 0)
		return 0;
	r->peak_bw = per_cycle * hz;
	r->ridge = r->peak_flops / r->peak_bw;
	r->ai = r->bw > 0 ? r->flops / r->bw : 0;
	r->bound = r->bw > 0 && r->ai >= r->ridge ? "compute" : "memory";
	/* The roof above the kernel: the peak, or the bandwidth line at its
	 * intensity (then the share is the bandwidth's). */
	if (strcmp(r->bound, "compute") == 0)
		r->pct = 100 * r->flops / r->peak_flops;
	else
		r->pct = 100 * r->bw / r->peak_bw;
	levels(ri, r);
	limiter(r);
	return 1;
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

static const char *
advice(const struct roof *r)
{
	if (strcmp(r->limiter, "L1") == 0)
		return "cut L1/TEX and shared-memory traffic per FLOP: tile into shared "
		    "memory if the kernel does not yet, then into registers (each thread "
		    "computing several outputs), with wider loads";
	if (strcmp(r->limiter, "L2") == 0)
		return "make accesses coalesced and reuse data within a block so that "
		    "fewer sectors go through L2";
	if (strcmp(r->limiter, "tensor") == 0)
		return "keep the tensor cores fed (larger tiles, asynchronous copies, "
		    "more work per launch)";
	if (strcmp(r->limiter, "DRAM") == 0)
		return "move fewer bytes (fuse kernels, reuse data on chip, use smaller "
		    "types)";
	return "spend fewer instructions per result (FMA, vectorised math), or use "
	    "tensor cores or a lower precision";
}

static const char *
label(const char *limiter)
{
	if (strcmp(limiter, "fp") == 0)
		return "the FP pipe";
	if (strcmp(limiter, "tensor") == 0)
		return "the tensor pipe";
	if (strcmp(limiter, "L1") == 0)
		return "L1/TEX";
	return limiter;
}

static void
say(struct buf *b, const struct roof *r)
{
	buf_printf(b, "Roofline (%s, from the raw page's counters): ", r->precision);
	if (r->flops == 0) {
		buf_printf(b, "no %s arithmetic was counted (0 FLOP/s), so the kernel sits at "
		    "zero arithmetic intensity, on the memory side of the ridge (", r->precision);
		fmt_si(b, r->ridge, "FLOP/byte");
		buf_puts(b, "). DRAM moved ");
	} else {
		fmt_si(b, r->flops, "FLOP/s");
		buf_puts(b, " achieved of ");
		fmt_si(b, r->peak_flops, "FLOP/s");
		buf_printf(b, " peak; arithmetic intensity %.3g FLOP/byte of DRAM traffic "
		    "against a ridge of %.3g: %s-bound on the DRAM roofline, at %.1f%% of "
		    "its roof. DRAM moved ", r->ai, r->ridge, r->bound, r->pct);
	}
	fmt_si(b, r->bw, "B/s");
	buf_puts(b, " of ");
	fmt_si(b, r->peak_bw, "B/s");
	buf_printf(b, " (%.1f%%).", 100 * r->bw / r->peak_bw);
	if (r->has_l2_tp)
		buf_printf(b, " L2 throughput %.1f%% of peak", r->l2_tp);
	if (r->has_l2_bw) {
		buf_puts(b, r->has_l2_tp ? " (" : " L2 ");
		fmt_si(b, r->l2_bw, "B/s");
		buf_puts(b, r->has_l2_tp ? ")" : "");
	}
	if (r->has_l1_tp)
		buf_printf(b, "%s L1/TEX throughput %.1f%% of peak", r->has_l2_tp ? ";" : "",
		    r->l1_tp);
	if (r->has_l2_tp || r->has_l2_bw || r->has_l1_tp)
		buf_putc(b, '.');
	if (r->has_tensor && r->tensor >= 0.1)
		buf_printf(b, " The tensor pipe was active %.1f%% of cycles; its FLOPs are not "
		    "in the numbers above.", r->tensor);
	if (r->latency)
		buf_printf(b, "\nVerdict: nothing runs near its peak (the closest is %s at "
		    "%.1f%%): the kernel is latency-bound, with too few warps in flight or "
		    "warps waiting on dependencies (memory latency, atomics, barriers).", label(r->limiter), r->limiter_pct);
	else
		buf_printf(b, "\nVerdict: %s runs closest to its peak (%.1f%%), so it is the "
		    "limit: %s.", label(r->limiter), r->limiter_pct, advice(r));
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
roof_json(const struct roof *r)
{
	cJSON *o = cJSON_CreateObject(), *lv;

	cJSON_AddStringToObject(o, "precision", r->precision);
	cJSON_AddNumberToObject(o, "achieved_flops", r->flops);
	cJSON_AddNumberToObject(o, "peak_flops", r->peak_flops);
	cJSON_AddNumberToObject(o, "dram_bytes_per_s", r->bw);
	cJSON_AddNumberToObject(o, "peak_dram_bytes_per_s", r->peak_bw);
	cJSON_AddNumberToObject(o, "arithmetic_intensity", r->ai);
	cJSON_AddNumberToObject(o, "ridge", r->ridge);
	cJSON_AddStringToObject(o, "bound", r->bound);
	cJSON_AddNumberToObject(o, "pct_of_roof", r->pct);
	lv = cJSON_AddArrayToObject(o, "levels");
	if (r->has_l1_tp || r->has_l1_bw)
		cJSON_AddItemToArray(lv, level("L1", r->has_l1_bw, r->l1_bw, r->has_l1_peak,
		    r->l1_peak_bw, r->has_l1_tp, r->l1_tp, r->flops));
	if (r->has_l2_tp || r->has_l2_bw)
		cJSON_AddItemToArray(lv, level("L2", r->has_l2_bw, r->l2_bw, r->has_l2_peak,
		    r->l2_peak_bw, r->has_l2_tp, r->l2_tp, r->flops));
	cJSON_AddItemToArray(lv, level("DRAM", 1, r->bw, 1, r->peak_bw, 1,
	    100 * r->bw / r->peak_bw, r->flops));
	cJSON_AddStringToObject(o, "limiter", r->limiter);
	cJSON_AddNumberToObject(o, "limiter_pct", r->limiter_pct);
	cJSON_AddBoolToObject(o, "latency_bound", r->latency);
	if (r->has_tensor)
		cJSON_AddNumberToObject(o, "tensor_pipe_pct", r->tensor);
	kf_roof_init(o, "FLOP/byte", "FLOP/s", r->peak_bw, "DRAM");
	kf_roof_peak(o, r->precision, r->peak_flops, r->ridge);
	kf_roof_point(o, "", r->ai, r->flops, r->bw, r->pct);
	return o;
}

int
ncu_roof_say(struct kf_fb *fb, const cJSON *k, cJSON *focus)
{
	const cJSON *ri = kf_obj(k, "roofline_inputs");
	struct roof r;
	struct buf b = {0};

	if (ri == NULL || !roof_compute(ri, &r))
		return 0;
	say(&b, &r);
	kf_fb_add_buf(fb, FB_KEY, &b);
	cJSON_AddItemToObject(focus, "roof", roof_json(&r));
	return 1;
}
