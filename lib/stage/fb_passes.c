/* kf: pass records that reach kf-feedback without kf-collate (see
 * fb_passes.h). */
#include <stdlib.h>
#include <string.h>

#include "collate.h"
#include "fb_passes.h"
#include "profiler.h"

#define MAX_PASSES 16

static cJSON *queue[MAX_PASSES];	/* passes handed out as they are */
static int qn, qi;
static cJSON *held;			/* read ahead, not of the job */

/* The number of passes of the job when rec is one uncollated pass of a
 * profiler with several, else 0. */
static int
passes_of(const cJSON *rec)
{
	const struct kf_profiler *p = kf_profiler_find(kf_str(rec, "profiler"));
	double total;

	if (p == NULL || p->npasses < 2 || kf_str(rec, "pass") == NULL ||
	    kf_str(rec, "id") == NULL || kf_obj(rec, "collated") ||
	    cJSON_GetObjectItemCaseSensitive(rec, "passes"))
		return 0;
	total = kf_num(rec, "passes_total", p->npasses);
	return total >= 2 && total <= MAX_PASSES ? (int)total : 0;
}

static int
same_job(const cJSON *a, const cJSON *b)
{
	return strcmp(kf_str(a, "id"), kf_str(b, "id")) == 0 &&
	    strcmp(kf_str(a, "profiler"), kf_str(b, "profiler")) == 0;
}

cJSON *
kf_fb_next(struct kf_in *in)
{
	cJSON *g[MAX_PASSES], *rec, *next, *out;
	int n = 1, want, i;

	if (qi < qn)
		return queue[qi++];
	qi = qn = 0;
	rec = held ? held : kf_in_next(in);
	held = NULL;
	if (rec == NULL || (want = passes_of(rec)) == 0)
		return rec;
	g[0] = rec;
	while (n < want && (next = kf_in_next(in)) != NULL) {
		if (passes_of(next) != want || !same_job(rec, next)) {
			held = next;
			break;
		}
		g[n++] = next;
	}
	if (n < want) {
		for (i = 1; i < n; i++)
			queue[qn++] = g[i];
		return rec;
	}
	for (i = 0; i < n; i++)
		kf_json_unkeep_all(g[i]);
	out = kf_collate_job(g, n);
	for (i = 0; i < n; i++)
		cJSON_Delete(g[i]);
	return out;
}

int
kf_fb_one_of_passes(cJSON *rec)
{
	const struct kf_profiler *p = kf_profiler_find(kf_str(rec, "profiler"));
	double total;

	if (p == NULL || p->npasses < 2)
		return 0;
	total = kf_num(rec, "passes_total", p->npasses);
	if (total < 2)
		return 0;
	kf_fail(rec, "not_collated", "job %s: this record is one pass (%s) of the %.0f "
	    "passes of a %s job, and its other passes did not come with it; feedback "
	    "needs them merged", kf_str(rec, "id") ? kf_str(rec, "id") : "?",
	    kf_str(rec, "pass") ? kf_str(rec, "pass") : "?", total, p->name);
	kf_fail_hint(rec, "pipe kf-read's output through kf-collate before kf-feedback "
	    "(kf-read | kf-collate | kf-feedback)");
	return 1;
}
