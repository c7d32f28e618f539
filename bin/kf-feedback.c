/* kf-feedback: turn collated records into feedback text and analysis. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "buf.h"
#include "collate.h"
#include "complete.h"
#include "delta.h"
#include "err.h"
#include "feedback.h"
#include "gpu_roofs.h"
#include "levers.h"
#include "opt.h"
#include "profiler.h"
#include "program.h"
#include "record.h"
#include "timings.h"

static const char usage[] =
	"[-tu] [--timings] [--max-chars N] [--ranking N] [--rules N] [--focus WHICH] [--gpu NAME]\n"
	"[--gpus-file FILE] [--no-collated] [--baseline FILE [--noise PCT]] [FILE ...]";
static const char help[] =
	"Adds \"feedback\" (text for a prompt) and \"analysis\" (the same findings as\n"
	"data) to each collated record.\n"
	"  -t, --text           print only the feedback texts, one block per id\n"
	"      --timings        print where each record's time went instead (kf-run's\n"
	"                       and the profiler's own account), one block per id\n"
	"  -n, --max-chars N    keep the most important parts within N characters\n"
	"      --ranking N      kernels named in rankings (default 5)\n"
	"      --rules N        optimisation rules listed (default 5)\n"
	"      --focus WHICH    the kernel the details are about: time (default: the\n"
	"                       kernel with the most GPU time), longest (the longest\n"
	"                       launch), or a kernel name, part of one or a glob\n"
	"      --gpu NAME       use this GPU's roofs, whatever the record's worker says\n"
	"      --gpus-file FILE more GPUs (JSON, as share/kf/gpus.json)\n"
	"      --no-collated    leave \"collated\" and \"data\" out of the records\n"
	"      --baseline FILE  compare each record with FILE's record of the same id\n"
	"                       (kf-feedback's output of an earlier run): analysis.delta\n"
	"      --noise PCT      a time that changed by PCT% or less (or 1.5 us) is\n"
	"                       unchanged (default 4, measured on an H200: kf-feedback(1))\n"
	"  -u, --unbuffered     flush after every record\n"
	"  -h, --help           print this help\n"
	"      --version        print the version\n";

static int no_collated;	/* --no-collated: leave the profile data out */

/* What is printed of each record: the record, its feedback text (-t) or
 * where its time went (--timings). */
enum { OUT_RECORD, OUT_TEXT, OUT_TIMINGS };

static int not_started;		/* a record's program or profiler was not started: 5 */

/* An error record: what failed and what to do. A profiler or program that
 * could not be started is the not_started finding, which says it all. */
static void
explain_error(const cJSON *rec, struct kf_fb *fb)
{
	const cJSON *e = kf_error(rec);
	const char *stage = kf_str(e, "stage"), *kind = kf_str(e, "kind");
	const char *msg = kf_str(e, "message"), *hint = kf_str(e, "hint");
	char *what;

	kf_set_str(fb->analysis, "status", "failed");
	kf_set(fb->analysis, "error", cJSON_Duplicate(e, 1));
	if (kf_not_started(&fb->diag, rec)) {
		not_started = 1;
		return;
	}
	what = kf_what_failed_text(rec);
	kf_fb_add(fb, FB_HEAD, "%s", what);
	free(what);
	if (kind == NULL || strcmp(kind, "stopped") != 0)
		kf_fb_say_run(fb, rec);
	kf_fb_add(fb, FB_HEAD, "What went wrong (%s, %s): %s", stage ? stage : "unknown stage",
	    kind ? kind : "error", msg ? msg : "no message");
	if (hint)
		kf_fb_add(fb, FB_KEY, "What to do: %s", hint);
}

/* --gpu and --gpus-file serve the feedback that uses GPU roofs (it says
 * which GPU in analysis.gpu); for a successful analysis without one, the
 * option did not apply: said once. */
static void
say_unused_options(const cJSON *analysis, const struct kf_fb_opts *opt)
{
	static int said;
	const char *prof = kf_str(analysis, "profiler");

	if (said || (opt->gpu == NULL && opt->gpus_file == NULL) ||
	    strcmp(kf_str(analysis, "status") ? kf_str(analysis, "status") : "", "ok") != 0 ||
	    kf_obj(analysis, "gpu"))
		return;
	said = 1;
	kf_warn("%s does not apply to %s records (their feedback uses no GPU roofs): "
	    "ignored for them", opt->gpu ? "--gpu" : "--gpus-file", prof ? prof : "these");
}

static const struct kf_baseline *baseline;
static int program_failed;	/* a record's program failed: exit status 3 */
static int profiler_failed;	/* a profiler's run failed, the program's not: 4 */

static void
feedback_one(cJSON *rec, const struct kf_fb_opts *opt, int out)
{
	const struct kf_profiler *p = kf_profiler_find(kf_str(rec, "profiler"));
	struct kf_fb fb;
	char *text;

	kf_fb_init(&fb, opt);
	kf_fb_unkeep(rec);
	if (p)
		kf_set_str(fb.analysis, "profiler", p->name);
	if (kf_error(rec)) {
		explain_error(rec, &fb);
	} else if (p == NULL) {
		kf_fail(rec, "bad_record", "no known \"profiler\" (one of %s)", kf_profiler_names());
		if (!kf_obj(rec, "run"))
			kf_fail_hint(rec, "profile it first: kf-select | kf-wrap | kf-run | "
			    "kf-read | kf-collate | kf-feedback, or kf PROFILER -- CMD");
		explain_error(rec, &fb);
	} else if (!kf_obj(rec, "collated")) {
		kf_fail(rec, "bad_record", "no \"collated\" object: run kf-read and kf-collate first");
		explain_error(rec, &fb);
	} else {
		kf_set_str(fb.analysis, "status", "ok");
		kf_fb_say_run(&fb, rec);
		p->feedback(rec, &fb);
		kf_prog_finish(&fb, rec);
		kf_core_finish(&fb);
		kf_delta(baseline, rec, &fb);
	}
	if (strcmp(kf_str(fb.analysis, "status") ? kf_str(fb.analysis, "status") : "", "ok") != 0)
		kf_set_failed();	/* written all the same; the status says it */
	/* ncu's detailed run failing is not the program's failure, though
	 * kf-run's timeout may have stopped the chain in it. */
	if (kf_diag_find(&fb.diag, KF_PROFILER_FAILED))
		profiler_failed = 1;
	else if (kf_prog_failed(&fb.diag, rec))
		program_failed = 1;
	kf_fb_lead(&fb);
	say_unused_options(fb.analysis, opt);
	text = kf_fb_render(&fb, opt->max_chars);
	if (out != OUT_RECORD) {
		const char *id = kf_str(rec, "id");
		struct buf b = {0};

		if (id)
			printf("=== %s ===\n", id);
		if (out == OUT_TIMINGS)
			kf_timings_text(&b, rec);
		fputs(out == OUT_TIMINGS ? b.s : text, stdout);
		putchar('\n');
		buf_free(&b);
	} else {
		if (no_collated) {
			cJSON_DeleteItemFromObjectCaseSensitive(rec, "collated");
			cJSON_DeleteItemFromObjectCaseSensitive(rec, "data");
		}
		kf_set_str(rec, "feedback", text);
		kf_set(rec, "analysis", fb.analysis);
		fb.analysis = NULL;
		kf_emit(rec);
	}
	free(text);
	kf_fb_free(&fb);
}

/* A pass record that skipped kf-collate (read, not collated; or a pass's
 * error): it goes through the one collation (collate.h) first. */
static int
is_pass(const cJSON *rec)
{
	const struct kf_profiler *p = kf_profiler_find(kf_str(rec, "profiler"));

	if (kf_obj(rec, "collated") || cJSON_GetObjectItemCaseSensitive(rec, "passes"))
		return 0;
	if (cJSON_GetObjectItemCaseSensitive(rec, "data"))
		return 1;
	return kf_error(rec) && kf_str(rec, "pass") && p && p->npasses > 1;
}

static void
feedback_job(cJSON *rec, const struct kf_fb_opts *opt, int out)
{
	if (rec == NULL)
		return;
	feedback_one(rec, opt, out);
	cJSON_Delete(rec);
}

/* --gpu and --gpus-file are checked before any record: a GPU that is not
 * known or a file that cannot be read is a usage error. */
static void
check_gpu_options(const struct kf_fb_opts *opt)
{
	struct buf msg = {0};

	if (opt->gpu == NULL && opt->gpus_file == NULL)
		return;
	if (kf_gpu_roofs_find(opt->gpu, opt->gpus_file, &msg) == NULL && msg.len)
		kf_usage_error("%s: %s", opt->gpu ? "--gpu" : "--gpus-file", msg.s);
	buf_free(&msg);
}

int
main(int argc, char **argv)
{
	enum { O_RANKING = 1, O_TOP, O_RULES, O_GPU, O_GPUS_FILE, O_NO_COLLATED, O_BASELINE,
		O_NOISE, O_FOCUS, O_TIMINGS };
	static const struct option longopts[] = {
		{ "text", no_argument, NULL, 't' },
		{ "max-chars", required_argument, NULL, 'n' },
		{ "ranking", required_argument, NULL, O_RANKING },
		{ "top", required_argument, NULL, O_TOP },	/* deprecated: --ranking */
		{ "rules", required_argument, NULL, O_RULES },
		{ "gpu", required_argument, NULL, O_GPU },
		{ "gpus-file", required_argument, NULL, O_GPUS_FILE },
		{ "no-collated", no_argument, NULL, O_NO_COLLATED },
		{ "baseline", required_argument, NULL, O_BASELINE },
		{ "noise", required_argument, NULL, O_NOISE },
		{ "focus", required_argument, NULL, O_FOCUS },
		{ "timings", no_argument, NULL, O_TIMINGS },
		KF_OPT_COMMON
	};
	static const char *const focus[] = { "time", "longest", NULL };
	static const struct kf_optarg args[] = {
		{ "gpu", KF_ARG_WORDS, NULL, kf_say_gpus },
		{ "gpus-file", KF_ARG_FILE, NULL, NULL },
		{ "baseline", KF_ARG_FILE, NULL, NULL },
		{ "focus", KF_ARG_WORDS, focus, NULL },
		{ "top", KF_ARG_HIDDEN, NULL, NULL },
		{ "FILE", KF_ARG_FILE, NULL, NULL },
		{ NULL, 0, NULL, NULL }
	};
	struct kf_fb_opts opt = { .top = 5, .max_rules = 5 };
	int c, out = OUT_RECORD;
	const char *base_file = NULL;
	double noise = KF_NOISE_PCT_DEFAULT;
	struct kf_baseline *base = NULL;
	struct kf_collator *passes = kf_collator_new();
	struct kf_in *in;
	cJSON *rec;

	kf_init(argv[0]);
	kf_opt_init(usage, help);
	kf_opt_complete(args, NULL);
	while ((c = kf_getopt(argc, argv, "tn:u", longopts)) != -1) {
		switch (c) {
		case 't': out = OUT_TEXT; break;
		case O_TIMINGS: out = OUT_TIMINGS; break;
		case 'n': opt.max_chars = (size_t)kf_opt_long(optarg, "--max-chars", 1, 100000000); break;
		case O_TOP:
			kf_opt_deprecated("--top", "--ranking");
			/* fall through */
		case O_RANKING:
			opt.top = (int)kf_opt_long(optarg, c == O_TOP ? "--top" : "--ranking", 1,
			    1000000);
			break;
		case O_RULES: opt.max_rules = (int)kf_opt_long(optarg, "--rules", 1, 1000000); break;
		case O_GPU: opt.gpu = optarg; break;
		case O_GPUS_FILE: opt.gpus_file = optarg; break;
		case O_NO_COLLATED: no_collated = 1; break;
		case O_BASELINE: base_file = optarg; break;
		case O_NOISE: noise = kf_opt_pct(optarg, "--noise"); break;
		case O_FOCUS:
			if (*optarg == '\0')
				kf_usage_error("--focus: an empty name");
			opt.focus = optarg;
			break;
		default: kf_usage();
		}
	}
	check_gpu_options(&opt);
	if (base_file)
		baseline = base = kf_baseline_load(base_file, noise);
	kf_in_finish_on_interrupt();
	in = kf_in_open(argc - optind, argv + optind);
	kf_in_keep(in, kf_profiler_keep_paths());
	while ((rec = kf_in_next(in)) != NULL) {
		if (is_pass(rec)) {
			const struct kf_profiler *p = kf_profiler_find(kf_str(rec, "profiler"));

			/* A profiler's merge reads its passes' whole trees. */
			if (p && p->collate)
				kf_json_unkeep_all(rec);
			rec = kf_collator_add(passes, rec);
		}
		feedback_job(rec, &opt, out);
	}
	kf_in_close(in);
	kf_set_where(NULL, 0);
	while ((rec = kf_collator_rest(passes)) != NULL)
		feedback_job(rec, &opt, out);
	kf_collator_free(passes);
	kf_baseline_free(base);
	c = kf_finish();
	/* Nothing started outranks all: nothing else could happen. A failed
	 * program outranks a failed profile: often its cause. */
	if (not_started && c <= 1)
		return 5;
	if (program_failed && c <= 1)
		return 3;
	return profiler_failed && c <= 1 ? 4 : c;
}
