/* The baseline of kf-feedback --baseline: the final records of an earlier
 * run, read once, kept by id (only what a comparison needs: the id, the
 * profiler, the analysis, any error). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "delta.h"
#include "delta_int.h"
#include "err.h"
#include "lines.h"
#include "map.h"
#include "mem.h"
#include "num.h"
#include "path.h"
#include "record.h"

/* What a comparison never reads stays unparsed text while the line is read. */
static const char *const skip[] = { "collated", "data", "feedback", "passes", NULL };

static cJSON *
slim(cJSON *r)
{
	static const char *const keys[] = { "id", "profiler", "analysis", "error" };
	cJSON *o = cJSON_CreateObject();
	size_t i;

	for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		cJSON *v = cJSON_DetachItemFromObjectCaseSensitive(r, keys[i]);

		if (v)
			cJSON_AddItemToObject(o, keys[i], v);
	}
	return o;
}

static void
keep(struct kf_baseline *b, cJSON *r)
{
	const char *id = kf_str(r, "id");
	struct kf_map_ent *e;
	int created;

	/* The last record of an id wins: a file that runs are appended to
	 * compares with the latest. */
	e = kf_map_slot(&b->ids, id, &created);
	if (!created)
		cJSON_Delete(e->val);
	e->val = slim(r);
	b->records++;
}

static void
read_lines(struct kf_baseline *b, struct kf_lines *l)
{
	int rc;

	while ((rc = kf_lines_next(l)) > 0) {
		cJSON *r;

		if (l->len == strspn(l->s, " \t\r"))
			continue;
		r = kf_json_parse_keep(l->s, l->len, skip);
		/* Only kf-feedback's records: they have an analysis (or failed
		 * before it); a line NUL bytes or a cut turned into some other
		 * object must not stand for its id. */
		if (!cJSON_IsObject(r) || !kf_str(r, "id") ||
		    (!kf_obj(r, "analysis") && !kf_error(r))) {
			if (b->bad++ == 0)
				b->first_bad = l->no;
		} else {
			keep(b, r);
		}
		cJSON_Delete(r);
	}
	if (rc < 0)
		b->error = xasprintf("cannot read %s: %s", b->path, strerror(l->err));
}

struct kf_baseline *
kf_baseline_load(const char *path, double noise_pct)
{
	struct kf_baseline *b = xcalloc(1, sizeof *b);
	struct kf_lines l;

	b->path = xstrdup(path);
	b->noise_pct = noise_pct;
	if (kf_is_dir(path)) {
		b->error = xasprintf("%s is a directory, not a file of records", path);
	} else if (kf_lines_open(&l, path) != 0) {
		b->error = xasprintf("cannot open %s: %s", path, strerror(errno));
	} else {
		read_lines(b, &l);
		kf_lines_close(&l);
		if (b->error == NULL && b->records == 0 && b->bad > 0)
			b->error = xasprintf("%s holds no kf-feedback record (line %ld is not "
			    "one: a JSON object with \"id\" and \"analysis\")", path, b->first_bad);
		else if (b->error == NULL && b->records == 0)
			b->error = xasprintf("%s is empty: no kf-feedback record", path);
	}
	if (b->error) {
		kf_warn("--baseline: %s; the feedback goes on without a comparison", b->error);
		kf_set_failed();
	} else if (b->bad > 0) {
		kf_warn("--baseline: %s: %ld line%s not kf-feedback records (the first: line %ld), "
		    "left out",
		    path, b->bad, b->bad == 1 ? " is" : "s are", b->first_bad);
	}
	return b;
}

void
kf_baseline_free(struct kf_baseline *b)
{
	struct kf_map_ent **v;
	size_t n, i;

	if (b == NULL)
		return;
	v = kf_map_list(&b->ids, &n);
	for (i = 0; i < n; i++)
		cJSON_Delete(v[i]->val);
	free(v);
	kf_map_free(&b->ids);
	free(b->path);
	free(b->error);
	free(b);
}

/* The baseline record for id of profiler prof, or NULL with why in msg. */
const cJSON *
kf_baseline_find(const struct kf_baseline *b, const char *id, const char *prof,
    struct buf *msg)
{
	const cJSON *r, *a;
	const char *bp;

	if (b->error) {
		buf_puts(msg, b->error);
		return NULL;
	}
	if (id == NULL || (r = kf_map_get(&b->ids, id)) == NULL) {
		buf_printf(msg, "%s has no record with id \"%s\"", b->path, id ? id : "");
		if (b->bad > 0)
			buf_printf(msg, " (%ld line%s there %s not kf-feedback records)", b->bad,
			    b->bad == 1 ? "" : "s", b->bad == 1 ? "is" : "are");
		return NULL;
	}
	bp = kf_str(r, "profiler") ? kf_str(r, "profiler") : kf_str(kf_obj(r, "analysis"), "profiler");
	if (bp && prof && !kf_strieq(bp, prof)) {
		buf_printf(msg, "the baseline record \"%s\" in %s is from %s, this one from %s: "
		    "they cannot be compared", id, b->path, bp, prof);
		return NULL;
	}
	a = kf_obj(r, "analysis");
	if (kf_error(r) || kf_obj(a, "error")) {
		const char *m = kf_str(kf_error(r) ? kf_error(r) : kf_obj(a, "error"), "message");

		buf_printf(msg, "the baseline record \"%s\" in %s has no numbers (its profiling "
		    "failed%s%s)", id, b->path, m ? ": " : "", m ? m : "");
		return NULL;
	}
	if (!kf_str(a, "status") || strcmp(kf_str(a, "status"), "ok") != 0) {
		buf_printf(msg, "the baseline record \"%s\" in %s has no numbers (its analysis "
		    "status is %s)", id, b->path, kf_str(a, "status") ? kf_str(a, "status") : "missing");
		return NULL;
	}
	return a;
}
