/* kf: profile one program and print the feedback, by running the whole
 * pipeline kf-wrap | kf-run | kf-read | kf-collate | kf-feedback. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "complete.h"
#include "err.h"
#include "mem.h"
#include "num.h"
#include "opt.h"
#include "pipeline.h"
#include "profiler.h"
#include "record.h"
#include "signame.h"

static const char usage[] = KF_FRONT_USAGE;
static const char help[] =
	"Profiles CMD with PROFILER (ncu, unitrace, vtune, trace) and prints the feedback:\n"
	"kf-wrap PROFILER ... -- CMD | kf-run | kf-read | kf-collate | kf-feedback --text.\n"
	"Everything from PROFILER on goes to kf-wrap (-o DIR, --id, --sudo, the\n"
	"profiler's own options, see kf-wrap(1)). kf reread PATH reads a saved\n"
	"profile again (kf-out/ID, a pass folder, a file of records, an .ncu-rep).\n"
	"      --json           print the final record instead of the text\n"
	"      --timings        print where the time went instead of the feedback\n"
	"  -q, --quiet          do not show the program's output as it runs (it is\n"
	"                       shown on stderr, and kept in the record)\n"
	"  -n, --max-chars N    kf-feedback: keep the text within N characters\n"
	"      --no-collated    --json: leave the collated data out of the record\n"
	"      --gpu NAME, --gpus-file FILE, --rules N\n"
	"                       passed to kf-feedback\n"
	"      --ranking N      kf-feedback: kernels named in the ranking\n"
	"  -t, --timeout S      kf-run: end the program after S (90s, 5m, 1h)\n"
	"  -i, --inactivity S   kf-run: end it after S without output\n"
	"  -h, --help           print this help\n"
	"      --version        print the version\n";

enum { O_JSON = 0x100, O_TIMINGS, O_NO_COLLATED, O_GPU, O_GPUS_FILE, O_RANKING, O_RULES };

/* kf-feedback's options that kf passes on, under the same names
 * (kf-feedback checks their values). --top K after PROFILER is kf-wrap's
 * (ncu: time every launch, detail the top K kernels). */
static const struct option fb_opts[] = {
	{ "gpu", required_argument, NULL, O_GPU },
	{ "gpus-file", required_argument, NULL, O_GPUS_FILE },
	{ "ranking", required_argument, NULL, O_RANKING },
	{ "rules", required_argument, NULL, O_RULES },
	{ NULL, 0, NULL, 0 }
};

/* A stage's argv: the program (found next to kf first), then words. */
struct cmd {
	char **v;
	int n;
};

static struct {
	int json, timings, no_collated, quiet;
	const char *max_chars, *timeout, *inactivity;
	struct cmd fb;		/* fb_opts given, with their values */
} opt;

static void
push(struct cmd *c, const char *w)
{
	c->v = xrealloc(c->v, ((size_t)c->n + 2) * sizeof *c->v);
	c->v[c->n++] = (char *)w;
	c->v[c->n] = NULL;
}

/* A kf-feedback option given to kf: kept for kf-feedback. */
static int
fb_option(int code, const char *val)
{
	const struct option *o;

	for (o = fb_opts; o->name; o++) {
		if (o->val == code) {
			push(&opt.fb, xasprintf("--%s", o->name));
			push(&opt.fb, xstrdup(val));
			return 1;
		}
	}
	return 0;
}

static const char *const verbs[] = { "reread", NULL };
static const struct kf_optarg complete_args[] = {
	{ "gpu", KF_ARG_WORDS, NULL, kf_say_gpus },
	{ "gpus-file", KF_ARG_FILE, NULL, NULL },
	{ "PROFILER", KF_ARG_WORDS, verbs, kf_say_profilers },
	{ NULL, 0, NULL, NULL }
};

/* After PROFILER: the options own_long_option() takes; kf-wrap's come from
 * kf-wrap --complete (completion/kf.bash asks both). */
static void
complete_more(void)
{
	static const char *const flags[] = { "--json", "--no-collated", "--quiet", "--timings",
		NULL };
	const struct option *o;
	const char *const *f;
	char *name;

	for (f = flags; *f; f++)
		kf_complete_line("+", *f, 0, NULL);
	kf_complete_line("+", "--max-chars", KF_ARG_VALUE, NULL);
	for (o = fb_opts; o->name; o++) {
		name = xasprintf("--%s", o->name);
		kf_complete_option("+", name, o->has_arg, complete_args);
		free(name);
	}
}

/* An option kf does not know, before PROFILER: where it goes. */
static struct {
	int argc;
	char **argv;
} hint;

static void
option_hint(const char *word)
{
	const char *p = "PROFILER";
	int i;

	for (i = 1; i < hint.argc && strcmp(hint.argv[i], "--") != 0; i++)
		if (kf_profiler_find(hint.argv[i])) {
			p = hint.argv[i];
			break;
		}
	kf_warn("kf's own options go before %s; %s's own options and kf-wrap's go "
	    "after it, before --: kf %s %s ... -- CMD [ARG ...]", p, p, p, word);
}

static void
options(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, O_JSON },
		{ "timings", no_argument, NULL, O_TIMINGS },
		{ "quiet", no_argument, NULL, 'q' },
		{ "max-chars", required_argument, NULL, 'n' },
		{ "no-collated", no_argument, NULL, O_NO_COLLATED },
		{ "timeout", required_argument, NULL, 't' },
		{ "inactivity", required_argument, NULL, 'i' },
		{ "gpu", required_argument, NULL, O_GPU },
		{ "gpus-file", required_argument, NULL, O_GPUS_FILE },
		{ "ranking", required_argument, NULL, O_RANKING },
		{ "rules", required_argument, NULL, O_RULES },
		KF_OPT_COMMON
	};
	int c;

	kf_opt_complete(complete_args, complete_more);
	hint.argc = argc;
	hint.argv = argv;
	kf_opt_hint(option_hint);
	while ((c = kf_getopt(argc, argv, "+n:qt:i:", longopts)) != -1) {
		switch (c) {
		case O_JSON: opt.json = 1; break;
		case O_TIMINGS: opt.timings = 1; break;
		case 'q': opt.quiet = 1; break;
		case O_NO_COLLATED: opt.no_collated = 1; break;
		case 'n':
			kf_opt_long(optarg, "--max-chars", 1, 100000000);
			opt.max_chars = optarg;
			break;
		case 't':
			kf_opt_seconds(optarg, "--timeout");
			opt.timeout = optarg;
			break;
		case 'i':
			kf_opt_seconds(optarg, "--inactivity");
			opt.inactivity = optarg;
			break;
		default:
			if (!fb_option(c, optarg))
				kf_usage();
		}
	}
	if (optind >= argc)
		kf_usage_error("no PROFILER (one of %s)", kf_profiler_names());
	if (strcmp(argv[optind], "reread") == 0)
		return;
	if (kf_profiler_find(argv[optind]) == NULL)
		kf_usage_error("'%s' is not a profiler (one of %s)", argv[optind],
		    kf_profiler_names());
}

/* kf's own long options (and kf-feedback's it passes on) also after
 * PROFILER, before "--" (kf ncu --json -- ./k): taken out of kf-wrap's words. 1 when argv[*i] was one (*i then
 * at its last word). */
static int
own_long_option(int argc, char **argv, int *i)
{
	const char *w = argv[*i];
	const struct option *o;
	size_t n;

	for (o = fb_opts; o->name; o++) {
		n = strlen(o->name);
		if (strncmp(w, "--", 2) != 0 || strncmp(w + 2, o->name, n) != 0)
			continue;
		if (w[2 + n] == '=')
			return fb_option(o->val, w + 3 + n);
		if (w[2 + n] == '\0' && *i + 1 < argc)
			return fb_option(o->val, argv[++*i]);
	}
	if (strcmp(w, "--json") == 0)
		opt.json = 1;
	else if (strcmp(w, "--timings") == 0)
		opt.timings = 1;
	else if (strcmp(w, "--quiet") == 0)
		opt.quiet = 1;
	else if (strcmp(w, "--no-collated") == 0)
		opt.no_collated = 1;
	else if (strncmp(w, "--max-chars=", 12) == 0)
		opt.max_chars = w + 12;
	else if (strcmp(w, "--max-chars") == 0 && *i + 1 < argc)
		opt.max_chars = argv[++*i];
	else
		return 0;
	if (opt.max_chars)
		kf_opt_long(opt.max_chars, "--max-chars", 1, 100000000);
	return 1;
}

/* -h or --help among kf-wrap's words (after PROFILER, before "--"; not
 * the value of -a or -o): kf's help, then kf-wrap's, on standard output,
 * instead of a run of the pipeline. */
static int
wants_help(int argc, char **argv, int from)
{
	int i;

	for (i = from; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			return 1;
		if (strcmp(argv[i], "-a") == 0 || strcmp(argv[i], "-o") == 0)
			i++;
	}
	return 0;
}

static int
print_help(const char *profiler)
{
	char *wrap = kf_sibling("kf-wrap");
	char *v[] = { wrap, (char *)profiler, "--help", NULL };
	char *const *cmds[] = { v };
	int st;

	kf_opt_help();
	printf("\nkf-wrap %s --help:\n", profiler);
	if (fflush(stdout) != 0)
		return 1;
	st = kf_pipeline_run(cmds, 1, 1);
	free(wrap);
	return st;
}

static void
push_opt(struct cmd *c, const char *name, const char *val)
{
	if (val) {
		push(c, name);
		push(c, val);
	}
}

/* kf's own options for kf-feedback, onto its command. */
static void
feedback_args(struct cmd *fb)
{
	int i;

	push_opt(fb, "--max-chars", opt.max_chars);
	if (opt.no_collated)
		push(fb, "--no-collated");
	for (i = 0; i < opt.fb.n; i++)
		push(fb, opt.fb.v[i]);
	if (opt.json && opt.timings)
		kf_usage_error("--json and --timings: the record holds its timings "
		    "(collated.timings); choose one");
	if (!opt.json)
		push(fb, opt.timings ? "--timings" : "--text");
}

/* kf reread PATH ...: kf-read PATH ... | kf-collate | kf-feedback, the
 * last three of c; an .ncu-rep is an import (kf ncu --import FILE), onto
 * c[0], kf-wrap: -1 then, else the pipeline's status. The words after
 * reread are kf's own long options and the paths. */
static int
reread(int argc, char **argv, int from, struct cmd *c)
{
	char *const *v[3];
	const char *rep = NULL;
	int i, n = 0;

	for (i = from; i < argc; i++) {
		if (own_long_option(argc, argv, &i))
			continue;
		if (argv[i][0] == '-' && argv[i][1] != '\0')
			kf_usage_error("reread %s: kf's own options go before reread (or are its "
			    "long ones), and the rest are saved profiles", argv[i]);
		if (kf_endswith(argv[i], ".ncu-rep"))
			rep = argv[i];
		push(&c[2], argv[i]);
		n++;
	}
	if (n == 0)
		kf_usage_error("reread: no saved profile (kf-out/ID, a pass folder, a file of "
		    "records, an .ncu-rep)");
	if (rep && n > 1)
		kf_usage_error("reread %s: an .ncu-rep is read alone (kf ncu --import FILE)", rep);
	if (rep) {
		/* An import: kf-wrap ncu --import FILE | kf-run | ..., and
		 * kf-read reads kf-run's records, not the path */
		c[2].v[c[2].n = 1] = NULL;
		push(&c[0], "ncu");
		push(&c[0], "--import");
		push(&c[0], rep);
		return -1;
	}
	if (opt.timeout || opt.inactivity)
		kf_usage_error("reread: --timeout and --inactivity limit a run, and nothing runs");
	feedback_args(&c[4]);
	for (i = 0; i < 3; i++)
		v[i] = c[2 + i].v;
	setenv(KF_QUIET_ERRORS, "1", 0);
	fflush(stdout);
	return kf_pipeline_run(v, 3, 1);
}

int
main(int argc, char **argv)
{
	static const char *const names[] = {
		"kf-wrap", "kf-run", "kf-read", "kf-collate", "kf-feedback",
	};
	struct cmd c[5] = {{0}};
	char *const *v[5];
	char *paths[5];
	int i, status, sig, dashdash = 0, is_reread;

	kf_init(argv[0]);
	kf_opt_init(usage, help);
	options(argc, argv);
	is_reread = strcmp(argv[optind], "reread") == 0;
	if (wants_help(argc, argv, optind + 1)) {
		if (!is_reread)
			return print_help(argv[optind]);
		kf_opt_help();
		return fflush(stdout) == 0 ? 0 : 1;
	}
	for (i = 0; i < 5; i++) {
		paths[i] = kf_sibling(names[i]);
		push(&c[i], paths[i]);
	}
	push(&c[0], KF_FRONT_USAGE_OPT);
	if (is_reread && (status = reread(argc, argv, optind + 1, c)) >= 0)
		goto out;
	for (i = optind; i < argc && !is_reread; i++) {
		if (!dashdash && own_long_option(argc, argv, &i))
			continue;
		dashdash |= strcmp(argv[i], "--") == 0;
		push(&c[0], argv[i]);
	}
	/* The program's output as it runs, as ncu shows it: on stderr, since
	 * stdout is the feedback's; the record keeps its tails. */
	if (!opt.quiet)
		push(&c[1], "--live");
	push_opt(&c[1], "--timeout", opt.timeout);
	push_opt(&c[1], "--inactivity", opt.inactivity);
	feedback_args(&c[4]);
	for (i = 0; i < 5; i++)
		v[i] = c[i].v;
	/* Each record's error is said once, in kf-feedback's text: the
	 * stages that put it there do not say it on stderr too. */
	setenv(KF_QUIET_ERRORS, "1", 0);
	fflush(stdout);
	/* SIGTERM and SIGHUP go to kf-wrap and kf-run, which ends the program
	 * and writes its record; the rest explain it. */
	status = kf_pipeline_run(v, 5, 2);
	/* Stopped by a signal: the feedback above says what ran and what was
	 * lost; the status says the signal, as a shell's would. */
	if ((sig = kf_pipeline_signal()) != 0) {
		kf_warn("stopped by %s: the feedback above says what ran and what was lost",
		    kf_signame(sig) ? kf_signame(sig) : "a signal");
		status = 128 + sig;
	}
out:
	for (i = 0; i < 5; i++) {
		free(c[i].v);
		free(paths[i]);
	}
	for (i = 0; i < opt.fb.n; i++)
		free(opt.fb.v[i]);
	free(opt.fb.v);
	return status;
}
