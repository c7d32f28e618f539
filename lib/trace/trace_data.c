/* kf trace: the files of one run as kf-read's "data": every kernel by
 * total GPU time (by mangled name, the identity ncu's filters use too;
 * autotuning set aside: XLA's, up to its autotuner's last launch in a
 * process, and an autotuner's timed trials of candidates, trials.h), and
 * the timeline facts a counter profiler cannot give: how much of the time
 * the GPU was busy, the idle gaps and where they fall, copies, sets,
 * synchronisation, launch rate and size, NVTX ranges. Times are CUPTI's,
 * one clock for every process of the machine. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chains.h"
#include "feedback.h"
#include "machinery.h"
#include "map.h"
#include "mem.h"
#include "record.h"
#include "trace.h"
#include "trials.h"

#define MAX_LISTED 1000		/* kernels listed */
#define NGAPS 5			/* largest gaps listed */
#define SHORT_NS 10000.0	/* a launch or gap shorter is "short": 10 us */
#define LONG_GAP_NS 1e6		/* a gap this long is the host's doing: 1 ms */

/* What a launch set aside from the program's kernels is (man/kf.7,
 * set_aside), as --top's steady state sets them aside (lib/ncu/ncu_steady.c):
 * XLA's autotuning, its autotuner's launches and all before them in the
 * process; an autotuner's timed trials after it. */
enum { ASIDE_NONE, ASIDE_XLA, ASIDE_TRIALS, NASIDE };
static const char *const aside_name[NASIDE] = { NULL, KF_XLA_TUNE_NAME, KF_TRIALS_NAME };

struct kagg {
	const char *mangled, *demangled;
	long launches, graph_launches;
	double total, min, max;
	const struct trace_kernel *longest;
	long pid;		/* the first process; -1 once there are several */
	int64_t first;		/* its first launch's start */
};

/* One stretch of GPU work on the timeline. */
struct span {
	int64_t start, end;
	const char *what;	/* the kernel's name, "copy HtoD", "memset" */
	int host_copy;		/* a copy between host and device */
};

struct gap {
	int64_t start, ns;
	const char *after, *before;
};

struct range {
	int64_t start, end;
	const char *name;
	long pid;
};

struct acc {
	struct kf_map byname;	/* mangled name: struct kagg * */
	struct kagg **k;
	size_t nk, capk;
	struct span *sp;
	size_t nsp, capsp;
	double *dur;		/* every launch's duration (sorted by timeline()) */
	int64_t *dstart, *dend;	/* each launch's start and end, in order */
	size_t ndur, capdur;
	struct range *r;
	size_t nr, capr;
	cJSON *copies;		/* kind: {count, bytes, ns} */
	double set_n, set_bytes, set_ns, sync_n, sync_ns;
	int64_t kfirst, klast;	/* the window: from the top kernel's first start
				 * to the last kernel's end */
	int64_t rfirst, rlast;	/* the launches inside the program's profiler
				 * range: the first's start, the last's end */
	int64_t sfirst, slast;	/* the steady state a choice found, the caller's */
	struct kf_chains *chains;
	/* the launches set aside, by kind (ASIDE_*): their count, time and
	 * kernels; the last one's end */
	double aside_n[NASIDE], aside_ns[NASIDE];
	struct kf_map aside_kernels[NASIDE];
	int64_t aside_end;
};

/* For each launch of f (by index into f->k), what it is set aside as
 * (ASIDE_*): up to the last launch of XLA's autotuner (machinery.tsv)
 * where launches follow it, then an autotuner's timed trials (trials.h),
 * the host's waits from the trace's synchronisations. The caller frees it. */
static char *
file_aside(struct acc *a, const struct trace_file *f)
{
	size_t *o = trace_launch_order(f), i;
	char *w = xcalloc(f->nk + 1, 1), *t = xcalloc(f->nk + 1, 1), cfg[96];
	struct kf_trials *tr = kf_trials_new();
	long xla_last = -1;

	trace_waits(f, o, w);
	for (i = 0; i < f->nk; i++) {
		const struct trace_kernel *k = &f->k[o[i]];

		if (kf_machinery_xla(f->names[k->name].demangled))
			xla_last = (long)i;
		snprintf(cfg, sizeof cfg, "%d %d %d/%d %d %d", k->grid[0], k->grid[1], k->grid[2],
		    k->block[0], k->block[1], k->block[2]);
		kf_trials_see(tr, kf_trials_mix(kf_trials_mix(KF_TRIALS_HASH0,
		    f->names[k->name].mangled), cfg), w[o[i]]);
	}
	kf_trials_end(tr);
	/* nothing after XLA's autotuning: every launch is the program's */
	if (xla_last + 1 >= (long)f->nk)
		xla_last = -1;
	for (i = 0; i < f->nk; i++) {
		t[o[i]] = (long)i <= xla_last ? ASIDE_XLA : kf_trials_has(tr, (long)i) ? ASIDE_TRIALS :
		    ASIDE_NONE;
		if (t[o[i]] != ASIDE_NONE && f->k[o[i]].end > a->aside_end)
			a->aside_end = f->k[o[i]].end;
	}
	kf_trials_free(tr);
	free(w);
	free(o);
	return t;
}

/* Where launches were set aside, and no caller gave the window: the steady
 * state from the first launch that starts after the last of them, within
 * the program's profiler range where it has one. */
static void
after_aside(struct acc *a, struct trace_file *const *f, size_t n, char *const *aside)
{
	int64_t from = 0, to = a->rlast > a->rfirst ? a->rlast : a->klast;
	size_t i, j;

	if (a->aside_end == 0 || a->slast > a->sfirst)
		return;
	for (i = 0; i < n; i++)
		for (j = 0; aside[i] && j < f[i]->nk; j++)
			if (!aside[i][j] && f[i]->k[j].start > a->aside_end &&
			    (from == 0 || f[i]->k[j].start < from))
				from = f[i]->k[j].start;
	if (from == 0 || from >= to || (a->rlast > a->rfirst && from < a->rfirst))
		return;
	a->sfirst = from;
	a->slast = to;
}

static struct kagg *
kagg_of(struct acc *a, const struct trace_name *nm, long pid)
{
	int created;
	struct kf_map_ent *e = kf_map_slot(&a->byname, nm->mangled, &created);
	struct kagg *g;

	if (!created)
		return e->val;
	g = xcalloc(1, sizeof *g);
	g->mangled = nm->mangled;
	g->demangled = nm->demangled;
	g->min = INFINITY;
	g->pid = pid;
	e->val = g;
	KF_GROW(a->k, a->nk, a->capk, 64);
	a->k[a->nk++] = g;
	return g;
}

static void
add_span(struct acc *a, int64_t start, int64_t end, const char *what)
{
	KF_GROW(a->sp, a->nsp, a->capsp, 1024);
	a->sp[a->nsp].start = start;
	a->sp[a->nsp].end = end;
	a->sp[a->nsp].host_copy = strcmp(what, "copy HtoD") == 0 || strcmp(what, "copy DtoH") == 0;
	a->sp[a->nsp++].what = what;
}

static int
cmp_stream_start(const void *x, const void *y)
{
	const struct trace_kernel *a = *(const struct trace_kernel *const *)x;
	const struct trace_kernel *b = *(const struct trace_kernel *const *)y;

	if (a->device != b->device)
		return a->device < b->device ? -1 : 1;
	if (a->stream != b->stream)
		return a->stream < b->stream ? -1 : 1;
	return a->start < b->start ? -1 : a->start > b->start;
}

/* The file's launches in order on each stream, into the chains. */
static void
add_chains(struct acc *a, const struct trace_file *f, const char *aside)
{
	const struct trace_kernel **o = xcalloc(f->nk ? f->nk : 1, sizeof *o);
	char key[64];
	size_t i;

	for (i = 0; i < f->nk; i++)
		o[i] = &f->k[i];
	if (f->nk > 1)
		kf_sort(o, f->nk, sizeof *o, cmp_stream_start);
	for (i = 0; i < f->nk; i++) {
		if (aside[o[i] - f->k])
			continue;
		snprintf(key, sizeof key, "%ld/%u/%u", f->pid, o[i]->device, o[i]->stream);
		kf_chains_launch(a->chains, key, f->names[o[i]->name].demangled,
		    (double)(o[i]->end - o[i]->start));
	}
	free(o);
}

static void
add_kernels(struct acc *a, const struct trace_file *f, const char *aside)
{
	size_t i;
	int created;

	for (i = 0; i < f->nk; i++) {
		const struct trace_kernel *k = &f->k[i];
		const struct trace_name *nm = &f->names[k->name];
		double ns = (double)(k->end - k->start);
		struct kagg *g;

		if (aside[i]) {
			/* GPU work on the timeline, not one of the program's
			 * kernels */
			a->aside_n[(int)aside[i]]++;
			a->aside_ns[(int)aside[i]] += ns;
			kf_map_slot(&a->aside_kernels[(int)aside[i]], nm->mangled, &created);
		} else {
			g = kagg_of(a, nm, f->pid);
			g->launches++;
			g->graph_launches += k->graph != 0;
			g->total += ns;
			if (ns < g->min)
				g->min = ns;
			if (g->longest == NULL || ns > g->max) {
				g->max = ns;
				g->longest = k;
			}
			if (g->pid != f->pid)
				g->pid = -1;
			if (g->first == 0 || k->start < g->first)
				g->first = k->start;
		}
		if (trace_in_range(f, k) == 1) {
			if (a->rfirst == 0 || k->start < a->rfirst)
				a->rfirst = k->start;
			if (k->end > a->rlast)
				a->rlast = k->end;
		}
		if (a->ndur == a->capdur) {
			a->capdur = kf_grow_cap(a->capdur, a->ndur + 1, 1024);
			a->dur = xrealloc(a->dur, a->capdur * sizeof *a->dur);
			a->dstart = xrealloc(a->dstart, a->capdur * sizeof *a->dstart);
			a->dend = xrealloc(a->dend, a->capdur * sizeof *a->dend);
		}
		a->dstart[a->ndur] = k->start;
		a->dend[a->ndur] = k->end;
		a->dur[a->ndur++] = ns;
		add_span(a, k->start, k->end, nm->demangled);
		if (k->end > a->klast)
			a->klast = k->end;
	}
}

static void
add_copy(struct acc *a, const struct trace_op *o)
{
	cJSON *c = cJSON_GetObjectItemCaseSensitive(a->copies, o->copy);

	if (c == NULL) {
		c = cJSON_AddObjectToObject(a->copies, o->copy);
		cJSON_AddNumberToObject(c, "count", 0);
		cJSON_AddNumberToObject(c, "bytes", 0);
		cJSON_AddNumberToObject(c, "ns", 0);
	}
	kf_set_num(c, "count", kf_num(c, "count", 0) + 1);
	kf_set_num(c, "bytes", kf_num(c, "bytes", 0) + (double)o->bytes);
	kf_set_num(c, "ns", kf_num(c, "ns", 0) + (double)(o->end - o->start));
}

static void
add_ops(struct acc *a, const struct trace_file *f)
{
	static const char *const cw[] = { "copy HtoD", "copy DtoH", "copy DtoD", "copy" };
	size_t i;

	for (i = 0; i < f->nops; i++) {
		const struct trace_op *o = &f->ops[i];
		double ns = (double)(o->end - o->start);

		if (o->kind == 'C') {
			add_copy(a, o);
			add_span(a, o->start, o->end, strcmp(o->copy, "HtoD") == 0 ? cw[0] :
			    strcmp(o->copy, "DtoH") == 0 ? cw[1] :
			    strcmp(o->copy, "DtoD") == 0 ? cw[2] : cw[3]);
		} else if (o->kind == 'S') {
			a->set_n++;
			a->set_bytes += (double)o->bytes;
			a->set_ns += ns;
			add_span(a, o->start, o->end, "memset");
		} else {
			a->sync_n++;
			a->sync_ns += ns;
		}
	}
}

/* NVTX push/pop and start/end ranges, paired by id. */
static void
add_ranges(struct acc *a, const struct trace_file *f)
{
	size_t i, j;

	for (i = 0; i < f->nm; i++) {
		if (!(f->m[i].flags & 2))
			continue;
		for (j = i + 1; j < f->nm; j++)
			if ((f->m[j].flags & 4) && f->m[j].id == f->m[i].id)
				break;
		KF_GROW(a->r, a->nr, a->capr, 16);
		a->r[a->nr].start = f->m[i].time;
		a->r[a->nr].end = j < f->nm ? f->m[j].time : f->t1;
		a->r[a->nr].name = f->m[i].name;
		a->r[a->nr++].pid = f->pid;
	}
}

static int
cmp_span(const void *x, const void *y)
{
	const struct span *a = x, *b = y;

	return a->start < b->start ? -1 : a->start > b->start;
}

static int
cmp_dbl(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

static int
cmp_kagg(const void *x, const void *y)
{
	const struct kagg *a = *(struct kagg *const *)x, *b = *(struct kagg *const *)y;

	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	return strcmp(a->mangled, b->mangled);
}

/* The innermost NVTX range around t, or NULL. */
static const char *
range_at(const struct acc *a, int64_t t)
{
	const struct range *best = NULL;
	size_t i;

	for (i = 0; i < a->nr; i++)
		if (a->r[i].start <= t && t < a->r[i].end &&
		    (best == NULL || a->r[i].start >= best->start))
			best = &a->r[i];
	return best ? best->name : NULL;
}

static void
keep_gap(struct gap *g, size_t *n, const struct gap *x)
{
	size_t i;

	if (*n < NGAPS)
		g[(*n)++] = *x;
	else if (x->ns > g[NGAPS - 1].ns)
		g[NGAPS - 1] = *x;
	else
		return;
	for (i = *n - 1; i > 0 && g[i].ns > g[i - 1].ns; i--) {
		struct gap t = g[i];

		g[i] = g[i - 1];
		g[i - 1] = t;
	}
}

static cJSON *
bucket(cJSON *o, const char *key, double n, double ns)
{
	cJSON *b = cJSON_AddObjectToObject(o, key);

	cJSON_AddNumberToObject(b, "count", n);
	cJSON_AddNumberToObject(b, "ns", ns);
	return b;
}

/* The launches that began in the window [a->kfirst, a->klast]: their
 * count, the short ones, the median duration, into o. */
static void
window_launches(const struct acc *a, cJSON *o)
{
	double *d = xcalloc(a->ndur + 1, sizeof *d), nshort = 0, short_ns = 0;
	size_t i, n = 0;

	for (i = 0; i < a->ndur; i++)
		if (a->dstart[i] >= a->kfirst && a->dstart[i] <= a->klast) {
			d[n] = (double)(a->dend[i] - a->dstart[i]);
			if (d[n] < SHORT_NS) {
				nshort++;
				short_ns += d[n];
			}
			n++;
		}
	cJSON_AddNumberToObject(o, "launches", (double)n);
	bucket(o, "short_launches", nshort, short_ns);
	if (n > 0) {
		kf_sort(d, n, sizeof *d, cmp_dbl);
		cJSON_AddNumberToObject(o, "median_launch_ns", d[n / 2]);
	} else {
		cJSON_AddNullToObject(o, "median_launch_ns");
	}
	free(d);
}

/* The traced window (man/kf.7): the steady state a choice found where the
 * caller gives it (trace_data_window), else the program's own profiler range where it
 * has one (its launches' span), else from the first launch of the
 * program's kernel with the most GPU time (setup before it, loading and
 * copying weights, is not the program's steady work) to the last kernel's
 * end; the
 * GPU's work in it (clipped to it), the gaps under 1 ms in it (the launch
 * path) and the longer ones (the host's own work, left out of the window),
 * and the host-device copies in it; start_ns from first, the GPU's first
 * work. a->sp and a->k sorted. */
static cJSON *
window(struct acc *a, int64_t first)
{
	cJSON *o = cJSON_CreateObject();
	double busy = 0, idle = 0, out = 0, nidle = 0, nout = 0, copies = 0;
	int64_t cur = 0, last = 0, s0, s1;
	int any = 0;
	size_t i;

	for (i = 0; i < a->nk; i++)
		if (!kf_machinery_find(a->k[i]->demangled)) {
			a->kfirst = a->k[i]->first;
			break;
		}
	if (i == a->nk && a->nk > 0)
		a->kfirst = a->k[0]->first;
	if (a->rlast > a->rfirst) {
		a->kfirst = a->rfirst;
		a->klast = a->rlast;
	}
	if (a->slast > a->sfirst) {
		a->kfirst = a->sfirst;
		a->klast = a->slast;
	}
	cJSON_AddStringToObject(o, "from", a->slast > a->sfirst ? "steady_state" :
	    a->rlast > a->rfirst ? "profiler_range" : "top_kernel");
	cJSON_AddNumberToObject(o, "start_ns", (double)(a->kfirst - first));
	for (i = 0; i < a->nsp; i++) {
		s0 = a->sp[i].start > a->kfirst ? a->sp[i].start : a->kfirst;
		s1 = a->sp[i].end < a->klast ? a->sp[i].end : a->klast;
		if (s1 <= s0)
			continue;
		if (a->sp[i].host_copy)
			copies += (double)(s1 - s0);
		if (!any) {
			cur = s0;
			last = s1;
			any = 1;
		} else if (s0 > last) {
			double g = (double)(s0 - last);

			busy += (double)(last - cur);
			if (g < LONG_GAP_NS) {
				idle += g;
				nidle++;
			} else {
				out += g;
				nout++;
			}
			cur = s0;
			last = s1;
		} else if (s1 > last) {
			last = s1;
		}
	}
	if (any)
		busy += (double)(last - cur);
	cJSON_AddNumberToObject(o, "ns", busy + idle);
	cJSON_AddNumberToObject(o, "busy_ns", busy);
	cJSON_AddNumberToObject(o, "idle_ns", idle);
	cJSON_AddNumberToObject(o, "idle_gaps", nidle);
	cJSON_AddNumberToObject(o, "outside_ns", out);
	cJSON_AddNumberToObject(o, "outside_gaps", nout);
	cJSON_AddNumberToObject(o, "host_copy_ns", copies);
	window_launches(a, o);
	return o;
}

/* Busy time (the union of GPU work), the gaps between, where they fall. */
static cJSON *
timeline(struct acc *a, int64_t t0, int64_t t1)
{
	cJSON *o = cJSON_CreateObject(), *gaps, *big;
	struct gap top[NGAPS], x;
	size_t i, ng = 0;
	int64_t cur, first = 0, last = 0;
	const char *cur_what = NULL;
	double busy = 0, gn[3] = {0}, gns[3] = {0}, span, nshort = 0, short_ns = 0, ktotal = 0;

	if (a->nsp > 1)
		kf_sort(a->sp, a->nsp, sizeof *a->sp, cmp_span);
	for (i = 0; i < a->nsp; i++) {
		const struct span *s = &a->sp[i];

		if (i == 0) {
			first = s->start;
			cur = s->start;
			last = s->end;
			cur_what = s->what;
		} else if (s->start > last) {
			int b;

			x.start = last;
			x.ns = s->start - last;
			x.after = cur_what;
			x.before = s->what;
			b = x.ns < SHORT_NS ? 0 : x.ns < LONG_GAP_NS ? 1 : 2;
			gn[b]++;
			gns[b] += (double)x.ns;
			keep_gap(top, &ng, &x);
			busy += (double)(last - cur);
			cur = s->start;
		}
		if (s->end > last || i == 0) {
			last = s->end;
			cur_what = s->what;
		}
	}
	if (a->nsp > 0)
		busy += (double)(last - cur);
	span = (double)(last - first);
	for (i = 0; i < a->ndur; i++) {
		ktotal += a->dur[i];
		if (a->dur[i] < SHORT_NS) {
			nshort++;
			short_ns += a->dur[i];
		}
	}
	cJSON_AddNumberToObject(o, "traced_ns", (double)(t1 - t0));
	cJSON_AddNumberToObject(o, "span_ns", span);
	cJSON_AddNumberToObject(o, "start_after_ns", a->nsp ? (double)(first - t0) : 0);
	cJSON_AddNumberToObject(o, "busy_ns", busy);
	cJSON_AddNumberToObject(o, "busy_pct", span > 0 ? 100 * busy / span : 0);
	cJSON_AddNumberToObject(o, "idle_ns", span - busy);
	cJSON_AddNumberToObject(o, "kernel_ns", ktotal);
	cJSON_AddNumberToObject(o, "launches", (double)a->ndur);
	cJSON_AddNumberToObject(o, "launch_rate_per_s", span > 0 ? (double)a->ndur / (span / 1e9) : 0);
	if (a->ndur > 0) {
		kf_sort(a->dur, a->ndur, sizeof *a->dur, cmp_dbl);
		cJSON_AddNumberToObject(o, "median_launch_ns", a->dur[a->ndur / 2]);
	} else {
		cJSON_AddNullToObject(o, "median_launch_ns");
	}
	bucket(o, "short_launches", nshort, short_ns);
	gaps = cJSON_AddObjectToObject(o, "gaps");
	cJSON_AddNumberToObject(gaps, "count", gn[0] + gn[1] + gn[2]);
	cJSON_AddNumberToObject(gaps, "ns", gns[0] + gns[1] + gns[2]);
	bucket(gaps, "under_10us", gn[0], gns[0]);
	bucket(gaps, "10us_to_1ms", gn[1], gns[1]);
	bucket(gaps, "over_1ms", gn[2], gns[2]);
	cJSON_AddItemToObject(o, "window", window(a, first));
	big = cJSON_AddArrayToObject(o, "largest_gaps");
	for (i = 0; i < ng; i++) {
		cJSON *g = cJSON_CreateObject();
		const char *r = range_at(a, top[i].start);

		cJSON_AddNumberToObject(g, "at_ns", (double)(top[i].start - first));
		cJSON_AddNumberToObject(g, "ns", (double)top[i].ns);
		cJSON_AddStringToObject(g, "after", top[i].after);
		cJSON_AddStringToObject(g, "before", top[i].before);
		if (r)
			cJSON_AddStringToObject(g, "range", r);
		else
			cJSON_AddNullToObject(g, "range");
		cJSON_AddItemToArray(big, g);
	}
	return o;
}

static cJSON *
ints3(const int32_t *v)
{
	int w[3] = { v[0], v[1], v[2] };

	return cJSON_CreateIntArray(w, 3);
}

static cJSON *
kernel_json(const struct kagg *g, double total)
{
	cJSON *o = cJSON_CreateObject();
	const struct kf_machine *m = kf_machinery_find(g->demangled);
	const struct trace_kernel *k = g->longest;

	cJSON_AddStringToObject(o, "name", g->demangled);
	cJSON_AddStringToObject(o, "mangled", g->mangled);
	cJSON_AddNumberToObject(o, "launches", (double)g->launches);
	cJSON_AddNumberToObject(o, "total_ns", g->total);
	cJSON_AddNumberToObject(o, "share_pct", total > 0 ? 100 * g->total / total : 0);
	cJSON_AddNumberToObject(o, "mean_ns", g->total / (double)g->launches);
	cJSON_AddNumberToObject(o, "min_ns", g->min);
	cJSON_AddNumberToObject(o, "max_ns", g->max);
	if (g->graph_launches)
		cJSON_AddNumberToObject(o, "graph_launches", (double)g->graph_launches);
	/* The longest launch's configuration. */
	cJSON_AddItemToObject(o, "grid", ints3(k->grid));
	cJSON_AddItemToObject(o, "block", ints3(k->block));
	cJSON_AddNumberToObject(o, "registers_per_thread", k->regs);
	cJSON_AddNumberToObject(o, "static_shared_bytes", k->smem_static);
	cJSON_AddNumberToObject(o, "dynamic_shared_bytes", k->smem_dynamic);
	cJSON_AddNumberToObject(o, "device", k->device);
	cJSON_AddNumberToObject(o, "stream", k->stream);
	if (g->pid >= 0)
		cJSON_AddNumberToObject(o, "pid", (double)g->pid);
	if (m)
		cJSON_AddStringToObject(o, "machinery", m->framework);
	return o;
}

/* NVTX ranges by name: how many, and their time. */
static cJSON *
ranges_json(const struct acc *a)
{
	cJSON *out = cJSON_CreateArray(), *o;
	struct kf_map by = {0};
	size_t i;
	int created;

	for (i = 0; i < a->nr; i++) {
		struct kf_map_ent *e = kf_map_slot(&by, a->r[i].name, &created);

		if (created) {
			o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "name", a->r[i].name);
			cJSON_AddNumberToObject(o, "count", 0);
			cJSON_AddNumberToObject(o, "ns", 0);
			cJSON_AddItemToArray(out, o);
			e->val = o;
		}
		o = e->val;
		kf_set_num(o, "count", kf_num(o, "count", 0) + 1);
		kf_set_num(o, "ns", kf_num(o, "ns", 0) + (double)(a->r[i].end - a->r[i].start));
	}
	kf_map_free(&by);
	return out;
}

static cJSON *
file_json(const struct trace_file *f)
{
	cJSON *o = cJSON_CreateObject(), *d;
	const char *slash = strrchr(f->path, '/');
	size_t i;

	cJSON_AddStringToObject(o, "file", slash ? slash + 1 : f->path);
	cJSON_AddNumberToObject(o, "pid", (double)f->pid);
	cJSON_AddNumberToObject(o, "ppid", (double)f->ppid);
	cJSON_AddStringToObject(o, "cmd", f->cmd ? f->cmd : "");
	cJSON_AddNumberToObject(o, "cupti_version", (double)f->cupti);
	cJSON_AddBoolToObject(o, "complete", f->ended && !f->cut);
	if (f->ended)
		cJSON_AddStringToObject(o, "ended_by", f->end_how);
	else
		cJSON_AddNullToObject(o, "ended_by");
	cJSON_AddNumberToObject(o, "signal", (double)f->signal);
	cJSON_AddNumberToObject(o, "lines", (double)f->lines);
	cJSON_AddNumberToObject(o, "kernels", (double)f->nk);
	cJSON_AddNumberToObject(o, "bad_lines", (double)f->bad_lines);
	cJSON_AddBoolToObject(o, "cut_mid_line", f->cut);
	d = cJSON_AddObjectToObject(o, "dropped");
	for (i = 0; i < 6; i++)
		if (f->dropped[i])
			cJSON_AddNumberToObject(d, trace_drop_kinds[i], (double)f->dropped[i]);
	cJSON_AddNumberToObject(o, "cupti_dropped", (double)f->cupti_dropped);
	return o;
}

static void
acc_free(struct acc *a)
{
	size_t i;

	for (i = 0; i < a->nk; i++)
		free(a->k[i]);
	free(a->k);
	free(a->sp);
	free(a->dur);
	free(a->dstart);
	free(a->dend);
	free(a->r);
	kf_map_free(&a->byname);
	for (i = 0; i < NASIDE; i++)
		kf_map_free(&a->aside_kernels[i]);
	cJSON_Delete(a->copies);
	kf_chains_free(a->chains);
}

cJSON *
trace_data(struct trace_file *const *f, size_t n)
{
	return trace_data_window(f, n, 0, 0);
}

cJSON *
trace_data_window(struct trace_file *const *f, size_t n, int64_t from, int64_t to)
{
	cJSON *data = cJSON_CreateObject(), *files, *ks, *sets, *syncs, *e, *aa = NULL;
	struct acc a = {0};
	int64_t t0 = 0, t1 = 0;
	double total = 0;
	char **aside = xcalloc(n + 1, sizeof *aside);
	size_t i;

	a.sfirst = from;
	a.slast = to;

	a.copies = cJSON_CreateObject();
	a.chains = kf_chains_new();
	files = cJSON_AddArrayToObject(data, "files");
	for (i = 0; i < n; i++) {
		cJSON_AddItemToArray(files, file_json(f[i]));
		if (!f[i]->header)
			continue;
		if (t0 == 0 || f[i]->t0 < t0)
			t0 = f[i]->t0;
		if (f[i]->t1 > t1)
			t1 = f[i]->t1;
		aside[i] = file_aside(&a, f[i]);
		add_kernels(&a, f[i], aside[i]);
		add_chains(&a, f[i], aside[i]);
		add_ops(&a, f[i]);
		add_ranges(&a, f[i]);
	}
	after_aside(&a, f, n, aside);
	for (i = 0; i < n; i++)
		free(aside[i]);
	free(aside);
	if (a.nk > 1)
		kf_sort(a.k, a.nk, sizeof *a.k, cmp_kagg);
	for (i = 0; i < a.nk; i++)
		total += a.k[i]->total;
	cJSON_AddNumberToObject(data, "processes", (double)n);
	cJSON_AddNumberToObject(data, "launches", (double)a.ndur);
	cJSON_AddNumberToObject(data, "kernel_count", (double)a.nk);
	cJSON_AddNumberToObject(data, "total_ns", total);
	ks = cJSON_AddArrayToObject(data, "kernels");
	for (i = 0; i < a.nk && i < MAX_LISTED; i++)
		cJSON_AddItemToArray(ks, kernel_json(a.k[i], total));
	cJSON_AddBoolToObject(data, "kernels_cut", a.nk > MAX_LISTED);
	for (i = 1; i < NASIDE; i++) {
		if (a.aside_n[i] == 0)
			continue;
		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "name", aside_name[i]);
		cJSON_AddNumberToObject(e, "launches", a.aside_n[i]);
		cJSON_AddNumberToObject(e, "total_ns", a.aside_ns[i]);
		cJSON_AddNumberToObject(e, "kernel_count", (double)a.aside_kernels[i].n);
		if (aa == NULL)
			aa = cJSON_AddArrayToObject(data, "set_aside");
		cJSON_AddItemToArray(aa, e);
	}
	cJSON_AddItemToObject(data, "timeline", timeline(&a, t0, t1));
	cJSON_AddItemToObject(data, "copies", a.copies);
	a.copies = NULL;
	sets = cJSON_AddObjectToObject(data, "sets");
	cJSON_AddNumberToObject(sets, "count", a.set_n);
	cJSON_AddNumberToObject(sets, "bytes", a.set_bytes);
	cJSON_AddNumberToObject(sets, "ns", a.set_ns);
	syncs = cJSON_AddObjectToObject(data, "syncs");
	cJSON_AddNumberToObject(syncs, "count", a.sync_n);
	cJSON_AddNumberToObject(syncs, "ns", a.sync_ns);
	cJSON_AddItemToObject(data, "ranges", ranges_json(&a));
	cJSON_AddItemToObject(data, "chains", kf_chains_json(a.chains,
	    "kf trace: the launches in order of their start on each stream"));
	acc_free(&a);
	return data;
}
