/* kf-read: read what the profiler left in each record's output_dir. */
#include <stdio.h>
#include <stdlib.h>

#include "opt.h"
#include "profiler.h"
#include "record.h"
#include "text.h"

static const char usage[] = "[-u] [FILE ...]";
static const char help[] =
	"Adds \"data\": what the profiler of each record left in its output_dir.\n"
	"  -u, --unbuffered   flush after every record\n"
	"  -h, --help         print this help\n"
	"      --version      print the version\n";

static void
read_one(cJSON *rec)
{
	const char *name = kf_str(rec, "profiler"), *dir = kf_str(rec, "output_dir");
	const struct kf_profiler *p;

	if (kf_error(rec)) {
		kf_emit(rec);
		return;
	}
	if (name == NULL) {
		kf_fail(rec, "bad_record", "no \"profiler\" field (one of %s)", kf_profiler_names());
	} else if ((p = kf_profiler_find(name)) == NULL) {
		kf_fail(rec, "bad_record", "unknown profiler '%s' (one of %s)", name,
		    kf_profiler_names());
	} else if (dir == NULL) {
		kf_fail(rec, "bad_record", "no \"output_dir\" field: where did %s write?", name);
	} else if (!kf_is_dir(dir)) {
		kf_fail(rec, "no_output_dir", "output_dir %s is not a readable directory", dir);
		kf_fail_hint(rec, "check that the profiling run wrote there, and that the path is right");
	} else {
		p->read(rec, dir);
		return;
	}
	kf_emit(rec);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		KF_OPT_COMMON
	};
	struct kf_in *in;
	cJSON *rec;
	int c;

	kf_init(argv[0]);
	kf_opt_init(usage, help);
	while ((c = kf_getopt(argc, argv, "u", longopts)) != -1) {
		kf_usage();
	}
	in = kf_in_open(argc - optind, argv + optind);
	while ((rec = kf_in_next(in)) != NULL) {
		read_one(rec);
		cJSON_Delete(rec);
	}
	kf_in_close(in);
	return kf_finish();
}
