/* kf-feedback: turn collated records into feedback text and analysis. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collate.h"
#include "feedback.h"
#include "opt.h"
#include "profiler.h"
#include "record.h"

static const char usage[] =
	"[-tu] [--max-chars N] [--top N] [--rules N] [--gpu NAME] [--gpus-file FILE]\n"
	"[FILE ...]";
static const char help[] =
	"Adds \"feedback\" (text for a prompt) and \"analysis\" (the same findings as\n"
	"data) to each collated record.\n"
	"  -t, --text           print only the feedback texts, one block per id\n"
	"  -n, --max-chars N    keep the most important parts within N characters\n"
	"      --top N          kernels named in rankings (default 5)\n"
	"      --rules N        optimisation rules listed (default 5)\n"
	"      --gpu NAME       use this GPU's roofs, whatever the record's worker says\n"
	"      --gpus-file FILE more GPUs (JSON, as share/kf/gpus.json)\n"
	"  -u, --unbuffered     flush after every record\n"
	"      --help           print this help\n"
	"      --version        print the version\n";

static const char *const intro =
	"Your code has been analyzed with a profiler. Here is a summary of the results:";

static void
explain_error(const cJSON *rec, struct kf_fb *fb)
{
	const cJSON *e = kf_error(rec);
	const char *stage = kf_str(e, "stage"), *kind = kf_str(e, "kind");
	const char *msg = kf_str(e, "message"), *hint = kf_str(e, "hint");
	const char *prof = kf_str(rec, "profiler");

	kf_fb_add(fb, FB_HEAD, "Profiling%s%s failed, so there are no performance numbers "
	    "for this run.", prof ? " with " : "", prof ? prof : "");
	kf_fb_add(fb, FB_HEAD, "What went wrong (%s, %s): %s", stage ? stage : "unknown stage",
	    kind ? kind : "error", msg ? msg : "no message");
	if (hint)
		kf_fb_add(fb, FB_KEY, "What to do: %s", hint);
	kf_set_str(fb->analysis, "status", "failed");
	kf_set(fb->analysis, "error", cJSON_Duplicate(e, 1));
}

static void
feedback_one(cJSON *rec, const struct kf_fb_opts *opt, int text_only)
{
	const struct kf_profiler *p = kf_profiler_find(kf_str(rec, "profiler"));
	struct kf_fb fb;
	cJSON *work = rec;
	char *text;

	kf_fb_init(&fb, opt);
	kf_fb_unkeep(rec);
	if (p)
		kf_set_str(fb.analysis, "profiler", p->name);
	/* A record that was read but not collated: collate its one pass here. */
	if (!kf_error(rec) && !kf_obj(rec, "collated") &&
	    cJSON_GetObjectItemCaseSensitive(rec, "data")) {
		cJSON *one = cJSON_Duplicate(rec, 1);

		work = kf_collate_job(&one, 1);
		cJSON_Delete(one);
	}
	if (kf_error(work)) {
		explain_error(work, &fb);
	} else if (p == NULL) {
		kf_fail(rec, "bad_record", "no known \"profiler\" (one of %s)", kf_profiler_names());
		explain_error(rec, &fb);
	} else if (!kf_obj(work, "collated")) {
		kf_fail(rec, "bad_record", "no \"collated\" object: run kf-read and kf-collate first");
		explain_error(rec, &fb);
	} else {
		kf_fb_add(&fb, FB_DETAIL, "%s", intro);
		kf_set_str(fb.analysis, "status", "ok");
		p->feedback(work, &fb);
	}
	text = kf_fb_render(&fb, opt->max_chars);
	if (text_only) {
		const char *id = kf_str(rec, "id");

		if (id)
			printf("=== %s ===\n", id);
		fputs(text, stdout);
		putchar('\n');
	} else {
		kf_set_str(rec, "feedback", text);
		kf_set(rec, "analysis", fb.analysis);
		fb.analysis = NULL;
		kf_emit(rec);
	}
	free(text);
	if (work != rec)
		cJSON_Delete(work);
	kf_fb_free(&fb);
}

int
main(int argc, char **argv)
{
	enum { O_TOP = 1, O_RULES, O_GPU, O_GPUS_FILE };
	static const struct option longopts[] = {
		{ "text", no_argument, NULL, 't' },
		{ "max-chars", required_argument, NULL, 'n' },
		{ "top", required_argument, NULL, O_TOP },
		{ "rules", required_argument, NULL, O_RULES },
		{ "gpu", required_argument, NULL, O_GPU },
		{ "gpus-file", required_argument, NULL, O_GPUS_FILE },
		KF_OPT_COMMON
	};
	struct kf_fb_opts opt = { 0, 5, 5, NULL, NULL };
	int c, text_only = 0;
	struct kf_in *in;
	cJSON *rec;

	kf_init(argv[0]);
	kf_opt_init(usage, help);
	while ((c = kf_getopt(argc, argv, "tn:u", longopts)) != -1) {
		switch (c) {
		case 't': text_only = 1; break;
		case 'n': opt.max_chars = (size_t)kf_opt_long(optarg, "--max-chars", 1, 100000000); break;
		case O_TOP: opt.top = (int)kf_opt_long(optarg, "--top", 1, 1000000); break;
		case O_RULES: opt.max_rules = (int)kf_opt_long(optarg, "--rules", 0, 1000000); break;
		case O_GPU: opt.gpu = optarg; break;
		case O_GPUS_FILE: opt.gpus_file = optarg; break;
		default: kf_usage();
		}
	}
	in = kf_in_open(argc - optind, argv + optind);
	kf_in_keep(in, kf_profiler_keep_paths());
	while ((rec = kf_in_next(in)) != NULL) {
		feedback_one(rec, &opt, text_only);
		cJSON_Delete(rec);
	}
	kf_in_close(in);
	return kf_finish();
}
