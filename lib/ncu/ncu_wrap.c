/* The Nsight Compute path: kf-wrap's command. ncu runs under kf's helper
 * libexec/kf/kf-ncu, which keeps the report (report.ncu-rep) and exports its
 * details, raw and source pages; with --top K, a timing run of every launch
 * comes first and kf-read --select picks the kernels for the detailed run.
 * The user's ncu options go to one run or both (add_user_args). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include "buf.h"
#include "lines.h"
#include "mem.h"
#include "ncu.h"
#include "num.h"
#include "path.h"
#include "profiler.h"
#include "record.h"

/* An option that takes a value as the next word, unless given as NAME=V. */
static int
opt_is(const char *a, const char *name, int *words)
{
	size_t n = strlen(name);

	if (strncmp(a, name, n) != 0 || (a[n] != '\0' && a[n] != '='))
		return 0;
	*words = a[n] == '\0' ? 2 : 1;
	return 1;
}

/* What the user's option says: 'c' chooses what to collect (the timing
 * run leaves it out), 'k' which kernels (the detailed run of --top leaves
 * it out: its own filter picks among what the timing run saw), 'o' where
 * ncu writes (kf-ncu decides that), 'x' what kf-ncu always gives (-f,
 * --import-source: left out), 0 anything else (both runs). */
static int
opt_kind(const char *a, int *words)
{
	static const char *const collect[] = { "--set", "--section", "--metrics",
		"--section-folder", "--section-folder-recursive", NULL };
	static const char *const pick[] = { "-k", "-c", "-s", "--kernel-name", "--kernel-id",
		"--kernel-name-base", "--launch-skip", "--launch-count", "--filter-mode",
		"--launch-skip-before-match", NULL };
	static const char *const out[] = { "-o", "--export", "--log-file", "-i",
		"--import", "--page", NULL };
	int i;

	*words = 1;
	if (strcmp(a, "-f") == 0 || strcmp(a, "--force-overwrite") == 0)
		return 'x';
	if (opt_is(a, "--import-source", words))
		return 'x';
	for (i = 0; collect[i]; i++)
		if (opt_is(a, collect[i], words))
			return 'c';
	for (i = 0; pick[i]; i++)
		if (opt_is(a, pick[i], words))
			return 'k';
	if (strcmp(a, "--csv") == 0)
		return 'o';
	for (i = 0; out[i]; i++)
		if (opt_is(a, out[i], words))
			return 'o';
	return 0;
}

/* The user's arguments for one run of kf-ncu ('t' timing, 'd' detailed). */
static void
add_user_args(cJSON *argv, const struct kf_wrap_opts *o, int run)
{
	int i, w, kind;

	for (i = 0; i < o->nargs; i += w) {
		kind = opt_kind(o->args[i], &w);
		if (kind == 'x' || (run == 't' && kind == 'c') ||
		    (run == 'd' && kf_wrap_opt_long(o, "top", 0) > 0 && kind == 'k'))
			continue;
		kf_push_arg(argv, o->args[i]);
		if (w == 2 && i + 1 < o->nargs)
			kf_push_arg(argv, o->args[i + 1]);
	}
}

/* The user's options that would break the chain: 0, or -1 after kf_fail. */
static int
check_user_args(cJSON *rec, const struct kf_wrap_opts *o)
{
	int i, w;

	for (i = 0; i < o->nargs; i += w) {
		if (strcmp(o->args[i], "--") == 0 || strcmp(o->args[i], "-+") == 0) {
			kf_fail(rec, "bad_option", "ncu argument '%s' would end ncu's "
			    "options before the program", o->args[i]);
			return -1;
		}
		if (opt_kind(o->args[i], &w) == 'o') {
			kf_fail(rec, "bad_option", "ncu argument '%s': kf-wrap decides where "
			    "ncu writes (report.ncu-rep and its pages in output_dir)",
			    o->args[i]);
			kf_fail_hint(rec, "leave out -o, --export, --log-file, --csv and "
			    "--page; open output_dir/report.ncu-rep for any other page");
			return -1;
		}
	}
	return 0;
}


static int
has_option(const struct kf_wrap_opts *o, const char *name)
{
	int i, w;

	for (i = 0; i < o->nargs; i++)
		if (opt_is(o->args[i], name, &w))
			return 1;
	return 0;
}

/* The names of a table of share/kf: one a line, '#' comments, blank lines
 * ignored, a name holding a comma or a blank left out. Joined by sep, or
 * NULL when the table is absent or empty. */
static char *
data_names(const char *table, int sep)
{
	char *path = kf_data_file(table);
	struct kf_lines l;
	struct buf b = { 0 };
	char *name;

	if (path == NULL)
		return NULL;
	if (kf_lines_open(&l, path) != 0) {
		free(path);
		return NULL;
	}
	while (kf_lines_next(&l) > 0) {
		name = kf_trim(l.s);
		if (*name == '\0' || *name == '#' || strpbrk(name, ", \t") != NULL)
			continue;
		if (b.len)
			buf_putc(&b, sep);
		buf_puts(&b, name);
	}
	kf_lines_close(&l);
	free(path);
	return b.len ? buf_take(&b) : (buf_free(&b), NULL);
}

/* What the detailed run collects unless the user says: the sections of
 * share/kf/ncu_sections.txt (those whose fields kf reads), one --section
 * each, else the whole detailed set. ncu takes the user's --set or
 * --section in their place. sampled (--sampled-source): kf's section
 * KfSourceSampled (share/kf/ncu_source_sampled.section, which kf-ncu puts
 * beside ncu's own) in place of SourceCounters and MemoryWorkloadAnalysis,
 * whose source metrics take ncu's count of each instruction's executions. */
static void
add_sections(cJSON *argv, int sampled)
{
	char *list = data_names("ncu_sections.txt", '\n'), *s, *e;

	if (list == NULL) {
		kf_push_str(argv, "--set");
		kf_push_str(argv, "detailed");
		return;
	}
	for (s = list; s != NULL; s = e) {
		if ((e = strchr(s, '\n')) != NULL)
			*e++ = '\0';
		if (sampled && (strcmp(s, "SourceCounters") == 0 ||
		    strcmp(s, "MemoryWorkloadAnalysis") == 0))
			continue;
		kf_push_str(argv, "--section");
		kf_push_str(argv, s);
	}
	if (sampled) {
		kf_push_str(argv, "--section");
		kf_push_str(argv, "KfSourceSampled");
	}
	free(list);
}

/* --import REPORT: kf-ncu-import NCU DIR SELECT REPORT, no run. */
static int
import_wrap(cJSON *rec, const char *dir, const char *rep, const struct kf_wrap_opts *o)
{
	char *script = kf_libexec_file("kf-ncu-import"), *abs, *sel;
	cJSON *argv;

	if (script == NULL) {
		kf_fail(rec, "no_helper", "cannot find the helper script kf-ncu-import");
		kf_fail_hint(rec, "install kf (make install), or set KF_LIBEXECDIR to "
		    "the folder holding it");
		return -1;
	}
	if ((abs = realpath(rep, NULL)) == NULL) {
		kf_fail(rec, "bad_record", "--import %s: %s", rep, strerror(errno));
		free(script);
		return -1;
	}
	argv = cJSON_CreateArray();
	kf_push_str(argv, script);
	kf_push_str(argv, o->tool ? o->tool : "ncu");
	kf_push_str(argv, dir);
	sel = kf_path_join(kf_exe_dir(), "kf-read");
	kf_push_str(argv, sel);
	free(sel);
	kf_push_str(argv, abs);
	kf_set(rec, "argv", argv);
	kf_set(rec, "env", cJSON_CreateObject());
	kf_set_str(rec, "import", abs);
	if (!cJSON_GetObjectItemCaseSensitive(rec, "end_marker"))
		kf_set_str(rec, "end_marker", "NCU_DONE");
	free(script);
	free(abs);
	return 0;
}

/* kf-ncu NCU DIR TOP SELECT [TIMING_ARG ...] -+ [DETAIL_ARG ...] -- CMD */
int
ncu_wrap(cJSON *rec, char *const *cmd, int ncmd, const struct kf_wrap_opts *o)
{
	const char *dir = kf_str(rec, "output_dir");
	char *script, *top, *sel, *extra;
	cJSON *argv, *env;
	int i, sampled;

	if (dir == NULL) {
		kf_fail(rec, "bad_record", "no \"output_dir\": where should ncu write its report?");
		return -1;
	}
	if (kf_wrap_opt(o, "import")) {
		/* what a report holds was collected when it was made */
		if (kf_wrap_opt(o, "sampled-source")) {
			kf_fail(rec, "bad_option", "--sampled-source chooses what a run of ncu "
			    "collects, and --import reads a report already made");
			kf_fail_hint(rec, "leave out --sampled-source");
			return -1;
		}
		return import_wrap(rec, dir, kf_wrap_opt(o, "import"), o);
	}
	if (ncmd < 1) {
		kf_fail(rec, "bad_record", "no command to profile");
		return -1;
	}
	if (strchr(dir, '\n')) {
		kf_fail(rec, "output_dir", "output_dir %s holds a line end, which kf-ncu "
		    "cannot pass to ncu", dir);
		kf_fail_hint(rec, "choose another kf-wrap -o DIR");
		return -1;
	}
	if (check_user_args(rec, o) != 0)
		return -1;
	sampled = kf_wrap_opt(o, "sampled-source") != NULL;
	if (sampled && (has_option(o, "--set") || has_option(o, "--section") ||
	    has_option(o, "--section-folder") || has_option(o, "--section-folder-recursive"))) {
		kf_fail(rec, "bad_option", "--sampled-source changes kf's own sections, and "
		    "this job names its own (--set, --section or --section-folder)");
		kf_fail_hint(rec, "leave out --sampled-source, or ncu's section options");
		return -1;
	}
	if ((script = kf_libexec_file("kf-ncu")) == NULL) {
		kf_fail(rec, "no_helper", "cannot find the helper script kf-ncu");
		kf_fail_hint(rec, "install kf (make install), or set KF_LIBEXECDIR to "
		    "the folder holding kf-ncu");
		return -1;
	}
	/* kf-read, beside kf-wrap, picks the kernels for --top. */
	sel = kf_path_join(kf_exe_dir(), "kf-read");
	top = xasprintf("%ld", kf_wrap_opt_long(o, "top", 0));
	argv = cJSON_CreateArray();
	kf_push_str(argv, script);
	kf_push_str(argv, o->tool ? o->tool : "ncu");
	kf_push_str(argv, dir);
	kf_push_str(argv, top);
	kf_push_str(argv, sel);
	add_user_args(argv, o, 't');
	kf_push_str(argv, "-+");
	/* The user's own --set (full, basic) or --section replaces ours. */
	if (!has_option(o, "--set") && !has_option(o, "--section"))
		add_sections(argv, sampled);
	/* ncu takes one --metrics list: the user's own replaces ours. */
	if (!has_option(o, "--metrics") && (extra = data_names("ncu_metrics.txt", ',')) != NULL) {
		kf_push_str(argv, "--metrics");
		kf_push_str(argv, extra);
		free(extra);
	}
	add_user_args(argv, o, 'd');
	kf_push_str(argv, "--");
	for (i = 0; i < ncmd; i++)
		kf_push_arg(argv, cmd[i]);
	kf_set(rec, "argv", argv);
	env = cJSON_CreateObject();
	/* kf-ncu puts kf's section beside ncu's own (ncu_sampled_sections) */
	if (sampled)
		kf_set_str(env, "KF_NCU_SAMPLED_SOURCE", "1");
	kf_set(rec, "env", env);
	if (!cJSON_GetObjectItemCaseSensitive(rec, "end_marker"))
		kf_set_str(rec, "end_marker", "NCU_DONE");
	free(script);
	free(sel);
	free(top);
	return 0;
}

