/* kf: the program as a whole: kernel classes, the levers between kernels
 * (fusion, layout_copy, fp32_matmul, launch_bound), and every finding's
 * impact in the program's unit. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "gpu_roofs.h"
#include "levers.h"
#include "library.h"
#include "mem.h"
#include "record.h"

/* Measured pipes that settle a kernel's math: a tensor pipe this busy
 * does matrix math on the tensor cores; under 1% with the FMA pipe this
 * busy, the FMA pipe does it. */
#define TENSOR_USED_PCT 1.0
#define TENSOR_MATRIX_PCT 10.0
#define FMA_USED_PCT 10.0
/* A kernel measured at this share of a math pipe's peak is bound by its
 * arithmetic, not its memory passes: fusion saves it little. */
#define MATH_BOUND_PCT 60.0

static struct kf_prog *
prog(struct kf_fb *fb)
{
	if (fb->prog == NULL)
		fb->prog = xcalloc(1, sizeof *fb->prog);
	return fb->prog;
}

static void
free_kernels(struct kf_prog *p)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		free(p->k[i].name);
		free(p->k[i].shown);
		free(p->k[i].m_bound);
		free(p->k[i].m_unit);
		free(p->k[i].m_metric);
	}
	free(p->k);
	p->k = NULL;
	p->n = 0;
}

void
kf_prog_free(struct kf_prog *p)
{
	if (p == NULL)
		return;
	free_kernels(p);
	kf_launches_free(&p->ls);
	cJSON_Delete(p->chains);
	cJSON_Delete(p->timeline);
	free(p);
}

void
kf_prog_rank(struct kf_fb *fb, const struct kf_rank *r, const struct kf_launches *l)
{
	struct kf_prog *p = prog(fb);
	size_t i;

	free_kernels(p);
	kf_launches_free(&p->ls);
	p->k = xcalloc(r->n ? r->n : 1, sizeof *p->k);
	for (i = 0; i < r->n; i++) {
		struct kf_pkern *k = &p->k[i];

		k->name = xstrdup(r->v[i].name);
		k->shown = xstrdup(r->v[i].shown ? r->v[i].shown : r->v[i].name);
		k->ns = r->v[i].total_ns;
		k->share = r->v[i].share;
		k->launches = r->v[i].launches;
		k->machinery = r->v[i].machine != NULL;
	}
	p->n = r->n;
	p->total_ns = r->total_ns;
	for (i = 0; l && i < l->n; i++)
		kf_launches_add_counted(&p->ls, l->v[i].total_ns, l->v[i].n, l->v[i].short_ns,
		    l->v[i].nshort);
	if (l) {
		p->ls.means = l->means;
		p->ls.metric = l->metric;
	}
}

static struct kf_pkern *
find(const struct kf_prog *p, const char *name)
{
	size_t i;

	for (i = 0; p && name && i < p->n; i++)
		if (strcmp(p->k[i].name, name) == 0)
			return &p->k[i];
	return NULL;
}

/* By name, else by the name the text shows (a finding may name its
 * kernel so). */
static struct kf_pkern *
find_shown(const struct kf_prog *p, const char *name)
{
	struct kf_pkern *k = find(p, name);
	size_t i;

	for (i = 0; k == NULL && name && i < p->n; i++)
		if (strcmp(p->k[i].shown, name) == 0)
			k = &p->k[i];
	return k;
}

static char *
dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

void
kf_prog_measured(struct kf_fb *fb, const char *name, const struct kf_kmeas *m)
{
	struct kf_pkern *k = find(fb->prog, name);

	if (k == NULL)
		return;
	free(k->m_bound);
	free(k->m_unit);
	free(k->m_metric);
	k->m = *m;
	k->m.bound = k->m_bound = dup_or_null(m->bound);
	k->m.unit = k->m_unit = dup_or_null(m->unit);
	k->m.metric = k->m_metric = dup_or_null(m->metric);
	k->measured = 1;
}

void
kf_prog_chains(struct kf_fb *fb, const cJSON *chains)
{
	struct kf_prog *p = prog(fb);

	cJSON_Delete(p->chains);
	p->chains = chains ? cJSON_Duplicate(chains, 1) : NULL;
}

void
kf_prog_gpu(struct kf_fb *fb, const cJSON *gpu)
{
	prog(fb)->gpu = gpu;
}

void
kf_prog_timeline(struct kf_fb *fb, const cJSON *tl)
{
	struct kf_prog *p = prog(fb);

	cJSON_Delete(p->timeline);
	p->timeline = tl ? cJSON_Duplicate(tl, 1) : NULL;
}

/* ---- classes ---- */

static int
pct_at_least(double v, double min)
{
	return isfinite(v) && v >= min;
}

/* The class by name, then what the measurement says: a matrix kernel's
 * tensor pipe busy is math on the tensor cores, idle with the FMA pipe
 * busy FP32 on the FMA pipe; a kernel of no known class that keeps the
 * tensor pipe busy does matrix math. */
static void
classify(struct kf_pkern *k)
{
	const struct kf_kmeas *m = &k->m;

	k->by_name = kf_kclass_of(k->name);
	k->cls = k->by_name.cls;
	k->math = k->by_name.math;
	if (!k->measured || k->math == KF_KM_NONE)
		return;
	if (k->cls == KF_KC_MATRIX && pct_at_least(m->tensor_pct, TENSOR_USED_PCT))
		k->math = KF_KM_TENSOR;
	else if (k->cls == KF_KC_MATRIX && isfinite(m->tensor_pct) &&
	    (pct_at_least(m->fma_pct, FMA_USED_PCT) || (m->unit && strcmp(m->unit, "fma") == 0)))
		k->math = KF_KM_FMA;
	else if (k->cls == KF_KC_OTHER && pct_at_least(m->tensor_pct, TENSOR_MATRIX_PCT)) {
		k->cls = KF_KC_MATRIX;
		k->math = KF_KM_TENSOR;
	}
	k->overridden = k->cls != k->by_name.cls || k->math != k->by_name.math;
}

/* A profiler whose feedback gave a kernel of analysis.kernels a limiter
 * (analysis.h) and told the program nothing of it: that limiter, as
 * measured. */
static void
limiters_measured(struct kf_fb *fb, const struct kf_prog *p)
{
	const cJSON *o, *l;

	cJSON_ArrayForEach(o, kf_arr(fb->analysis, "kernels")) {
		const struct kf_pkern *k = find(p, kf_str(o, "name"));
		struct kf_kmeas m;

		if (k == NULL || k->measured || (l = kf_obj(o, "limiter")) == NULL ||
		    kf_str(l, "bound") == NULL)
			continue;
		m.bound = kf_str(l, "bound");
		m.unit = kf_str(l, "unit");
		m.unit_pct = kf_num(l, "pct", NAN);
		m.tensor_pct = m.unit && strcmp(m.unit, "tensor") == 0 ? m.unit_pct : NAN;
		m.fma_pct = m.unit && strcmp(m.unit, "fma") == 0 ? m.unit_pct : NAN;
		m.flops = m.bytes_per_s = m.peak_bytes_per_s = NAN;
		m.metric = kf_str(l, "metric") ? kf_str(l, "metric") : "analysis.kernels[].limiter";
		kf_prog_measured(fb, k->name, &m);
	}
}

/* Bound by a math pipe near its peak: its memory passes are not what
 * takes its time. */
static int
math_bound(const struct kf_pkern *k)
{
	static const char *const pipes[] = { "fma", "fp64", "xu", "tensor", "alu" };
	size_t i;

	if (!k->measured || k->m.bound == NULL || strcmp(k->m.bound, "compute") != 0 ||
	    k->m.unit == NULL || !pct_at_least(k->m.unit_pct, MATH_BOUND_PCT))
		return 0;
	for (i = 0; i < sizeof pipes / sizeof pipes[0]; i++)
		if (strcmp(k->m.unit, pipes[i]) == 0)
			return 1;
	return 0;
}

static int
fusible(const struct kf_pkern *k)
{
	return !k->machinery && (k->cls == KF_KC_ELEMENTWISE || k->cls == KF_KC_REDUCTION) &&
	    !math_bound(k);
}

static void
class_json(cJSON *o, const struct kf_pkern *k)
{
	kf_set_str(o, "class", kf_kclass_name(k->cls));
	kf_set(o, "class_what", k->by_name.what[0] && !k->overridden ?
	    cJSON_CreateString(k->by_name.what) : cJSON_CreateNull());
	kf_set(o, "math", kf_kmath_name(k->math) ? cJSON_CreateString(kf_kmath_name(k->math)) :
	    cJSON_CreateNull());
	kf_set_str(o, "class_by", k->overridden ? "measured" : k->measured ? "name, measured" :
	    "name");
}

/* Every object of a that names a kernel of p gets its class. */
static void
classes_into(cJSON *a, const struct kf_prog *p)
{
	cJSON *o;

	cJSON_ArrayForEach(o, a) {
		const struct kf_pkern *k = find(p, kf_str(o, "name"));

		if (k)
			class_json(o, k);
	}
}

static cJSON *
class_summary(const struct kf_prog *p)
{
	cJSON *o = cJSON_CreateObject();
	double ns[KF_KC_N] = {0};
	long n[KF_KC_N] = {0};
	size_t i;
	int c;

	for (i = 0; i < p->n; i++) {
		if (p->k[i].machinery)
			continue;
		ns[p->k[i].cls] += p->k[i].ns;
		n[p->k[i].cls]++;
	}
	for (c = 0; c < KF_KC_N; c++) {
		cJSON *e = cJSON_CreateObject();

		kf_set_num(e, "ns", ns[c]);
		kf_set_num(e, "share_pct", p->total_ns > 0 ? 100 * ns[c] / p->total_ns : 0);
		kf_set_num(e, "kernels", (double)n[c]);
		kf_set(o, kf_kclass_name(c), e);
	}
	return o;
}

/* Every kernel of the ranking: name, total_ns, share_pct, machinery and
 * its class (at most KF_PROG_KERNELS, most time first). */
static cJSON *
kernels_json(const struct kf_prog *p)
{
	cJSON *a = cJSON_CreateArray();
	size_t i;

	for (i = 0; i < p->n && i < KF_PROG_KERNELS; i++) {
		cJSON *o = cJSON_CreateObject();

		kf_set_str(o, "name", p->k[i].name);
		kf_set_num(o, "total_ns", p->k[i].ns);
		kf_set_num(o, "share_pct", p->k[i].share);
		cJSON_AddBoolToObject(o, "machinery", p->k[i].machinery);
		class_json(o, &p->k[i]);
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

/* "GPU time by class of work: matrix 39.2% (2 kernels), ..." */
static void
say_classes(struct kf_fb *fb, const struct kf_prog *p)
{
	struct buf b = {0};
	size_t i, said = 0;
	double ns[KF_KC_N] = {0}, fma = 0;
	long n[KF_KC_N] = {0};
	int c, order[KF_KC_N], j;

	for (i = 0; i < p->n; i++) {
		if (p->k[i].machinery)
			continue;
		ns[p->k[i].cls] += p->k[i].ns;
		n[p->k[i].cls]++;
		if (p->k[i].cls == KF_KC_MATRIX && p->k[i].math == KF_KM_FMA)
			fma += p->k[i].ns;
	}
	for (c = 0; c < KF_KC_N; c++) {
		for (j = c; j > 0 && ns[order[j - 1]] < ns[c]; j--)
			order[j] = order[j - 1];
		order[j] = c;
	}
	buf_puts(&b, "GPU time by class of work (share/kf/kernel_classes.tsv; measured pipes "
	    "where profiled in detail):");
	for (j = 0; j < KF_KC_N; j++) {
		c = order[j];
		if (n[c] == 0)
			continue;
		buf_printf(&b, "%s %s ", said++ ? "," : "", kf_kclass_name(c));
		kf_fmt_pct(&b, p->total_ns > 0 ? 100 * ns[c] / p->total_ns : 0);
		buf_printf(&b, " (%ld kernel%s", n[c], n[c] == 1 ? "" : "s");
		if (c == KF_KC_MATRIX && fma > 0) {
			buf_puts(&b, "; ");
			kf_fmt_pct(&b, 100 * fma / p->total_ns);
			buf_puts(&b, " FP32 on the FMA pipe");
		}
		buf_putc(&b, ')');
	}
	buf_putc(&b, '.');
	if (said > 0)
		kf_fb_add_buf(fb, FB_RANK, &b);
	buf_free(&b);
}

/* ---- the traced window ---- */

static double
gap(const cJSON *tl, const char *bucket, const char *what)
{
	return kf_num(kf_obj(kf_obj(tl, "gaps"), bucket), what, 0);
}

struct window {
	int known;
	double busy, idle, ns, outside;	/* idle: gaps under 1 ms; ns: busy + idle */
	double gaps, outside_gaps;
};

/* The traced window: a trace's own (timeline.window: from the first
 * kernel's start to the last one's end), else the whole timeline's busy
 * time and its gaps under 1 ms. */
static struct window
window_of(const cJSON *tl)
{
	const cJSON *win = kf_obj(tl, "window");
	struct window w = {0};

	if (win && cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(win, "busy_ns"))) {
		w.busy = kf_num(win, "busy_ns", 0);
		w.idle = kf_num(win, "idle_ns", 0);
		w.gaps = kf_num(win, "idle_gaps", 0);
		w.outside = kf_num(win, "outside_ns", 0);
		w.outside_gaps = kf_num(win, "outside_gaps", 0);
	} else if (tl && cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(tl, "busy_ns"))) {
		w.busy = kf_num(tl, "busy_ns", 0);
		w.idle = gap(tl, "under_10us", "ns") + gap(tl, "10us_to_1ms", "ns");
		w.gaps = gap(tl, "under_10us", "count") + gap(tl, "10us_to_1ms", "count");
		w.outside = gap(tl, "over_1ms", "ns");
		w.outside_gaps = gap(tl, "over_1ms", "count");
	}
	w.ns = w.busy + w.idle;
	w.known = w.ns > 0;
	return w;
}

static void
put_count(struct buf *b, double n)
{
	char d[32];
	int len = snprintf(d, sizeof d, "%.0f", n), i;

	for (i = 0; i < len; i++) {
		if (i > 0 && (len - i) % 3 == 0)
			buf_putc(b, ',');
		buf_putc(b, d[i]);
	}
}

/* launch_bound from the timeline: the GPU idle in gaps under 1 ms between
 * its work, a share of the traced window, in a program of at least
 * KF_LAUNCH_BOUND_MIN launches; the launches the text counts are those
 * that began in the window where the timeline says (window.launches), else
 * all it traced (a timeline of before). */
static void
launch_bound_window(struct kf_fb *fb, const struct kf_prog *p, const struct window *w)
{
	const cJSON *win = kf_obj(p->timeline, "window");
	const cJSON *tl = cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(win, "launches")) ?
	    win : p->timeline;
	const char *src = tl == win ? "timeline.window" : "timeline";
	double launches = kf_num(tl, "launches", 0), pct = 100 * w->idle / w->ns;
	double sn = kf_num(kf_obj(tl, "short_launches"), "count", 0);
	struct kf_finding *f;
	struct buf b = {0};
	char *m;

	if (kf_num(p->timeline, "launches", 0) < KF_LAUNCH_BOUND_MIN || pct < 2 * KF_LEVER_MIN_PCT)
		return;
	buf_puts(&b, "The GPU waits on the host between launches: it was idle ");
	kf_fmt_pct(&b, pct);
	buf_puts(&b, " of the traced window (");
	kf_fmt_ns(&b, w->idle);
	buf_puts(&b, " in ");
	put_count(&b, w->gaps);
	buf_puts(&b, " gaps under 1 ms between launches, against ");
	kf_fmt_ns(&b, w->busy);
	buf_puts(&b, " busy); ");
	put_count(&b, sn);
	buf_puts(&b, " of ");
	put_count(&b, launches);
	buf_puts(&b, " launches ran under 10 µs, the median ");
	kf_fmt_ns(&b, kf_num(tl, "median_launch_ns", 0));
	if (w->outside > 0) {
		buf_printf(&b, "; %.0f longer gap%s (", w->outside_gaps, w->outside_gaps == 1 ?
		    "" : "s");
		kf_fmt_ns(&b, w->outside);
		buf_printf(&b, ", the host's own work: setup, Python, waits) %s left out of the "
		    "window", w->outside_gaps == 1 ? "is" : "are");
	}
	f = kf_diag_add(&fb->diag, KF_LAUNCH_BOUND, NULL, NAN, "%s", b.s);
	f->basis = KF_BASIS_WINDOW;
	kf_finding_ev(f, "the traced window: busy ns", w->busy, "ns");
	kf_finding_ev(f, "the traced window: gaps under 1 ms, ns", w->idle, "ns");
	kf_finding_ev(f, "the traced window: gaps under 1 ms", w->gaps, NULL);
	kf_finding_ev(f, "the traced window: longer gaps left out, ns", w->outside, "ns");
	m = xasprintf("%s.launches", src);
	kf_finding_ev(f, m, launches, NULL);
	free(m);
	m = xasprintf("%s.short_launches.count", src);
	kf_finding_ev(f, m, sn, NULL);
	free(m);
	m = xasprintf("%s.median_launch_ns", src);
	kf_finding_ev(f, m, kf_num(tl, "median_launch_ns", 0), "ns");
	free(m);
	kf_finding_impact(f, pct, "the gaps under 1 ms between launches / the traced window "
	    "(busy + those gaps): the idle time fewer, larger launches remove");
	kf_finding_fix(f, "launch fewer, larger kernels: capture the steady loop in a CUDA graph "
	    "(torch.cuda.CUDAGraph, torch.compile(mode=\"reduce-overhead\"), SYCL graphs) or "
	    "fuse the small kernels; a larger batch gives each launch more work");
	buf_free(&b);
}

/* ---- fusion ---- */

struct fuse {
	double gain, ns;	/* the estimate; the fusible kernels' time */
	double *by;		/* per kernel of p (index): > 0 if fused */
	const cJSON *best;	/* the run that gains most */
	double best_gain;
	enum { FUSE_ONE_PASS, FUSE_EPILOGUE, FUSE_EPILOGUE_PASS, FUSE_ATTENTION } how;
				/* how the best run fuses */
	int attention;		/* some run is an attention written out */
	long runs;
};

/* One run of the chains: its fusible kernels' passes, less the one a
 * fused kernel still makes. After a matrix kernel, its elementwise work
 * goes into that kernel's epilogue, and a reduction keeps one pass over the
 * tensor (its own, the largest where there are several); with no matrix
 * producer, fused into one kernel, it keeps the largest pass. An attention
 * written out (a softmax between two matrix kernels) keeps none: fused
 * attention never writes the scores. */
static void
fuse_run(const struct kf_prog *p, const cJSON *run, struct fuse *u)
{
	const struct kf_pkern *after = find(p, kf_str(run, "after"));
	const struct kf_pkern *before = find(p, kf_str(run, "before"));
	const cJSON *e;
	double sum = 0, max = 0, maxred = 0, gain;
	int n = 0, epi, attn = 0, red = 0;

	cJSON_ArrayForEach(e, kf_arr(run, "kernels")) {
		const struct kf_pkern *k = find(p, kf_str(e, "name"));
		double ns = kf_num(e, "ns", 0);

		if (k == NULL || !fusible(k))
			continue;
		n++;
		sum += ns;
		max = fmax(max, ns);
		if (k->cls == KF_KC_REDUCTION) {
			red = 1;
			maxred = fmax(maxred, ns);
		}
		attn |= strcmp(k->by_name.what, "softmax") == 0;
	}
	if (n == 0)
		return;
	epi = after && after->cls == KF_KC_MATRIX;
	attn = attn && epi && before && before->cls == KF_KC_MATRIX;
	gain = attn ? sum : epi ? sum - maxred : sum - max;
	if (gain <= 0)
		return;
	u->gain += gain;
	u->runs++;
	cJSON_ArrayForEach(e, kf_arr(run, "kernels")) {
		const struct kf_pkern *k = find(p, kf_str(e, "name"));

		if (k && fusible(k))
			u->by[k - p->k] = 1;
	}
	if (gain > u->best_gain) {
		u->best_gain = gain;
		u->best = run;
		u->how = attn ? FUSE_ATTENTION : epi && !red ? FUSE_EPILOGUE : epi ? FUSE_EPILOGUE_PASS :
		    FUSE_ONE_PASS;
	}
	u->attention |= attn;
}

/* The framework the fused kernels come from, for the fix. */
static const char *
fuse_fix(const struct kf_prog *p, const struct fuse *u)
{
	size_t i;
	int torch = 0, xla = 0;

	for (i = 0; i < p->n; i++) {
		if (u->by[i] <= 0)
			continue;
		/* ncu's exports shorten at::native:: to at:: */
		torch |= strstr(p->k[i].name, "at::") != NULL ||
		    strstr(p->k[i].name, "c10::") != NULL ||
		    strncmp(p->k[i].name, "triton_", 7) == 0;
		xla |= strstr(p->k[i].name, "_fusion") != NULL ||
		    strncmp(p->k[i].name, "wrapped_", 8) == 0;
	}
	if (u->attention)
		return "use fused attention, which never writes the score matrix: "
		    "torch.nn.functional.scaled_dot_product_attention (FlashAttention, "
		    "memory-efficient attention), jax.nn.dot_product_attention, or FlashAttention's "
		    "own kernels";
	if (xla && !torch)
		return "XLA left these fusions apart: look in the optimised HLO (XLA_FLAGS="
		    "--xla_dump_to=DIR) for what stops them joining (a custom call, a layout "
		    "change, a reduction that feeds a broadcast), or write the chain as one "
		    "Pallas or Triton kernel";
	if (torch)
		return "torch.compile the module (Inductor fuses elementwise and normalisation "
		    "kernels, and GEMM epilogues with mode=\"max-autotune\"), or write each chain "
		    "as one kernel that reads its producer's output once; bias, activation and scale "
		    "belong in the GEMM's or convolution's epilogue (cuBLASLt, cuDNN, CUTLASS)";
	return "write each chain as one kernel that reads its producer's output once and "
	    "writes the result once, or as the producer's epilogue";
}

static int
by_gain_desc(const void *a, const void *b, void *arg)
{
	const double *g = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (g[x] != g[y])
		return g[x] < g[y] ? 1 : -1;
	return (x > y) - (x < y);
}

/* Indexes of p's kernels with v[i] > 0, largest first. */
static size_t *
ranked_by(const struct kf_prog *p, double *v, size_t *n)
{
	size_t *ix = xcalloc(p->n ? p->n : 1, sizeof *ix), i;

	*n = 0;
	for (i = 0; i < p->n; i++)
		if (v[i] > 0)
			ix[(*n)++] = i;
	qsort_r(ix, *n, sizeof *ix, by_gain_desc, v);
	return ix;
}

static const char *label(const struct kf_pkern *k);

/* "add 40.6%, clamp (ReLU) 12.1% (2 kernels) and 3 more": the kernels ix
 * by label, those of one label together, their shares summed. */
static void
put_labels(struct buf *b, const struct kf_prog *p, const size_t *ix, size_t n, size_t max)
{
	const char **lab = xcalloc(n ? n : 1, sizeof *lab);
	double *share = xcalloc(n ? n : 1, sizeof *share);
	size_t *cnt = xcalloc(n ? n : 1, sizeof *cnt), nl = 0, i, j;

	for (i = 0; i < n; i++) {
		const char *l = label(&p->k[ix[i]]);

		for (j = 0; j < nl && strcmp(lab[j], l) != 0; j++)
			;
		if (j == nl)
			lab[nl++] = l;
		share[j] += p->k[ix[i]].share;
		cnt[j]++;
	}
	/* One label says it all: the sentence gives the count and share. */
	if (nl == 1)
		buf_puts(b, lab[0]);
	for (j = 0; nl > 1 && j < nl && j < max; j++) {
		buf_printf(b, "%s%s ", j == 0 ? "" : j + 1 == nl && nl <= max ? " and " : ", ",
		    lab[j]);
		kf_fmt_pct(b, share[j]);
		if (cnt[j] > 1)
			buf_printf(b, " (%zu kernels)", cnt[j]);
	}
	if (nl > max)
		buf_printf(b, " and %zu more", nl - max);
	free(lab);
	free(share);
	free(cnt);
}

/* A kernel as a chain or a list names it: what its class line says it
 * does ("multiply", "layer normalisation"), else its shown name. */
static const char *
label(const struct kf_pkern *k)
{
	return k->by_name.what[0] && !k->overridden ? k->by_name.what : k->shown;
}

/* "multiply -> exp -> softmax x20 -> sum, after FP32 GEMM on the FMA
 * pipe, 13 times": each kernel by its label, a kernel repeated in a row
 * once with its count. */
static void
put_run(struct buf *b, const struct kf_prog *p, const cJSON *run)
{
	const struct kf_pkern *after = find(p, kf_str(run, "after"));
	const cJSON *e;
	const char *prev = NULL, *l;
	int i = 0, same = 0;

	cJSON_ArrayForEach(e, kf_arr(run, "kernels")) {
		const struct kf_pkern *k = find(p, kf_str(e, "name"));

		l = k ? label(k) : kf_str(e, "name") ? kf_str(e, "name") : "?";
		if (prev && strcmp(prev, l) == 0) {
			same++;
			continue;
		}
		if (same)
			buf_printf(b, " x%d", same + 1);
		buf_printf(b, "%s%s", i++ ? " -> " : "", l);
		prev = l;
		same = 0;
	}
	if (same)
		buf_printf(b, " x%d", same + 1);
	if (after)
		buf_printf(b, ", after %s", label(after));
	buf_printf(b, ", %.0f time%s", kf_num(run, "count", 0),
	    kf_num(run, "count", 0) == 1 ? "" : "s");
}

/* The chains the fusion finding draws on, each kernel by its shown name. */
static void
say_chains(struct kf_fb *fb, const struct kf_prog *p)
{
	const cJSON *run;
	struct buf b = {0};
	int n = 0;

	buf_printf(&b, "Chains of elementwise, reduction and layout kernels in launch order "
	    "(%s; their kernels by name in analysis.program.chains), most time first:", kf_str(p->chains, "source") ? kf_str(p->chains, "source") :
	    "launch order");
	cJSON_ArrayForEach(run, kf_arr(p->chains, "runs")) {
		if (n++ == 3)
			break;
		buf_printf(&b, "\n%d. ", n);
		kf_fmt_pct(&b, p->total_ns > 0 ? 100 * kf_num(run, "ns", 0) / p->total_ns : 0);
		buf_puts(&b, ": ");
		put_run(&b, p, run);
	}
	if (n > 0)
		kf_fb_add_buf(fb, FB_DETAIL, &b);
	buf_free(&b);
}

static void
fusion(struct kf_fb *fb, const struct kf_prog *p)
{
	struct fuse u = { .by = xcalloc(p->n ? p->n : 1, sizeof(double)) };
	const cJSON *run, *runs = kf_arr(p->chains, "runs");
	struct kf_finding *f;
	struct buf b = {0};
	size_t *ix, n, i, nfus = 0, nmeas = 0;
	double pct;

	for (i = 0; i < p->n; i++)
		if (fusible(&p->k[i])) {
			u.ns += p->k[i].ns;
			nfus++;
			nmeas += p->k[i].measured;
		}
	if (runs) {
		cJSON_ArrayForEach(run, runs)
			fuse_run(p, run, &u);
	} else if (nfus >= 2) {
		/* No launch order: fused into one, the largest one's pass stays. */
		double max = 0;

		for (i = 0; i < p->n; i++)
			if (fusible(&p->k[i])) {
				u.by[i] = 1;
				u.gain += p->k[i].ns;
				max = fmax(max, p->k[i].ns);
			}
		u.gain -= max;
	}
	pct = p->total_ns > 0 ? 100 * u.gain / p->total_ns : 0;
	if (pct < KF_LEVER_MIN_PCT) {
		free(u.by);
		return;
	}
	for (i = 0; i < p->n; i++)
		u.by[i] = u.by[i] > 0 ? p->k[i].ns : 0;
	ix = ranked_by(p, u.by, &n);
	buf_printf(&b, "Fuse the elementwise and normalisation kernels: %zu kernel%s to fuse (", n,
	    n == 1 ? "" : "s");
	put_labels(&b, p, ix, n, 3);
	buf_puts(&b, "); elementwise and reduction kernels hold ");
	kf_fmt_pct(&b, 100 * u.ns / p->total_ns);
	buf_puts(&b, " of the GPU time");
	if (u.best) {
		buf_printf(&b, ", in %ld chain%s, the largest ", u.runs, u.runs == 1 ? "" : "s");
		put_run(&b, p, u.best);
		buf_puts(&b, u.how == FUSE_ATTENTION ? "; it is an attention written out: fused "
		    "attention keeps the scores on chip and writes none of them" :
		    u.how == FUSE_EPILOGUE ? "; with no reduction in it, it can go whole into its "
		    "producer's epilogue" : u.how == FUSE_EPILOGUE_PASS ? "; its elementwise work can "
		    "go into its producer's epilogue, and its reduction keeps one pass over the "
		    "tensor" : "; fused, a chain makes one pass over its tensor, not one a kernel");
	} else {
		buf_puts(&b, "; the launch order was not recorded, so the estimate fuses them into "
		    "one kernel that keeps the largest one's pass");
	}
	if (nmeas == nfus)
		buf_printf(&b, " (all %zu measured in detail)", nfus);
	else
		buf_printf(&b, " (%zu of %zu measured in detail, the rest taken as memory-bound "
		    "by their class)", nmeas, nfus);
	f = kf_diag_add(&fb->diag, KF_FUSION, NULL, NAN, "%s", b.s);
	for (i = 0; i < n; i++)
		kf_finding_names(f, p->k[ix[i]].name);
	kf_finding_ev(f, "elementwise and reduction kernels: GPU time", u.ns, "ns");
	kf_finding_ev(f, "elementwise and reduction kernels: share of the GPU time",
	    round(1000 * u.ns / p->total_ns) / 10, "%");
	kf_finding_ev(f, "ranking: total GPU time", p->total_ns, "ns");
	if (u.best)
		kf_finding_ev(f, "chains: runs fused", (double)u.runs, NULL);
	kf_finding_impact(f, pct, "%s", u.best ? "each chain's elementwise and reduction "
	    "passes (chains.runs, launch order), less the one its fused kernel still makes (after "
	    "a matrix kernel, its largest reduction's; else its largest; none in an attention "
	    "written out), / the ranking's GPU time" :
	    "the elementwise and reduction kernels' time less the largest one's (one pass "
	    "stays), / the ranking's GPU time");
	kf_finding_fix(f, "%s", fuse_fix(p, &u));
	if (u.best)
		say_chains(fb, p);
	free(ix);
	free(u.by);
	buf_free(&b);
}

/* ---- layout and copies ---- */

static const struct {
	const char *word, *fix;
} layout_fixes[] = {
	{ "NCHW", "run the model channels-last end to end (model.to(memory_format="
	  "torch.channels_last) and the input too), so that cuDNN converts nothing" },
	{ "NHWC", "run the model channels-last end to end (model.to(memory_format="
	  "torch.channels_last) and the input too), so that cuDNN converts nothing" },
	{ "contiguous", "drop the .contiguous() after permute and transpose: let the consumer "
	  "read the strided view, or fold the permutation into its loads (an einsum, a kernel "
	  "that indexes through it)" },
	{ "transpose", "fold the transpose into its consumer's loads (a GEMM takes transposed "
	  "operands as they are)" },
	{ "permute", "fold the permutation into its consumer's loads" },
	{ "fill", "do not fill what is written whole (torch.empty, not torch.zeros)" },
	{ "dtype", "convert once and keep the tensors in the compute dtype" },
	{ "concatenation", "write into slices of one preallocated tensor instead of "
	  "concatenating" },
};

static void
layout_copy(struct kf_fb *fb, const struct kf_prog *p)
{
	double *v = xcalloc(p->n ? p->n : 1, sizeof *v), ns = 0, pct;
	struct kf_finding *f;
	struct buf b = {0}, fix = {0};
	size_t *ix, n, i, j, said = 0;
	int used[sizeof layout_fixes / sizeof layout_fixes[0]] = {0};

	for (i = 0; i < p->n; i++)
		if (!p->k[i].machinery && p->k[i].cls == KF_KC_LAYOUT) {
			v[i] = p->k[i].ns;
			ns += v[i];
		}
	pct = p->total_ns > 0 ? 100 * ns / p->total_ns : 0;
	if (pct < KF_LEVER_MIN_PCT) {
		free(v);
		return;
	}
	ix = ranked_by(p, v, &n);
	buf_puts(&b, "Remove the layout conversions and copies, which move data and compute "
	    "nothing: ");
	put_labels(&b, p, ix, n, 3);
	buf_printf(&b, ", %zu kernel%s and ", n, n == 1 ? "" : "s");
	kf_fmt_pct(&b, pct);
	buf_puts(&b, " of the GPU time in all, saved whole where a copy is not made");
	f = kf_diag_add(&fb->diag, KF_LAYOUT_COPY, NULL, NAN, "%s", b.s);
	for (i = 0; i < n; i++)
		kf_finding_names(f, p->k[ix[i]].name);
	kf_finding_ev(f, "layout kernels: GPU time", ns, "ns");
	kf_finding_ev(f, "ranking: total GPU time", p->total_ns, "ns");
	kf_finding_impact(f, pct, "the layout kernels' time / the ranking's GPU time (removed, "
	    "not made faster: an upper bound where a consumer must then read strided data)");
	for (i = 0; i < n && said < 2; i++)
		for (j = 0; j < sizeof layout_fixes / sizeof layout_fixes[0]; j++) {
			if (used[j] || strstr(p->k[ix[i]].by_name.what, layout_fixes[j].word) == NULL)
				continue;
			used[j] = 1;
			/* NCHW and NHWC share a fix. */
			if (j < 2)
				used[0] = used[1] = 1;
			buf_printf(&fix, "%s%s", said++ ? "; " : "", layout_fixes[j].fix);
			break;
		}
	kf_finding_fix(f, "%s", said ? fix.s : "remove the copies: let each consumer read its "
	    "producer's layout, or fold the conversion into its loads");
	free(ix);
	free(v);
	buf_free(&b);
	buf_free(&fix);
}

/* ---- FP32 matrix math off the tensor cores ---- */

/* What TF32 leaves of a kernel's time: measured, its FLOPs at the TF32
 * peak or its DRAM bytes at their peak, whichever is longer (the roofline
 * at TF32); else the FP32 peak's share of the TF32 peak. *how: which. */
static double
tf32_left(const struct kf_pkern *k, double tf32, double fp32, int *measured)
{
	const struct kf_kmeas *m = &k->m;

	*measured = k->measured && pct_at_least(m->flops, 1) && isfinite(m->bytes_per_s) &&
	    pct_at_least(m->peak_bytes_per_s, 1);
	if (*measured)
		return fmin(1, fmax(m->flops / tf32, m->bytes_per_s / m->peak_bytes_per_s));
	return fp32 / tf32;
}

static void
fp32_matmul(struct kf_fb *fb, const struct kf_prog *p, const cJSON *rec)
{
	double *v = xcalloc(p->n ? p->n : 1, sizeof *v), ns = 0, gain = 0, tf32, fp32, pct;
	const char *via = NULL, *gname = NULL;
	const cJSON *gpu;
	struct kf_finding *f;
	struct buf b = {0}, msg = {0};
	size_t *ix, n, i, nmeas = 0;

	for (i = 0; i < p->n; i++)
		if (!p->k[i].machinery && p->k[i].cls == KF_KC_MATRIX && p->k[i].math == KF_KM_FMA) {
			v[i] = p->k[i].ns;
			ns += v[i];
		}
	if (p->total_ns <= 0 || 100 * ns / p->total_ns < KF_LEVER_MIN_PCT) {
		free(v);
		return;
	}
	gpu = p->gpu ? p->gpu : kf_gpu_roofs_for(rec, NULL, fb->opt ? fb->opt->gpu : NULL,
	    fb->opt ? fb->opt->gpus_file : NULL, &via, &gname, &msg);
	tf32 = kf_gpu_roof(gpu, "TENSOR_TF32_TFLOPS") * 1e12;
	fp32 = kf_gpu_roof(gpu, "FP32_TFLOPS") * 1e12;
	ix = ranked_by(p, v, &n);
	for (i = 0; isfinite(tf32) && isfinite(fp32) && i < n; i++) {
		int meas;
		double left = tf32_left(&p->k[ix[i]], tf32, fp32, &meas);

		gain += p->k[ix[i]].ns * (1 - left);
		nmeas += meas;
	}
	pct = isfinite(tf32) && isfinite(fp32) ? 100 * gain / p->total_ns : NAN;
	if (isfinite(pct) && pct < KF_LEVER_MIN_PCT) {
		free(ix);
		free(v);
		buf_free(&msg);
		return;
	}
	buf_printf(&b, "Put the FP32 matrix math on the tensor cores: %zu kernel%s run%s it on the "
	    "FMA pipe, ", n, n == 1 ? "" : "s", n == 1 ? "s" : "");
	kf_fmt_pct(&b, 100 * ns / p->total_ns);
	buf_puts(&b, " of the GPU time (");
	put_labels(&b, p, ix, n, 3);
	buf_putc(&b, ')');
	if (isfinite(pct))
		buf_printf(&b, "; on the tensor cores in TF32 (%.1f TFLOP/s against FP32's %.1f on "
		    "%s, share/kf/gpus.json) they would take about %.0f%% of that time", tf32 / 1e12,
		    fp32 / 1e12, kf_str(gpu, "name"), 100 * (ns - gain) / ns);
	else
		buf_puts(&b, "; the GPU's TF32 and FP32 peaks are not known (kf-feedback --gpu NAME), "
		    "so the gain is not estimated");
	f = kf_diag_add(&fb->diag, KF_FP32_MATMUL, "fma", NAN, "%s", b.s);
	for (i = 0; i < n; i++)
		kf_finding_names(f, p->k[ix[i]].name);
	kf_finding_ev(f, "FP32 matrix kernels on the FMA pipe: GPU time", ns, "ns");
	kf_finding_ev(f, "ranking: total GPU time", p->total_ns, "ns");
	if (isfinite(pct)) {
		kf_finding_ev(f, "TENSOR_TF32_TFLOPS (share/kf/gpus.json)", tf32 / 1e12, "TFLOP/s");
		kf_finding_ev(f, "FP32_TFLOPS (share/kf/gpus.json)", fp32 / 1e12, "TFLOP/s");
		kf_finding_impact(f, pct, "each kernel's time less what TF32 leaves of it: %zu "
		    "measured in detail at max(FLOP/s / the TF32 peak, DRAM bytes/s / its peak), "
		    "%zu by the peaks' ratio FP32_TFLOPS / TENSOR_TF32_TFLOPS (as fast a share of "
		    "the faster peak); / the ranking's GPU time", nmeas, n - nmeas);
	} else {
		kf_finding_impact(f, NAN, "not estimated: %s", msg.len ? msg.s :
		    "the GPU has no TENSOR_TF32_TFLOPS or FP32_TFLOPS in share/kf/gpus.json");
	}
	kf_finding_fix(f, "TF32: torch.set_float32_matmul_precision(\"high\") and "
	    "torch.backends.cudnn.allow_tf32 = True, or autocast to bf16 (torch.autocast(\"cuda\", "
	    "dtype=torch.bfloat16)); JAX: jax.default_matmul_precision(\"tensorfloat32\"). TF32 "
	    "keeps FP32's range with a 10-bit mantissa: check the tolerance");
	free(ix);
	free(v);
	buf_free(&b);
	buf_free(&msg);
}

/* ---- one unit ---- */

static int
program_level(enum kf_find_kind k)
{
	return k == KF_PROGRAM_FAILED || k == KF_PROFILER_FAILED || k == KF_NOT_STARTED ||
	    k == KF_FUSION ||
	    k == KF_LAYOUT_COPY || k == KF_FP32_MATMUL || k == KF_LAUNCH_BOUND ||
	    k == KF_MACHINERY;
}

static size_t
own_kernels(const struct kf_prog *p, const struct kf_pkern **only)
{
	size_t i, n = 0;

	for (i = 0; i < p->n; i++)
		if (!p->k[i].machinery) {
			*only = &p->k[i];
			n++;
		}
	return n;
}

/* A kernel-level finding's estimate, a share of its kernel's time, as the
 * program's: times the kernel's share of the ranking. */
static void
scale(struct kf_finding *f, const struct kf_prog *p)
{
	const struct kf_pkern *k = find_shown(p, f->kernel), *only = NULL;
	size_t i;

	if (k == NULL && own_kernels(p, &only) == 1)
		k = only;
	f->kernel_impact_pct = f->impact_pct;
	f->impact_pct = k && !isnan(f->impact_pct) ? f->impact_pct * k->share / 100 : NAN;
	for (i = 0; i < f->nev; i++)
		if (strncmp(f->ev[i].metric, "impact_pct: ", 12) == 0) {
			char *m = xasprintf("kernel_%s", f->ev[i].metric);

			free(f->ev[i].metric);
			f->ev[i].metric = m;
		}
	if (k && !isnan(f->impact_pct))
		kf_finding_ev(f, "impact_pct: kernel_impact_pct x the kernel's share of the "
		    "ranking's GPU time", round(f->impact_pct * 10) / 10, "%");
	else if (k == NULL && !isnan(f->kernel_impact_pct))
		kf_finding_ev(f, "impact_pct: not known: the kernel is not in the ranking", NAN, "%");
	if (k)
		kf_finding_ev(f, "share_pct: the kernel's share of the ranking's GPU time",
		    round(k->share * 10) / 10, "%");
}

/* A kernel-level fix on a kernel a library or a compiler wrote
 * (share/kf/libraries.tsv) is for its authors: the program's lever is the
 * call, said after it. */
static void
whose(struct kf_finding *f, const struct kf_prog *p)
{
	const struct kf_pkern *k = find_shown(p, f->kernel);
	const struct kf_library *l = kf_library_of(k ? k->name : f->kernel);
	char *fix, *m;

	if (l == NULL || f->fix == NULL)
		return;
	fix = xasprintf("%s. %s wrote this kernel: a change inside it is for its authors; the program's "
	    "lever is %s", f->fix, l->name, l->lever);
	free(f->fix);
	f->fix = fix;
	m = xasprintf("library: %s (share/kf/libraries.tsv)", l->name);
	kf_finding_ev(f, m, NAN, NULL);
	free(m);
}

/* Every finding's impact_pct in its basis, and a sort key in one unit:
 * with a traced window, a share of the GPU time counts as that share of
 * the GPU's busy part of the window. */
static void
one_unit(struct kf_diag *d, const struct kf_prog *p, const struct window *w)
{
	double to_window = w->known && p->total_ns > 0 ? fmin(1, p->total_ns / w->ns) : NAN;
	size_t i;

	for (i = 0; i < d->n; i++) {
		struct kf_finding *f = &d->v[i];

		if (f->kernel && !program_level(f->kind)) {
			scale(f, p);
			whose(f, p);
		}
		if (f->basis == KF_BASIS_GPU_TIME && isfinite(to_window) && !isnan(f->impact_pct))
			f->key = f->impact_pct * to_window;
	}
}

static cJSON *
window_json(const struct window *w, const struct kf_prog *p)
{
	cJSON *o;

	if (!w->known)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	kf_set_num(o, "ns", w->ns);
	kf_set_num(o, "busy_ns", w->busy);
	kf_set_num(o, "idle_ns", w->idle);
	kf_set_num(o, "idle_pct", 100 * w->idle / w->ns);
	kf_set_num(o, "outside_ns", w->outside);
	kf_set_num(o, "gpu_time_pct", fmin(100, 100 * p->total_ns / w->ns));
	return o;
}

void
kf_prog_finish(struct kf_fb *fb, const cJSON *rec)
{
	struct kf_prog *p = fb->prog;
	cJSON *pa, *r = (cJSON *)kf_obj(fb->analysis, "ranking");
	const struct kf_pkern *only;
	struct window w;
	size_t i;

	if (p == NULL || p->n == 0)
		return;
	limiters_measured(fb, p);
	for (i = 0; i < p->n; i++)
		classify(&p->k[i]);
	w = window_of(p->timeline);
	if (w.known)
		launch_bound_window(fb, p, &w);
	else
		kf_prog_launch_bound(&fb->diag, &p->ls);
	if (own_kernels(p, &only) > 1) {
		fusion(fb, p);
		layout_copy(fb, p);
		fp32_matmul(fb, p, rec);
	}
	one_unit(&fb->diag, p, &w);
	classes_into((cJSON *)kf_arr(r, "kernels"), p);
	classes_into((cJSON *)kf_arr(kf_obj(r, "machinery"), "kernels"), p);
	classes_into((cJSON *)kf_arr(fb->analysis, "kernels"), p);
	if (kf_obj(fb->analysis, "focus") && find(p, kf_str(kf_obj(fb->analysis, "focus"), "name")))
		class_json((cJSON *)kf_obj(fb->analysis, "focus"),
		    find(p, kf_str(kf_obj(fb->analysis, "focus"), "name")));
	pa = cJSON_CreateObject();
	kf_set_num(pa, "gpu_time_ns", p->total_ns);
	kf_set(pa, "classes", class_summary(p));
	kf_set(pa, "kernels", kernels_json(p));
	kf_set(pa, "window", window_json(&w, p));
	kf_set(pa, "chains", p->chains ? cJSON_Duplicate(p->chains, 1) : cJSON_CreateNull());
	if (kf_kclass_error())
		kf_set_str(pa, "class_error", kf_kclass_error());
	kf_set(fb->analysis, "program", pa);
	say_classes(fb, p);
}
