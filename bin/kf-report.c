/* kf-report: final records (kf-feedback's output) in, one self-contained
 * HTML page out. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include "buf.h"
#include "err.h"
#include "gpu_roofs.h"
#include "opt.h"
#include "record.h"
#include "report.h"

static const char usage[] =
	"[-u] [-T TITLE] [--ranking N] [--rules N] [--lines N] [--gpus-file FILE] [FILE ...]";
static const char help[] =
	"Writes one HTML page (inline CSS and SVG, no script) for the final records\n"
	"that kf-feedback wrote: an index of the jobs and, per job, GPU time by\n"
	"kernel, the roofline, the top rules, the hot source lines, before and after.\n"
	"  -T, --title TITLE    the page's title (default \"kf report\")\n"
	"      --ranking N      kernels in a job's charts, the rest summed (default 10)\n"
	"      --rules N        optimisation rules listed per job (default 5)\n"
	"      --lines N        hot source lines listed per job (default 10)\n"
	"      --gpus-file FILE more GPUs for the roofs (JSON, as share/kf/gpus.json)\n"
	"  -u, --unbuffered     accepted, as by every kf program (the page comes at the end)\n"
	"      --help           print this help\n"
	"      --version        print the version\n";

/* kf-report reads only analysis and a few fields: the profiler's data stays
 * text, but for what a job's timings read (collated's members, parsed when
 * read). */
static const char *const keep[] = { "collated/*", "data", "feedback", NULL };

/* A --gpus-file that cannot be used is said at once, not as missing roofs. */
static void
check_gpus_file(const char *path)
{
	struct buf msg = {0};

	kf_gpu_roofs_find("", path, &msg);
	if (msg.len)
		kf_die(2, "%s", msg.s);
	buf_free(&msg);
}

int
main(int argc, char **argv)
{
	enum { O_RANKING = 1, O_TOP, O_RULES, O_LINES, O_GPUS_FILE };
	static const struct option longopts[] = {
		{ "title", required_argument, NULL, 'T' },
		{ "ranking", required_argument, NULL, O_RANKING },
		{ "top", required_argument, NULL, O_TOP },	/* deprecated: --ranking */
		{ "rules", required_argument, NULL, O_RULES },
		{ "lines", required_argument, NULL, O_LINES },
		{ "gpus-file", required_argument, NULL, O_GPUS_FILE },
		KF_OPT_COMMON
	};
	static const struct kf_optarg args[] = {
		{ "gpus-file", KF_ARG_FILE, NULL, NULL },
		{ "top", KF_ARG_HIDDEN, NULL, NULL },
		{ "FILE", KF_ARG_FILE, NULL, NULL },
		{ NULL, 0, NULL, NULL }
	};
	struct kf_report_opts o = { "kf report", 10, 5, 10, NULL };
	struct kf_report *r;
	struct kf_in *in;
	cJSON *rec;
	int c;

	kf_init(argv[0]);
	kf_opt_init(usage, help);
	kf_opt_complete(args, NULL);
	while ((c = kf_getopt(argc, argv, "T:u", longopts)) != -1) {
		switch (c) {
		case 'T': o.title = optarg; break;
		case 'u': break;
		case O_TOP:
			kf_opt_deprecated("--top", "--ranking");
			/* fall through */
		case O_RANKING:
			o.top = (int)kf_opt_long(optarg, c == O_TOP ? "--top" : "--ranking", 1, 1000);
			break;
		case O_RULES: o.rules = (int)kf_opt_long(optarg, "--rules", 0, 1000); break;
		case O_LINES: o.lines = (int)kf_opt_long(optarg, "--lines", 0, 1000); break;
		case O_GPUS_FILE: o.gpus_file = optarg; break;
		default: kf_usage();
		}
	}
	if (o.gpus_file)
		check_gpus_file(o.gpus_file);
	r = kf_report_new(&o);
	kf_in_finish_on_interrupt();
	in = kf_in_open(argc - optind, argv + optind);
	kf_in_keep(in, keep);
	while ((rec = kf_in_next(in)) != NULL) {
		if (!kf_error(rec) && !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(rec, "analysis")))
			kf_fail(rec, "bad_record", "no \"analysis\" object: run kf-feedback first");
		kf_report_add(r, rec);
		cJSON_Delete(rec);
	}
	kf_in_close(in);
	if (kf_report_write(r, stdout) != 0 || fflush(stdout) != 0) {
		/* As kf_finish() says it: quiet for a reader that went away. */
		if (errno != EPIPE)
			kf_warn("write error on standard output: %s", strerror(errno));
		kf_report_free(r);
		return 1;
	}
	kf_report_free(r);
	return kf_finish();
}
