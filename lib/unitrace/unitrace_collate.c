/* The unitrace path, collating: the three passes of a job (one metric group
 * each, each from its own run of the program) into benchmark segments of
 * kernels, each kernel with its median ComputeBasic instance and the
 * MemoryProfile and VectorEngineProfile instances closest to it in GPU time.
 *
 * Segments are the ITT tasks "ittapi::model run loop[::label]" of each
 * pass's timeline; a kernel instance belongs to one when its device event
 * lies inside the task's time range (matched by GlobalInstanceId). In the
 * sampling layout (OpenCL) rows are per-kernel means and the passes are
 * matched by kernel name; the timeline then only gives device times. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chrome.h"
#include "feedback.h"
#include "map.h"
#include "mem.h"
#include "profiler.h"
#include "record.h"
#include "unitrace.h"

enum { CB, MP, VEP, NGROUPS };

struct ref {
	const cJSON *sec, *row;
	int idx;		/* the row's index in its section */
};

struct rows {
	struct ref *v;
	size_t n, cap;
};

struct gseg {
	char *label, *itt;
	double start, end;	/* us; start > end: no range */
	struct rows g[NGROUPS];
};

struct col {
	struct gseg *v;
	size_t n;
	cJSON *warnings;
};

static int
group_index(const char *g)
{
	int i;

	for (i = 0; g && i < NGROUPS; i++)
		if (strcmp(g, unitrace_groups[i]) == 0)
			return i;
	return -1;
}

static void
rows_add(struct rows *r, const cJSON *sec, const cJSON *row, int idx)
{
	KF_GROW(r->v, r->n, r->cap, 16);
	r->v[r->n].sec = sec;
	r->v[r->n].row = row;
	r->v[r->n].idx = idx;
	r->n++;
}

static struct gseg *
gseg_get(struct col *c, const char *label, const char *itt, double start, double end)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (strcmp(c->v[i].label, label) == 0)
			return &c->v[i];
	c->v = xrealloc(c->v, (c->n + 1) * sizeof *c->v);
	memset(&c->v[c->n], 0, sizeof c->v[c->n]);
	c->v[c->n].label = xstrdup(label);
	c->v[c->n].itt = itt ? xstrdup(itt) : NULL;
	c->v[c->n].start = start;
	c->v[c->n].end = end;
	return &c->v[c->n++];
}

static void
warn(struct col *c, const char *fmt, const char *a, const char *b)
{
	char *s = xasprintf(fmt, a, b);

	cJSON_AddItemToArray(c->warnings, cJSON_CreateString(s));
	free(s);
}

static int
by_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Ids of the device events inside [start, end], sorted. */
static double *
ids_in(const cJSON *timeline, double start, double end, size_t *n)
{
	const cJSON *k;
	double *v = NULL;
	size_t cap = 0;

	*n = 0;
	cJSON_ArrayForEach(k, kf_arr(timeline, "kernels")) {
		double ts = kf_num(k, "ts", NAN), dur = kf_num(k, "dur", 0);

		if (!(ts >= start && ts + dur <= end))
			continue;
		KF_GROW(v, *n, cap, 64);
		v[(*n)++] = kf_num(k, "id", NAN);
	}
	if (*n)
		kf_sort(v, *n, sizeof *v, by_double);
	return v;
}

/* Sort one pass's rows into segments. */
static void
segment_pass(struct col *c, const cJSON *data, int gi, const char *pass)
{
	const cJSON *tl = kf_obj(data, "timeline"), *itt, *sec, *row;
	long matched = 0;
	int nitt = 0;

	cJSON_ArrayForEach(itt, kf_arr(tl, "itt")) {
		double ts = kf_num(itt, "ts", NAN), dur = kf_num(itt, "dur", NAN);
		size_t nids;
		double *ids = ids_in(tl, ts, ts + dur, &nids);
		struct gseg *g = NULL;

		nitt++;
		cJSON_ArrayForEach(sec, kf_arr(data, "sections")) {
			int idcol = unitrace_col(kf_arr(sec, "columns"), "GlobalInstanceId"), i = 0;

			cJSON_ArrayForEach(row, kf_arr(sec, "rows")) {
				double id = unitrace_val(row, idcol);

				if (nids && !isnan(id) && bsearch(&id, ids, nids, sizeof *ids, by_double)) {
					if (g == NULL)
						g = gseg_get(c, kf_str(itt, "label") ?
						    kf_str(itt, "label") : "default",
						    kf_str(itt, "name"), ts, ts + dur);
					rows_add(&g->g[gi], sec, row, i);
					matched++;
				}
				i++;
			}
		}
		free(ids);
	}
	if (matched)
		return;
	if (nitt)
		warn(c, "%s: no kernel ran inside the timeline's '%s' ranges: every kernel counts",
		    pass, KF_ITT_RUN_LOOP);
	cJSON_ArrayForEach(sec, kf_arr(data, "sections")) {
		struct gseg *g = gseg_get(c, "default", NULL, 1, 0);
		int i = 0;

		cJSON_ArrayForEach(row, kf_arr(sec, "rows"))
			rows_add(&g->g[gi], sec, row, i++);
	}
}

static char *
kernel_key(const struct ref *r, int kcol)
{
	const cJSON *k = cJSON_GetArrayItem(r->row, kcol);

	return xasprintf("%g\x1f%s", kf_num(r->sec, "device", 0),
	    cJSON_IsString(k) ? k->valuestring : "");
}

/* Group refs by kernel (device and full name): map key -> struct rows. */
static void
by_kernel(const struct rows *in, struct kf_map *m)
{
	size_t i;

	for (i = 0; i < in->n; i++) {
		int kcol = unitrace_col(kf_arr(in->v[i].sec, "columns"), "Kernel");
		char *key = kernel_key(&in->v[i], kcol);
		struct kf_map_ent *e = kf_map_slot(m, key, NULL);

		if (e->val == NULL)
			e->val = xcalloc(1, sizeof(struct rows));
		rows_add(e->val, in->v[i].sec, in->v[i].row, in->v[i].idx);
		free(key);
	}
}

static void
map_rows_free(struct kf_map *m)
{
	struct kf_map_ent **l;
	size_t i, n;

	l = kf_map_list(m, &n);
	for (i = 0; i < n; i++) {
		free(((struct rows *)l[i]->val)->v);
		free(l[i]->val);
	}
	free(l);
	kf_map_free(m);
}

static double
gpu_time(const struct ref *r)
{
	return unitrace_val(r->row, unitrace_col(kf_arr(r->sec, "columns"), "GpuTime[ns]"));
}

static cJSON *
row_obj(const struct ref *r)
{
	const cJSON *c, *v = r->row->child;
	cJSON *o = cJSON_CreateObject();
	const cJSON *samples = kf_arr(r->sec, "samples"), *inst = kf_arr(r->sec, "instances");

	cJSON_ArrayForEach(c, kf_arr(r->sec, "columns")) {
		if (v == NULL)
			break;
		if (cJSON_IsString(c))
			cJSON_AddItemToObject(o, c->valuestring, cJSON_Duplicate(v, 1));
		v = v->next;
	}
	if (samples)
		cJSON_AddItemToObject(o, "samples",
		    cJSON_Duplicate(cJSON_GetArrayItem(samples, r->idx), 1));
	if (inst)
		cJSON_AddItemToObject(o, "instances",
		    cJSON_Duplicate(cJSON_GetArrayItem(inst, r->idx), 1));
	return o;
}

/* The row of rs whose GPU time is closest to t (the first of equals). */
static const struct ref *
closest(const struct rows *rs, double t)
{
	const struct ref *best = NULL;
	double bd = INFINITY;
	size_t i;

	for (i = 0; rs && i < rs->n; i++) {
		double d = fabs(gpu_time(&rs->v[i]) - t);

		if (d < bd) {
			bd = d;
			best = &rs->v[i];
		}
	}
	return best;
}

/* The Kernel column of a row; "" when a record written by hand has none. */
static const char *
kernel_of(const struct ref *r)
{
	const cJSON *k = cJSON_GetArrayItem(r->row,
	    unitrace_col(kf_arr(r->sec, "columns"), "Kernel"));

	return cJSON_IsString(k) ? k->valuestring : "";
}

static void
add_name(cJSON *k, const char *full, const cJSON *sec, const cJSON *devices)
{
	char *name = kf_kernel_strip_suffix(full);
	const cJSON *dn;
	int dev = (int)kf_num_long(sec, "device", 0, INT_MIN, INT_MAX);

	cJSON_AddStringToObject(k, "name", name);
	cJSON_AddStringToObject(k, "full_name", full);
	if (strlen(full) > strlen(name))
		cJSON_AddStringToObject(k, "launch", full + strlen(name));
	else
		cJSON_AddNullToObject(k, "launch");
	cJSON_AddNumberToObject(k, "device", dev);
	if ((dn = cJSON_GetArrayItem(devices, dev)) && cJSON_IsString(dn)) {
		char *s = xasprintf("%s #%d", dn->valuestring, dev);

		cJSON_AddStringToObject(k, "device_name", s);
		free(s);
	}
	free(name);
}

static void
add_group_row(cJSON *k, const char *key, const struct ref *r)
{
	cJSON_AddItemToObject(k, key, r ? row_obj(r) : cJSON_CreateNull());
}

static const char *const row_keys[NGROUPS] = {
	"compute_basic", "memory_profile", "vector_engine_profile",
};

/* One kernel of a segment: its ComputeBasic instances, the median one, and
 * the other groups' closest rows. */
static cJSON *
query_kernel(const struct rows *cb, struct kf_map *other[NGROUPS], const char *key,
    const cJSON *devices, double *median_out, double *total_out)
{
	cJSON *k = cJSON_CreateObject(), *ids = cJSON_CreateArray(), *t;
	double *v = xcalloc(cb->n, sizeof *v), lo = INFINITY, hi = -INFINITY, sum = 0;
	int idcol = unitrace_col(kf_arr(cb->v[0].sec, "columns"), "GlobalInstanceId");
	const struct ref *med;
	size_t i;
	int g;

	for (i = 0; i < cb->n; i++) {
		double id = unitrace_val(cb->v[i].row, idcol);

		v[i] = gpu_time(&cb->v[i]);
		lo = fmin(lo, v[i]);
		hi = fmax(hi, v[i]);
		sum += v[i];
		if (!isnan(id))
			cJSON_AddItemToArray(ids, cJSON_CreateNumber(id));
	}
	med = &cb->v[unitrace_median_pick(v, cb->n)];
	add_name(k, kernel_of(med), med->sec, devices);
	cJSON_AddNumberToObject(k, "instances", (double)cb->n);
	cJSON_AddItemToObject(k, "global_instance_ids", ids);
	t = cJSON_AddObjectToObject(k, "gpu_time_ns");
	cJSON_AddNumberToObject(t, "median", gpu_time(med));
	cJSON_AddNumberToObject(t, "min", lo);
	cJSON_AddNumberToObject(t, "max", hi);
	cJSON_AddNumberToObject(t, "total", sum);
	if (idcol >= 0)
		cJSON_AddNumberToObject(k, "median_global_instance_id", unitrace_val(med->row, idcol));
	add_group_row(k, row_keys[CB], med);
	for (g = MP; g < NGROUPS; g++)
		add_group_row(k, row_keys[g],
		    other[g] ? closest(kf_map_get(other[g], key), gpu_time(med)) : NULL);
	*median_out = gpu_time(med);
	*total_out = sum;
	free(v);
	return k;
}

static int
by_total(const void *a, const void *b)
{
	double x = kf_num(kf_obj(*(cJSON *const *)a, "gpu_time_ns"), "total", 0);
	double y = kf_num(kf_obj(*(cJSON *const *)b, "gpu_time_ns"), "total", 0);

	if (x != y)
		return x < y ? 1 : -1;
	/* Sampling: kernels never timed go by their number of samples. */
	x = kf_num(*(cJSON *const *)a, "samples", 0);
	y = kf_num(*(cJSON *const *)b, "samples", 0);
	if (x != y)
		return x < y ? 1 : -1;
	return strcmp(kf_str(*(cJSON *const *)a, "full_name"), kf_str(*(cJSON *const *)b, "full_name"));
}

/* Put the kernels of a segment in order of total GPU time. */
static cJSON *
sorted_array(cJSON **v, size_t n)
{
	cJSON *a = cJSON_CreateArray();
	size_t i;

	if (n)
		kf_sort(v, n, sizeof *v, by_total);
	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(a, v[i]);
	return a;
}

static cJSON *
query_segment(struct gseg *s, const cJSON *devices)
{
	struct kf_map m[NGROUPS];
	struct kf_map *other[NGROUPS] = { NULL, &m[MP], &m[VEP] };
	struct kf_map_ent **l;
	cJSON *o, **ks;
	double runtime = 0;
	size_t i, n;
	int g;

	memset(m, 0, sizeof m);
	for (g = 0; g < NGROUPS; g++)
		by_kernel(&s->g[g], &m[g]);
	for (g = MP; g < NGROUPS; g++)
		if (s->g[g].n == 0)
			other[g] = NULL;
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "label", s->label);
	cJSON_AddItemToObject(o, "itt_event", s->itt ? cJSON_CreateString(s->itt) : cJSON_CreateNull());
	if (s->start <= s->end) {
		cJSON *r = cJSON_AddArrayToObject(o, "time_range_us");

		cJSON_AddItemToArray(r, cJSON_CreateNumber(s->start));
		cJSON_AddItemToArray(r, cJSON_CreateNumber(s->end));
	}
	l = kf_map_list(&m[CB], &n);
	ks = xcalloc(n + 1, sizeof *ks);
	for (i = 0; i < n; i++) {
		double med, tot;

		ks[i] = query_kernel(l[i]->val, other, l[i]->key, devices, &med, &tot);
		runtime += med;
	}
	/* As the reference: the sum of each kernel's median instance. */
	cJSON_AddNumberToObject(o, "runtime_ns", runtime);
	cJSON_AddItemToObject(o, "kernels", sorted_array(ks, n));
	free(ks);
	free(l);
	for (g = 0; g < NGROUPS; g++)
		map_rows_free(&m[g]);
	return o;
}

/* Sampling: device times of a kernel from the timeline (inside the ITT
 * ranges when there are any), in ns. */
static double *
device_times(const cJSON *tl, const char *name, size_t *n)
{
	const cJSON *k, *itt;
	double *v = NULL;
	int nitt = cJSON_GetArraySize(kf_arr(tl, "itt"));

	*n = 0;
	cJSON_ArrayForEach(k, kf_arr(tl, "kernels")) {
		char *kn = kf_kernel_strip_suffix(kf_str(k, "name") ? kf_str(k, "name") : "");
		double ts = kf_num(k, "ts", NAN), dur = kf_num(k, "dur", NAN);
		int in = nitt == 0;

		cJSON_ArrayForEach(itt, kf_arr(tl, "itt")) {
			double s = kf_num(itt, "ts", NAN), e = s + kf_num(itt, "dur", NAN);

			in |= ts >= s && ts + dur <= e;
		}
		if (in && strcmp(kn, name) == 0 && !isnan(dur)) {
			v = xrealloc(v, (*n + 1) * sizeof *v);
			v[(*n)++] = round(dur * 1000);
		}
		free(kn);
	}
	return v;
}

static cJSON *
sampling_kernel(const struct rows *cb, struct kf_map *m, const char *key, const cJSON *tl,
    const cJSON *devices, double *median, double *total)
{
	cJSON *k = cJSON_CreateObject(), *t;
	const char *full = kernel_of(&cb->v[0]);
	char *name = kf_kernel_strip_suffix(full);
	size_t n, i;
	double *v = device_times(tl, name, &n), lo = INFINITY, hi = -INFINITY, sum = 0;
	int g;

	add_name(k, full, cb->v[0].sec, devices);
	{
		const cJSON *s = cJSON_GetArrayItem(kf_arr(cb->v[0].sec, "samples"), cb->v[0].idx);

		cJSON_AddNumberToObject(k, "samples", cJSON_IsNumber(s) ? s->valuedouble : 0);
	}
	cJSON_AddNumberToObject(k, "timed_instances", (double)n);
	t = cJSON_AddObjectToObject(k, "gpu_time_ns");
	cJSON_AddStringToObject(t, "source", n ? "timeline" : "none");
	for (i = 0; i < n; i++) {
		lo = fmin(lo, v[i]);
		hi = fmax(hi, v[i]);
		sum += v[i];
	}
	if (n) {
		*median = v[unitrace_median_pick(v, n)];
		cJSON_AddNumberToObject(t, "median", *median);
		cJSON_AddNumberToObject(t, "min", lo);
		cJSON_AddNumberToObject(t, "max", hi);
	} else {
		*median = 0;
		cJSON_AddNullToObject(t, "median");
	}
	cJSON_AddNumberToObject(t, "total", sum);
	cJSON_AddNumberToObject(t, "sample_window", gpu_time(&cb->v[0]));
	*total = sum;
	add_group_row(k, row_keys[CB], &cb->v[0]);
	for (g = MP; g < NGROUPS; g++) {
		struct rows *r = kf_map_get(&m[g], key);

		add_group_row(k, row_keys[g], r && r->n ? &r->v[0] : NULL);
	}
	free(v);
	free(name);
	return k;
}

static cJSON *
sampling_segment(struct col *c, const cJSON *tl, const cJSON *devices)
{
	struct kf_map m[NGROUPS];
	struct kf_map_ent **l;
	const cJSON *itt;
	const char *label = NULL, *ittname = NULL;
	cJSON *o, **ks, *k;
	size_t i, n;
	int g, several = 0;
	double runtime = 0;

	/* One segment: samples cannot be told apart by time. */
	cJSON_ArrayForEach(itt, kf_arr(tl, "itt")) {
		if (kf_str(itt, "label") == NULL)
			continue;
		if (label && strcmp(label, kf_str(itt, "label")) != 0)
			several = 1;
		if (!label) {
			label = kf_str(itt, "label");
			ittname = kf_str(itt, "name");
		}
	}
	if (several || !label) {
		label = "default";
		ittname = NULL;
	}
	memset(m, 0, sizeof m);
	for (g = 0; g < NGROUPS; g++)
		for (i = 0; i < c->n; i++)
			by_kernel(&c->v[i].g[g], &m[g]);
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "label", label);
	cJSON_AddItemToObject(o, "itt_event", ittname ? cJSON_CreateString(ittname) : cJSON_CreateNull());
	l = kf_map_list(&m[CB], &n);
	ks = xcalloc(n + 1, sizeof *ks);
	for (i = 0; i < n; i++) {
		double med, tot;

		ks[i] = sampling_kernel(l[i]->val, m, l[i]->key, tl, devices, &med, &tot);
		runtime += med;
	}
	cJSON_AddNumberToObject(o, "runtime_ns", runtime);
	k = sorted_array(ks, n);
	cJSON_AddItemToObject(o, "kernels", k);
	free(ks);
	free(l);
	for (g = 0; g < NGROUPS; g++)
		map_rows_free(&m[g]);
	return o;
}

static void
col_free(struct col *c)
{
	size_t i;
	int g;

	for (i = 0; i < c->n; i++) {
		free(c->v[i].label);
		free(c->v[i].itt);
		for (g = 0; g < NGROUPS; g++)
			free(c->v[i].g[g].v);
	}
	free(c->v);
}

static void
add_devices(cJSON *devices, const cJSON *tl)
{
	const cJSON *d, *e;

	cJSON_ArrayForEach(d, kf_arr(tl, "devices")) {
		if (!cJSON_IsString(d))
			continue;
		cJSON_ArrayForEach(e, devices)
			if (strcmp(e->valuestring, d->valuestring) == 0)
				break;
		if (e == NULL)
			cJSON_AddItemToArray(devices, cJSON_CreateString(d->valuestring));
	}
}

cJSON *
unitrace_collate(cJSON *out, cJSON *const *passes, int n)
{
	const cJSON *data[NGROUPS] = { NULL, NULL, NULL }, *w;
	const char *pname[NGROUPS] = { NULL, NULL, NULL };
	cJSON *col, *groups, *missing, *devices, *segs;
	struct col c;
	int i, g, sampling = 0, truncated = 0;
	size_t k;

	memset(&c, 0, sizeof c);
	col = cJSON_CreateObject();
	c.warnings = cJSON_CreateArray();
	for (i = 0; i < n; i++) {
		const cJSON *d = kf_obj(passes[i], "data");
		const char *pass = kf_str(passes[i], "pass") ? kf_str(passes[i], "pass") : "unitrace";
		const char *grp = kf_str(d, "group");

		if (grp == NULL) {
			/* Columns that tell nothing: trust the pass's name for it. */
			grp = kf_str(passes[i], "group");
			warn(&c, "%s: metric group unknown from the columns; taken as %s", pass,
			    grp ? grp : "none");
		}
		g = group_index(grp);
		if (g < 0)
			continue;
		if (data[g]) {
			warn(&c, "%s: a second %s pass: left out", pass, unitrace_groups[g]);
			continue;
		}
		data[g] = d;
		pname[g] = pass;
		sampling |= kf_str(d, "layout") && strcmp(kf_str(d, "layout"), "sampling") == 0;
		sampling |= kf_str(passes[i], "mode") && strcmp(kf_str(passes[i], "mode"), "sampling") == 0;
		cJSON_ArrayForEach(w, kf_arr(d, "warnings"))
			if (cJSON_IsString(w))
				warn(&c, "%s: %s", pass, w->valuestring);
	}
	if (data[CB] == NULL) {
		kf_fail(out, "no_compute_basic", "no ComputeBasic metrics among the good passes of "
		    "this job: runtime, bandwidth and the roofline need them");
		kf_fail_hint(out, "see the ComputeBasic pass (unitrace.000) in \"passes\" for why it failed; "
		    "profile it again");
		cJSON_Delete(c.warnings);
		cJSON_Delete(col);
		return NULL;
	}
	cJSON_AddStringToObject(col, "mode", sampling ? "sampling" : "query");
	cJSON_AddStringToObject(col, "layout", kf_str(data[CB], "layout") ? kf_str(data[CB], "layout") : "query");
	groups = cJSON_AddObjectToObject(col, "groups");
	missing = cJSON_AddArrayToObject(col, "missing_groups");
	devices = cJSON_AddArrayToObject(col, "devices");
	for (g = 0; g < NGROUPS; g++) {
		if (data[g]) {
			cJSON_AddStringToObject(groups, unitrace_groups[g], pname[g]);
			add_devices(devices, kf_obj(data[g], "timeline"));
			truncated |= cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
			    kf_obj(data[g], "timeline"), "truncated"));
			if (sampling) {
				struct gseg *s = gseg_get(&c, "all", NULL, 1, 0);
				const cJSON *sec;

				cJSON_ArrayForEach(sec, kf_arr(data[g], "sections")) {
					const cJSON *row;
					int j = 0;

					cJSON_ArrayForEach(row, kf_arr(sec, "rows"))
						rows_add(&s->g[g], sec, row, j++);
				}
			} else {
				segment_pass(&c, data[g], g, pname[g]);
			}
		} else {
			cJSON_AddItemToArray(missing, cJSON_CreateString(unitrace_groups[g]));
		}
	}
	cJSON_AddBoolToObject(col, "timeline_truncated", truncated);
	segs = cJSON_AddArrayToObject(col, "segments");
	if (sampling) {
		cJSON_AddItemToArray(segs, sampling_segment(&c, kf_obj(data[CB], "timeline"), devices));
	} else {
		for (k = 0; k < c.n; k++) {
			if (c.v[k].g[CB].n == 0) {
				warn(&c, "segment '%s' has no ComputeBasic rows: left out%s", c.v[k].label, "");
				continue;
			}
			cJSON_AddItemToArray(segs, query_segment(&c.v[k], devices));
		}
	}
	cJSON_AddItemToObject(col, "warnings", c.warnings);
	col_free(&c);
	return col;
}
