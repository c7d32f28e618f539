/* kf: the one definition of a job's passes: grouping pass records by job
 * (any order, 1 to 1000 passes) and merging them into one record, the job's
 * fields once, a summary of every pass, and the profiler's "collated".
 * kf-collate is this; kf-feedback uses it for records that skipped it. */
#include <stdlib.h>
#include <string.h>

#include "collate.h"
#include "map.h"
#include "mem.h"
#include "profiler.h"
#include "record.h"

const char *const kf_collate_keep[] = { "data", NULL };

const char *const kf_pass_fields[] = {
	"data", "pass", "group", "mode", "run", "output_dir", "argv", "env",
	"end_marker", "error", "passes_total", NULL,
};

/* Is key a field of one pass, common or of some profiler's own? */
static int
pass_field(const char *key)
{
	size_t i, k;

	for (k = 0; kf_pass_fields[k]; k++)
		if (strcmp(key, kf_pass_fields[k]) == 0)
			return 1;
	for (i = 0; kf_profilers[i]; i++)
		for (k = 0; kf_profilers[i]->pass_fields && kf_profilers[i]->pass_fields[k]; k++)
			if (strcmp(key, kf_profilers[i]->pass_fields[k]) == 0)
				return 1;
	return 0;
}

static int
by_pass(const void *a, const void *b)
{
	const char *x = kf_str(*(cJSON *const *)a, "pass");
	const char *y = kf_str(*(cJSON *const *)b, "pass");

	return strcmp(x ? x : "", y ? y : "");
}

/* The run's stdout and stderr, as their last KF_RUN_TAIL bytes from a line
 * start: what a failed program said, for kf-feedback's program_failed,
 * without the whole 64K tails kf-run keeps. */
enum { KF_RUN_TAIL = 2048 };

static void
add_tail(cJSON *r, const cJSON *run, const char *key)
{
	const char *s = kf_str(run, key), *p;
	size_t n;

	if (s == NULL)
		return;
	n = strlen(s);
	p = s;
	if (n > KF_RUN_TAIL) {
		p = s + n - KF_RUN_TAIL;
		if (strchr(p, '\n') && strchr(p, '\n')[1] != '\0')
			p = strchr(p, '\n') + 1;
		else
			while ((*p & 0xc0) == 0x80)
				p++;
	}
	cJSON_AddStringToObject(r, key, p);
}

static cJSON *
pass_summary(const cJSON *rec)
{
	static const char *const run_keys[] = {
		"exit_code", "signal", "ended_by", "limit_s", "elapsed_s", "message", "started",
		NULL,
	};
	static const char *const keys[] = { "pass", "group", "mode", "output_dir", NULL };
	cJSON *p = cJSON_CreateObject();
	const cJSON *run = kf_obj(rec, "run"), *e = kf_error(rec);
	int i;

	for (i = 0; keys[i]; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(rec, keys[i]);

		if (v)
			cJSON_AddItemToObject(p, keys[i], cJSON_Duplicate(v, 1));
	}
	cJSON_AddStringToObject(p, "status", e ? "failed" : "ok");
	if (run) {
		cJSON *r = cJSON_AddObjectToObject(p, "run");

		for (i = 0; run_keys[i]; i++) {
			const cJSON *v = cJSON_GetObjectItemCaseSensitive(run, run_keys[i]);

			if (v)
				cJSON_AddItemToObject(r, run_keys[i], cJSON_Duplicate(v, 1));
		}
		add_tail(r, run, "stdout");
		add_tail(r, run, "stderr");
	}
	if (e)
		cJSON_AddItemToObject(p, "error", cJSON_Duplicate(e, 1));
	return p;
}

cJSON *
kf_collate_job(cJSON **recs, int n)
{
	const struct kf_profiler *p;
	cJSON **good = calloc((size_t)n + 1, sizeof *good);
	cJSON *out, *passes, *collated = NULL;
	const cJSON *c, *base = NULL;
	int i, ngood = 0;

	kf_sort(recs, (size_t)n, sizeof *recs, by_pass);
	for (i = 0; i < n; i++) {
		if (!kf_error(recs[i]) && cJSON_GetObjectItemCaseSensitive(recs[i], "data"))
			good[ngood++] = recs[i];
	}
	base = ngood ? good[0] : recs[0];
	out = cJSON_CreateObject();
	for (c = base->child; c; c = c->next)
		if (c->string && !pass_field(c->string))
			cJSON_AddItemToObject(out, c->string, cJSON_Duplicate(c, 1));
	passes = cJSON_CreateArray();
	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(passes, pass_summary(recs[i]));
	kf_set(out, "passes", passes);

	p = kf_profiler_find(kf_str(base, "profiler"));
	if (ngood == 0) {
		/* Nothing to merge: carry the first pass's error on unchanged. */
		const cJSON *e = NULL;

		for (i = 0; i < n && e == NULL; i++)
			e = kf_error(recs[i]);
		if (e)
			kf_set(out, "error", cJSON_Duplicate(e, 1));
		else
			kf_fail(out, "no_data", "no pass of this job has \"data\": run kf-read first");
	} else if (p == NULL) {
		kf_fail(out, "bad_record", "unknown profiler '%s' (one of %s)",
		    kf_str(base, "profiler") ? kf_str(base, "profiler") : "",
		    kf_profiler_names());
	} else if (p->collate) {
		/* kf-collate reads "data" as text; merging needs the trees. */
		for (i = 0; i < ngood; i++)
			kf_json_lazy(good[i], "data");
		collated = p->collate(out, good, ngood);
	} else {
		collated = cJSON_DetachItemFromObjectCaseSensitive(good[0], "data");
	}
	if (collated)
		kf_set(out, "collated", collated);
	free(good);
	return out;
}

/* Grouping passes by job */

struct job {
	cJSON **recs;
	int n, expected;
	size_t cap;
};

struct kf_collator {
	struct kf_map jobs;
	struct kf_map_ent **rest;	/* kf_collator_rest's list */
	size_t nrest, irest;
};

static char *
job_key(const cJSON *rec)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(rec, "id");

	if (cJSON_IsString(id))
		return xasprintf("s%s", id->valuestring);
	if (cJSON_IsNumber(id))
		return xasprintf("n%.17g", id->valuedouble);
	return NULL;
}

/* passes_total when it is sane, else the profiler's number of passes. */
static int
expected_passes(const cJSON *rec)
{
	const struct kf_profiler *p = kf_profiler_find(kf_str(rec, "profiler"));
	double total = kf_num(rec, "passes_total", 0);

	if (total >= 1 && total <= 1000)
		return (int)total;
	return p ? p->npasses : 1;
}

static cJSON *
job_done(struct job *j)
{
	cJSON *out = kf_collate_job(j->recs, j->n);
	int i;

	for (i = 0; i < j->n; i++)
		cJSON_Delete(j->recs[i]);
	free(j->recs);
	free(j);
	return out;
}

struct kf_collator *
kf_collator_new(void)
{
	return xcalloc(1, sizeof(struct kf_collator));
}

cJSON *
kf_collator_add(struct kf_collator *c, cJSON *rec)
{
	char *key = job_key(rec);
	struct kf_map_ent *e;
	struct job *j;

	if (key == NULL) {
		if (!kf_error(rec))
			kf_fail(rec, "bad_record", "no \"id\" field: cannot tell which job this pass "
			    "belongs to");
		return rec;
	}
	e = kf_map_slot(&c->jobs, key, NULL);
	if (e->val == NULL) {
		e->val = xcalloc(1, sizeof(struct job));
		((struct job *)e->val)->expected = expected_passes(rec);
	}
	j = e->val;
	KF_GROW(j->recs, j->n, j->cap, 4);
	j->recs[j->n++] = rec;
	if (j->n < j->expected) {
		free(key);
		return NULL;
	}
	kf_map_del(&c->jobs, key);
	free(key);
	return job_done(j);
}

cJSON *
kf_collator_rest(struct kf_collator *c)
{
	if (c->rest == NULL)
		c->rest = kf_map_list(&c->jobs, &c->nrest);
	if (c->irest == c->nrest)
		return NULL;
	return job_done(c->rest[c->irest++]->val);
}

void
kf_collator_free(struct kf_collator *c)
{
	cJSON *left;

	if (c == NULL)
		return;
	while ((left = kf_collator_rest(c)) != NULL)
		cJSON_Delete(left);
	free(c->rest);
	kf_map_free(&c->jobs);
	free(c);
}

/* Splitting a job back into its passes */

/* Fields of a job's record that its stages after kf-read made: re-reading
 * makes them again. */
static const char *const made_after_read[] = {
	"passes", "collated", "analysis", "feedback", "data", "error", NULL,
};

static int
made_after(const char *key)
{
	int i;

	for (i = 0; made_after_read[i]; i++)
		if (strcmp(key, made_after_read[i]) == 0)
			return 1;
	return 0;
}

/* An error of a stage before kf-read: nothing was left to re-read. */
static int
before_read(const cJSON *e)
{
	const char *st = kf_str(e, "stage");

	return st && (strcmp(st, "kf-select") == 0 || strcmp(st, "kf-wrap") == 0 ||
	    strcmp(st, "kf-run") == 0);
}

cJSON *
kf_job_passes(const cJSON *rec)
{
	const cJSON *passes = kf_arr(rec, "passes"), *p, *c;
	cJSON *out, *one;
	int n = cJSON_GetArraySize(passes);

	if (n == 0 || cJSON_GetObjectItemCaseSensitive(rec, "output_dir"))
		return NULL;
	out = cJSON_CreateArray();
	cJSON_ArrayForEach(p, passes) {
		one = cJSON_CreateObject();
		for (c = rec->child; c; c = c->next)
			if (c->string && !made_after(c->string))
				cJSON_AddItemToObject(one, c->string, cJSON_Duplicate(c, 1));
		for (c = p->child; c; c = c->next)
			if (c->string && strcmp(c->string, "status") != 0 &&
			    (strcmp(c->string, "error") != 0 || before_read(c)))
				kf_set(one, c->string, cJSON_Duplicate(c, 1));
		kf_set_num(one, "passes_total", n);
		cJSON_AddItemToArray(out, one);
	}
	return out;
}
