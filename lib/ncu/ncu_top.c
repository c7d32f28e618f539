/* The ncu --top path. A timing run's launches (ncu_timing.csv: one
 * gpu__time_duration.sum per launch, and ncu_timing_mangled.csv, the same
 * report exported with --print-kernel-base mangled) become a ranking: one
 * entry per kernel, a kernel being its mangled name, since ncu prints one
 * kernel's demangled name differently in the exports of two reports
 * ("templates::normal_and_transform" in one, "at::normal_and_transform" in
 * the other, seen on the H200). Each entry holds the name to show, its
 * launches and GPU time, the processes that ran it and its launch
 * configurations. The ranking is the interface between a timing source and
 * the choice: kf-read --profiler ncu --select K reads it from the CSVs (or
 * from a ranking file, NCU_RANKING, that another timing source wrote), picks
 * the K kernels with the most time (framework machinery left out), writes
 * both files and prints ncu's filter arguments that profile one launch of
 * each in every process that ran it. Afterwards ncu_read gives each launch
 * of the detailed report (ncu_report_mangled.csv) the timing run's identity
 * and adds the ranking to "data" as "timing".
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
#include "err.h"
#include "feedback.h"
#include "lines.h"
#include "map.h"
#include "mem.h"
#include "ncu.h"
#include "num.h"
#include "path.h"
#include "program.h"
#include "record.h"
#include "signame.h"

#define MAX_ROW_LINES 64
#define MAX_LISTED 1000		/* kernels listed in the ranking */
#define MAX_NAME_RE 4096	/* bytes of a kernel name quoted in the filter */
#define MAX_PROCS 16		/* processes listed for one kernel */
#define MAX_CONFIGS 8		/* launch configurations listed for one kernel */
#define TUNE_GAP 8		/* launches: see tune_launch */
#define TUNE_NAME "XLA autotuning: timed runs of candidate kernels"

/* One launch with a duration, as a row of the CSV gives it. */
struct trow {
	const char *id, *name, *pid, *block, *grid, *stream;
	double ns;
};
typedef void launch_fn(void *arg, const struct trow *r);

struct timing_rd {
	struct kf_lines l;
	struct kf_csvrow row;
	launch_fn *fn;
	void *arg;
	long c_id, c_pid, c_name, c_block, c_grid, c_stream, c_sec, c_metric, c_unit, c_value;
	long c_raw;
	char *raw_unit;		/* raw page: the unit of gpu__time_duration.sum */
	char *last_id;		/* ids_only: the launch of the rows before */
	int have_hdr, want_units, ids_only;
	long launches, bad_rows;
	int truncated;
};

static void
timing_hdr(struct timing_rd *t)
{
	size_t i;

	t->c_pid = t->c_name = t->c_block = t->c_grid = t->c_stream = t->c_sec = -1;
	t->c_metric = -1;
	t->c_unit = t->c_value = t->c_raw = -1;
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
		    strcmp(f, "gpu__time_duration.sum") == 0 ? &t->c_raw : NULL;

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

/* Each launch of path with a duration to fn (with ids_only, each launch
 * once, duration NAN). 0, or -1 with errno when it cannot be opened. */
static int
timing_scan(const char *path, launch_fn *fn, void *arg, struct timing_rd *t, int ids_only)
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
static const char *
machinery(const char *name)
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

struct tk {			/* one kernel of the timing run */
	char *key;		/* its mangled name, or the name the CSV shows */
	char *name;		/* the name the (demangled) CSV shows */
	char *first;		/* its first launch's ID */
	long launches;
	double ns;
	long nshort;		/* launches under KF_SHORT_LAUNCH_NS (program.h) */
	double short_ns;
	size_t order;
	struct kf_map pids, cfgs;	/* process ID, "block grid": struct tcount */
};

/* A launch held back by tune_launch: its row, copied. */
struct held {
	char *id, *name, *pid, *block, *grid;
	double ns;
	long pos;
};

struct tune {			/* tune_launch's state for one process */
	long pos;		/* its launches so far */
	long last;		/* the position of its last autotuner launch, or -1 */
	struct held q[TUNE_GAP];
	size_t nq;
};

struct build {
	struct kf_map bykey;	/* key: index + 1 */
	struct kf_map byfirst;	/* first launch's ID: index + 1 */
	struct kf_map pids;	/* every process: struct tcount */
	struct kf_map tunes;	/* process ID: struct tune */
	struct kf_map tuned;	/* the kernels of TUNE_NAME's launches */
	struct tk *v;
	size_t n, cap;
	double total;
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

/* A launch into the ranking: into its kernel's entry, or with cand into
 * the one entry of XLA's autotuning candidates (TUNE_NAME, machinery). */
static void
build_add(struct build *b, const struct trow *r, int cand)
{
	const char *key = cand ? TUNE_NAME : r->name;
	size_t i = (size_t)kf_map_get(&b->bykey, key);
	struct tk *k;
	char *cfg;
	int created;

	if (strchr(r->name, '\n'))
		return;		/* cannot be one filter argument, nor a key */
	if (cand)
		kf_map_slot(&b->tuned, r->name, &created);
	if (i == 0) {
		if (b->n == b->cap) {
			b->cap = b->cap ? 2 * b->cap : 64;
			b->v = xrealloc(b->v, b->cap * sizeof *b->v);
		}
		k = &b->v[b->n];
		memset(k, 0, sizeof *k);
		k->key = xstrdup(key);
		k->name = cand ? xstrdup(TUNE_NAME) : NULL;
		k->first = xstrdup(r->id);
		k->order = b->n;
		i = ++b->n;
		kf_map_slot(&b->bykey, key, &created)->val = (void *)i;
		kf_map_slot(&b->byfirst, r->id, &created)->val = (void *)i;
	}
	k = &b->v[i - 1];
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

static void
held_free(struct held *h)
{
	free(h->id);
	free(h->name);
	free(h->pid);
	free(h->block);
	free(h->grid);
}

static void
held_add(struct build *b, struct held *h, int cand)
{
	struct trow r = { h->id, h->name, h->pid, h->block, h->grid, "", h->ns };

	build_add(b, &r, cand);
	held_free(h);
}

/* XLA's autotuner (machinery.tsv's XLA rows: its delay kernel, redzone
 * checks, buffer fills and comparisons) times each candidate kernel
 * between launches of its own, in the same process: on the H200 a Flax
 * CNN's convolutions, each candidate with 1 to 3 launches of buffer
 * conversions between 4 to 6 redzone checks, a delay kernel and the
 * comparisons, 5 to 21 runs a candidate. Those runs are not the program's
 * steps (a run that loads the autotuning results never makes them), so a
 * launch with an autotuner launch at most TUNE_GAP launches before it and
 * another at most TUNE_GAP after it, in its process, goes to TUNE_NAME, one
 * entry of machinery, instead of its kernel: the kernels chosen to detail
 * are those the steps ran. A launch that follows an autotuner launch is held
 * until the next one comes or TUNE_GAP launches pass; build_flush ends the
 * wait. */
static void
tune_launch(void *arg, const struct trow *r)
{
	struct build *b = arg;
	const struct kf_machine *m = kf_machinery_find(r->name);
	int created;
	struct kf_map_ent *e = kf_map_slot(&b->tunes, r->pid, &created);
	struct tune *t;
	struct held *h;
	size_t i;

	if (e->val == NULL) {
		e->val = xcalloc(1, sizeof *t);
		((struct tune *)e->val)->last = -1;
	}
	t = e->val;
	while (t->nq > 0 && t->pos - t->q[0].pos > TUNE_GAP) {
		held_add(b, &t->q[0], 0);
		memmove(&t->q[0], &t->q[1], --t->nq * sizeof t->q[0]);
	}
	if (m && strcmp(m->framework, "XLA") == 0) {
		for (i = 0; i < t->nq; i++)
			held_add(b, &t->q[i], 1);
		t->nq = 0;
		t->last = t->pos;
		build_add(b, r, 0);
	} else if (t->last >= 0 && t->pos - t->last <= TUNE_GAP && t->nq < TUNE_GAP) {
		h = &t->q[t->nq++];
		h->id = xstrdup(r->id);
		h->name = xstrdup(r->name);
		h->pid = xstrdup(r->pid);
		h->block = xstrdup(r->block);
		h->grid = xstrdup(r->grid);
		h->ns = r->ns;
		h->pos = t->pos;
	} else {
		build_add(b, r, 0);
	}
	t->pos++;
}

/* The launches tune_launch still holds: no autotuner launch came after
 * them. */
static void
build_flush(struct build *b)
{
	size_t i, j;

	for (i = 0; i < b->tunes.cap; i++) {
		struct tune *t = b->tunes.ent[i].key ? b->tunes.ent[i].val : NULL;

		if (t == NULL)
			continue;
		for (j = 0; j < t->nq; j++)
			held_add(b, &t->q[j], 0);
		t->nq = 0;
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
tk_json(const struct tk *k, double total)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "key", k->key);
	cJSON_AddStringToObject(o, "name", k->name ? k->name : k->key);
	cJSON_AddNumberToObject(o, "launches", (double)k->launches);
	cJSON_AddNumberToObject(o, "total_ns", k->ns);
	cJSON_AddNumberToObject(o, "share_pct", total > 0 ? 100.0 * k->ns / total : 0);
	cJSON_AddNumberToObject(o, "short_launches", (double)k->nshort);
	cJSON_AddNumberToObject(o, "short_ns", k->short_ns);
	cJSON_AddStringToObject(o, "first_id", k->first);
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
	}
	free(b->v);
	kf_map_free(&b->bykey);
	kf_map_free(&b->byfirst);
	counts_free(&b->pids);
	for (i = 0; i < b->tunes.cap; i++) {
		struct tune *t = b->tunes.ent[i].key ? b->tunes.ent[i].val : NULL;
		size_t j;

		for (j = 0; t && j < t->nq; j++)
			held_free(&t->q[j]);	/* what a scan that failed left held */
		free(t);
	}
	kf_map_free(&b->tunes);
	kf_map_free(&b->tuned);
}

/* Each launch of the timing run, in ID order, into the chains (chains.h)
 * by process and stream. */
static void
chain_launch(void *arg, const struct trow *r)
{
	char *key = xasprintf("%s/%s", r->pid, r->stream);

	kf_chains_launch(arg, key, r->name, r->ns);
	free(key);
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
	struct kf_chains *chains;
	cJSON *o, *a;
	size_t i;
	int mangled = 1;

	if (!kf_is_file(csv)) {
		free(mpath);
		errno = errno ? errno : ENOENT;
		return NULL;
	}
	if (!kf_is_file(mpath) || timing_scan(mpath, tune_launch, &b, &t, 0) < 0 ||
	    (build_flush(&b), t.launches == 0)) {
		build_free(&b);
		memset(&b, 0, sizeof b);
		mangled = 0;
	}
	if (mangled) {
		if (timing_scan(csv, build_name, &b, &tn, 0) < 0)
			tn.truncated = 1;
	} else if (timing_scan(csv, tune_launch, &b, &t, 0) < 0) {
		build_free(&b);
		free(mpath);
		return NULL;
	} else {
		build_flush(&b);
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
	if ((i = (size_t)kf_map_get(&b.bykey, TUNE_NAME)) > 0) {
		cJSON *at = cJSON_AddObjectToObject(o, "autotuning");

		cJSON_AddStringToObject(at, "name", TUNE_NAME);
		cJSON_AddNumberToObject(at, "launches", (double)b.v[i - 1].launches);
		cJSON_AddNumberToObject(at, "total_ns", b.v[i - 1].ns);
		cJSON_AddNumberToObject(at, "kernel_count", (double)b.tuned.n);
	}
	cJSON_AddNumberToObject(o, "total_ns", b.total);
	cJSON_AddNumberToObject(o, "process_count", (double)b.pids.n);
	cJSON_AddItemToObject(o, "processes", counts_json(&b.pids, "pid", MAX_PROCS, 0));
	cJSON_AddBoolToObject(o, "truncated", t.truncated || (mangled && tn.truncated));
	cJSON_AddNumberToObject(o, "bad_rows", (double)t.bad_rows);
	a = cJSON_AddArrayToObject(o, "kernels");
	for (i = 0; i < b.n && i < MAX_LISTED; i++)
		cJSON_AddItemToArray(a, tk_json(order[i], b.total));
	chains = kf_chains_new();
	if (timing_scan(csv, chain_launch, chains, &tn, 0) == 0)
		cJSON_AddItemToObject(o, "chains", kf_chains_json(chains, "ncu's timing run: the "
		    "launches in the order of their IDs on each stream"));
	kf_chains_free(chains);
	free(order);
	build_free(&b);
	free(mpath);
	return o;
}

static cJSON *
json_load(const char *path)
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

/* A ranking file: an object with a "kernels" array of objects with a
 * "key" and "total_ns". */
static cJSON *
ranking_load(const char *path)
{
	cJSON *o = json_load(path);

	if (o && !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(o, "kernels"))) {
		cJSON_Delete(o);
		errno = EINVAL;
		return NULL;
	}
	return o;
}

/* The choice */

/* name as an ECMAScript (and POSIX extended) regular expression that
 * matches it alone; past MAX_NAME_RE bytes (one argument must stay well
 * under Linux's 128 KiB), its start (cut between characters) and ".*". */
static void
regex_quote(struct buf *b, const char *name)
{
	size_t n = strlen(name), i;

	if (n > MAX_NAME_RE)
		for (n = MAX_NAME_RE; n > 0 && ((unsigned char)name[n] & 0xC0) == 0x80; n--)
			;
	for (i = 0; i < n; i++) {
		if (strchr("\\^$.|?*+()[]{}", name[i]))
			buf_putc(b, '\\');
		buf_putc(b, name[i]);
	}
	if (name[n] != '\0')
		buf_puts(b, ".*");
}

/* The function name ncu's --kernel-name-base function matches, from the
 * name the CSV shows: "void ns::f<T>(int)" -> "f". */
static char *
function_base(const char *name)
{
	const char *end = name + strlen(name), *p;
	static const char pairs[][2] = { { '(', ')' }, { '<', '>' } };
	size_t i;
	int depth;

	for (i = 0; i < 2; i++) {
		if (end == name || end[-1] != pairs[i][1])
			continue;
		for (depth = 0, p = end - 1; p >= name; p--) {
			if (*p == pairs[i][1])
				depth++;
			else if (*p == pairs[i][0] && --depth == 0)
				break;
		}
		if (p >= name)
			end = p;
	}
	for (p = end; p > name && p[-1] != ' ' && p[-1] != ':'; p--)
		;
	return p < end ? xstrndup(p, (size_t)(end - p)) : xstrdup(name);
}

/* The k kernels with the most time, machinery left out, into pick. */
static size_t
top_pick(const cJSON *rk, size_t k, const cJSON **pick)
{
	const cJSON *e;
	size_t n = 0;

	cJSON_ArrayForEach(e, kf_arr(rk, "kernels")) {
		const char *key = kf_str(e, "key"), *name = kf_str(e, "name");

		if (n == k)
			break;
		if (key && name && !strchr(key, '\n') && !machinery(name))
			pick[n++] = e;
	}
	return n;
}

/* ncu's arguments that profile the chosen kernels, one a line, into out;
 * *count: the launches they select. The one place that knows how ncu's
 * filters select. Measured on an H200 with ncu 2025.3.1 on ResNet-18's top
 * 3 (PERFORMANCE.md): the names the CSV shows ("void f<float>(T2, const T1
 * *)") are not the demangled names ncu matches, so templated kernels match
 * nothing with --kernel-name-base demangled; function names merge a
 * template's instances (18 launches with per-launch-config); mangled names
 * select exactly the chosen kernels, and "--kernel-id ::regex:^(A|B|C)$:1"
 * (one --kernel-id: a second is refused) the first launch of each: 3
 * launches. That first launch is counted in each process (two
 * torch.multiprocessing workers: the first kernels of each took the
 * launches), and --launch-count over all of them: so the count is one
 * launch per process that ran each chosen kernel in the timing run, and
 * with --kill yes ncu ends the program only once all of those are
 * profiled (ncu then exits 0; the timing run has already run the program
 * to its end). --kernel-id splits at ':', so a name with one falls back to
 * --kernel-name and one launch per launch configuration (13 launches for
 * the same 3). With per_process the filter is for an attach to one
 * process of the program (kf-ncu holds each): one launch of each kernel. */
static void
top_filter(const cJSON *rk, const cJSON **pick, size_t n, int per_process, struct buf *out,
    long *count)
{
	const char *id = kf_str(rk, "identity");
	struct buf re = {0};
	size_t i;
	int mangled = id && strcmp(id, "mangled") == 0;

	*count = 0;
	for (i = 0; i < n; i++) {
		buf_puts(&re, i > 0 ? "|" : "");
		if (mangled) {
			regex_quote(&re, kf_str(pick[i], "key"));
		} else {
			char *f = function_base(kf_str(pick[i], "name"));

			regex_quote(&re, f);	/* too many if two share it: the run just goes on */
			free(f);
		}
		*count += per_process || (long)kf_num(pick[i], "process_count", 1) <= 0 ? 1 :
		    (long)kf_num(pick[i], "process_count", 1);
	}
	buf_printf(out, "--kernel-name-base\n%s\n", mangled ? "mangled" : "function");
	if (strchr(re.s, ':')) {
		buf_printf(out, "--kernel-name\nregex:^(%s)$\n--filter-mode\nper-launch-config\n"
		    "--launch-count\n1\n", re.s);
		*count = -1;
	} else {
		buf_printf(out, "--kernel-id\n::regex:^(%s)$:1\n--launch-count\n%ld\n"
		    "--kill\nyes\n", re.s, *count);
	}
	buf_free(&re);
}

static cJSON *
top_json(const cJSON *rk, const cJSON **pick, size_t n, long k, const struct buf *filter,
    long count)
{
	cJSON *o = cJSON_CreateObject(), *a, *b;
	const char *p, *e;
	size_t i;

	cJSON_AddNumberToObject(o, "top", (double)k);
	cJSON_AddStringToObject(o, "identity", kf_str(rk, "identity") ? kf_str(rk, "identity") : "name");
	a = cJSON_AddArrayToObject(o, "chosen");
	b = cJSON_AddArrayToObject(o, "chosen_keys");
	for (i = 0; i < n; i++) {
		cJSON_AddItemToArray(a, cJSON_CreateString(kf_str(pick[i], "name")));
		cJSON_AddItemToArray(b, cJSON_CreateString(kf_str(pick[i], "key")));
	}
	if (count >= 0)
		cJSON_AddNumberToObject(o, "launch_count", (double)count);
	cJSON_AddNumberToObject(o, "process_count", kf_num(rk, "process_count", 1));
	a = cJSON_AddArrayToObject(o, "filter");
	for (p = filter->s; p && *p; p = e + 1) {
		char *arg;

		e = strchr(p, '\n');
		arg = xstrndup(p, (size_t)(e - p));
		cJSON_AddItemToArray(a, cJSON_CreateString(arg));
		free(arg);
	}
	return o;
}

/* o into the file name in path's folder. */
static int
write_beside(const char *path, const char *name, const cJSON *o)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? xstrndup(path, (size_t)(slash - path) + 1) : xstrdup("");
	char *out = xasprintf("%s%s", dir, name);
	char *text = cJSON_PrintUnformatted(o);
	FILE *f = fopen(out, "w");
	int ok = f && text && fputs(text, f) >= 0 && fputc('\n', f) != EOF;

	if (f && fclose(f) != 0)
		ok = 0;
	if (!ok)
		kf_warn("cannot write %s: %s", out, strerror(errno));
	free(text);
	free(out);
	free(dir);
	return ok ? 0 : -1;
}

/* What kf-read --select prints: the filter, or the first launch's ID of each. */
static int
select_out(const cJSON *rk, const cJSON **pick, size_t n, long k, const char *path,
    int flags, int from_csv)
{
	struct buf filter = {0};
	size_t i;
	long count;
	int st = 0;

	if (flags & KF_SELECT_IDS) {
		for (i = 0; i < n; i++)
			if (kf_str(pick[i], "first_id"))
				printf("%s\n", kf_str(pick[i], "first_id"));
		return 0;
	}
	top_filter(rk, pick, n, (flags & KF_SELECT_PER_PROCESS) != 0, &filter, &count);
	if (flags & KF_SELECT_WRITE) {
		cJSON *top = top_json(rk, pick, n, k, &filter, count);

		if (from_csv && write_beside(path, NCU_RANKING, rk) != 0)
			st = 1;
		if (write_beside(path, NCU_TOP, top) != 0)
			st = 1;
		cJSON_Delete(top);
	}
	fwrite(filter.s, 1, filter.len, stdout);
	buf_free(&filter);
	return st;
}

int
ncu_select(long k, const char *path, int flags)
{
	int from_csv = !kf_endswith(path, ".json"), st = 0;
	cJSON *rk = from_csv ? ncu_ranking_csv(path) : ranking_load(path);
	const cJSON **pick;
	size_t n;

	if (rk == NULL) {
		kf_warn("cannot read %s: %s", path, strerror(errno));
		return 1;
	}
	pick = xcalloc((size_t)cJSON_GetArraySize(kf_arr(rk, "kernels")) + 1, sizeof *pick);
	if ((n = top_pick(rk, (size_t)k, pick)) == 0) {
		kf_warn("%s: no kernel launch with a duration (%.0f launches, %.0f kernels, "
		    "all framework machinery)", path, kf_num(rk, "launches", 0),
		    kf_num(rk, "kernel_count", 0));
		st = 1;
	} else {
		st = select_out(rk, pick, n, k, path, flags, from_csv);
	}
	free(pick);
	cJSON_Delete(rk);
	return st;
}

/* data.timing: the ranking, and which of its kernels the detailed run
 * profiled */

struct ncu_timing {
	cJSON *rank;		/* the ranking (its kernels get "detailed") */
	cJSON *top;		/* ncu_top.json, or NULL */
	cJSON *run;		/* ncu_detailed.json: kf-ncu's account of the detailed run */
	cJSON *tl;		/* KF_TIMING_TIMELINE: a traced timing run's, or NULL */
	const char *file;	/* where the ranking came from */
	struct kf_map bykey, byname;	/* the ranking's kernels */
	struct kf_map ident;	/* detailed launch's ID: its mangled name */
	int have_ident;
};

static void
ident_launch(void *arg, const struct trow *r)
{
	struct ncu_timing *t = arg;
	int created;
	struct kf_map_ent *e = kf_map_slot(&t->ident, r->id, &created);

	if (created)
		e->val = xstrdup(r->name);
}

struct ncu_timing *
ncu_timing_open(const char *dir)
{
	char *path = kf_path_join(dir, NCU_TIMING), *rpath = kf_path_join(dir, NCU_RANKING);
	char *mpath = kf_path_join(dir, NCU_REPORT_MANGLED), *p;
	struct ncu_timing *t;
	struct timing_rd rd;
	cJSON *rk, *k;
	int created, saved = errno;	/* a write error on stdout is told by it */
	const char *file = NCU_TIMING;

	rk = ncu_ranking_csv(path);
	if (rk == NULL && (rk = ranking_load(rpath)) != NULL)
		file = NCU_RANKING;
	free(path);
	free(rpath);
	if (rk == NULL) {
		free(mpath);
		errno = saved;
		return NULL;
	}
	t = xcalloc(1, sizeof *t);
	t->rank = rk;
	t->file = file;
	cJSON_ArrayForEach(k, kf_arr(rk, "kernels")) {
		if (kf_str(k, "key"))
			kf_map_slot(&t->bykey, kf_str(k, "key"), &created)->val = k;
		if (kf_str(k, "name") && (p = (char *)kf_str(k, "name")) &&
		    kf_map_get(&t->byname, p) == NULL)
			kf_map_slot(&t->byname, p, &created)->val = k;
	}
	p = kf_path_join(dir, NCU_TOP);
	t->top = json_load(p);
	free(p);
	if (t->top && !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(t->top, "chosen"))) {
		cJSON_Delete(t->top);
		t->top = NULL;
	}
	p = kf_path_join(dir, NCU_DETAILED);
	t->run = json_load(p);
	free(p);
	p = kf_path_join(dir, KF_TIMING_TIMELINE);
	t->tl = json_load(p);
	free(p);
	if (strcmp(kf_str(rk, "identity") ? kf_str(rk, "identity") : "", "mangled") == 0 &&
	    timing_scan(mpath, ident_launch, t, &rd, 1) == 0)
		t->have_ident = 1;
	free(mpath);
	errno = saved;
	return t;
}

/* Launch k of the detailed report gets the timing run's identity: its
 * mangled name ("mangled"), and the timing run's name for it ("name"; the
 * detailed report's in "name_in_details" when it differs). The kernel of
 * the ranking is marked detailed. */
void
ncu_timing_ident(struct ncu_timing *t, cJSON *k)
{
	const char *name = kf_str(k, "name"), *m = NULL;
	cJSON *e = NULL;
	char id[32];

	if (t == NULL || name == NULL)
		return;
	if (t->have_ident) {
		snprintf(id, sizeof id, "%.0f", kf_num(k, "id", -1));
		if ((m = kf_map_get(&t->ident, id)) != NULL) {
			kf_set_str(k, "mangled", m);
			e = kf_map_get(&t->bykey, m);
		}
	}
	if (e == NULL && m == NULL)
		e = kf_map_get(&t->byname, name);
	if (e == NULL)
		return;
	if (!cJSON_GetObjectItemCaseSensitive(e, "detailed"))
		cJSON_AddBoolToObject(e, "detailed", 1);
	if (kf_str(e, "name") && strcmp(kf_str(e, "name"), name) != 0) {
		kf_set_str(k, "name_in_details", name);
		kf_set_str(k, "name", kf_str(e, "name"));
	}
}

static int
in_list(const cJSON *a, const char *s)
{
	const cJSON *c;

	cJSON_ArrayForEach(c, a)
		if (cJSON_IsString(c) && s && strcmp(c->valuestring, s) == 0)
			return 1;
	return 0;
}

/* Whether ranking kernel e was chosen: by key (ncu_top.json's
 * chosen_keys), else by name (an ncu_top.json of before). */
static int
chosen(const struct ncu_timing *t, const cJSON *e)
{
	const cJSON *keys = kf_arr(t->top, "chosen_keys");

	return keys ? in_list(keys, kf_str(e, "key")) :
	    in_list(kf_arr(t->top, "chosen"), kf_str(e, "name"));
}

static cJSON *
timing_kernels(const struct ncu_timing *t, cJSON *missing)
{
	cJSON *a = cJSON_CreateArray(), *e;
	int mangled = strcmp(kf_str(t->rank, "identity") ? kf_str(t->rank, "identity") : "",
	    "mangled") == 0, procs = kf_num(t->rank, "process_count", 1) > 1;

	cJSON_ArrayForEach(e, kf_arr(t->rank, "kernels")) {
		cJSON *o = cJSON_CreateObject();
		const char *name = kf_str(e, "name"), *fw = name ? machinery(name) : NULL;
		int det = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "detailed"));

		if (name == NULL) {
			cJSON_Delete(o);
			continue;
		}
		cJSON_AddStringToObject(o, "name", name);
		if (mangled && kf_str(e, "key"))
			cJSON_AddStringToObject(o, "mangled", kf_str(e, "key"));
		cJSON_AddNumberToObject(o, "launches", kf_num(e, "launches", 0));
		cJSON_AddNumberToObject(o, "total_ns", kf_num(e, "total_ns", 0));
		cJSON_AddNumberToObject(o, "share_pct", kf_num(e, "share_pct", 0));
		if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(e, "short_launches"))) {
			/* for launch_bound (program.h) */
			cJSON_AddNumberToObject(o, "short_launches", kf_num(e, "short_launches", 0));
			cJSON_AddNumberToObject(o, "short_ns", kf_num(e, "short_ns", 0));
		}
		cJSON_AddBoolToObject(o, "detailed", det);
		if (t->top) {
			int c = chosen(t, e);

			cJSON_AddBoolToObject(o, "chosen", c);
			if (c && !det)
				cJSON_AddItemToArray(missing, cJSON_CreateString(name));
		}
		if (procs)
			cJSON_AddItemToObject(o, "processes", cJSON_Duplicate(
			    cJSON_GetObjectItemCaseSensitive(e, "processes"), 1));
		if (fw)
			cJSON_AddStringToObject(o, "machinery", fw);
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

/* data.timing; profiled: the launches the detailed report holds. */
cJSON *
ncu_timing_data(struct ncu_timing *t, long profiled, const cJSON *msgs)
{
	const cJSON *m;
	cJSON *o, *notes, *missing = cJSON_CreateArray(), *run;
	double bad = kf_num(t->rank, "bad_rows", 0), n = kf_num(t->rank, "kernel_count", 0);

	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "file", t->file);
	cJSON_AddStringToObject(o, "identity", kf_str(t->rank, "identity") ?
	    kf_str(t->rank, "identity") : "name");
	cJSON_AddNumberToObject(o, "launches", kf_num(t->rank, "launches", 0));
	cJSON_AddNumberToObject(o, "kernel_count", n);
	cJSON_AddNumberToObject(o, "total_ns", kf_num(t->rank, "total_ns", 0));
	cJSON_AddNumberToObject(o, "process_count", kf_num(t->rank, "process_count", 1));
	if (kf_obj(t->rank, "autotuning"))
		cJSON_AddItemToObject(o, "autotuning",
		    cJSON_Duplicate(kf_obj(t->rank, "autotuning"), 1));
	cJSON_AddItemToObject(o, "kernels", timing_kernels(t, missing));
	/* A traced timing run's timeline; the chains of the CSV, made anew by
	 * this reader (a traced run's CSV is in launch order on each stream). */
	if (kf_obj(t->tl, "timeline"))
		cJSON_AddItemToObject(o, "timeline", cJSON_Duplicate(kf_obj(t->tl, "timeline"), 1));
	if (kf_obj(t->rank, "chains"))
		cJSON_AddItemToObject(o, "chains", cJSON_Duplicate(kf_obj(t->rank, "chains"), 1));
	if (t->top) {
		cJSON_AddNumberToObject(o, "top", kf_num(t->top, "top", 0));
		cJSON_AddItemToObject(o, "chosen", cJSON_Duplicate(kf_arr(t->top, "chosen"), 1));
		cJSON_AddItemToObject(o, "missing", missing);
	} else {
		cJSON_Delete(missing);
	}
	run = t->run ? cJSON_Duplicate(t->run, 1) : cJSON_CreateObject();
	kf_set_num(run, "profiled", (double)profiled);
	/* ncu's own words: its first error, else that the program under it
	 * returned an error code (the status, said already) */
	cJSON_ArrayForEach(m, msgs)
		if (strcmp(kf_str(m, "level") ? kf_str(m, "level") : "", "error") == 0 &&
		    kf_str(m, "text") && (!kf_str(run, "ncu_error") ||
		    strstr(kf_str(run, "ncu_error"), "returned an error code"))) {
			kf_set_str(run, "ncu_error", kf_str(m, "text"));
			if (!strstr(kf_str(m, "text"), "returned an error code"))
				break;
		}
	cJSON_AddItemToObject(o, "detailed_run", run);
	cJSON_AddBoolToObject(o, "truncated", cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
	    t->rank, "truncated")));
	notes = cJSON_AddArrayToObject(o, "notes");
	if (n > MAX_LISTED)
		cJSON_AddItemToArray(notes, cJSON_CreateString("only the first 1000 kernels "
		    "by GPU time are listed"));
	if (bad > 0) {
		char *s = xasprintf("%.0f CSV row%s without a launch duration skipped",
		    bad, bad == 1 ? "" : "s");

		cJSON_AddItemToArray(notes, cJSON_CreateString(s));
		free(s);
	}
	return o;
}

void
ncu_timing_close(struct ncu_timing *t)
{
	size_t i;

	if (t == NULL)
		return;
	for (i = 0; i < t->ident.cap; i++)
		if (t->ident.ent[i].key)
			free(t->ident.ent[i].val);
	kf_map_free(&t->ident);
	kf_map_free(&t->bykey);
	kf_map_free(&t->byname);
	cJSON_Delete(t->rank);
	cJSON_Delete(t->top);
	cJSON_Delete(t->run);
	cJSON_Delete(t->tl);
	free(t);
}

/* kf-feedback */

int
ncu_timing_rank(const cJSON *data, struct kf_rank *rank)
{
	const cJSON *t = kf_obj(data, "timing"), *k;
	int n = 0;

	cJSON_ArrayForEach(k, kf_arr(t, "kernels")) {
		const cJSON *ns = cJSON_GetObjectItemCaseSensitive(k, "total_ns");

		if (kf_str(k, "name") && cJSON_IsNumber(ns)) {
			kf_rank_add(rank, kf_str(k, "name"), ns->valuedouble,
			    (long)kf_num(k, "launches", 0));
			n++;
		}
	}
	if (n > 0)
		kf_rank_sort(rank);
	return n > 0;
}

/* The signal a shell's status 128 + N names (139: SIGSEGV), as text. */
static const char *
signame_of(double n)
{
	const char *s = n >= 1 && n < 65 ? kf_signame((int)n) : NULL;

	return s ? s : "a signal";
}

/* A note when most of the timing run's GPU time is XLA's autotuning (the
 * machinery table's XLA entries): the kernels ranked after it are largely
 * the autotuner's candidates, unless its runs of them were told apart
 * (tune_launch). Measured on the H200 with a Flax CNN: 99.7%
 * of 9.72 s in DelayKernel, and with XLA_FLAGS=--xla_gpu_autotune_level=0
 * 175 launches, the convolutions 92% of 13.8 ms. */
void
ncu_xla_note(struct kf_fb *fb, const struct kf_rank *rank)
{
	const struct kf_rank_ent *cand;
	double share = 0;
	size_t i;

	for (i = 0; i < rank->n; i++)
		if (rank->v[i].machine && strcmp(rank->v[i].machine->framework, "XLA") == 0)
			share += rank->v[i].share;
	if (share < 50)
		return;
	if ((cand = kf_rank_find(rank, TUNE_NAME, NULL)) != NULL)
		kf_fb_add(fb, FB_KEY, "Note: %.1f%% of the timing run's GPU time is XLA's "
		    "autotuning (set aside above, with the %ld launches between its own that "
		    "were its timed runs of candidate kernels), so the kernels ranked are "
		    "those of the program's steps.", share, cand->launches);
	else
		kf_fb_add(fb, FB_KEY, "Note: %.1f%% of the timing run's GPU time is XLA's "
		    "autotuning (set aside above), so the kernels ranked are mostly the "
		    "autotuner's candidates, not the program's steps: profile with "
		    "XLA_FLAGS=--xla_gpu_autotune_level=0 in the program's environment "
		    "(kf-wrap(1), JAX and XLA).", share);
}

/* A note when the detailed run of what looks like an XLA program (XLA's
 * machinery in the ranking, or its fusions' names: "loop_add_fusion")
 * failed. Measured on the H200 (ncu 2025.3.1) with a Flax CNN: the
 * detailed run crashed (SIGSEGV) with XLA's command buffers (CUDA graphs)
 * on, with or without autotuning, and with --replay-mode application; with
 * XLA_FLAGS=--xla_gpu_enable_command_buffer= it profiled the three chosen
 * convolutions. */
static void
xla_crash_note(struct kf_fb *fb, const struct kf_rank *rank)
{
	size_t i;
	int xla = 0;

	for (i = 0; i < rank->n && !xla; i++)
		xla = (rank->v[i].machine && strcmp(rank->v[i].machine->framework, "XLA") == 0) ||
		    strstr(rank->v[i].name, "_fusion") != NULL;
	if (xla)
		kf_fb_add(fb, FB_KEY, "Note: its kernels are XLA's (JAX, TensorFlow). ncu's "
		    "detailed run of an XLA program crashed on an H200 while XLA replayed its "
		    "steps as CUDA graphs (command buffers), and ran when they were off: profile "
		    "with XLA_FLAGS=\"--xla_gpu_enable_command_buffer= "
		    "--xla_gpu_autotune_level=0\" in the program's environment (kf-wrap(1), "
		    "JAX and XLA).");
}

/* What the detailed run did, when it did not end well: "was stopped after
 * 120 s (...)", "failed: ncu exited with status 1"; NULL when it ended
 * well (kf-ncu's ncu_detailed.json: status "ok"), or no account is kept. */
static void
run_what(const cJSON *t, struct buf *b)
{
	const cJSON *r = kf_obj(t, "detailed_run");
	const char *st = kf_str(r, "status"), *err = kf_str(r, "ncu_error");

	if (st == NULL || strcmp(st, "ok") == 0)
		return;
	if (strcmp(st, "timeout") == 0)
		buf_printf(b, "was stopped after %.0f s, kf-ncu's limit for it "
		    "(KF_NCU_DETAIL_TIMEOUT; by default twice the timing run's %.0f s, plus 120 s)",
		    kf_num(r, "seconds", 0), kf_num(r, "timing_s", 0));
	else if (strcmp(st, "stopped") == 0)
		buf_printf(b, "was stopped from outside after %.0f s (kf-run's --timeout or "
		    "an interrupt)", kf_num(r, "seconds", 0));
	else
		buf_printf(b, "failed: ncu exited with status %.0f after %.0f s%s%s%s",
		    kf_num(r, "exit_code", 0), kf_num(r, "seconds", 0),
		    kf_num(r, "report", 1) ? "" : " and left no report",
		    kf_num(r, "exit_code", 0) > 128 ? ", the status of a program ended by " : "",
		    kf_num(r, "exit_code", 0) > 128 ? signame_of(kf_num(r, "exit_code", 0) - 128) : "");
	if (err)
		buf_printf(b, " (ncu: \"%s\")", err);
}

static void attempt_what(const cJSON *a, struct buf *b);

/* Why the detailed run of an XLA program ran with the XLA_FLAGS kf-ncu
 * added (ncu_detailed.json's xla_flags_added, xla_autotune). */
static const char *
xla_why(const cJSON *r)
{
	if (strcmp(kf_str(r, "xla_autotune") ? kf_str(r, "xla_autotune") : "", "loaded") == 0)
		return "the autotuning results of the timing run loaded, so that XLA runs the "
		    "kernels it chose there without autotuning under ncu, and its command "
		    "buffers (CUDA graphs, on which ncu crashed on an H200) off";
	return "XLA's command buffers, CUDA graphs, and its autotuning crashed ncu's "
	    "detailed run on an H200";
}

/* A note that the details come from a run with the XLA_FLAGS (and the
 * environment) kf-ncu added, when it loaded the timing run's autotuning
 * results. */
static void
xla_loaded_say(struct kf_fb *fb, const cJSON *t)
{
	const cJSON *r = kf_obj(t, "detailed_run");
	const char *env = kf_str(r, "xla_env_added");
	struct buf b = {0};

	if (strcmp(kf_str(r, "xla_autotune") ? kf_str(r, "xla_autotune") : "", "loaded") != 0 ||
	    strcmp(kf_str(r, "status") ? kf_str(r, "status") : "", "ok") != 0)
		return;
	buf_printf(&b, "Note: its kernels are XLA's: the detailed run ran with XLA_FLAGS+=\"%s\"",
	    kf_str(r, "xla_flags_added") ? kf_str(r, "xla_flags_added") : "");
	if (env)
		buf_printf(&b, " and %s in its environment", env);
	buf_printf(&b, " (%s%s).", xla_why(r), env ? "; JAX's memory pool not taken whole at "
	    "its start, since ncu saves and restores the memory a kernel can write for each "
	    "pass" : "");
	kf_fb_add_buf(fb, FB_KEY, &b);
	buf_free(&b);
}

/* A detailed run that ended well after attempts that did not: which, and
 * how they ended (what failed is not left unsaid). */
static void
retried_say(struct kf_fb *fb, const cJSON *t)
{
	const cJSON *r = kf_obj(t, "detailed_run"), *a;
	struct buf b = {0};
	int n = 0;

	if (strcmp(kf_str(r, "status") ? kf_str(r, "status") : "", "ok") != 0)
		return;
	cJSON_ArrayForEach(a, kf_arr(r, "attempts")) {
		buf_puts(&b, n++ ? "; another " : "Note: ncu's detailed run was tried first held "
		    "beside the timing run (ncu --mode launch, then attach), where it ");
		attempt_what(a, &b);
	}
	if (n == 0)
		return;
	buf_puts(&b, "; it was run again after the timing run, and the details below are "
	    "from that run.");
	kf_fb_add_buf(fb, FB_KEY, &b);
	buf_free(&b);
}

/* "A timing run measured all N kernel launches (T of GPU time in K
 * kernels", and what one of them is when XLA's autotuning runs were told
 * apart (tune_launch). */
static void
timing_head(struct buf *b, const cJSON *t)
{
	const cJSON *at = kf_obj(t, "autotuning");

	buf_printf(b, "A timing run measured all %.0f kernel launches (", kf_num(t, "launches", 0));
	kf_fmt_ns(b, kf_num(t, "total_ns", 0));
	buf_printf(b, " of GPU time in %.0f kernels", kf_num(t, "kernel_count", 0));
	if (at)
		buf_printf(b, ", one of them \"%s\": %.0f launches of %.0f kernels between "
		    "launches of XLA's autotuner, its timed runs of candidates",
		    kf_str(at, "name") ? kf_str(at, "name") : "XLA autotuning",
		    kf_num(at, "launches", 0), kf_num(at, "kernel_count", 0));
}

void
ncu_timing_say(struct kf_fb *fb, const cJSON *data, size_t nl)
{
	const cJSON *t = kf_obj(data, "timing"), *c;
	const cJSON *missing = kf_arr(t, "missing");
	struct buf b = {0}, what = {0};
	double procs = kf_num(t, "process_count", 1);
	int top = (int)kf_num(t, "top", 0), n = 0;

	if (t == NULL)
		return;
	if (kf_num(t, "launches", 0) <= 0) {
		kf_fb_add(fb, FB_KEY, "Note: the timing run's %s holds no launch duration, so "
		    "the ranking covers only the %zu launch%s profiled in detail.",
		    kf_str(t, "file") ? kf_str(t, "file") : NCU_TIMING, nl, nl == 1 ? "" : "es");
		return;
	}
	timing_head(&b, t);
	if (procs > 1)
		buf_printf(&b, ", in %.0f processes", procs);
	buf_puts(&b, "); ");
	if (top > 0)
		buf_printf(&b, "the details below come from a second run that profiled "
		    "the %d kernel%s with the most GPU time (%zu launch%s%s).", top,
		    top == 1 ? "" : "s", nl, nl == 1 ? "" : "es", procs > 1 ? ": the first "
		    "launch of each in every process that ran it, since a process's ID "
		    "differs between the two runs; each kernel's numbers are from its "
		    "longest" : "");
	else
		buf_printf(&b, "the details below come from %zu profiled launch%s.", nl,
		    nl == 1 ? "" : "es");
	kf_fb_add_buf(fb, FB_KEY, &b);
	retried_say(fb, t);
	xla_loaded_say(fb, t);
	run_what(t, &what);
	cJSON_ArrayForEach(c, missing) {
		char *s = kf_kernel_short(c->valuestring, 60);

		if (n++ > 0)
			buf_puts(&b, "; ");
		else if (what.len)
			buf_printf(&b, "Note: the detailed run %s before it profiled these "
			    "kernels chosen from the timing run, so they have no details: ", what.s);
		else if (kf_str(kf_obj(t, "detailed_run"), "xla_flags_added"))
			buf_printf(&b, "Note: the detailed run ran with XLA_FLAGS+=\"%s\" (%s), "
			    "and with them these kernels chosen from the timing run did not run "
			    "in it, so they have no details: ",
			    kf_str(kf_obj(t, "detailed_run"), "xla_flags_added"),
			    xla_why(kf_obj(t, "detailed_run")));
		else
			buf_puts(&b, "Note: the program runs twice (timing, then details), and "
			    "these kernels chosen from the timing run did not run in the "
			    "detailed run (random shapes, autotuning or caches can change "
			    "which kernels run), so they have no details: ");
		buf_puts(&b, s);
		free(s);
	}
	if (n > 0) {
		buf_putc(&b, '.');
		kf_fb_add_buf(fb, FB_KEY, &b);
	}
	kf_set(fb->analysis, "missing_from_details", missing ? cJSON_Duplicate(missing, 1) :
	    cJSON_CreateArray());
	buf_free(&what);
	buf_free(&b);
}

/* With several processes: where kernel name ran in the timing run (the
 * process IDs are that run's; the detailed run's differ). */
void
ncu_timing_procs(struct kf_fb *fb, const cJSON *data, const char *name)
{
	const cJSON *t = kf_obj(data, "timing"), *k, *p;
	struct buf b = {0};
	int n = 0;

	if (kf_num(t, "process_count", 1) <= 1 || name == NULL)
		return;
	cJSON_ArrayForEach(k, kf_arr(t, "kernels")) {
		if (strcmp(kf_str(k, "name") ? kf_str(k, "name") : "", name) != 0)
			continue;
		cJSON_ArrayForEach(p, kf_arr(k, "processes")) {
			if (n++ == 0)
				buf_printf(&b, "In the timing run it ran %.0f of its %.0f launches "
				    "in process %.0f", kf_num(p, "launches", 0),
				    kf_num(k, "launches", 0), kf_num(p, "pid", 0));
			else
				buf_printf(&b, ", %.0f in process %.0f", kf_num(p, "launches", 0),
				    kf_num(p, "pid", 0));
		}
		break;
	}
	if (n > 0) {
		buf_printf(&b, " (that run's process IDs%s).", n > 1 ? "; the launch above is "
		    "the longest of the detailed run's, one in each process" : "");
		kf_fb_add_buf(fb, FB_KEY, &b);
	}
	buf_free(&b);
}

/* The feedback of a --top run whose detailed run profiled nothing: the
 * timing run's ranking and what the detailed run did. 0 when there is no
 * timing run to tell of. */
int
ncu_timing_only(struct kf_fb *fb, const cJSON *data)
{
	const cJSON *t = kf_obj(data, "timing");
	const char *st = kf_str(kf_obj(t, "detailed_run"), "status");
	struct kf_rank rank = {0};
	struct buf b = {0}, what = {0};
	const struct kf_rank_ent *e;
	cJSON *focus;
	enum kf_focus_how how;
	size_t matches;

	if (kf_num(t, "launches", 0) <= 0 || !ncu_timing_rank(data, &rank))
		return 0;
	run_what(t, &what);
	timing_head(&b, t);
	buf_printf(&b, "); the second run, which was to profile "
	    "the %.0f kernel%s with the most GPU time in detail, %s, so no kernel has "
	    "details: below is the timing run's ranking only.",
	    kf_num(t, "top", 0), kf_num(t, "top", 0) == 1 ? "" : "s",
	    what.len ? what.s : "profiled no launch");
	kf_fb_add_buf(fb, FB_HEAD, &b);
	e = kf_rank_pick(&rank, fb->opt->focus, &how, &matches);
	focus = cJSON_AddObjectToObject(fb->analysis, "focus");
	if (e) {
		char *s = kf_kernel_short(e->name, 200);

		kf_fb_add(fb, FB_HEAD, "Kernel: %s (no launch profiled in detail)", s);
		free(s);
		kf_rank_why(&rank, e, how, fb->opt->focus, matches, &b);
		kf_fb_add_buf(fb, FB_HEAD, &b);
		cJSON_AddStringToObject(focus, "name", e->name);
		cJSON_AddNumberToObject(focus, "share_pct", e->share);
		cJSON_AddNumberToObject(focus, "total_ns", e->total_ns);
		cJSON_AddNumberToObject(focus, "launches", (double)e->launches);
		cJSON_AddBoolToObject(focus, "detailed", 0);
	}
	if (kf_rank_own(&rank) < rank.n) {
		kf_rank_machinery_text(&rank, &b);
		kf_fb_add_buf(fb, FB_KEY, &b);
	}
	ncu_xla_note(fb, &rank);
	if (st && strcmp(st, "ok") != 0)
		xla_crash_note(fb, &rank);
	kf_rank_text(&rank, &b, fb->opt->top);
	kf_fb_add_buf(fb, FB_RANK, &b);
	kf_set_str(fb->analysis, "status", "no_details");
	kf_set(fb->analysis, "missing_from_details", cJSON_Duplicate(kf_arr(t, "chosen") ?
	    kf_arr(t, "chosen") : kf_arr(t, "missing"), 1));
	cJSON_AddItemToObject(fb->analysis, "ranking", kf_rank_json(&rank, fb->opt->top));
	kf_rank_free(&rank);
	buf_free(&what);
	buf_free(&b);
	return 1;
}

/* How one attempt of the detailed run ended, into b: "exited with status 11
 * (SIGSEGV) after 5 s", "was stopped at kf-ncu's limit of 142 s", "was
 * stopped from outside after 30 s". */
static void
attempt_what(const cJSON *a, struct buf *b)
{
	const char *st = kf_str(a, "status");
	double code = kf_num(a, "exit_code", 0), s = kf_num(a, "seconds", 0);

	if (st && strcmp(st, "timeout") == 0)
		buf_printf(b, "was stopped at kf-ncu's limit of %.0f s for it "
		    "(KF_NCU_DETAIL_TIMEOUT; by default twice the timing run's %.0f s, plus 120 s)",
		    kf_num(a, "limit_s", s), kf_num(a, "timing_s", 0));
	else if (st && strcmp(st, "stopped") == 0)
		buf_printf(b, "was stopped from outside after %.0f s (kf-run's --timeout or "
		    "an interrupt)", s);
	else
		buf_printf(b, "exited with status %.0f%s%s%s after %.0f s%s", code,
		    code > 128 ? " (" : "", code > 128 ? signame_of(code - 128) : "",
		    code > 128 ? ")" : "", s, cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(a,
		    "report")) ? " and left no report" : "");
}

void
ncu_profiler_failed(struct kf_fb *fb, const cJSON *data)
{
	const cJSON *t = kf_obj(data, "timing"), *r = kf_obj(t, "detailed_run"), *a;
	const char *st = kf_str(r, "status"), *err = kf_str(r, "ncu_error");
	const char *xla = kf_str(r, "xla_flags_added");
	double chosen = cJSON_GetArraySize(kf_arr(t, "chosen"));
	double missing = cJSON_GetArraySize(kf_arr(t, "missing"));
	double profiled = chosen - missing;
	struct buf b = {0};
	struct kf_finding *f;
	int n = 0;

	/* The program's own run is the timing run: only when it was clean
	 * (kf-ncu says so: timing_exit_code) is the failure the profiler's. */
	if (st == NULL || strcmp(st, "ok") == 0 ||
	    !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(r, "timing_exit_code")) ||
	    kf_num(r, "timing_exit_code", 1) != 0)
		return;
	if (profiled < 0 || chosen == 0)
		profiled = 0;
	buf_printf(&b, "ncu's detailed run failed, not the program: the program's own run "
	    "(the timing run, %s) exited with status 0 after %.0f s, and ncu's detailed run "
	    "of it%s ", strcmp(kf_str(r, "timing") ? kf_str(r, "timing") : "", "trace") == 0 ?
	    "under kf's tracer" : "under ncu", kf_num(r, "timing_s", 0),
	    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "overlapped")) ?
	    " (held beside the timing run, then attached to)" : " (after the timing run)");
	attempt_what(r, &b);
	if (err)
		buf_printf(&b, " (ncu: \"%s\")", err);
	cJSON_ArrayForEach(a, kf_arr(r, "attempts")) {
		buf_puts(&b, n++ ? "; and one " : ". kf tried it first held beside the timing "
		    "run (ncu --mode launch, then attach), where it ");
		attempt_what(a, &b);
	}
	if (xla)
		buf_printf(&b, ". Its kernels are XLA's, so it ran with XLA_FLAGS+=\"%s\" (%s)",
		    xla, xla_why(r));
	buf_printf(&b, ". The timing run's ranking of all %.0f launches is whole; ",
	    kf_num(t, "launches", 0));
	if (profiled > 0)
		buf_printf(&b, "%.0f of the %.0f kernels chosen have ncu's details, the other "
		    "%.0f none", profiled, chosen, missing);
	else
		buf_puts(&b, "no kernel has ncu's details");
	f = kf_diag_add(&fb->diag, KF_PROFILER_FAILED, NULL, NAN, "%s", b.s);
	kf_finding_ev(f, "detailed_run.exit_code", kf_num(r, "exit_code", 0), NULL);
	kf_finding_ev(f, "detailed_run.seconds", kf_num(r, "seconds", 0), "s");
	if (strcmp(st, "timeout") == 0)
		kf_finding_ev(f, "detailed_run.limit_s", kf_num(r, "limit_s", 0), "s");
	kf_finding_ev(f, "detailed_run.timing_exit_code", 0, NULL);
	kf_finding_ev(f, "detailed_run.timing_s", kf_num(r, "timing_s", 0), "s");
	kf_finding_ev(f, "timing.launches", kf_num(t, "launches", 0), NULL);
	kf_finding_ev(f, "kernels detailed", profiled, NULL);
	if (strcmp(st, "timeout") == 0)
		kf_finding_fix(f, "give the detailed run more time (KF_NCU_DETAIL_TIMEOUT=SECONDS "
		    "in kf's environment) or detail fewer kernels (--top 1); the timing run's "
		    "ranking needs no second run");
	else if (strcmp(st, "stopped") == 0)
		kf_finding_fix(f, "give kf-run a longer --timeout (kf -t SECONDS): the detailed "
		    "run needs about the timing run's time plus ncu's replay of each chosen kernel");
	else
		kf_finding_fix(f, "the program is not at fault: detail fewer kernels (--top 1), or "
		    "run ncu on it by hand (the command in the record's argv) to see where ncu "
		    "fails; the timing run's ranking needs no second run");
	buf_free(&b);
}
