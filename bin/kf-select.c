/* kf-select: choose the profiler for each job and write one record per pass. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "complete.h"
#include "err.h"
#include "opt.h"
#include "profiler.h"
#include "record.h"
#include "select.h"
#include "wrap.h"

static const char usage[] =
	"[-u] [--profiler NAME] [--arch NAME] [FILE ...]\n"
	"--list-arch";
static const char help[] =
	"Reads jobs (id, cmd, language, arch, optional profiler and reference_language)\n"
	"and writes one record per profiler pass.\n"
	"      --profiler NAME  profile every job with NAME (ncu, unitrace, vtune)\n"
	"      --arch NAME      the arch of jobs that give none\n"
	"      --list-arch      print the architecture table and exit\n"
	"  -u, --unbuffered     flush after every record\n"
	"  -h, --help           print this help\n"
	"      --version        print the version\n";

enum { O_PROFILER = 0x100, O_ARCH, O_LIST_ARCH };

static const char *force_profiler, *default_arch;

/* A string field, or NULL; a field of another type is an error. */
static int
opt_str(cJSON *rec, const char *key, const char **out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(rec, key);

	*out = NULL;
	if (v == NULL || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsString(v)) {
		kf_fail(rec, "bad_record", "\"%s\" is not a string", key);
		return -1;
	}
	*out = v->valuestring;
	return 0;
}

/* A job's id may be a number; records carry it as a string from here on. */
static const char *
job_id(cJSON *rec)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(rec, "id");
	char num[64];

	if (cJSON_IsNumber(v)) {
		snprintf(num, sizeof num, "%.17g", v->valuedouble);
		kf_set_str(rec, "id", num);
	} else if (!cJSON_IsString(v) || v->valuestring[0] == '\0') {
		kf_fail(rec, "bad_record", v ? "\"id\" is not a non-empty string" :
		    "no \"id\": every job needs a name");
		kf_fail_hint(rec, "give each job a unique \"id\"");
		return NULL;
	}
	return kf_str(rec, "id");
}

static int
check_job(cJSON *rec, const char **lang, const char **ref, const char **arch,
    const char **prof)
{
	struct buf err = {0};
	char **argv;
	int n;

	if (job_id(rec) == NULL)
		return -1;
	argv = kf_cmd_argv(cJSON_GetObjectItemCaseSensitive(rec, "cmd"), &n, &err);
	if (argv == NULL) {
		kf_fail(rec, "bad_record", "job %s: %s", kf_str(rec, "id"), err.s);
		kf_fail_hint(rec, "\"cmd\": [\"./prog\", \"arg\"], or a string run by sh -c");
		buf_free(&err);
		return -1;
	}
	kf_argv_free(argv);
	if (opt_str(rec, "language", lang) || opt_str(rec, "reference_language", ref) ||
	    opt_str(rec, "arch", arch) || opt_str(rec, "profiler", prof))
		return -1;
	if (*lang == NULL) {
		kf_fail(rec, "bad_record", "job %s: no \"language\" (one of %s)",
		    kf_str(rec, "id"), kf_language_names());
		return -1;
	}
	if (*arch == NULL)
		*arch = default_arch;
	if (force_profiler)
		*prof = force_profiler;
	return 0;
}

static void
select_one(cJSON *rec)
{
	const char *lang, *ref, *arch, *prof, *kind = NULL, *allowed;
	struct kf_choice c;
	struct buf err = {0};
	int i;

	if (kf_error(rec) || check_job(rec, &lang, &ref, &arch, &prof) != 0) {
		kf_emit(rec);
		return;
	}
	if (kf_select(lang, ref, arch, prof, &c, &kind, &err) != 0) {
		kf_fail(rec, kind, "job %s: %s", kf_str(rec, "id"), err.s);
		allowed = kf_language_profilers(kf_profiling_language(lang, ref));
		if (allowed)
			kf_fail_hint(rec, "give \"profiler\" one of: %s%s", allowed,
			    strcmp(kind, "no_arch") == 0 ? ", or give \"arch\" "
			    "(or kf-select --arch)" : "");
		else
			kf_fail_hint(rec, "give \"language\" one of: %s", kf_language_names());
		kf_emit(rec);
		buf_free(&err);
		return;
	}
	if (c.by_arch && c.arch == NULL)
		kf_warn("%s: job %s: arch '%s' is neither a known NVIDIA nor a known "
		    "Intel name: profiling as for an Intel GPU, with %s", kf_where(),
		    kf_str(rec, "id"), arch, c.profiler->name);
	for (i = 0; i < c.profiler->npasses; i++) {
		cJSON *pass = kf_pass_record(rec, &c, i);

		kf_emit(pass);
		cJSON_Delete(pass);
	}
}

static void
list_arch(void)
{
	const struct kf_arch *a;

	for (a = kf_arch_table(); a->word; a++)
		printf("%s\t%s\t%s\t%s\n", a->word, kf_vendor_name(a->vendor),
		    a->kind, a->name);
	exit(kf_finish());
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "profiler", required_argument, NULL, O_PROFILER },
		{ "arch", required_argument, NULL, O_ARCH },
		{ "list-arch", no_argument, NULL, O_LIST_ARCH },
		KF_OPT_COMMON
	};
	static const struct kf_optarg args[] = {
		{ "profiler", KF_ARG_WORDS, NULL, kf_say_profilers },
		{ "arch", KF_ARG_WORDS, NULL, kf_say_archs },
		{ "FILE", KF_ARG_FILE, NULL, NULL },
		{ NULL, 0, NULL, NULL }
	};
	struct kf_in *in;
	cJSON *rec;
	int c;

	kf_init(argv[0]);
	kf_opt_init(usage, help);
	kf_opt_complete(args, NULL);
	while ((c = kf_getopt(argc, argv, "u", longopts)) != -1) {
		switch (c) {
		case O_PROFILER:
			if (kf_profiler_find(optarg) == NULL)
				kf_usage_error("--profiler: unknown profiler '%s' (one of %s)",
				    optarg, kf_profiler_names());
			force_profiler = optarg;
			break;
		case O_ARCH:
			default_arch = optarg;
			break;
		case O_LIST_ARCH:
			list_arch();
			break;
		default:
			kf_usage();
		}
	}
	in = kf_in_open(argc - optind, argv + optind);
	while ((rec = kf_in_next(in)) != NULL) {
		select_one(rec);
		cJSON_Delete(rec);
	}
	kf_in_close(in);
	return kf_finish();
}
