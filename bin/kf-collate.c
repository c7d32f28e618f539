/* kf-collate: merge the passes of each job into one record. */
#include <stdio.h>
#include <stdlib.h>

#include "collate.h"
#include "err.h"
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

static void
emit(cJSON *rec)
{
	if (rec == NULL)
		return;
	kf_emit(rec);
	cJSON_Delete(rec);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = { KF_OPT_COMMON };
	static const struct kf_optarg files[] = {
		{ "FILE", KF_ARG_FILE, NULL, NULL },
		{ NULL, 0, NULL, NULL }
	};
	struct kf_collator *c = kf_collator_new();
	struct kf_in *in;
	cJSON *rec;

	kf_init(argv[0]);
	kf_opt_init(usage, help);
	kf_opt_complete(files, NULL);
	while (kf_getopt(argc, argv, "u", longopts) != -1)
		kf_usage();
	kf_in_finish_on_interrupt();
	in = kf_in_open(argc - optind, argv + optind);
	/* Passes of one-pass profilers go through as they are: their "data"
	 * is copied, not parsed (kf_collate_job parses it to merge). */
	kf_in_keep(in, kf_collate_keep);
	while ((rec = kf_in_next(in)) != NULL)
		emit(kf_collator_add(c, rec));
	kf_in_close(in);
	kf_set_where(NULL, 0);
	while ((rec = kf_collator_rest(c)) != NULL)
		emit(rec);
	kf_collator_free(c);
	return kf_finish();
}
