/* Feedback from Nsight Compute data: the longest launch's Speed Of Light,
 * its bottleneck and roofline rules, launch configuration and occupancy,
 * every kernel ranked by GPU time, and ncu's rules ranked by speedup.
 *
 * Reads rec["collated"] as ncu_read wrote it; adds sections and analysis to
 * fb, which owns them. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "buf.h"
#include "feedback.h"
#include "mem.h"
#include "ncu.h"
#include "ncu_diag.h"
#include "ncu_fb.h"
#include "ncu_pages.h"
#include "profiler.h"
#include "program.h"
#include "record.h"

/* The throughputs the reference reports, plus Memory; older ncu versions
 * named them differently. */
static const struct tp {
	const char *key, *label;
	const char *names[4];
} tps[] = {
	{ "compute_sm_pct", "Compute (SM) Throughput",
	  { "Compute (SM) Throughput", "SM [%]", "SOL SM", NULL } },
	{ "memory_pct", "Memory Throughput", { "Memory Throughput", "Memory [%]", NULL } },
	{ "l1tex_pct", "L1/TEX Cache Throughput",
	  { "L1/TEX Cache Throughput", "SOL TEX", "SOL L1/TEX Cache", NULL } },
	{ "l2_pct", "L2 Cache Throughput", { "L2 Cache Throughput", "SOL L2", NULL } },
	{ "dram_pct", "DRAM Throughput", { "DRAM Throughput", "SOL FB", "SOL DRAM", NULL } },
};

static const char *const sol_sections[] = { NCU_SOL, "GPU Speed Of Light", NULL };

/* Metric lookup */

/* kf-feedback reads metric sections and rules as text: each is parsed when
 * first looked at (kf_json_lazy). */
static const cJSON *
metric(const cJSON *k, const char *section, const char *name)
{
	return kf_obj(kf_json_lazy(kf_obj(k, "metrics"), section), name);
}

static int
metric_num(const cJSON *k, const char *section, const char *name, double *v,
    const char **unit)
{
	const cJSON *m = metric(k, section, name);
	const cJSON *val = cJSON_GetObjectItemCaseSensitive(m, "value");

	if (!cJSON_IsNumber(val))
		return 0;
	*v = val->valuedouble;
	if (unit)
		*unit = kf_str(m, "unit") ? kf_str(m, "unit") : "";
	return 1;
}

static int
sol_num(const cJSON *k, const char *const *names, double *v, const char **unit)
{
	int i, j;

	for (i = 0; sol_sections[i]; i++)
		for (j = 0; names[j]; j++)
			if (metric_num(k, sol_sections[i], names[j], v, unit))
				return 1;
	return 0;
}

/* The launch's duration: the Speed Of Light "Duration", else the first
 * metric whose name says duration (as the reference looks for it). */
static int
duration_ns(const cJSON *k, double *ns)
{
	static const char *const names[] = { "Duration", NULL };
	const cJSON *metrics = kf_obj(k, "metrics"), *sec, *m;
	const char *unit;
	double v;

	if (sol_num(k, names, &v, &unit))
		return ncu_to_ns(unit, v, ns);
	for (sec = metrics ? metrics->child : NULL; sec; sec = sec->next) {
		sec = kf_json_lazy_item(metrics, sec);
		cJSON_ArrayForEach(m, sec) {
			const cJSON *val = cJSON_GetObjectItemCaseSensitive(m, "value");

			if (m->string && strcasestr(m->string, "duration") && cJSON_IsNumber(val) &&
			    ncu_to_ns(kf_str(m, "unit") ? kf_str(m, "unit") : "", val->valuedouble, ns))
				return 1;
		}
	}
	return 0;
}

/* Sections of the text */

static void
fmt_dim(struct buf *b, const cJSON *d)
{
	const cJSON *x;
	int first = 1;

	if (cJSON_IsString(d)) {
		buf_puts(b, d->valuestring);
		return;
	}
	if (!cJSON_IsArray(d)) {
		buf_puts(b, "(not in the report)");
		return;
	}
	buf_putc(b, '(');
	cJSON_ArrayForEach(x, d) {
		buf_printf(b, "%s%.0f", first ? "" : ", ", x->valuedouble);
		first = 0;
	}
	buf_putc(b, ')');
}

static void
fmt_value(struct buf *b, double v, const char *unit)
{
	if (strcmp(unit, "%") == 0)
		kf_fmt_pct(b, v);
	else
		buf_printf(b, "%.15g%s%s", v, unit[0] ? " " : "", unit);
}

/* The NVTX ranges open at the launch, outermost first: "outer > inner". */
static void
say_nvtx(struct buf *b, const cJSON *k, cJSON *focus)
{
	const cJSON *r, *ranges = kf_arr(kf_obj(k, "nvtx"), "ranges");
	cJSON *names;
	int n = 0;

	if (ranges == NULL || cJSON_GetArraySize(ranges) == 0)
		return;
	names = cJSON_AddArrayToObject(focus, "nvtx");
	buf_puts(b, "\nNVTX ranges: ");
	cJSON_ArrayForEach(r, ranges) {
		const char *name = kf_str(r, "name"), *dom = kf_str(r, "domain");

		if (name == NULL)
			continue;
		buf_printf(b, "%s%s%s%s", n++ ? " > " : "", dom && strcmp(dom, "<default domain>") ?
		    dom : "", dom && strcmp(dom, "<default domain>") ? ":" : "", name);
		cJSON_AddItemToArray(names, cJSON_CreateString(name));
	}
	buf_putc(b, '.');
}

/* Where the focus launch sits: "(ID 63, process 1965 python3.12), duration 97.0 us" */
static void
say_launch_id(struct buf *b, const struct ncu_timed *f)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(f->k, "id");
	const cJSON *pid = cJSON_GetObjectItemCaseSensitive(f->k, "process_id");
	const char *pname = kf_str(f->k, "process_name");

	if (cJSON_IsNumber(id))
		buf_printf(b, " (ID %.0f", id->valuedouble);
	if (cJSON_IsNumber(pid))
		buf_printf(b, "%sprocess %.0f%s%s", cJSON_IsNumber(id) ? ", " : " (",
		    pid->valuedouble, pname ? " " : "", pname ? pname : "");
	if (cJSON_IsNumber(id) || cJSON_IsNumber(pid))
		buf_putc(b, ')');
	if (f->has_ns) {
		buf_puts(b, ", duration ");
		kf_fmt_ns(b, f->ns);
	} else {
		buf_puts(b, "; its duration is missing from the report");
	}
	buf_putc(b, '.');
}

struct pick {
	const struct kf_rank_ent *e;	/* the focus kernel */
	enum kf_focus_how how;
	size_t matches;
	size_t nlaunch;			/* launches profiled, all kernels */
	int timed;			/* the ranking is a timing run's (--top) */
	const struct kf_rank_ent *wanted;	/* the kernel picked, when it has no
					 * launch in detail (NULL otherwise) */
};

/* "Kernel: NAME", one line saying why this kernel, and which launch the
 * numbers come from. */
static void
say_head(struct kf_fb *fb, const struct kf_rank *rank, const struct pick *p,
    const struct ncu_timed *f, cJSON *focus)
{
	const char *name = kf_str(f->k, "name");
	char *shortname = kf_rank_shown(rank, name ? name : "unnamed kernel");
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(f->k, "id");
	const cJSON *pid = cJSON_GetObjectItemCaseSensitive(f->k, "process_id");
	struct buf b = {0}, why = {0};

	kf_fb_kernel(&b, shortname, NAN);
	if (p->nlaunch == 1 && !p->timed && p->how != KF_FOCUS_UNMATCHED) {
		buf_puts(&b, "\nThe only kernel launch profiled");
	} else {
		if (p->wanted) {
			char *w = kf_rank_shown(rank, p->wanted->name);

			buf_printf(&why, "Why this kernel: the kernel picked, %s (%.1f%% of the "
			    "GPU time), has no launch profiled in detail, so the focus is the "
			    "next one by GPU time that has: %.1f%%, ", w, p->wanted->share,
			    p->e->share);
			kf_fmt_ns(&why, p->e->total_ns);
			buf_printf(&why, " over %ld launch%s.", p->e->launches,
			    p->e->launches == 1 ? "" : "es");
			free(w);
		} else {
			kf_rank_why(rank, p->e, p->how, fb->opt->focus, p->matches, &why);
		}
		buf_printf(&b, "\n%s\nThe numbers below are from ", why.s);
		if (p->timed && p->how != KF_FOCUS_LONGEST)
			buf_puts(&b, "its launch profiled in detail");
		else if (p->how == KF_FOCUS_LONGEST)
			buf_printf(&b, "the longest of the %zu kernel launches profiled", p->nlaunch);
		else if (p->e->launches > 1)
			buf_printf(&b, "its longest launch of %ld", p->e->launches);
		else
			buf_puts(&b, "its only launch");
	}
	say_launch_id(&b, f);
	say_nvtx(&b, f->k, focus);
	kf_fb_add_buf(fb, FB_HEAD, &b);

	cJSON_AddStringToObject(focus, "name", name ? name : "");
	cJSON_AddStringToObject(focus, "short_name", shortname);
	if (id)
		cJSON_AddItemToObject(focus, "id", cJSON_Duplicate(id, 1));
	if (pid)
		cJSON_AddItemToObject(focus, "process_id", cJSON_Duplicate(pid, 1));
	cJSON_AddItemToObject(focus, "duration_ns", kf_json_num(f->has_ns ? f->ns : NAN));
	kf_core_time(focus, f->has_ns ? f->ns : NAN, "duration");
	cJSON_AddStringToObject(focus, "reason", p->nlaunch == 1 && !p->timed ? "only_launch" :
	    p->wanted ? "next_with_details" : kf_focus_how_name(p->how));
	if (why.s)
		cJSON_AddStringToObject(focus, "why", why.s + strlen("Why this kernel: "));
	cJSON_AddNumberToObject(focus, "total_ns", p->e->total_ns);
	cJSON_AddNumberToObject(focus, "launches", (double)p->e->launches);
	cJSON_AddNumberToObject(focus, "share_pct", p->e->share);
	if (p->e->machine)
		cJSON_AddStringToObject(focus, "machinery", p->e->machine->what);
	buf_free(&why);
	free(shortname);
}

static void
say_throughput(struct kf_fb *fb, const cJSON *k, cJSON *focus)
{
	cJSON *tp = cJSON_AddObjectToObject(focus, "throughput");
	struct buf b = {0};
	size_t i;

	buf_puts(&b, "Throughput (Speed Of Light, share of peak):");
	for (i = 0; i < sizeof tps / sizeof tps[0]; i++) {
		const char *unit;
		double v;
		int ok = sol_num(k, tps[i].names, &v, &unit);

		buf_printf(&b, "\n  - %s: ", tps[i].label);
		if (ok)
			fmt_value(&b, v, unit);
		else
			buf_puts(&b, "missing from the report");
		cJSON_AddItemToObject(tp, tps[i].key, kf_json_num(ok ? v : NAN));
	}
	kf_fb_add_buf(fb, FB_HEAD, &b);
}

/* The limiter when the report has no raw page (no pipe counters, no
 * roofline): the Speed Of Light throughputs alone (focus.throughput), read
 * as the raw page's units are (ncu_roof.c's limiter), so that a launch
 * gets one verdict whichever pages its report has: Compute (SM), Memory
 * Throughput or a memory level (L1/TEX, L2, DRAM) at 60% or more of peak
 * bounds the kernel (the highest), else latency does (ncu's SOLBottleneck
 * test, which a level over 60% under a Memory Throughput below it parts
 * from: cuDNN's bn_fw_inf with L2 at 69.1% and Memory Throughput 50.5%).
 * The memory level named is the busiest, DRAM over the caches its bytes
 * pass through within 10 points or at its roof (a float4 copy at 81% of
 * DRAM and 87% of L2 is DRAM-bound, where ncu's rule says to start). The diagnosis
 * (sol_diag) and the core's limiter (say_limiter) both say this one
 * verdict. The threshold is NCU_NEAR_PEAK, the one the roofline's
 * verdict uses. */

struct sol_verdict {
	const char *bound;	/* "compute", "memory", "latency" */
	const char *unit;	/* "sm", "l1", "l2", "dram" */
	const char *key;	/* its focus.throughput key */
	double pct;		/* that unit's share of its peak */
	double sm, mem;		/* Compute (SM), Memory Throughput: NAN if absent */
	const char *level_label;	/* the busiest memory level, its label */
	double level;		/* and its share */
};

static int
sol_verdict(const cJSON *tp, struct sol_verdict *v)
{
	static const struct { const char *key, *unit; } lv[] = {
		{ "l1tex_pct", "l1" }, { "l2_pct", "l2" }, { "dram_pct", "dram" },
	};
	const char *lunit = NULL, *lkey = NULL;
	size_t i, j;

	memset(v, 0, sizeof *v);
	v->sm = kf_num(tp, "compute_sm_pct", NAN);
	v->mem = kf_num(tp, "memory_pct", NAN);
	v->level = NAN;
	for (i = 0; i < sizeof lv / sizeof lv[0]; i++) {
		double x = kf_num(tp, lv[i].key, NAN);

		if (!isnan(x) && (isnan(v->level) || x > v->level)) {
			v->level = x;
			lunit = lv[i].unit;
			lkey = lv[i].key;
			for (j = 0; j < sizeof tps / sizeof tps[0]; j++)
				if (strcmp(tps[j].key, lkey) == 0)
					v->level_label = tps[j].label;
		}
	}
	if (isnan(v->mem))
		v->mem = v->level;	/* an old report without Memory Throughput */
	if (isnan(v->sm) && isnan(v->mem))
		return 0;
	{
		double dram = kf_num(tp, "dram_pct", NAN);

		if (lunit && strcmp(lunit, "dram") != 0 && dram >= NCU_NEAR_PEAK &&
		    (dram >= v->level - 10 || dram >= NCU_AT_ROOF)) {
			v->level = dram;
			lunit = "dram";
			lkey = "dram_pct";
			v->level_label = "DRAM Throughput";
		}
	}
	if (!isnan(v->sm) && v->sm >= NCU_NEAR_PEAK && (isnan(v->mem) || v->sm >= v->mem) &&
	    (isnan(v->level) || v->sm >= v->level)) {
		v->bound = "compute";
		v->unit = "sm";
		v->key = "compute_sm_pct";
		v->pct = v->sm;
	} else if ((!isnan(v->mem) && v->mem >= NCU_NEAR_PEAK) ||
	    (!isnan(v->level) && v->level >= NCU_NEAR_PEAK)) {
		/* no level in the report: memory as a whole */
		v->bound = "memory";
		v->unit = lunit ? lunit : "memory";
		v->key = lkey ? lkey : "memory_pct";
		v->pct = lunit ? v->level : v->mem;
	} else {
		v->bound = "latency";
		if (lunit != NULL && (isnan(v->sm) || v->level > v->sm)) {
			v->unit = lunit;
			v->key = lkey;
			v->pct = v->level;
		} else {
			v->unit = "sm";
			v->key = "compute_sm_pct";
			v->pct = v->sm;
		}
	}
	return 1;
}

/* The core's limiter (analysis.h): the roofline's verdict and the level
 * closest to its peak where the raw page gave a roofline, else the Speed Of
 * Light verdict (sol_verdict), the one the diagnosis says. */
static void
say_limiter(cJSON *focus)
{
	static const char *const units[][2] = {
		{ "tensor", "tensor" }, { "fma", "fma" }, { "fp64", "fp64" }, { "alu", "alu" },
		{ "xu", "xu" }, { "lsu", "lsu" }, { "shared", "shared" }, { "l1", "l1" },
		{ "l2", "l2" }, { "dram", "dram" }, { "issue", "issue" },
	};
	const cJSON *roof = kf_obj(focus, "roof"), *tie;
	const char *key, *unit = NULL;
	struct sol_verdict v;
	size_t i;

	if (roof == NULL) {
		if (sol_verdict(kf_obj(focus, "throughput"), &v))
			kf_core_limiter(focus, v.bound, v.unit, v.pct, NULL, v.key);
		else
			kf_core_limiter(focus, NULL, NULL, NAN, NULL, NULL);
		return;
	}
	key = kf_str(roof, "limiter");
	for (i = 0; key && i < sizeof units / sizeof units[0]; i++)
		if (strcmp(key, units[i][0]) == 0)
			unit = units[i][1];
	kf_core_limiter(focus, cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(roof,
	    "latency_bound")) ? "latency" : kf_str(roof, "bound"), unit,
	    kf_num(roof, "limiter_pct", NAN), NULL, "roof.limiter_pct");
	if ((tie = kf_obj(roof, "limiter_tie")) != NULL)
		kf_core_limiter_tie(focus, kf_str(tie, "unit"), kf_num(tie, "pct", NAN),
		    kf_num(tie, "within_points", NAN), "roof.limiter_tie");
}

static void
say_launch(struct kf_fb *fb, const cJSON *k, cJSON *focus)
{
	static const struct { const char *name, *label, *key; } ls[] = {
		{ "Registers Per Thread", "registers per thread", "registers_per_thread" },
		{ "Static Shared Memory Per Block", "static shared memory per block",
		  "static_shared_mem_per_block" },
		{ "Dynamic Shared Memory Per Block", "dynamic shared memory per block",
		  "dynamic_shared_mem_per_block" },
		{ "Waves Per SM", "waves per SM", "waves_per_sm" },
	};
	static const struct { const char *name, *label, *key; } oc[] = {
		{ "Theoretical Occupancy", "theoretical", "theoretical_pct" },
		{ "Achieved Occupancy", "achieved", "achieved_pct" },
	};
	cJSON *launch = cJSON_AddObjectToObject(focus, "launch");
	cJSON *occ = cJSON_AddObjectToObject(focus, "occupancy");
	const cJSON *block = cJSON_GetObjectItemCaseSensitive(k, "block");
	const cJSON *grid = cJSON_GetObjectItemCaseSensitive(k, "grid");
	struct buf b = {0};
	const char *unit;
	size_t i;
	double v;

	buf_puts(&b, "Launch configuration: block ");
	fmt_dim(&b, block);
	buf_puts(&b, ", grid ");
	fmt_dim(&b, grid);
	cJSON_AddItemToObject(launch, "block", block ? cJSON_Duplicate(block, 1) : cJSON_CreateNull());
	cJSON_AddItemToObject(launch, "grid", grid ? cJSON_Duplicate(grid, 1) : cJSON_CreateNull());
	for (i = 0; i < sizeof ls / sizeof ls[0]; i++) {
		int ok = metric_num(k, NCU_LAUNCH, ls[i].name, &v, &unit);

		buf_printf(&b, ", %s ", ls[i].label);
		if (ok) {
			/* The label says "per thread", "per block": "16", "0 bytes",
			 * "13.06 Kbytes", not "16 register/thread", "0 byte/block". */
			const char *sl = strchr(unit, '/');
			char u[32];

			if (sl == NULL || strncmp(unit, "register/", 9) == 0)
				snprintf(u, sizeof u, "%s", sl ? "" : unit);
			else
				snprintf(u, sizeof u, "%.*s%s", (int)(sl - unit), unit,
				    v != 1 && sl - unit >= 4 && strncmp(sl - 4, "byte", 4) == 0 ?
				    "s" : "");
			fmt_value(&b, v, u);
		} else {
			buf_puts(&b, "missing");
		}
		cJSON_AddItemToObject(launch, ls[i].key, kf_json_num(ok ? v : NAN));
	}
	buf_puts(&b, ".\nOccupancy:");
	for (i = 0; i < sizeof oc / sizeof oc[0]; i++) {
		int ok = metric_num(k, NCU_OCCUPANCY, oc[i].name, &v, &unit);

		buf_printf(&b, "%s %s ", i ? "," : "", oc[i].label);
		if (ok)
			fmt_value(&b, v, unit);
		else
			buf_puts(&b, "missing");
		cJSON_AddItemToObject(occ, oc[i].key, kf_json_num(ok ? v : NAN));
	}
	buf_putc(&b, '.');
	kf_fb_add_buf(fb, FB_ADVICE, &b);
}

/* Why kernel name of the ranking has no launch profiled in detail. */
static void
why_none(struct buf *b, const cJSON *data, const char *name)
{
	const cJSON *t = kf_obj(data, "timing"), *c;

	cJSON_ArrayForEach(c, kf_arr(t, "missing"))
		if (cJSON_IsString(c) && strcmp(c->valuestring, name) == 0) {
			buf_puts(b, " no launch profiled in detail: it was chosen, but the "
			    "detailed run did not profile it (see the note above)");
			return;
		}
	if (kf_arr(t, "chosen"))
		buf_printf(b, " no launch profiled in detail: not among the %.0f kernel%s "
		    "chosen for the detailed run (kf-wrap --top)", kf_num(t, "top", 0),
		    kf_num(t, "top", 0) == 1 ? "" : "s");
	else
		buf_puts(b, " no launch profiled in detail");
}

/* One kernel's line: its longest launch's throughputs and duration, or
 * why it has none. */
static void
say_other(struct buf *b, const struct ncu_timed *best, const cJSON *data, const char *name,
    cJSON *o)
{
	size_t j, n = 0;
	double v;
	const char *unit;

	if (best == NULL) {
		why_none(b, data, name);
		return;
	}
	for (j = 0; j < sizeof tps / sizeof tps[0]; j++) {
		if (strcmp(tps[j].key, "compute_sm_pct") && strcmp(tps[j].key, "memory_pct"))
			continue;
		if (sol_num(best->k, tps[j].names, &v, &unit)) {
			buf_printf(b, "%s %s ", n++ ? ";" : "", tps[j].label);
			fmt_value(b, v, unit);
			cJSON_AddNumberToObject(o, tps[j].key, v);
		}
	}
	if (best->has_ns) {
		buf_printf(b, "%s duration ", n++ ? ";" : "");
		kf_fmt_ns(b, best->ns);
		cJSON_AddNumberToObject(o, "duration_ns", best->ns);
		kf_core_time(o, best->ns, "duration");
	}
	if (n == 0)
		buf_puts(b, " its profiled launch has no Speed Of Light throughput or duration");
}

/* The other kernels near the top: their longest launch in one line each,
 * under one heading. */
static void
say_others(struct kf_fb *fb, const struct kf_rank *rank, const struct ncu_timed *l,
    size_t nl, const struct ncu_timed *focus, cJSON *kernels, const cJSON *data)
{
	struct buf b = {0};
	size_t i, j, top = fb->opt->top > 0 ? (size_t)fb->opt->top : 0;
	const char *fname = kf_str(focus->k, "name");

	buf_puts(&b, "Other top kernels (their longest launch profiled in detail):");
	for (i = 0; i < rank->n && i < top; i++) {
		const struct ncu_timed *best = NULL;
		cJSON *o;

		if ((fname && strcmp(rank->v[i].name, fname) == 0) || rank->v[i].machine)
			continue;
		for (j = 0; j < nl; j++) {
			const char *n = kf_str(l[j].k, "name");

			if (n && strcmp(n, rank->v[i].name) == 0 &&
			    (best == NULL || (l[j].has_ns && l[j].ns > best->ns)))
				best = &l[j];
		}
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", rank->v[i].name);
		cJSON_AddStringToObject(o, "short_name", rank->v[i].shown);
		cJSON_AddStringToObject(o, "role", "top");
		cJSON_AddNumberToObject(o, "total_ns", rank->v[i].total_ns);
		cJSON_AddNumberToObject(o, "launches", (double)rank->v[i].launches);
		cJSON_AddNumberToObject(o, "share_pct", rank->v[i].share);
		cJSON_AddBoolToObject(o, "detailed", best != NULL);
		buf_printf(&b, "\n- %s:", rank->v[i].shown);
		say_other(&b, best, data, rank->v[i].name, o);
		cJSON_AddItemToArray(kernels, o);
	}
	if (cJSON_GetArraySize(kernels) > 1)
		kf_fb_add_buf(fb, FB_MINOR, &b);
	buf_free(&b);
}

static void
say_notes(struct kf_fb *fb, const cJSON *data, size_t nl)
{
	const cJSON *code = cJSON_GetObjectItemCaseSensitive(data, "app_exit_code");

	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(data, "truncated")))
		kf_fb_add(fb, FB_KEY, "Note: the ncu report was cut off; this feedback "
		    "covers the %zu complete kernel launch%s in it.", nl, nl == 1 ? "" : "es");
	if (cJSON_IsNumber(code)) {
		/* No guess at a signal from the number: ncu gives only the number. */
		kf_fb_add(fb, FB_HEAD, "Note: the program exited with status %.0f after the "
		    "profiled kernels ran (ncu: \"The application returned an error code\"); "
		    "the numbers below are from complete kernel launches, only those that ran "
		    "before it ended.", code->valuedouble);
	}
}

/* The focus: the kernel --focus picks (by default the program's kernel
 * with the most GPU time), and the launch the details come from (its
 * longest; with --focus longest the longest launch of the program's own
 * kernels, of all if only machinery ran). */
/* The longest of the launches of kernel name in l, or NULL. */
static const struct ncu_timed *
longest_of(const struct ncu_timed *l, size_t nl, const char *name)
{
	const struct ncu_timed *f = NULL;
	size_t i;

	for (i = 0; i < nl; i++) {
		const char *n = kf_str(l[i].k, "name");

		if (strcmp(n ? n : "unnamed kernel", name) == 0 &&
		    (f == NULL || (l[i].has_ns && (!f->has_ns || l[i].ns > f->ns))))
			f = &l[i];
	}
	return f;
}

static const struct ncu_timed *
pick_focus(const struct kf_fb *fb, const struct kf_rank *rank, const struct ncu_timed *l,
    size_t nl, struct pick *p)
{
	const struct ncu_timed *f = NULL;
	const char *want;
	size_t i;
	int own = kf_rank_own(rank) > 0;

	p->e = kf_rank_pick(rank, fb->opt->focus, &p->how, &p->matches);
	p->nlaunch = nl;
	want = p->e->name;
	for (i = 0; i < nl; i++) {
		const char *name = kf_str(l[i].k, "name");
		int ok;

		if (name == NULL)
			name = "unnamed kernel";
		if (p->how == KF_FOCUS_LONGEST)
			ok = !own || kf_machinery_find(name) == NULL;
		else
			ok = strcmp(name, want) == 0;
		if (ok && (f == NULL || (l[i].has_ns && (!f->has_ns || l[i].ns > f->ns))))
			f = &l[i];
	}
	/* A kernel of the timing run with no launch profiled in detail (it
	 * did not run the second time): the next one by time that has one. */
	for (i = 0; f == NULL && i < rank->n; i++)
		f = longest_of(l, nl, rank->v[i].name);
	if (f == NULL)
		f = &l[0];
	if (p->how == KF_FOCUS_LONGEST || strcmp(kf_str(f->k, "name") ?
	    kf_str(f->k, "name") : "unnamed kernel", want) != 0) {
		const char *name = kf_str(f->k, "name");
		const struct kf_rank_ent *e = kf_rank_find(rank, name ? name : "unnamed kernel", NULL);

		if (e && e != p->e && p->how != KF_FOCUS_LONGEST)
			p->wanted = p->e;
		if (e)
			p->e = e;
	}
	return f;
}


static void
sol_diag(struct kf_fb *fb, const cJSON *k, const cJSON *tp)
{
	struct sol_verdict v;
	struct kf_finding *f;
	const char *pu = NULL, *rn;
	char pname[32];
	double pp, est;

	if (!sol_verdict(tp, &v))
		return;
	if (strcmp(v.bound, "compute") == 0 && ncu_rule_pipe(k, &pu, pname, sizeof pname, &pp)) {
		f = kf_diag_add(&fb->diag, KF_COMPUTE_BOUND, pu, NAN,
		    "Compute-bound: Compute (SM) Throughput %.1f%% of its peak (Speed Of Light), "
		    "the busiest pipe %s at %.1f%% (ncu's HighPipeUtilization rule)", v.sm,
		    pu ? ncu_unit_label(pu) : pname, pp);
		kf_finding_ev(f, "Compute (SM) Throughput", v.sm, "%");
		kf_finding_ev(f, "HighPipeUtilization: the highest-utilized pipeline", pp, "%");
		kf_finding_impact(f, 100 - v.sm, "100 - Compute (SM) Throughput (headroom to the "
		    "SM's roof; the report has no raw page to measure the pipe's own)");
		if (pu)
			kf_finding_fix(f, "%s", ncu_unit_fix(pu));
		else
			kf_finding_fix(f, "fewer instructions per result on the %s pipe", pname);
	} else if (strcmp(v.bound, "compute") == 0) {
		f = kf_diag_add(&fb->diag, KF_COMPUTE_BOUND, NULL, NAN,
		    "Compute-bound: Compute (SM) Throughput %.1f%% of its peak (Speed Of Light; "
		    "this report has no raw page, and ncu's rules name no pipe)", v.sm);
		kf_finding_ev(f, "Compute (SM) Throughput", v.sm, "%");
		kf_finding_impact(f, 100 - v.sm, "100 - Compute (SM) Throughput (headroom to the "
		    "SM's roof)");
		kf_finding_fix(f, "do less work per result on the busiest pipe: profile again "
		    "with kf-wrap ncu, whose kf-ncu exports the raw page that names the pipe, "
		    "before rewriting");
	} else if (strcmp(v.bound, "memory") == 0) {
		if (v.level_label) {
			f = kf_diag_add(&fb->diag, KF_MEMORY_BOUND, v.unit, NAN,
			    "Memory-bound on %s: %s %.1f%% of its peak, Memory Throughput %.1f%% "
			    "(Speed Of Light)%s", ncu_unit_label(v.unit), v.level_label, v.pct, v.mem,
			    v.mem < NCU_NEAR_PEAK ? "; ncu's SOLBottleneck rule weighs Memory "
			    "Throughput alone, under 60%, and says latency: the level is over 60%" :
			    v.pct >= NCU_AT_ROOF ? "; at its roof: only fewer bytes gain more than its "
			    "headroom" : "");
			kf_finding_ev(f, v.level_label, v.pct, "%");
			kf_finding_ev(f, "Memory Throughput", v.mem, "%");
			kf_finding_impact(f, 100 - v.pct, "100 - %s (headroom to the level's roof)",
			    v.level_label);
		} else {
			f = kf_diag_add(&fb->diag, KF_MEMORY_BOUND, NULL, NAN,
			    "Memory-bound: Memory Throughput %.1f%% of its peak (Speed Of Light; "
			    "the report names no memory level)", v.mem);
			kf_finding_ev(f, "Memory Throughput", v.mem, "%");
			kf_finding_impact(f, 100 - v.mem, "100 - Memory Throughput (headroom to the "
			    "memory's roof)");
		}
		kf_finding_fix(f, "%s", ncu_unit_fix(v.unit));
	} else {
		struct buf b = {0};

		if (isnan(v.sm))
			buf_printf(&b, "Memory Throughput (%.1f%%) does not", v.mem);
		else if (isnan(v.mem))
			buf_printf(&b, "Compute (SM) Throughput (%.1f%%) does not", v.sm);
		else
			buf_printf(&b, "neither Compute (SM) Throughput (%.1f%%) nor Memory "
			    "Throughput (%.1f%%)", v.sm, v.mem);
		f = kf_diag_add(&fb->diag, KF_LATENCY_BOUND, NULL, NAN,
		    "Latency-bound: %s reach%s %d%% of peak (Speed Of Light, ncu's SOLBottleneck "
		    "threshold); this report has no raw page or stall counters, so what the warps "
		    "wait for is not known", b.s, isnan(v.sm) || isnan(v.mem) ? "" : "es",
		    NCU_NEAR_PEAK);
		buf_free(&b);
		if (!isnan(v.sm))
			kf_finding_ev(f, "Compute (SM) Throughput", v.sm, "%");
		if (!isnan(v.mem))
			kf_finding_ev(f, "Memory Throughput", v.mem, "%");
		if (ncu_rule_latency(k, &rn, &est))
			kf_finding_impact(f, est, "ncu's %s rule's estimated speedup", rn);
		else
			kf_finding_impact(f, 100 - fmax(isnan(v.sm) ? 0 : v.sm, isnan(v.mem) ? 0 :
			    v.mem), "100 - the higher Speed Of Light throughput (headroom to its "
			    "roof; ncu gave no estimate for issue slots or stalls)");
		kf_finding_fix(f, "give the GPU more independent work (more blocks, more work "
		    "per thread in flight), and profile again with kf-wrap ncu (its kf-ncu exports "
		    "the raw page, with the stall reasons)");
	}
	kf_finding_kernel(f, kf_str(k, "name"));
}

void
ncu_feedback(const cJSON *rec, struct kf_fb *fb)
{
	const cJSON *data = kf_obj(rec, "collated"), *k;
	cJSON *focus, *kernels, *fk;
	struct kf_rank rank = {0};
	struct ncu_timed *l = NULL;
	const struct ncu_timed *f;
	struct pick pk = {0};
	struct ncu_roof roof;
	size_t nl = 0, i;
	int raw, timed, has_roof;

	cJSON_ArrayForEach(k, kf_arr(data, "kernels")) {
		l = xrealloc(l, (nl + 1) * sizeof *l);
		l[nl].k = k;
		l[nl].has_ns = duration_ns(k, &l[nl].ns);
		if (!l[nl].has_ns)
			l[nl].ns = 0;
		nl++;
	}
	ncu_profiler_failed(fb, data);
	if (nl == 0 && ncu_timing_only(fb, data)) {
		free(l);
		return;
	}
	if (nl == 0) {
		kf_fb_add(fb, FB_HEAD, "The ncu report holds no kernel launch, so there are "
		    "no performance numbers for this run.");
		kf_set_str(fb->analysis, "status", "no_kernels");
		free(l);
		return;
	}
	/* The ranking: every launch of the timing run (kf-wrap --top), whatever
	 * the detailed run profiled (kf-read gives its launches the timing
	 * run's names), else the launches profiled in detail. */
	timed = ncu_timing_rank(data, &rank);
	if (!timed) {
		for (i = 0; i < nl; i++) {
			const char *name = kf_str(l[i].k, "name");

			kf_rank_add(&rank, name ? name : "unnamed kernel", l[i].ns, 1);
		}
		kf_rank_sort(&rank);
	}
	f = pick_focus(fb, &rank, l, nl, &pk);
	pk.timed = timed;
	ncu_program(fb, rec, data, &rank, l, nl, timed);
	focus = cJSON_AddObjectToObject(fb->analysis, "focus");
	say_notes(fb, data, nl);
	ncu_timing_say(fb, data, nl);
	say_head(fb, &rank, &pk, f, focus);
	if (timed)
		ncu_timing_procs(fb, data, kf_str(focus, "name"));
	if (kf_rank_own(&rank) < rank.n) {
		struct buf b = {0};

		kf_rank_machinery_text(&rank, &b);
		kf_fb_add_buf(fb, FB_KEY, &b);
	}
	ncu_xla_note(fb, &rank, kf_obj(data, "timing"));
	say_throughput(fb, f->k, focus);
	raw = kf_str(data, "format") && strcmp(kf_str(data, "format"), "raw") == 0;
	ncu_rule_say(fb, FB_HEAD, f->k, raw, "SOLBottleneck", "Bottleneck (ncu's SOLBottleneck rule)",
	    "bottleneck", focus);
	has_roof = ncu_roof_say(fb, f->k, ncu_find_gpu(rec, fb, f->k), focus, &roof);
	if (!has_roof)
		ncu_rule_say(fb, FB_ADVICE, f->k, raw, "SOLFPRoofline", "Roofline (ncu's SOLFPRoofline rule)",
		    "roofline", focus);
	ncu_diag(fb, f->k, has_roof ? &roof : NULL);
	if (!has_roof) {
		sol_diag(fb, f->k, kf_obj(focus, "throughput"));
		ncu_limiter_rules(&fb->diag, f->k);
	}
	if (has_roof)
		ncu_roof_free(&roof);
	ncu_lines_say(fb, f->k, focus);
	say_limiter(focus);
	say_launch(fb, f->k, focus);
	ncu_rules_say(fb, f->k, fb->analysis);
	if (rank.n > 1 || nl > 1) {
		struct buf b = {0};

		kf_rank_text(&rank, &b, fb->opt->top);
		kf_fb_add_buf(fb, FB_RANK, &b);
	}

	kernels = cJSON_AddArrayToObject(fb->analysis, "kernels");
	fk = cJSON_CreateObject();
	cJSON_AddStringToObject(fk, "name", kf_str(focus, "name"));
	cJSON_AddStringToObject(fk, "short_name", kf_str(focus, "short_name"));
	cJSON_AddStringToObject(fk, "role", "focus");
	for (i = 0; i < rank.n; i++) {
		if (strcmp(rank.v[i].name, kf_str(focus, "name")) == 0) {
			cJSON_AddNumberToObject(fk, "total_ns", rank.v[i].total_ns);
			cJSON_AddNumberToObject(fk, "launches", (double)rank.v[i].launches);
			cJSON_AddNumberToObject(fk, "share_pct", rank.v[i].share);
		}
	}
	cJSON_AddItemToObject(fk, "duration_ns", cJSON_Duplicate(
	    cJSON_GetObjectItemCaseSensitive(focus, "duration_ns"), 1));
	kf_core_time(fk, f->has_ns ? f->ns : NAN, "duration");
	cJSON_AddItemToObject(fk, "throughput", cJSON_Duplicate(kf_obj(focus, "throughput"), 1));
	cJSON_AddItemToArray(kernels, fk);
	say_others(fb, &rank, l, nl, f, kernels, data);
	cJSON_AddItemToObject(fb->analysis, "ranking", kf_rank_json(&rank, fb->opt->top));
	kf_rank_free(&rank);
	free(l);
}
