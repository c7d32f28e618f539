/* kf-read: read what the profiler left in each record's output_dir. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "collate.h"
#include "complete.h"
#include "err.h"
#include "opt.h"
#include "path.h"
#include "profiler.h"
#include "record.h"
#include "saved.h"

static const char usage[] = "[-u] [FILE | DIR ...]\n"
	"--profiler P --select K [--write] [--launch-ids] [--per-process] FILE";
static const char help[] =
	"Adds \"data\": what the profiler of each record left in its output_dir.\n"
	"A DIR is a saved profile, read again: kf's output folder (kf-out/ID), one\n"
	"pass folder (ncu.000), or kf-mcp's run directory.\n"
	"  -u, --unbuffered   flush after every record\n"
	"  -h, --help         print this help\n"
	"      --profiler P --select K FILE\n"
	"                     print the profiler's filter arguments, one a line, that\n"
	"                     detail one launch of each of the K kernels with the most\n"
	"                     GPU time in its timing run FILE (kf-wrap ncu --top\n"
	"                     runs it); kf-read writes nothing into what it reads\n"
	"      --write        with --select: also write the ranking and the choice\n"
	"                     beside FILE (kf-ncu does, in the output_dir it owns)\n"
	"      --launch-ids   with --select: print the ID of each one's first\n"
	"                     launch instead\n"
	"      --per-process  with --select: the arguments for one process of the\n"
	"                     program at a time (one ncu --mode attach to each)\n"
	"      --version      print the version\n";

/* A run that did not start (kf-run could not execute its argv): nothing
 * to read; whose program it was, the user's (argv is the command) or the
 * profiler's. */
static int
not_started(cJSON *rec)
{
	const cJSON *run = kf_obj(rec, "run"), *argv = kf_arr(rec, "argv");
	const cJSON *cmd = kf_arr(rec, "cmd");
	const char *a0 = argv && cJSON_IsString(argv->child) ? argv->child->valuestring : NULL;
	const char *c0 = cmd && cJSON_IsString(cmd->child) ? cmd->child->valuestring : NULL;
	const char *msg = kf_str(run, "message");
	int program = a0 && c0 && strcmp(a0, c0) == 0;
	int found = kf_num(run, "exit_code", 127) != 126;

	if (!cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(run, "started")))
		return 0;
	kf_fail(rec, program ? (found ? "program_not_found" : "program_not_executable") :
	    found ? "profiler_not_found" : "profiler_not_executable",
	    "the %s did not start: %s", program ? "program" : "profiler's command",
	    msg ? msg : "kf-run could not execute it");
	kf_fail_hint(rec, program ? "check the command: its program must exist and be "
	    "executable (./NAME for one in the job's directory)" : "install the profiler, "
	    "or add the folder that holds it to PATH");
	return 1;
}

/* A relative output_dir with no "cwd" that is not here: the nearest
 * folder, from the record file's own up, that holds it (a saved record
 * read from anywhere: its output_dir is relative to where it was made,
 * such as the repository's root for examples/h200/copy.json). That folder
 * becomes the record's "cwd". NULL when there is none. */
static char *
find_up(cJSON *rec, const char *dir)
{
	const char *file = kf_where_file();
	char *base, *p, *slash, *at;

	if (file == NULL || (p = realpath(file, NULL)) == NULL)
		return NULL;
	for (base = p; (slash = strrchr(base, '/')) != NULL; ) {
		*slash = '\0';
		at = kf_path_join(base[0] ? base : "/", dir);

		if (kf_is_dir(at)) {
			kf_set_str(rec, "cwd", base[0] ? base : "/");
			free(p);
			return at;
		}
		free(at);
		if (base[0] == '\0')
			break;
	}
	free(p);
	return NULL;
}

static void
read_one(cJSON *rec)
{
	const char *name = kf_str(rec, "profiler"), *dir = kf_str(rec, "output_dir");
	const char *cwd = kf_str(rec, "cwd");
	const struct kf_profiler *p;
	char *at = NULL;

	if (kf_error(rec) || not_started(rec)) {
		kf_emit(rec);
		return;
	}
	/* A relative output_dir is relative to where kf-wrap ran, when the
	 * record says where that was; else (a replay record) to here, or to
	 * the folder above its file that holds it. */
	if (dir && dir[0] != '/' && cwd && cwd[0] == '/')
		dir = at = kf_path_join(cwd, dir);
	else if (dir && dir[0] != '/' && !kf_is_dir(dir) && (at = find_up(rec, dir)) != NULL)
		dir = at;
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
		free(at);
		return;
	}
	kf_emit(rec);
	free(at);
}

/* A record as it comes: a job's final record is read again pass by pass. */
static void
read_rec(cJSON *rec)
{
	cJSON *passes = kf_error(rec) ? NULL : kf_job_passes(rec), *one;

	if (passes) {
		while ((one = cJSON_DetachItemFromArray(passes, 0)) != NULL) {
			read_one(one);
			cJSON_Delete(one);
		}
		cJSON_Delete(passes);
	} else {
		read_one(rec);
	}
	cJSON_Delete(rec);
}

/* A saved profile's folder: its pass folders' records (saved.h), read. */
static void
read_saved(const char *dir)
{
	struct buf recs = {0}, err = {0};
	char *id = NULL, *s, *nl;
	long line = 0;
	cJSON *rec;

	if (kf_saved_replay(dir, &id, NULL, &recs, &err) != 0) {
		kf_set_where(NULL, 0);
		rec = kf_fail(NULL, "no_profile", "%s", err.s);
		kf_fail_hint(rec, "give kf-read a file of records, or a folder kf or kf-mcp "
		    "saved a profile in (kf-out/ID, one of its pass folders)");
		kf_emit(rec);
		cJSON_Delete(rec);
	}
	for (s = recs.s; s && *s; s = nl + 1) {
		nl = strchr(s, '\n');
		if ((rec = kf_parse_line(s, (size_t)(nl - s), dir, ++line)) != NULL)
			read_rec(rec);
	}
	free(id);
	buf_free(&recs);
	buf_free(&err);
}

/* "ncu": the profilers with a timing run to select from. */
static const char *
selecting_profilers(void)
{
	static struct buf b;
	size_t i;

	for (i = 0; kf_profilers[i]; i++)
		if (kf_profilers[i]->select)
			buf_printf(&b, "%s%s", b.len ? ", " : "", kf_profilers[i]->name);
	return b.s ? b.s : "none";
}

int
main(int argc, char **argv)
{
	enum { O_SELECT = 0x100, O_PROFILER, O_WRITE, O_NO_WRITE, O_LAUNCH_IDS, O_PER_PROCESS };
	static const struct option longopts[] = {
		{ "select", required_argument, NULL, O_SELECT },
		{ "profiler", required_argument, NULL, O_PROFILER },
		{ "write", no_argument, NULL, O_WRITE },
		{ "no-write", no_argument, NULL, O_NO_WRITE },	/* the default now */
		{ "launch-ids", no_argument, NULL, O_LAUNCH_IDS },
		{ "per-process", no_argument, NULL, O_PER_PROCESS },
		KF_OPT_COMMON
	};
	static const struct kf_optarg args[] = {
		{ "profiler", KF_ARG_WORDS, NULL, kf_say_profilers },
		{ "FILE", KF_ARG_FILE, NULL, NULL },
		{ NULL, 0, NULL, NULL }
	};
	struct kf_in *in;
	cJSON *rec;
	const struct kf_profiler *p = NULL;
	long select = 0;
	struct buf out = {0};
	int c, i, flags = 0, select_opts = 0, st;

	kf_init(argv[0]);
	kf_opt_init(usage, help);
	kf_opt_complete(args, NULL);
	while ((c = kf_getopt(argc, argv, "u", longopts)) != -1) {
		switch (c) {
		case O_SELECT:
			select = kf_opt_long(optarg, "--select", 1, 1000);
			break;
		case O_PROFILER:
			if ((p = kf_profiler_find(optarg)) == NULL)
				kf_usage_error("--profiler: unknown profiler '%s' (one of %s)",
				    optarg, kf_profiler_names());
			select_opts = 1;
			break;
		case O_WRITE:
			flags |= KF_SELECT_WRITE;
			select_opts = 1;
			break;
		case O_NO_WRITE:
			flags &= ~KF_SELECT_WRITE;
			select_opts = 1;
			break;
		case O_LAUNCH_IDS:
			flags |= KF_SELECT_IDS;
			select_opts = 1;
			break;
		case O_PER_PROCESS:
			flags |= KF_SELECT_PER_PROCESS;
			select_opts = 1;
			break;
		default:
			kf_usage();
		}
	}
	if (select > 0) {
		if ((flags & KF_SELECT_IDS) && (flags & KF_SELECT_WRITE))
			kf_usage_error("--launch-ids prints the IDs only: it writes nothing");
		if (argc - optind != 1)
			kf_usage_error("--select K takes one file");
		if (p == NULL || p->select == NULL)
			kf_usage_error("--select needs --profiler, one that times every "
			    "launch first (%s)", selecting_profilers());
		/* What it prints is checked as every other output is. */
		st = p->select(select, argv[optind], flags, &out) != 0;
		fwrite(out.s ? out.s : "", 1, out.len, stdout);
		buf_free(&out);
		return st | kf_finish();
	}
	if (select_opts)
		kf_usage_error("--profiler, --write, --launch-ids and --per-process go with --select");
	kf_in_finish_on_interrupt();
	/* Files of records as one stream; a folder, where it comes, as the
	 * records of the saved profile in it. */
	for (i = optind; i < argc || i == optind; ) {
		int j = i;

		if (i < argc && strcmp(argv[i], "-") != 0 && kf_is_dir(argv[i])) {
			read_saved(argv[i++]);
			continue;
		}
		while (j < argc && (strcmp(argv[j], "-") == 0 || !kf_is_dir(argv[j])))
			j++;
		in = kf_in_open(j - i, argv + i);
		while ((rec = kf_in_next(in)) != NULL)
			read_rec(rec);
		kf_in_close(in);
		if ((i = j) >= argc)
			break;
	}
	return kf_finish();
}
