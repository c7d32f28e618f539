/* kf-wrap: give each pass record its output_dir and the profiler command
 * (argv, env, end_marker) that kf-run executes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "complete.h"
#include "err.h"
#include "mem.h"
#include "num.h"
#include "opt.h"
#include "path.h"
#include "pipeline.h"
#include "profiler.h"
#include "record.h"
#include "rundir.h"
#include "select.h"
#include "wrap.h"

static const char usage[] =
	"[-u] [-o dir] [--tool path] [-a arg] [--sudo] [profiler's kf-wrap options]\n"
	"[--end-marker str] [--timeout s] [--inactivity s] [FILE ...]\n"
	"PROFILER [options] [--id name] [--language lang] [profiler options] -- CMD [ARG ...]";
static const char help_head[] =
	"Wraps pass records (from kf-select, or one job given on the command line)\n"
	"in the profiler's command. Between PROFILER and --, words that are not\n"
	"kf-wrap's options go to the profiler (a bare word: the value of the one\n"
	"before it): kf-wrap ncu --clock-control none -- ./k. -o is kf-wrap's.\n"
	"  -o, --output-dir DIR   outputs under DIR/ID/PASS (default kf-out)\n"
	"      --tool PATH        the profiler program (ncu, unitrace, vtune)\n"
	"  -a, --arg ARG          one more profiler argument (repeatable)\n"
	"      --sudo             run the profiler under sudo -E\n"
	"      --end-marker STR   output that ends the run (none: no marker)\n"
	"      --timeout S        kf-run's limit for the whole run (90s, 5m, 1h)\n"
	"      --inactivity S     kf-run's limit for a run without output\n"
	"      --id NAME          the job's id (default: the command's name)\n"
	"      --language LANG    the job's language (sycl, ocl, cuda, pytorch, triton)\n"
	"  -u, --unbuffered       flush after every record\n"
	"  -h, --help             print this help\n"
	"      --version          print the version\n"
	"Options of one profiler (from its descriptor):\n";

enum {
	O_TOOL = 0x100, O_SUDO, O_END_MARKER, O_TIMEOUT, O_INACTIVITY, O_ID,
	O_LANGUAGE,
	O_POPT = 0x200,		/* + the index in popts */
};

/* The profilers' own kf-wrap options (struct kf_popt), each name once,
 * with the profilers that take it; and what was given. */
static struct {
	const struct kf_popt *o;
	char who[64];		/* "ncu", "ncu, unitrace" */
} popts[KF_POPT_MAX];
static int npopts;

static struct {
	const char *base;
	const char *tool;
	char **args;
	int nargs;
	int sudo;
	const char *popt_val[KF_POPT_MAX];	/* by popts index; NULL: not given */
	const char *end_marker;
	int end_marker_set;
	double timeout, inactivity;
	const char *id, *language;
} opt = { .base = "kf-out", .timeout = -1, .inactivity = -1 };

/* The -a arguments, then the record's own "profiler_args". */
static char **
profiler_args(cJSON *rec, int *n)
{
	const cJSON *extra = cJSON_GetObjectItemCaseSensitive(rec, "profiler_args"), *c;
	char **v;
	int i = 0;

	if (extra && !cJSON_IsArray(extra)) {
		kf_fail(rec, "bad_record", "\"profiler_args\" is not an array of strings");
		return NULL;
	}
	v = xcalloc((size_t)opt.nargs + (size_t)cJSON_GetArraySize(extra) + 1, sizeof *v);
	for (i = 0; i < opt.nargs; i++)
		v[i] = opt.args[i];
	cJSON_ArrayForEach(c, extra) {
		if (!cJSON_IsString(c)) {
			kf_fail(rec, "bad_record", "\"profiler_args\"[%d] is not a string",
			    i - opt.nargs);
			free(v);
			return NULL;
		}
		v[i++] = c->valuestring;
	}
	*n = i;
	return v;
}

/* pass and group for records made by hand ("pass" absent, "group" absent). */
static int
fill_pass(cJSON *rec, const struct kf_profiler *p)
{
	const char *pass = kf_str(rec, "pass");
	char *def;
	size_t n = strlen(p->name);
	long i;

	if (pass == NULL && p->npasses == 1) {
		def = xasprintf("%s.000", p->name);
		kf_set_str(rec, "pass", def);
		free(def);
	} else if (pass == NULL || pass[0] == '\0') {
		kf_fail(rec, "bad_record", "job %s: no \"pass\": %s takes %d passes",
		    kf_str(rec, "id"), p->name, p->npasses);
		kf_fail_hint(rec, "make the pass records with kf-select");
		return -1;
	}
	pass = kf_str(rec, "pass");
	if (p->groups && kf_str(rec, "group") == NULL && strncmp(pass, p->name, n) == 0 &&
	    pass[n] == '.' && (i = strtol(pass + n + 1, NULL, 10)) >= 0 && i < p->npasses)
		kf_set_str(rec, "group", p->groups[i]);
	if (kf_str(rec, "mode") == NULL)
		kf_set_str(rec, "mode", "query");
	return 0;
}

/* The record is read again from other directories (kf-read in a sweep's
 * OUT, a saved record next week): a relative output_dir comes with the
 * directory it is relative to, "cwd", for kf-read to resolve it against. */
static void
record_cwd(cJSON *rec)
{
	const char *dir = kf_str(rec, "output_dir");
	char *cwd;

	if (dir == NULL || dir[0] == '/' || (cwd = getcwd(NULL, 0)) == NULL)
		return;
	kf_set_str(rec, "cwd", cwd);
	free(cwd);
}

/* -o DIR, as mkdir makes it: DIR itself may be new, its parent may not (a
 * typo is said, not made into a tree). 0, or -1 with the reason in the
 * record. */
static int
check_base(cJSON *rec, const char *id)
{
	char *parent;
	const char *slash;
	int ok;

	if (kf_is_dir(opt.base))
		return 0;
	slash = strrchr(opt.base, '/');
	while (slash && slash > opt.base && slash[1] == '\0')
		slash = memrchr(opt.base, '/', (size_t)(slash - opt.base));
	parent = slash == NULL ? xstrdup(".") : slash == opt.base ? xstrdup("/") :
	    xstrndup(opt.base, (size_t)(slash - opt.base));
	ok = kf_is_dir(parent);
	if (!ok) {
		kf_fail(rec, "output_dir", "job %s: -o %s: %s %s: kf-wrap makes only the last "
		    "folder of -o, as mkdir does", id, opt.base, parent,
		    access(parent, F_OK) == 0 ? "is not a folder" : "does not exist");
		if (access(parent, F_OK) == 0)
			kf_fail_hint(rec, "check -o for a typo: %s is a file", parent);
		else
			kf_fail_hint(rec, "check -o for a typo, or make %s first (mkdir -p %s)",
			    parent, parent);
	}
	free(parent);
	return ok ? 0 : -1;
}

/* The folders made for the record, for kf-run to remove again when the
 * run never starts: "output_made", the outermost one. */
static void
record_made(cJSON *rec)
{
	const char *made = kf_run_dir_made(kf_str(rec, "output_dir"));

	if (made)
		kf_set_str(rec, "output_made", made);
}

/* Every run keeps its own outputs: a made-up output_dir is a fresh
 * directory (ID/PASS, else ID/PASS.2 ...), and a record's own output_dir
 * that already holds files is refused rather than written over. */
static int
make_output_dir(cJSON *rec, const char *id)
{
	const char *dir = kf_str(rec, "output_dir");
	char *path = NULL, *a, *b, *sub, *run;
	int used;

	if (dir == NULL) {
		if (check_base(rec, id) != 0)
			return -1;
		a = kf_path_component(id);
		b = kf_path_component(kf_str(rec, "pass"));
		sub = kf_path_join(a, b);
		path = kf_path_join(opt.base, sub);
		free(a);
		free(b);
		free(sub);
		run = kf_run_dir(path);
		kf_set_str(rec, "output_dir", run ? run : path);
		free(path);
		free(run);
		if (run) {
			record_cwd(rec);
			record_made(rec);
			return 0;
		}
		dir = kf_str(rec, "output_dir");
	} else if ((used = kf_dir_used(dir)) != 0) {
		if (used > 0) {
			kf_fail(rec, "output_dir", "job %s: output_dir %s already holds the outputs "
			    "of an earlier run", id, dir);
			kf_fail_hint(rec, "kf-wrap never writes over a profile: remove %s, or leave "
			    "output_dir out and kf-wrap makes a fresh one under -o", dir);
			return -1;
		}
	} else if (kf_run_mkdirs(dir) == 0) {
		record_cwd(rec);
		record_made(rec);
		return 0;
	}
	kf_fail(rec, "output_dir", "job %s: cannot create output_dir %s: %s", id, dir,
	    strerror(errno));
	kf_fail_hint(rec, "choose a writable place with kf-wrap -o DIR");
	return -1;
}

/* A record that failed after its folders were made: they go again. */
static void
unmake_output_dir(cJSON *rec)
{
	const char *made = kf_str(rec, "output_made"), *dir = kf_str(rec, "output_dir");

	if (made && dir)
		kf_run_dir_unmake(dir, made, NULL);
	cJSON_DeleteItemFromObjectCaseSensitive(rec, "output_made");
}

/* The reference runs ncu as sudo -E env "PYTHONPATH=$PYTHONPATH" ncu ... */
static void
apply_sudo(cJSON *rec)
{
	const cJSON *argv = kf_arr(rec, "argv");
	const char *pp = kf_str(kf_obj(rec, "env"), "PYTHONPATH");
	const char *first;

	if (argv == NULL)
		return;
	first = cJSON_IsString(argv->child) ? argv->child->valuestring : "";
	if (strcmp(first, "sudo") == 0)
		return;
	kf_set(rec, "argv", kf_sudo_argv(argv, pp ? pp : getenv("PYTHONPATH")));
}

/* The job's own "env" (taken out before the wrap) under the profiler's:
 * the profiler's variables are what its harness needs, the rest is the
 * user's to set. */
static void
merge_env(cJSON *rec, cJSON *job_env)
{
	cJSON *env = cJSON_DetachItemFromObjectCaseSensitive(rec, "env"), *c, *next;
	char *key;

	if (cJSON_IsObject(env)) {
		for (c = env->child; c; c = next) {
			next = c->next;
			cJSON_DetachItemViaPointer(env, c);
			/* cJSON frees c->string while it replaces: keep a copy */
			key = xstrdup(c->string);
			kf_set(job_env, key, c);
			free(key);
		}
	}
	cJSON_Delete(env);
	kf_set(rec, "env", job_env);
}

/* Whether argv runs cmd: argv is cmd, or ends with "--" and cmd (every
 * profiler's command but a report's import, which runs no program). */
static int
runs_cmd(const cJSON *argv, char *const *cmd, int ncmd)
{
	int n = cJSON_GetArraySize(argv), i, same = n >= ncmd;
	const cJSON *a;
	char *s;

	for (i = 0; same && i < ncmd; i++) {
		a = cJSON_GetArrayItem(argv, n - ncmd + i);
		s = kf_arg_bytes(a);
		same = s && strcmp(s, cmd[i]) == 0;
		free(s);
	}
	if (!same || n == ncmd)
		return same;
	a = cJSON_GetArrayItem(argv, n - ncmd - 1);
	return cJSON_IsString(a) && strcmp(a->valuestring, "--") == 0;
}

/* "requires": the programs the job starts, for kf-run to look up where it
 * runs before it starts anything: the profiler's and the user's. Under
 * --sudo, root's PATH finds a bare name: only paths are looked up. */
static void
set_requires(cJSON *rec, const struct kf_profiler *p, char *const *cmd, int ncmd)
{
	const char *tool = opt.tool ? opt.tool : p->tool;
	cJSON *req = cJSON_CreateObject();

	if (tool && (!opt.sudo || strchr(tool, '/')))
		cJSON_AddStringToObject(req, "profiler", tool);
	if (runs_cmd(kf_arr(rec, "argv"), cmd, ncmd) && (!opt.sudo || strchr(cmd[0], '/')))
		cJSON_AddStringToObject(req, "program", cmd[0]);
	kf_set(rec, "requires", req);
}

static void
finish_record(cJSON *rec)
{
	if (opt.sudo)
		apply_sudo(rec);
	if (opt.end_marker_set)
		kf_set(rec, "end_marker", opt.end_marker ?
		    cJSON_CreateString(opt.end_marker) : cJSON_CreateNull());
	if (opt.timeout >= 0)
		kf_set_num(rec, "timeout", opt.timeout);
	if (opt.inactivity >= 0)
		kf_set_num(rec, "inactivity", opt.inactivity);
}

static void
wrap_one(cJSON *rec)
{
	const char *name = kf_str(rec, "profiler"), *id = kf_str(rec, "id");
	const struct kf_profiler *p = kf_profiler_find(name);
	struct kf_wrap_opts wo = {0};
	struct buf err = {0};
	char **cmd = NULL, **args = NULL;
	int ncmd = 0, nargs = 0, i;
	const cJSON *env;
	cJSON *job_env;

	if (kf_error(rec))
		goto out;
	if (p == NULL) {
		kf_fail(rec, "bad_record", name ? "unknown profiler '%s' (one of %s)" :
		    "%sno \"profiler\" (one of %s)", name ? name : "", kf_profiler_names());
		kf_fail_hint(rec, "make the pass records with kf-select");
		goto out;
	}
	if (id == NULL || id[0] == '\0') {
		kf_fail(rec, "bad_record", "no \"id\" (a non-empty string)");
		goto out;
	}
	if (fill_pass(rec, p) != 0)
		goto out;
	if ((cmd = kf_cmd_argv(cJSON_GetObjectItemCaseSensitive(rec, "cmd"), &ncmd,
	    &err)) == NULL) {
		kf_fail(rec, "bad_record", "job %s: %s", id, err.s);
		kf_fail_hint(rec, "\"cmd\": [\"./prog\", \"arg\"], or a string run by sh -c");
		goto out;
	}
	env = cJSON_GetObjectItemCaseSensitive(rec, "env");
	if (env && !cJSON_IsObject(env)) {
		kf_fail(rec, "bad_record", "job %s: \"env\" is not an object of variables", id);
		goto out;
	}
	if ((args = profiler_args(rec, &nargs)) == NULL || make_output_dir(rec, id) != 0)
		goto out;
	wo.tool = opt.tool;
	wo.args = args;
	wo.nargs = nargs;
	wo.sudo = opt.sudo;
	for (i = 0; i < npopts; i++)
		if (opt.popt_val[i]) {
			wo.popt_name[wo.npopt] = popts[i].o->name;
			wo.popt_val[wo.npopt++] = opt.popt_val[i];
		}
	job_env = cJSON_DetachItemFromObjectCaseSensitive(rec, "env");
	if (p->wrap(rec, cmd, ncmd, &wo) == 0) {
		if (job_env)
			merge_env(rec, job_env);
		job_env = NULL;
		set_requires(rec, p, cmd, ncmd);
		finish_record(rec);
	} else {
		unmake_output_dir(rec);
		if (job_env && !cJSON_GetObjectItemCaseSensitive(rec, "env")) {
			cJSON_AddItemToObject(rec, "env", job_env);
			job_env = NULL;
		}
	}
	cJSON_Delete(job_env);
out:
	kf_emit(rec);
	kf_argv_free(cmd);
	free(args);
	buf_free(&err);
}

/* The value of profiler option name, given on the command line; NULL: not. */
static const char *
popt_given(const char *name)
{
	int k;

	for (k = 0; k < npopts; k++)
		if (strcmp(popts[k].o->name, name) == 0)
			return opt.popt_val[k];
	return NULL;
}

/* kf-wrap PROFILER [options] -- CMD [ARG ...]: the passes of one job. */
static void
wrap_command(const char *profiler, int argc, char **argv)
{
	struct kf_choice c = {0};
	struct buf err = {0};
	const char *kind, *base;
	cJSON *job, *cmd;
	int i;

	if (opt.language) {
		if (kf_select(opt.language, NULL, NULL, profiler, &c, &kind, &err) != 0)
			kf_usage_error("%s", err.s);
	} else {
		c.profiler = kf_profiler_find(profiler);
		c.mode = "query";
	}
	base = strrchr(argv[0], '/');
	base = base && base[1] ? base + 1 : argv[0];
	job = cJSON_CreateObject();
	cJSON_AddStringToObject(job, "id", opt.id ? opt.id : base);
	/* A report's id: its name without .ncu-rep. */
	if (!opt.id && popt_given("import") && kf_endswith(base, ".ncu-rep") &&
	    strlen(base) > 8) {
		char *id = xstrndup(base, strlen(base) - 8);

		kf_set_str(job, "id", id);
		free(id);
	}
	cmd = cJSON_AddArrayToObject(job, "cmd");
	for (i = 0; i < argc; i++)
		kf_push_arg(cmd, argv[i]);
	if (opt.language)
		cJSON_AddStringToObject(job, "language", opt.language);
	for (i = 0; i < c.profiler->npasses; i++) {
		cJSON *rec = kf_pass_record(job, &c, i);

		wrap_one(rec);
		cJSON_Delete(rec);
	}
	cJSON_Delete(job);
}

static void
add_arg(const char *a)
{
	opt.args = xrealloc(opt.args, ((size_t)opt.nargs + 1) * sizeof *opt.args);
	opt.args[opt.nargs++] = (char *)a;
}

static const struct option base_opts[] = {
	{ "output-dir", required_argument, NULL, 'o' },
	{ "tool", required_argument, NULL, O_TOOL },
	{ "arg", required_argument, NULL, 'a' },
	{ "sudo", no_argument, NULL, O_SUDO },
	{ "end-marker", required_argument, NULL, O_END_MARKER },
	{ "timeout", required_argument, NULL, O_TIMEOUT },
	{ "inactivity", required_argument, NULL, O_INACTIVITY },
	{ "id", required_argument, NULL, O_ID },
	{ "language", required_argument, NULL, O_LANGUAGE },
	KF_OPT_COMMON
};
static struct option *longopts;	/* base_opts and the profilers' */

/* text into b from column col on, words wrapped before column width. */
static void
help_wrap(struct buf *b, const char *text, int col, int width)
{
	int at = col;

	while (*text) {
		size_t n = strcspn(text, " ");

		if (at > col && at + 1 + (int)n > width) {
			buf_printf(b, "\n%*s", col, "");
			at = col;
		} else if (at > col) {
			buf_putc(b, ' ');
			at++;
		}
		buf_add(b, text, n);
		at += (int)n;
		text += n;
		text += strspn(text, " ");
	}
	buf_putc(b, '\n');
}

static const struct kf_optarg complete_args[] = {
	{ "output-dir", KF_ARG_DIR, NULL, NULL },
	{ "tool", KF_ARG_COMMAND, NULL, NULL },
	{ "language", KF_ARG_WORDS, NULL, kf_say_languages },
	{ "PROFILER", KF_ARG_WORDS, NULL, kf_say_profilers },
	{ "FILE", KF_ARG_FILE, NULL, NULL },
	{ NULL, 0, NULL, NULL }
};

/* After PROFILER: kf-wrap's own options (own_option), then the profiler's. */
static void
complete_more(void)
{
	const struct option *o;
	char *name;

	for (o = base_opts; o->name; o++) {
		if (o->val == KF_OPT_COMPLETE)
			continue;
		name = xasprintf("--%s", o->name);
		kf_complete_option("+", name, o->has_arg, complete_args);
		free(name);
	}
	kf_complete_line("+", "-o", KF_ARG_DIR, NULL);
	kf_complete_line("+", "-a", KF_ARG_VALUE, NULL);
	kf_complete_line("+", "-u", 0, NULL);
	kf_complete_line("+", "-h", 0, NULL);
	kf_complete_profilers();
}

/* The profilers' options into popts, longopts and the help text. */
static void
profiler_options(void)
{
	size_t nbase = sizeof base_opts / sizeof base_opts[0] - 1, n = nbase, i;
	const struct kf_popt *o;
	struct buf h = {0};
	int k;

	longopts = xcalloc(nbase + KF_POPT_MAX + 1, sizeof *longopts);
	memcpy(longopts, base_opts, nbase * sizeof *longopts);
	for (i = 0; kf_profilers[i]; i++)
		for (o = kf_profilers[i]->opts; o && o->name; o++) {
			for (k = 0; k < npopts && strcmp(popts[k].o->name, o->name); k++)
				;
			if (k == npopts) {
				if (npopts == KF_POPT_MAX)
					kf_die(1, "too many profiler options (at most %d)", KF_POPT_MAX);
				popts[npopts++].o = o;
				longopts[n++] = (struct option){ o->name,
				    o->arg ? required_argument : no_argument, NULL, O_POPT + k };
			}
			snprintf(popts[k].who + strlen(popts[k].who),
			    sizeof popts[k].who - strlen(popts[k].who), "%s%s",
			    popts[k].who[0] ? ", " : "", kf_profilers[i]->name);
		}
	buf_puts(&h, help_head);
	for (k = 0; k < npopts; k++) {
		char *lhs = xasprintf("--%s%s%s", popts[k].o->name, popts[k].o->arg ? " " : "",
		    popts[k].o->arg ? popts[k].o->arg : "");
		char *text = xasprintf("%s: %s", popts[k].who, popts[k].o->help);

		buf_printf(&h, "      %-19s", lhs);
		help_wrap(&h, text, 25, 80);
		free(text);
		free(lhs);
	}
	kf_opt_init(usage, buf_take(&h));
	kf_opt_complete(complete_args, complete_more);
}

/* A profiler option given: checked, kept for the wrap functions. */
static void
set_popt(int k, const char *arg)
{
	const struct kf_popt *o = popts[k].o;
	char *name = xasprintf("--%s", o->name);

	if (o->arg && o->max > o->min)
		kf_opt_long(arg, name, o->min, o->max);
	opt.popt_val[k] = o->arg ? arg : "";
	free(name);
}

static void
apply_option(int c, const char *arg)
{
	if (kf_opt_common(c))
		return;
	switch (c) {
	case 'o': opt.base = arg; break;
	case O_TOOL: opt.tool = arg; break;
	case 'a': add_arg(arg); break;
	case O_SUDO: opt.sudo = 1; break;
	case O_END_MARKER:
		opt.end_marker_set = 1;
		opt.end_marker = strcmp(arg, "none") == 0 ? NULL : arg;
		break;
	case O_TIMEOUT: opt.timeout = kf_opt_seconds(arg, "--timeout"); break;
	case O_INACTIVITY: opt.inactivity = kf_opt_seconds(arg, "--inactivity"); break;
	case O_ID:
		if (arg[0] == '\0')
			kf_usage_error("--id: the id may not be empty");
		opt.id = arg;
		break;
	case O_LANGUAGE: opt.language = arg; break;
	default:
		if (c >= O_POPT && c < O_POPT + npopts)
			set_popt(c - O_POPT, arg);
		else
			kf_usage();
	}
}

/* The option code of a word that is one of kf-wrap's own options, spelt out
 * in full (-o, -a, -u, -h, --output-dir, --id, ...; no abbreviations, so
 * that a profiler's option is never taken for one); *has_arg says whether
 * it takes a value; *inline_val is the value in the same word, or NULL.
 * 0: not kf-wrap's. */
static int
own_option(const char *w, int *has_arg, const char **inline_val)
{
	const struct option *o;
	size_t n;

	*inline_val = NULL;
	if (w[0] == '-' && w[1] && w[1] != '-' && strchr("oauh", w[1])) {
		*has_arg = w[1] == 'o' || w[1] == 'a';
		if (!*has_arg && w[2])
			return 0;
		*inline_val = *has_arg && w[2] ? w + 2 : NULL;
		return w[1];
	}
	if (strncmp(w, "--", 2) != 0)
		return 0;
	n = strcspn(w + 2, "=");
	for (o = longopts; o->name; o++) {
		if (strlen(o->name) != n || strncmp(o->name, w + 2, n) != 0)
			continue;
		*has_arg = o->has_arg == required_argument;
		if (w[2 + n] == '=' && !*has_arg)
			kf_usage_error("--%s takes no value", o->name);
		*inline_val = w[2 + n] == '=' ? w + 3 + n : NULL;
		return o->val;
	}
	return 0;
}

/* The words between PROFILER and "--": kf-wrap's own options, else the
 * profiler's; a word that does not start with '-' is the value of the
 * profiler option before it (also of one given with -a). */
static void
profiler_section(char **argv, int from, int to)
{
	int i, c, has_arg, value_ok = 0;
	const char *val;

	for (i = from; i < to; i++) {
		const char *w = argv[i];

		if (w[0] != '-' || w[1] == '\0') {
			if (!value_ok)
				kf_usage_error("'%s' before --: the program goes after --, and "
				    "a profiler option's value right after the option", w);
			add_arg(w);
			continue;
		}
		value_ok = 0;
		if ((c = own_option(w, &has_arg, &val)) == 0) {
			add_arg(w);
			value_ok = 1;
			continue;
		}
		if (has_arg && val == NULL) {
			if (i + 1 >= to)
				kf_usage_error("%s requires an argument", w);
			val = argv[++i];
		}
		apply_option(c, val);
		value_ok = c == 'a' && val[0] == '-';	/* -a --opt VALUE */
	}
}

static int
find_dashdash(int argc, char **argv, int from)
{
	int i;

	for (i = from; i < argc; i++)
		if (strcmp(argv[i], "--") == 0)
			return i;
	return -1;
}

/* A first operand that is not a profiler but is followed by "--", or is no
 * file, is a profiler name mistyped (kf-wrap nsys -- ./k). */
static void
check_operand(int argc, char **argv, int i)
{
	const char *w = argv[i];

	if (strcmp(w, "-") == 0 || (find_dashdash(argc, argv, i + 1) < 0 &&
	    access(w, F_OK) == 0))
		return;
	kf_usage_error("'%s' is not a profiler (one of %s)%s", w, kf_profiler_names(),
	    find_dashdash(argc, argv, i + 1) < 0 ? " nor a file of records" : "");
}

/* What an unrecognized option is told: where a profiler's own options go. */
static struct {
	const char *profiler;	/* given before the option, with no "--" after it */
	int argc;
	char **argv;
} hint;

static void
option_hint(const char *word)
{
	const char *p = hint.profiler;
	int i;

	for (i = 1; p == NULL && i < hint.argc && strcmp(hint.argv[i], "--") != 0; i++)
		if (kf_profiler_find(hint.argv[i]))
			p = hint.argv[i];
	if (hint.profiler)
		kf_warn("%s's own options go between %s and --: put -- before the command "
		    "(%s %s ... -- CMD [ARG ...]); without --, only kf-wrap's own options "
		    "may follow %s", p, p, p, word, p);
	else if (p)
		kf_warn("%s's own options go after %s, before --: %s %s ... -- CMD [ARG ...]",
		    p, p, p, word);
	else
		kf_warn("a profiler's own options go after its name, before --: PROFILER "
		    "%s ... -- CMD [ARG ...]; for records, -a %s", word, word);
}

/* Options before PROFILER; after it, up to "--", kf-wrap's options and the
 * profiler's (profiler_section); without "--", kf-wrap's options only and
 * the first other operand starts the command. Returns the PROFILER operand
 * or NULL. */
static const char *
parse_options(int argc, char **argv)
{
	const char *profiler = NULL;
	int c, before, dd;

	hint.argc = argc;
	hint.argv = argv;
	kf_opt_hint(option_hint);
	for (;;) {
		hint.profiler = profiler;
		before = optind;
		if ((c = kf_getopt(argc, argv, "+uo:a:", longopts)) == -1) {
			if (optind == before + 1 && strcmp(argv[before], "--") == 0)
				break;		/* "--" ends the options */
			if (profiler || optind >= argc)
				break;
			if (!kf_profiler_find(argv[optind])) {
				check_operand(argc, argv, optind);
				break;
			}
			profiler = argv[optind++];
			if ((dd = find_dashdash(argc, argv, optind)) >= 0) {
				profiler_section(argv, optind, dd);
				optind = dd + 1;
				break;
			}
			continue;
		}
		apply_option(c, optarg);
	}
	return profiler;
}

/* "kf " when kf runs kf-wrap: the command the user typed. */
static const char *front = "";

int
main(int argc, char **argv)
{
	const char *profiler;
	struct kf_in *in;
	cJSON *rec;

	kf_init(argv[0]);
	profiler_options();
	/* Run by kf: a usage error is in what the user gave kf. */
	if (argc > 1 && strcmp(argv[1], KF_FRONT_USAGE_OPT) == 0) {
		kf_opt_usage_of("kf", KF_FRONT_USAGE);
		front = "kf ";
		argv[1] = argv[0];
		argv++;
		argc--;
	}
	profiler = parse_options(argc, argv);
	if (profiler) {
		const char *imp = popt_given("import");

		/* --import FILE: a report made before; FILE is the job's cmd. */
		if (imp && optind < argc)
			kf_usage_error("%s --import FILE takes no command: it reads FILE", profiler);
		if (imp) {
			char *v[] = { (char *)imp, NULL };

			wrap_command(profiler, 1, v);
			return kf_finish();
		}
		if (optind >= argc)
			kf_usage_error("%s: no command to profile: put it after --, as in "
			    "%s%s [options] -- CMD [ARG ...]", profiler, front, profiler);
		wrap_command(profiler, argc - optind, argv + optind);
		return kf_finish();
	}
	if (opt.id || opt.language)
		kf_usage_error("--id and --language go with the PROFILER -- CMD form");
	in = kf_in_open(argc - optind, argv + optind);
	while ((rec = kf_in_next(in)) != NULL) {
		wrap_one(rec);
		cJSON_Delete(rec);
	}
	kf_in_close(in);
	return kf_finish();
}
