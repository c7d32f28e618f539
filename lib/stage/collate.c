/* kf: kf-collate's merge of one job's passes into one record: the job's
 * fields once, a summary of every pass, and the profiler's "collated". */
#include <stdlib.h>
#include <string.h>

#include "collate.h"
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

	qsort(recs, (size_t)n, sizeof *recs, by_pass);
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
