/* kf-collate: merge the passes of each job into one record. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collate.h"
#include "map.h"
#include "opt.h"
#include "profiler.h"
#include "record.h"

static const char usage[] = "[-u] [FILE ...]";
static const char help[] =
	"Merges the pass records of each job (same \"id\") into one record with\n"
	"\"passes\" and \"collated\". A job is written as soon as all its passes are\n"
	"in (passes_total, or the profiler's number of passes), the rest at the end.\n"
	"  -u, --unbuffered   flush after every record\n"
	"  -h, --help         print this help\n"
	"      --version      print the version\n";

struct job {
	cJSON **recs;
	int n, expected;
	size_t cap;
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

static void
finish(struct job *j)
{
	cJSON *out = kf_collate_job(j->recs, j->n);
	int i;

	kf_emit(out);
	cJSON_Delete(out);
	for (i = 0; i < j->n; i++)
		cJSON_Delete(j->recs[i]);
	free(j->recs);
	free(j);
}

static int
expected_passes(const cJSON *rec)
{
	const struct kf_profiler *p = kf_profiler_find(kf_str(rec, "profiler"));
	double total = kf_num(rec, "passes_total", 0);

	if (total >= 1 && total <= 1000)
		return (int)total;
	return p ? p->npasses : 1;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = { KF_OPT_COMMON };
	struct kf_map jobs = {0};
	struct kf_map_ent **list;
	static const struct kf_optarg files[] = {
		{ "FILE", KF_ARG_FILE, NULL, NULL },
		{ NULL, 0, NULL, NULL }
	};
	struct kf_in *in;
	cJSON *rec;
	size_t i, n;

	kf_init(argv[0]);
	kf_opt_init(usage, help);
	kf_opt_complete(files, NULL);
	while (kf_getopt(argc, argv, "u", longopts) != -1)
		kf_usage();
	in = kf_in_open(argc - optind, argv + optind);
	/* Passes of one-pass profilers go through as they are: their "data"
	 * is copied, not parsed (kf_collate_job parses it to merge). */
	kf_in_keep(in, kf_collate_keep);
	while ((rec = kf_in_next(in)) != NULL) {
		char *key = job_key(rec);
		struct kf_map_ent *e;
		struct job *j;

		if (key == NULL) {
			if (!kf_error(rec))
				kf_fail(rec, "bad_record", "no \"id\" field: cannot tell which job this pass belongs to");
			kf_emit(rec);
			cJSON_Delete(rec);
			continue;
		}
		e = kf_map_slot(&jobs, key, NULL);
		if (e->val == NULL) {
			e->val = xcalloc(1, sizeof(struct job));
			((struct job *)e->val)->expected = expected_passes(rec);
		}
		j = e->val;
		KF_GROW(j->recs, j->n, j->cap, 4);
		j->recs[j->n++] = rec;
		if (j->n >= j->expected) {
			kf_map_del(&jobs, key);
			finish(j);
		}
		free(key);
	}
	kf_in_close(in);
	kf_set_where(NULL, 0);
	list = kf_map_list(&jobs, &n);
	for (i = 0; i < n; i++)
		finish(list[i]->val);
	free(list);
	kf_map_free(&jobs);
	return kf_finish();
}
