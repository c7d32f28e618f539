/* kf: the diagnosis's findings: built by each profiler's feedback, sorted
 * by the time at stake, written as analysis.diagnosis and as the text's lead. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "diagnosis.h"
#include "mem.h"
#include "record.h"

static const char *const kind_names[KF_NKINDS] = {
	[KF_PROGRAM_FAILED] = "program_failed",
	[KF_PROFILER_FAILED] = "profiler_failed",
	[KF_NOT_STARTED] = "not_started",
	[KF_FUSION] = "fusion",
	[KF_LAYOUT_COPY] = "layout_copy",
	[KF_FP32_MATMUL] = "fp32_matmul",
	[KF_LAUNCH_BOUND] = "launch_bound",
	[KF_MACHINERY] = "machinery",
	[KF_COMPUTE_BOUND] = "compute_bound",
	[KF_MEMORY_BOUND] = "memory_bound",
	[KF_LATENCY_BOUND] = "latency_bound",
	[KF_UNCOALESCED_GLOBAL] = "uncoalesced_global",
	[KF_SHARED_BANK_CONFLICT] = "shared_bank_conflict",
	[KF_LOCAL_MEMORY] = "local_memory",
	[KF_FP64_MATH] = "fp64_math",
	[KF_BARRIER_STALL] = "barrier_stall",
	[KF_ATOMIC_CONTENTION] = "atomic_contention",
	[KF_BRANCH_DIVERGENCE] = "branch_divergence",
	[KF_SMALL_GRID] = "small_grid",
	[KF_TAIL_EFFECT] = "tail_effect",
	[KF_LOW_OCCUPANCY] = "low_occupancy",
	[KF_OTHER] = "other",
};

const char *
kf_find_kind_name(enum kf_find_kind kind)
{
	return (unsigned)kind < KF_NKINDS ? kind_names[kind] : "other";
}

int
kf_find_kind_parse(const char *word)
{
	int i;

	for (i = 0; word != NULL && i < KF_NKINDS; i++)
		if (strcmp(word, kind_names[i]) == 0)
			return i;
	return -1;
}

struct kf_finding *
kf_diag_add(struct kf_diag *d, enum kf_find_kind kind, const char *unit,
    double impact_pct, const char *fmt, ...)
{
	struct kf_finding *f;
	struct buf b = {0};
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	KF_GROW(d->v, d->n, d->cap, 8);
	f = &d->v[d->n];
	memset(f, 0, sizeof *f);
	f->kind = kind;
	f->unit = unit ? xstrdup(unit) : NULL;
	f->impact_pct = impact_pct;
	f->kernel_impact_pct = NAN;
	f->key = NAN;
	f->what = buf_take(&b);
	f->seq = d->n++;
	return f;
}

static void
replace(char **dst, const char *s)
{
	free(*dst);
	*dst = s ? xstrdup(s) : NULL;
}

void
kf_finding_kernel(struct kf_finding *f, const char *kernel)
{
	replace(&f->kernel, kernel);
}

void
kf_finding_names(struct kf_finding *f, const char *kernel)
{
	f->kernels = xrealloc(f->kernels, (f->nkernels + 1) * sizeof *f->kernels);
	f->kernels[f->nkernels++] = xstrdup(kernel);
}

void
kf_finding_at(struct kf_finding *f, const char *file, long line)
{
	replace(&f->file, file);
	f->line = file ? line : 0;
}

void
kf_finding_fix(struct kf_finding *f, const char *fmt, ...)
{
	struct buf b = {0};
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	free(f->fix);
	f->fix = buf_take(&b);
}

void
kf_finding_ev(struct kf_finding *f, const char *metric, double value, const char *unit)
{
	KF_GROW(f->ev, f->nev, f->evcap, 4);
	f->ev[f->nev].metric = xstrdup(metric);
	f->ev[f->nev].value = value;
	f->ev[f->nev].unit = unit ? xstrdup(unit) : NULL;
	f->nev++;
}

void
kf_finding_impact(struct kf_finding *f, double pct, const char *fmt, ...)
{
	struct buf b = {0};
	va_list ap;
	size_t i;

	buf_puts(&b, "impact_pct: ");
	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	f->impact_pct = isfinite(pct) ? fmax(0, fmin(100, pct)) : NAN;
	for (i = 0; i < f->nev; i++)
		if (strncmp(f->ev[i].metric, "impact_pct: ", 12) == 0) {
			free(f->ev[i].metric);
			f->ev[i].metric = buf_take(&b);
			f->ev[i].value = round(f->impact_pct * 10) / 10;
			return;
		}
	kf_finding_ev(f, b.s, round(f->impact_pct * 10) / 10, "%");
	buf_free(&b);
}

struct kf_finding *
kf_diag_find(const struct kf_diag *d, enum kf_find_kind kind)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (d->v[i].kind == kind)
			return &d->v[i];
	return NULL;
}

/* A failure leads whatever is at stake: a job not started, the program's,
 * then the profiler's. */
static int
failed_rank(enum kf_find_kind k)
{
	return k == KF_NOT_STARTED ? 3 : k == KF_PROGRAM_FAILED ? 2 : k == KF_PROFILER_FAILED;
}

/* Stakes are compared as the record shows them, to a tenth of a point.
 * One gain estimated two ways must keep one order: an FP32 GEMM bound on
 * the FMA pipe has a compute_bound finding and the fp32_matmul lever, both
 * its time at the TF32 peak, and the two differ only in their last bits,
 * which came out either way from run to run. Equal to the tenth, the
 * finding made first leads. */
static int
by_stake(const void *pa, const void *pb)
{
	const struct kf_finding *a = pa, *b = pb;
	int fa = failed_rank(a->kind), fb = failed_rank(b->kind);
	double va = isnan(a->key) ? a->impact_pct : a->key;
	double vb = isnan(b->key) ? b->impact_pct : b->key;
	int ka = !isnan(va), kb = !isnan(vb);

	if (fa != fb)
		return fb - fa;
	if (ka != kb)
		return kb - ka;
	if (ka && round(va * 10) != round(vb * 10))
		return va > vb ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

void
kf_diag_sort(struct kf_diag *d)
{
	if (d->n > 1)
		kf_sort(d->v, d->n, sizeof *d->v, by_stake);
}

static cJSON *
str_or_null(const char *s)
{
	return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

static cJSON *
pct_or_null(double v)
{
	return isnan(v) ? cJSON_CreateNull() : cJSON_CreateNumber(round(v * 10) / 10);
}

/* Whether a and b concern the same kernels: one named by each, or the same
 * set; neither naming one is no match. */
static int
same_kernels(const struct kf_finding *a, const struct kf_finding *b)
{
	const char *const *ka = a->kernels ? (const char *const *)a->kernels :
	    (const char *const *)&a->kernel;
	const char *const *kb = b->kernels ? (const char *const *)b->kernels :
	    (const char *const *)&b->kernel;
	size_t na = a->kernels ? a->nkernels : a->kernel != NULL;
	size_t nb = b->kernels ? b->nkernels : b->kernel != NULL;
	size_t i, j;

	if (na == 0 || na != nb)
		return 0;
	for (i = 0; i < na; i++) {
		for (j = 0; j < nb && strcmp(ka[i], kb[j]) != 0; j++)
			;
		if (j == nb)
			return 0;
	}
	return 1;
}

/* The first finding before the i-th (sorted) that concerns the same
 * kernels and unit with the same stake as the record shows it: one
 * headroom said two ways (an FMA-bound FP32 GEMM's compute_bound finding
 * and the fp32_matmul lever, both "fma"), or -1. */
static long
same_gain_as(const struct kf_diag *d, size_t i)
{
	const struct kf_finding *f = &d->v[i];
	size_t j;

	if (isnan(f->impact_pct))
		return -1;
	for (j = 0; j < i; j++) {
		const struct kf_finding *e = &d->v[j];

		if (!isnan(e->impact_pct) && e->basis == f->basis && e->unit && f->unit &&
		    strcmp(e->unit, f->unit) == 0 &&
		    round(e->impact_pct * 10) == round(f->impact_pct * 10) && same_kernels(e, f))
			return (long)j;
	}
	return -1;
}

cJSON *
kf_diag_json(const struct kf_diag *d)
{
	cJSON *a = cJSON_CreateArray();
	size_t i, j;
	long same;

	for (i = 0; i < d->n; i++) {
		const struct kf_finding *f = &d->v[i];
		cJSON *o = cJSON_CreateObject(), *ev = cJSON_CreateArray();

		kf_set_str(o, "kind", kf_find_kind_name(f->kind));
		kf_set(o, "unit", str_or_null(f->unit));
		kf_set(o, "kernel", str_or_null(f->kernel));
		if (f->kernels) {
			cJSON *ks = cJSON_AddArrayToObject(o, "kernels");

			for (j = 0; j < f->nkernels; j++)
				cJSON_AddItemToArray(ks, cJSON_CreateString(f->kernels[j]));
		} else {
			cJSON_AddNullToObject(o, "kernels");
		}
		kf_set(o, "file", str_or_null(f->file));
		kf_set(o, "line", f->file && f->line > 0 ?
		    cJSON_CreateNumber((double)f->line) : cJSON_CreateNull());
		kf_set(o, "impact_pct", pct_or_null(f->impact_pct));
		kf_set(o, "kernel_impact_pct", pct_or_null(f->kernel_impact_pct));
		kf_set_str(o, "impact_basis", f->basis == KF_BASIS_WINDOW ? "traced_window" :
		    "gpu_time");
		same = same_gain_as(d, i);
		kf_set(o, "same_gain_as", same >= 0 ? cJSON_CreateNumber((double)same) :
		    cJSON_CreateNull());
		for (j = 0; j < f->nev; j++) {
			cJSON *e = cJSON_CreateObject();

			kf_set_str(e, "metric", f->ev[j].metric);
			kf_set(e, "value", isfinite(f->ev[j].value) ?
			    cJSON_CreateNumber(f->ev[j].value) : cJSON_CreateNull());
			kf_set(e, "unit", str_or_null(f->ev[j].unit));
			cJSON_AddItemToArray(ev, e);
		}
		kf_set(o, "evidence", ev);
		kf_set(o, "what", str_or_null(f->what));
		kf_set(o, "fix", str_or_null(f->fix));
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

/* "about 15% of the program's GPU time at stake, 39% of this kernel's":
 * the unit always said. Under 1%, one decimal. */
static void
put_stake(struct buf *b, const struct kf_finding *f)
{
	double v = f->impact_pct;

	buf_printf(b, v > 0 && v < 0.95 ? "about %.1f%% of %s at stake" :
	    "about %.0f%% of %s at stake", v, f->basis == KF_BASIS_WINDOW ?
	    "the traced window" : "the program's GPU time");
	/* A kernel that is (about) the whole program: one figure says it. */
	if (!isnan(f->kernel_impact_pct) && fabs(f->kernel_impact_pct - v) >= 0.5)
		buf_printf(b, ", %.0f%% of this kernel's", f->kernel_impact_pct);
}

/* The text's lead: numbered, one paragraph a finding. */
void
kf_diag_text(const struct kf_diag *d, struct buf *b, size_t max)
{
	size_t i;

	for (i = 0; i < d->n && i < max; i++) {
		const struct kf_finding *f = &d->v[i];
		int paren = f->file != NULL || !isnan(f->impact_pct);

		if (i > 0)
			buf_putc(b, '\n');
		buf_printf(b, "%zu. %s", i + 1, f->what);
		if (paren) {
			buf_puts(b, " (");
			if (f->file) {
				buf_puts(b, f->file);
				if (f->line > 0)
					buf_printf(b, ":%ld", f->line);
			}
			if (!isnan(f->impact_pct)) {
				long same = same_gain_as(d, i);

				if (f->file)
					buf_puts(b, "; ");
				put_stake(b, f);
				if (same >= 0)
					buf_printf(b, ": the same kernel%s and gain as %ld, not "
					    "more on top of it", f->kernels && f->nkernels > 1 ?
					    "s" : "", same + 1);
			}
			buf_putc(b, ')');
		}
		if (f->fix)
			buf_printf(b, ". Fix: %s", f->fix);
		if (b->len > 0 && b->s[b->len - 1] != '.')
			buf_putc(b, '.');
	}
}

void
kf_diag_free(struct kf_diag *d)
{
	size_t i, j;

	for (i = 0; i < d->n; i++) {
		struct kf_finding *f = &d->v[i];

		free(f->unit);
		free(f->kernel);
		for (j = 0; j < f->nkernels; j++)
			free(f->kernels[j]);
		free(f->kernels);
		free(f->file);
		free(f->what);
		free(f->fix);
		for (j = 0; j < f->nev; j++) {
			free(f->ev[j].metric);
			free(f->ev[j].unit);
		}
		free(f->ev);
	}
	free(d->v);
	memset(d, 0, sizeof *d);
}
