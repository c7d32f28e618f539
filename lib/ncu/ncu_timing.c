/* The ncu --top path, its timing run read: a timing run's launches
 * (ncu_timing.csv: one gpu__time_duration.sum per launch, and
 * ncu_timing_mangled.csv, the same report exported with
 * --print-kernel-base mangled) become a ranking: one entry per kernel, a
 * kernel being its mangled name, since ncu prints one kernel's demangled
 * name differently in the exports of two reports
 * ("templates::normal_and_transform" in one, "at::normal_and_transform" in
 * the other, seen on the H200). Each entry holds the name to show, its
 * launches and GPU time, the processes that ran it and its launch
 * configurations. The ranking is the interface between a timing source and
 * the choice (ncu_choose.c), and what kf-read adds to "data" as "timing"
 * (ncu_account.c).
 *
 * The CSVs are streamed: memory grows with the number of distinct kernels
 * and processes, not of launches. Everything returned is the caller's. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "chains.h"
#include "csvrow.h"
#include "lines.h"
#include "machinery.h"
#include "map.h"
#include "mem.h"
#include "ncu.h"
#include "ncu_top.h"
#include "num.h"
#include "path.h"
#include "program.h"
#include "record.h"

#define MAX_ROW_LINES 64
#define MAX_PROCS 16		/* processes listed for one kernel */
#define MAX_CONFIGS 8		/* launch configurations listed for one kernel */

/* v in unit ("us", "msecond", ...) as nanoseconds into *ns; 0 when the
 * unit is not a time. */
int
ncu_to_ns(const char *unit, double v, double *ns)
{
	static const struct { const char *u; double f; } t[] = {
		{ "ns", 1 }, { "nsecond", 1 }, { "us", 1e3 }, { "usecond", 1e3 },
		{ "ms", 1e6 }, { "msecond", 1e6 }, { "s", 1e9 }, { "second", 1e9 },
	};
	size_t i;

	for (i = 0; i < sizeof t / sizeof t[0]; i++) {
		if (strcmp(unit, t[i].u) == 0) {
			*ns = v * t[i].f;
			return 1;
		}
	}
	return 0;
}

static void
timing_hdr(struct timing_rd *t)
{
	size_t i;

	t->c_pid = t->c_name = t->c_block = t->c_grid = t->c_stream = t->c_sec = -1;
	t->c_metric = -1;
	t->c_unit = t->c_value = t->c_raw = t->c_range = t->c_wait = -1;
	t->c_id = 0;
	for (i = 0; i < t->row.n; i++) {
		const char *f = kf_csvrow_field(&t->row, i, NULL);
		long *c = strcmp(f, "Kernel Name") == 0 ? &t->c_name :
		    strcmp(f, "Process ID") == 0 ? &t->c_pid :
		    strcmp(f, "Block Size") == 0 ? &t->c_block :
		    strcmp(f, "Grid Size") == 0 ? &t->c_grid :
		    strcmp(f, "Stream") == 0 ? &t->c_stream :
		    strcmp(f, "Section Name") == 0 ? &t->c_sec :
		    strcmp(f, "Metric Name") == 0 ? &t->c_metric :
		    strcmp(f, "Metric Unit") == 0 ? &t->c_unit :
		    strcmp(f, "Metric Value") == 0 ? &t->c_value :
		    strcmp(f, "gpu__time_duration.sum") == 0 ? &t->c_raw :
		    strcmp(f, KF_RANGE_COL) == 0 ? &t->c_range :
		    strcmp(f, KF_WAIT_COL) == 0 ? &t->c_wait : NULL;

		if (c && *c < 0)
			*c = (long)i;
	}
	t->have_hdr = 1;
	t->want_units = t->c_metric < 0;
	free(t->raw_unit);
	t->raw_unit = NULL;
}

static const char *
col(const struct timing_rd *t, long c)
{
	return c < 0 || (size_t)c >= t->row.n ? NULL : kf_csvrow_field(&t->row, (size_t)c, NULL);
}

/* The launch's duration in this row: the timing run's metric, a details
 * page's Speed Of Light "Duration", a raw page's column. 1, 0 for a row of
 * another metric, -1 for a duration that cannot be read (value, unit). */
static int
row_ns(const struct timing_rd *t, double *ns)
{
	const char *m = col(t, t->c_metric), *s = col(t, t->c_sec), *v, *u;
	double d;

	if (t->c_metric >= 0) {
		if (m == NULL || !(strcmp(m, "gpu__time_duration.sum") == 0 ||
		    (strcmp(m, "Duration") == 0 && s && strcmp(s, NCU_SOL) == 0)))
			return 0;
		v = col(t, t->c_value);
		u = col(t, t->c_unit);
	} else {
		v = col(t, t->c_raw);
		u = t->raw_unit;
	}
	return v && u && kf_parse_number(v, &d) && ncu_to_ns(u, d, ns) ? 1 : -1;
}

static void
row_call(struct timing_rd *t, const char *name, double ns)
{
	struct trow r;

	r.id = col(t, t->c_id);
	r.name = name;
	r.pid = col(t, t->c_pid) ? col(t, t->c_pid) : "";
	r.block = col(t, t->c_block) ? col(t, t->c_block) : "";
	r.grid = col(t, t->c_grid) ? col(t, t->c_grid) : "";
	r.stream = col(t, t->c_stream) ? col(t, t->c_stream) : "";
	r.range = col(t, t->c_range);
	r.waited = col(t, t->c_wait) && strcmp(col(t, t->c_wait), "yes") == 0;
	r.ns = ns;
	t->fn(t->arg, &r);
	t->launches++;
}

static void
timing_row(struct timing_rd *t)
{
	const char *first = kf_csvrow_field(&t->row, 0, NULL), *name;
	double ns;
	int got;

	if (strcmp(first, "ID") == 0 && t->row.n > 1 &&
	    strcmp(kf_csvrow_field(&t->row, 1, NULL), "Process ID") == 0) {
		timing_hdr(t);
		return;
	}
	if (!t->have_hdr)
		return;
	if (t->want_units) {
		t->want_units = 0;
		if (first[0] == '\0') {
			free(t->raw_unit);
			t->raw_unit = col(t, t->c_raw) ? xstrdup(col(t, t->c_raw)) : NULL;
			return;
		}
	}
	name = col(t, t->c_name);
	if (t->ids_only) {
		/* Each launch once, whatever its metrics: its first row. */
		if (name && (t->last_id == NULL || strcmp(t->last_id, first) != 0)) {
			free(t->last_id);
			t->last_id = xstrdup(first);
			row_call(t, name, NAN);
		}
		return;
	}
	if (name == NULL || (got = row_ns(t, &ns)) < 0) {
		t->bad_rows++;
		return;
	}
	if (got == 1)
		row_call(t, name, ns);
}

int
ncu_timing_scan(const char *path, launch_fn *fn, void *arg, struct timing_rd *t, int ids_only)
{
	int got;

	memset(t, 0, sizeof *t);
	t->fn = fn;
	t->arg = arg;
	t->ids_only = ids_only;
	if (kf_lines_open(&t->l, path) < 0)
		return -1;
	kf_csvrow_init(&t->row, ',');
	while ((got = kf_lines_next(&t->l)) > 0) {
		if (kf_csvrow_pending(&t->row) && t->row.nlines >= MAX_ROW_LINES) {
			kf_csvrow_drop(&t->row);
			t->bad_rows++;
		}
		if (!kf_csvrow_pending(&t->row) && t->l.s[0] != '"')
			continue;	/* ==PROF== lines, the program's output */
		if (kf_csvrow_feed(&t->row, t->l.s, t->l.len) == 1 && t->row.n > 0) {
			if (t->l.complete)
				timing_row(t);
			else
				t->truncated = 1;
		}
	}
	if (got < 0 || kf_csvrow_pending(&t->row))
		t->truncated = 1;
	kf_csvrow_free(&t->row);
	kf_lines_close(&t->l);
	free(t->raw_unit);
	free(t->last_id);
	return 0;
}

/* The framework that launches kernel name for itself (machinery.tsv,
 * lib/analysis/machinery.c), or NULL: the detailed run is not spent on
 * those. */
const char *
ncu_machinery(const char *name)
{
	const struct kf_machine *m = kf_machinery_find(name);

	return m ? m->framework : NULL;
}

/* The mangled export beside a CSV: "x.csv" -> "x_mangled.csv". */
static char *
mangled_path(const char *csv)
{
	size_t n = strlen(csv);

	if (n > 4 && strcmp(csv + n - 4, ".csv") == 0)
		n -= 4;
	return xasprintf("%.*s_mangled.csv", (int)n, csv);
}

/* The ranking */

struct tcount {
	long launches;
	double ns;
};

struct tk {			/* one kernel of the timing run, or launches set aside */
	char *key;		/* its mangled name, or the name the CSV shows */
	char *name;		/* the name the (demangled) CSV shows */
	char *first;		/* its first launch's ID */
	long launches;
	double ns;
	long nshort;		/* launches under KF_SHORT_LAUNCH_NS (program.h) */
	double short_ns;
	size_t order;
	struct kf_map pids, cfgs;	/* process ID, "block grid": struct tcount */
	struct kf_map inner;	/* set aside: the kernels it holds */
};

struct build {
	struct kf_map bykey;	/* key: index + 1 */
	struct kf_map byfirst;	/* first launch's ID: index + 1 */
	struct kf_map pids;	/* every process: struct tcount */
	struct kf_map firsts;	/* key: the ID of its first launch, set aside or not */
	struct kf_map trial_firsts;	/* key: the ID of its first launch in timed trials */
	struct ncu_steady *steady;
	struct tk *v;
	size_t n, cap;
	double total;
	long steady_first, steady_last;	/* the steady state's launch IDs; -1: none */
	long after_trials;	/* the first of them after the last timed trial */
	int trials;		/* timed trials were set aside */
};

static struct tcount *
count_slot(struct kf_map *m, const char *key)
{
	int created;
	struct kf_map_ent *e = kf_map_slot(m, key, &created);

	if (e->val == NULL)
		e->val = xcalloc(1, sizeof(struct tcount));
	return e->val;
}

static void
count_add(struct kf_map *m, const char *key, double ns)
{
	struct tcount *c = count_slot(m, key);

	c->launches++;
	c->ns += ns;
}

static void
counts_free(struct kf_map *m)
{
	size_t i;

	for (i = 0; i < m->cap; i++)
		if (m->ent[i].key)
			free(m->ent[i].val);
	kf_map_free(m);
}

/* A launch into the ranking: into its kernel's entry, or into the entry
 * aside (its name) where the steady state puts it. */
static void
build_add(struct build *b, const struct trow *r, const char *aside)
{
	const char *key = aside ? aside : r->name;
	size_t i = (size_t)kf_map_get(&b->bykey, key);
	struct tk *k;
	char *cfg;
	int created;
	struct kf_map_ent *e;

	if (strchr(r->name, '\n'))
		return;		/* cannot be one filter argument, nor a key */
	e = kf_map_slot(&b->firsts, r->name, &created);
	if (created)
		e->val = xstrdup(r->id);
	if (aside && strcmp(aside, TRIAL_NAME) == 0) {
		e = kf_map_slot(&b->trial_firsts, r->name, &created);
		if (created)
			e->val = xstrdup(r->id);
	}
	if (i == 0) {
		if (b->n == b->cap) {
			b->cap = b->cap ? 2 * b->cap : 64;
			b->v = xrealloc(b->v, b->cap * sizeof *b->v);
		}
		k = &b->v[b->n];
		memset(k, 0, sizeof *k);
		k->key = xstrdup(key);
		k->name = aside ? xstrdup(aside) : NULL;
		k->first = xstrdup(r->id);
		k->order = b->n;
		i = ++b->n;
		kf_map_slot(&b->bykey, key, &created)->val = (void *)i;
		kf_map_slot(&b->byfirst, r->id, &created)->val = (void *)i;
	}
	k = &b->v[i - 1];
	if (aside)
		kf_map_slot(&k->inner, r->name, &created);
	k->launches++;
	k->ns += r->ns;
	if (r->ns < KF_SHORT_LAUNCH_NS) {
		k->nshort++;
		k->short_ns += r->ns;
	}
	b->total += r->ns;
	count_add(&k->pids, r->pid, r->ns);
	cfg = xasprintf("%s %s", r->block, r->grid);
	count_add(&k->cfgs, cfg, r->ns);
	free(cfg);
	count_add(&b->pids, r->pid, r->ns);
}

/* The first pass: where each process's steady state begins. */
static void
steady_launch(void *arg, const struct trow *r)
{
	ncu_steady_see(((struct build *)arg)->steady, r);
}

/* The second: each launch into the ranking. */
static void
build_launch(void *arg, const struct trow *r)
{
	struct build *b = arg;
	const char *aside = ncu_steady_entry(b->steady, r);
	double id;

	build_add(b, r, aside);
	if (aside && strcmp(aside, TRIAL_NAME) == 0) {
		b->trials = 1;
		b->after_trials = -1;
	}
	if (aside == NULL && kf_parse_number(r->id, &id)) {
		if (b->steady_first < 0 || (long)id < b->steady_first)
			b->steady_first = (long)id;
		if ((long)id > b->steady_last)
			b->steady_last = (long)id;
		if (b->after_trials < 0)
			b->after_trials = (long)id;
	}
}

/* From the demangled export of the same report: each kernel's name, from
 * its first launch (the IDs are the report's, the same in every export). */
static void
build_name(void *arg, const struct trow *r)
{
	struct build *b = arg;
	size_t i = (size_t)kf_map_get(&b->byfirst, r->id);

	if (i > 0 && b->v[i - 1].name == NULL)
		b->v[i - 1].name = xstrdup(r->name);
}

static int
tk_cmp(const void *a, const void *b)
{
	const struct tk *x = *(const struct tk *const *)a, *y = *(const struct tk *const *)b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static cJSON *
pid_value(const char *pid)
{
	double d;

	return kf_parse_number(pid, &d) ? cJSON_CreateNumber(d) : cJSON_CreateString(pid);
}

/* m's entries as [{KEYNAME: key, "launches", "total_ns"}], most launches
 * first, at most max. */
static cJSON *
counts_json(const struct kf_map *m, const char *keyname, size_t max, int cfg)
{
	size_t n, i, j, best;
	struct kf_map_ent **e = kf_map_list(m, &n);
	cJSON *a = cJSON_CreateArray();

	for (i = 0; i < n && i < max; i++) {
		const struct tcount *c;
		cJSON *o = cJSON_CreateObject();

		for (best = i, j = i + 1; j < n; j++)
			if (((struct tcount *)e[j]->val)->launches >
			    ((struct tcount *)e[best]->val)->launches)
				best = j;
		if (best != i) {
			struct kf_map_ent *t = e[i];

			e[i] = e[best];
			e[best] = t;
		}
		c = e[i]->val;
		if (cfg) {
			/* "(256, 1, 1) (1056, 1, 1)": block, then grid */
			const char *sp = strstr(e[i]->key, ") (");
			size_t bl = sp ? (size_t)(sp - e[i]->key) + 1 : 0;
			char *block = xstrndup(e[i]->key, bl);

			cJSON_AddStringToObject(o, "block", block);
			cJSON_AddStringToObject(o, "grid", e[i]->key + (sp ? bl + 1 : 0));
			free(block);
		} else {
			cJSON_AddItemToObject(o, keyname, pid_value(e[i]->key));
		}
		cJSON_AddNumberToObject(o, "launches", (double)c->launches);
		cJSON_AddNumberToObject(o, "total_ns", c->ns);
		cJSON_AddItemToArray(a, o);
	}
	free(e);
	return a;
}

static cJSON *
tk_json(const struct build *b, const struct tk *k, double total)
{
	cJSON *o = cJSON_CreateObject();
	const char *any = kf_map_get(&b->firsts, k->key);
	const char *trial = kf_map_get(&b->trial_firsts, k->key);
	double t, f;

	cJSON_AddStringToObject(o, "key", k->key);
	cJSON_AddStringToObject(o, "name", k->name ? k->name : k->key);
	cJSON_AddNumberToObject(o, "launches", (double)k->launches);
	cJSON_AddNumberToObject(o, "total_ns", k->ns);
	cJSON_AddNumberToObject(o, "share_pct", total > 0 ? 100.0 * k->ns / total : 0);
	cJSON_AddNumberToObject(o, "short_launches", (double)k->nshort);
	cJSON_AddNumberToObject(o, "short_ns", k->short_ns);
	cJSON_AddStringToObject(o, "first_id", k->first);
	/* its first launch of all, when one was set aside before it */
	if (any && strcmp(any, k->first) != 0)
		cJSON_AddStringToObject(o, "first_any_id", any);
	/* ... and in an autotuner's timed trials, which the detailed run
	 * runs again, when one came before its first in the steady state */
	if (trial && kf_parse_number(trial, &t) && kf_parse_number(k->first, &f) && t < f)
		cJSON_AddStringToObject(o, "first_trial_id", trial);
	cJSON_AddNumberToObject(o, "process_count", (double)k->pids.n);
	cJSON_AddItemToObject(o, "processes", counts_json(&k->pids, "pid", MAX_PROCS, 0));
	cJSON_AddNumberToObject(o, "config_count", (double)k->cfgs.n);
	cJSON_AddItemToObject(o, "configs", counts_json(&k->cfgs, NULL, MAX_CONFIGS, 1));
	return o;
}

static void
build_free(struct build *b)
{
	size_t i;

	for (i = 0; i < b->n; i++) {
		free(b->v[i].key);
		free(b->v[i].name);
		free(b->v[i].first);
		counts_free(&b->v[i].pids);
		counts_free(&b->v[i].cfgs);
		kf_map_free(&b->v[i].inner);
	}
	free(b->v);
	kf_map_free(&b->bykey);
	kf_map_free(&b->byfirst);
	counts_free(&b->pids);
	for (i = 0; i < b->firsts.cap; i++)
		if (b->firsts.ent[i].key)
			free(b->firsts.ent[i].val);
	kf_map_free(&b->firsts);
	for (i = 0; i < b->trial_firsts.cap; i++)
		if (b->trial_firsts.ent[i].key)
			free(b->trial_firsts.ent[i].val);
	kf_map_free(&b->trial_firsts);
	ncu_steady_free(b->steady);
	memset(b, 0, sizeof *b);
}

/* The launches set aside by the steady state: for each entry of them,
 * {"name", "launches", "total_ns", "kernel_count"}; the one before the
 * steady state also as "autotuning". */
static void
aside_json(const struct build *b, cJSON *o)
{
	static const char *const names[] = { TUNE_NAME, BENCH_NAME, FLUSH_NAME, TRIAL_NAME,
		OUTSIDE_NAME };
	static const char *const keys[] = { "autotuning", "autotuning", "flushes", NULL,
		"outside_range" };
	cJSON *a = NULL, *e;
	size_t i, k;

	cJSON_AddStringToObject(o, "steady_state", ncu_steady_from(b->steady));
	for (i = 0; i < sizeof names / sizeof *names; i++) {
		if ((k = (size_t)kf_map_get(&b->bykey, names[i])) == 0)
			continue;
		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "name", names[i]);
		cJSON_AddNumberToObject(e, "launches", (double)b->v[k - 1].launches);
		cJSON_AddNumberToObject(e, "total_ns", b->v[k - 1].ns);
		cJSON_AddNumberToObject(e, "kernel_count", (double)b->v[k - 1].inner.n);
		if (keys[i] && !cJSON_GetObjectItemCaseSensitive(o, keys[i]))
			cJSON_AddItemToObject(o, keys[i], cJSON_Duplicate(e, 1));
		if (a == NULL)
			a = cJSON_AddArrayToObject(o, "set_aside");
		cJSON_AddItemToArray(a, e);
	}
}

struct chain_scan {
	struct kf_chains *chains;
	struct ncu_steady *steady;
};

/* Each launch of the timing run's steady state (inside the program's
 * profiler range, none set aside), in ID order, into the chains (chains.h)
 * by process and stream. */
static void
chain_launch(void *arg, const struct trow *r)
{
	struct chain_scan *c = arg;
	char *key;

	if (ncu_steady_entry(c->steady, r) != NULL)
		return;
	key = xasprintf("%s/%s", r->pid, r->stream);
	kf_chains_launch(c->chains, key, r->name, r->ns);
	free(key);
}

/* The launches of path ranked by their steady state: two passes. */
static int
build_scan(struct build *b, const char *path, struct timing_rd *t)
{
	b->steady = ncu_steady_new();
	b->steady_first = b->steady_last = b->after_trials = -1;
	if (ncu_timing_scan(path, steady_launch, b, t, 0) < 0)
		return -1;
	ncu_steady_end(b->steady);
	return ncu_timing_scan(path, build_launch, b, t, 0);
}

/* The ranking of csv's launches: by mangled name when the mangled export
 * beside it (mangled_path) can be read, else by the names csv shows. NULL
 * with errno when csv cannot be read. */
cJSON *
ncu_ranking_csv(const char *csv)
{
	struct build b = {0};
	struct timing_rd t, tn;
	char *mpath = mangled_path(csv), *slash = strrchr(csv, '/');
	struct tk **order;
	struct chain_scan cs;
	cJSON *o, *a;
	size_t i;
	int mangled = 1;

	if (!kf_is_file(csv)) {
		free(mpath);
		errno = errno ? errno : ENOENT;
		return NULL;
	}
	if (!kf_is_file(mpath) || build_scan(&b, mpath, &t) < 0 || t.launches == 0) {
		build_free(&b);
		mangled = 0;
	}
	if (mangled) {
		if (ncu_timing_scan(csv, build_name, &b, &tn, 0) < 0)
			tn.truncated = 1;
	} else if (build_scan(&b, csv, &t) < 0) {
		build_free(&b);
		free(mpath);
		return NULL;
	}
	order = xcalloc(b.n + 1, sizeof *order);
	for (i = 0; i < b.n; i++)
		order[i] = &b.v[i];
	kf_sort(order, b.n, sizeof *order, tk_cmp);
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "source", slash ? slash + 1 : csv);
	cJSON_AddStringToObject(o, "identity", mangled ? "mangled" : "name");
	cJSON_AddNumberToObject(o, "launches", (double)t.launches);
	cJSON_AddNumberToObject(o, "kernel_count", (double)b.n);
	aside_json(&b, o);
	/* where the steady state lies among the launches, when some were set
	 * aside: a traced timeline's window (trace_select.c); after timed
	 * trials, from the first launch after the last of them, the time the
	 * host spent choosing among candidates left out */
	if (b.trials && b.after_trials >= 0)
		b.steady_first = b.after_trials;
	if (kf_arr(o, "set_aside") && b.steady_first >= 0) {
		cJSON *ids = cJSON_AddArrayToObject(o, "steady_ids");

		cJSON_AddItemToArray(ids, cJSON_CreateNumber((double)b.steady_first));
		cJSON_AddItemToArray(ids, cJSON_CreateNumber((double)b.steady_last));
	}
	cJSON_AddNumberToObject(o, "total_ns", b.total);
	cJSON_AddNumberToObject(o, "process_count", (double)b.pids.n);
	cJSON_AddItemToObject(o, "processes", counts_json(&b.pids, "pid", MAX_PROCS, 0));
	cJSON_AddBoolToObject(o, "truncated", t.truncated || (mangled && tn.truncated));
	cJSON_AddNumberToObject(o, "bad_rows", (double)t.bad_rows);
	a = cJSON_AddArrayToObject(o, "kernels");
	for (i = 0; i < b.n && i < MAX_LISTED; i++)
		cJSON_AddItemToArray(a, tk_json(&b, order[i], b.total));
	cs.chains = kf_chains_new();
	cs.steady = b.steady;
	ncu_steady_rewind(b.steady);
	if (ncu_timing_scan(csv, chain_launch, &cs, &tn, 0) == 0)
		cJSON_AddItemToObject(o, "chains", kf_chains_json(cs.chains, "ncu's timing run: the "
		    "launches in the order of their IDs on each stream"));
	kf_chains_free(cs.chains);
	free(order);
	build_free(&b);
	free(mpath);
	return o;
}

cJSON *
ncu_json_load(const char *path)
{
	char *text = NULL;
	size_t cap = 0;
	ssize_t got;
	FILE *f = fopen(path, "r");
	cJSON *o = NULL;
	int saved;

	if (f == NULL)
		return NULL;
	if ((got = getdelim(&text, &cap, '\0', f)) > 0)
		o = cJSON_Parse(text);
	saved = errno;
	fclose(f);
	free(text);
	errno = o ? 0 : saved ? saved : EINVAL;
	return o;
}

cJSON *
ncu_ranking_load(const char *path)
{
	cJSON *o = ncu_json_load(path);

	if (o && !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(o, "kernels"))) {
		cJSON_Delete(o);
		errno = EINVAL;
		return NULL;
	}
	return o;
}
