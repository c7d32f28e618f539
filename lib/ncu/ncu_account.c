/* The ncu --top path, its account: kf-read gives each launch of the
 * detailed report (ncu_report_mangled.csv) the timing run's identity and
 * adds the ranking to "data" as "timing", with which of its kernels the
 * detailed run profiled and kf-ncu's account of that run
 * (ncu_detailed.json). Everything returned is the caller's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "map.h"
#include "mem.h"
#include "ncu.h"
#include "ncu_top.h"
#include "path.h"
#include "record.h"

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

cJSON *
ncu_timings_load(const char *dir)
{
	char *p = kf_path_join(dir, NCU_TIMINGS);
	int saved = errno;
	cJSON *o = ncu_json_load(p);

	free(p);
	errno = saved;
	if (o && !cJSON_IsObject(o)) {
		cJSON_Delete(o);
		o = NULL;
	}
	return o;
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
	if (rk == NULL && (rk = ncu_ranking_load(rpath)) != NULL)
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
	t->top = ncu_json_load(p);
	free(p);
	if (t->top && !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(t->top, "chosen"))) {
		cJSON_Delete(t->top);
		t->top = NULL;
	}
	p = kf_path_join(dir, NCU_DETAILED);
	t->run = ncu_json_load(p);
	free(p);
	p = kf_path_join(dir, KF_TIMING_TIMELINE);
	t->tl = ncu_json_load(p);
	free(p);
	if (strcmp(kf_str(rk, "identity") ? kf_str(rk, "identity") : "", "mangled") == 0 &&
	    ncu_timing_scan(mpath, ident_launch, t, &rd, 1) == 0)
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

/* Whether ranking kernel e was a spare: detailed where a chosen one did
 * not run (ncu_top.json's spare_keys). */
static int
spare(const struct ncu_timing *t, const cJSON *e)
{
	return in_list(kf_arr(t->top, "spare_keys"), kf_str(e, "key"));
}

static cJSON *
timing_kernels(const struct ncu_timing *t, cJSON *missing, cJSON *spares)
{
	cJSON *a = cJSON_CreateArray(), *e;
	int mangled = strcmp(kf_str(t->rank, "identity") ? kf_str(t->rank, "identity") : "",
	    "mangled") == 0, procs = kf_num(t->rank, "process_count", 1) > 1;

	cJSON_ArrayForEach(e, kf_arr(t->rank, "kernels")) {
		cJSON *o = cJSON_CreateObject();
		const char *name = kf_str(e, "name"), *fw = name ? ncu_machinery(name) : NULL;
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
			if (!c && det && spare(t, e)) {
				cJSON_AddBoolToObject(o, "spare", 1);
				cJSON_AddItemToArray(spares, cJSON_CreateString(name));
			}
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
	cJSON *o, *notes, *missing = cJSON_CreateArray(), *spares = cJSON_CreateArray(), *run;
	double bad = kf_num(t->rank, "bad_rows", 0), n = kf_num(t->rank, "kernel_count", 0);

	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "file", t->file);
	cJSON_AddStringToObject(o, "identity", kf_str(t->rank, "identity") ?
	    kf_str(t->rank, "identity") : "name");
	cJSON_AddNumberToObject(o, "launches", kf_num(t->rank, "launches", 0));
	cJSON_AddNumberToObject(o, "kernel_count", n);
	cJSON_AddNumberToObject(o, "total_ns", kf_num(t->rank, "total_ns", 0));
	cJSON_AddNumberToObject(o, "process_count", kf_num(t->rank, "process_count", 1));
	if (kf_str(t->rank, "steady_state"))
		cJSON_AddStringToObject(o, "steady_state", kf_str(t->rank, "steady_state"));
	if (kf_obj(t->rank, "autotuning"))
		cJSON_AddItemToObject(o, "autotuning",
		    cJSON_Duplicate(kf_obj(t->rank, "autotuning"), 1));
	if (kf_arr(t->rank, "set_aside"))
		cJSON_AddItemToObject(o, "set_aside",
		    cJSON_Duplicate(kf_arr(t->rank, "set_aside"), 1));
	cJSON_AddItemToObject(o, "kernels", timing_kernels(t, missing, spares));
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
	/* the kernels next by time detailed in the place of chosen ones */
	if (cJSON_GetArraySize(spares) > 0)
		cJSON_AddItemToObject(o, "spares_detailed", spares);
	else
		cJSON_Delete(spares);
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
