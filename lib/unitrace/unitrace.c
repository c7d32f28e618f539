/* The unitrace path, first half: wrapping the program, and reading what one
 * pass left in its output_dir (metrics tables, the timeline, the main log). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "chrome.h"
#include "profiler.h"
#include "record.h"
#include "text.h"
#include "unitrace.h"

enum { MIN_METRICS_LINES = 10, MAX_LOG_LINES = 20 };

/* A session id nobody else uses: 128 random bits in hex. */
static char *
session_id(void)
{
	unsigned char r[16];
	char *s = xmalloc(2 * sizeof r + 1);
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	size_t i;

	if (fd < 0 || read(fd, r, sizeof r) != (ssize_t)sizeof r) {
		unsigned long x = (unsigned long)time(NULL) ^ ((unsigned long)getpid() << 16);

		for (i = 0; i < sizeof r; i++) {
			x = x * 6364136223846793005UL + 1442695040888963407UL;
			r[i] = (unsigned char)(x >> 56);
		}
	}
	if (fd >= 0)
		close(fd);
	for (i = 0; i < sizeof r; i++)
		snprintf(s + 2 * i, 3, "%02x", r[i]);
	return s;
}

static void
add(cJSON *a, const char *s)
{
	cJSON_AddItemToArray(a, cJSON_CreateString(s));
}

/* The unitrace options every pass shares, before the group's own. */
static void
common_args(cJSON *argv, const struct kf_wrap_opts *o, const char *session)
{
	if (!o->no_timeline) {
		add(argv, "--chrome-kernel-logging");
		add(argv, "--chrome-itt-logging");
	}
	add(argv, "--start-paused");
	add(argv, "--session");
	add(argv, session);
}

/* The -o prefix. unitrace names its files by inserting ".<pid>" before the
 * last dot of the prefix and ".metrics" after the first dot of that, so a
 * dot anywhere in the directory ("./out", "unitrace.000") sends them
 * elsewhere. Give it the absolute path when that has no dot, else a
 * dot-free symbolic link to the directory. NULL after kf_fail(). */
static char *
out_prefix(cJSON *rec, const char *dir)
{
	char *real = realpath(dir, NULL), *link, *p, *id;

	if (real == NULL) {
		kf_fail(rec, "bad_output_dir", "output_dir %s: %s", dir, strerror(errno));
		return NULL;
	}
	if (strchr(real, '.') == NULL) {
		p = kf_path_join(real, "trace");
		free(real);
		return p;
	}
	id = session_id();
	link = xasprintf("/tmp/kf-unitrace-%s", id);
	free(id);
	if (symlink(real, link) != 0 && errno != EEXIST) {
		kf_fail(rec, "bad_output_dir", "output_dir %s has a dot in its path, which makes "
		    "unitrace misname its files, and the link %s cannot be made: %s", real, link,
		    strerror(errno));
		kf_fail_hint(rec, "use an output directory whose absolute path has no '.'");
		free(real);
		free(link);
		return NULL;
	}
	p = kf_path_join(link, "trace");
	/* kf-read removes it once the files are read. */
	kf_set_str(rec, "unitrace_link", link);
	free(real);
	free(link);
	return p;
}

int
unitrace_wrap(cJSON *rec, char *const *cmd, int ncmd, const struct kf_wrap_opts *o)
{
	const char *dir = kf_str(rec, "output_dir"), *group = kf_str(rec, "group");
	const char *mode = kf_str(rec, "mode");
	const char *tool = o->tool ? o->tool : "unitrace";
	const cJSON *marker = cJSON_GetObjectItemCaseSensitive(rec, "end_marker");
	int sampling = mode && strcmp(mode, "sampling") == 0;
	cJSON *argv, *env;
	char *prefix, *script = NULL, *sess;
	int i;

	if (dir == NULL || group == NULL) {
		kf_fail(rec, "bad_record", "unitrace pass without \"%s\"", dir ? "group" : "output_dir");
		kf_fail_hint(rec, "unitrace passes come from kf-select: one per metric group");
		return -1;
	}
	if (sampling && (script = kf_libexec_file("kf-unitrace-ocl")) == NULL) {
		kf_fail(rec, "missing_helper", "kf-unitrace-ocl, the OpenCL retry helper, is not installed");
		kf_fail_hint(rec, "install kf (make install) or set KF_LIBEXECDIR to its libexec/kf");
		return -1;
	}
	sess = o->session ? xstrdup(o->session) : session_id();
	if ((prefix = out_prefix(rec, dir)) == NULL) {
		free(sess);
		free(script);
		return -1;
	}
	argv = cJSON_CreateArray();
	if (o->sudo) {
		add(argv, "sudo");
		add(argv, "-E");
	}
	if (sampling) {
		/* kf-unitrace-ocl TOOL DIR PREFIX GROUP [TOOL-ARG...] -- CMD... */
		add(argv, script);
		add(argv, tool);
		add(argv, dir);
		add(argv, prefix);
		add(argv, group);
		common_args(argv, o, sess);
		for (i = 0; i < o->nargs; i++)
			add(argv, o->args[i]);
		add(argv, "--");
	} else {
		add(argv, tool);
		common_args(argv, o, sess);
		add(argv, "--group");
		add(argv, group);
		add(argv, "--metric-query");
		add(argv, "--output-dir-path");
		add(argv, dir);
		add(argv, "-o");
		add(argv, prefix);
		for (i = 0; i < o->nargs; i++)
			add(argv, o->args[i]);
	}
	for (i = 0; i < ncmd; i++)
		add(argv, cmd[i]);
	kf_set(rec, "argv", argv);
	env = cJSON_CreateObject();
	cJSON_AddStringToObject(env, "KERNELFOUNDRY_PROFILER", "unitrace");
	cJSON_AddStringToObject(env, "KERNELFOUNDRY_unitrace_cmd", tool);
	kf_set(rec, "env", env);
	if (sampling)
		kf_set_str(rec, "end_marker", "UNITRACE_DONE");
	else if (!cJSON_IsString(marker))
		kf_set(rec, "end_marker", cJSON_CreateNull());
	free(prefix);
	free(script);
	free(sess);
	return 0;
}

/* Files of a pass, by kind, in name order. */
struct files {
	char **metrics, **logs;
	size_t nmetrics, nlogs;
};

static int
by_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The main log is "<prefix>.<pid>[.<rank>]": a dot and digits after it. */
static int
is_log(const char *name)
{
	const char *p = strchr(name, '.');

	if (p == NULL || kf_endswith(name, ".json") || strstr(name, ".metrics"))
		return 0;
	return isdigit((unsigned char)p[1]);
}

static void
push(char ***v, size_t *n, char *s)
{
	*v = xrealloc(*v, (*n + 1) * sizeof **v);
	(*v)[(*n)++] = s;
}

static int
list_files(const char *dir, struct files *f)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	memset(f, 0, sizeof *f);
	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL) {
		char *p = kf_path_join(dir, e->d_name);

		if (!kf_is_file(p))
			free(p);
		else if (strstr(e->d_name, ".metrics.") || kf_startswith(e->d_name, "metrics_"))
			push(&f->metrics, &f->nmetrics, p);
		else if (is_log(e->d_name))
			push(&f->logs, &f->nlogs, p);
		else
			free(p);
	}
	closedir(d);
	if (f->nmetrics)
		qsort(f->metrics, f->nmetrics, sizeof *f->metrics, by_str);
	if (f->nlogs)
		qsort(f->logs, f->nlogs, sizeof *f->logs, by_str);
	return 0;
}

static void
files_free(struct files *f)
{
	size_t i;

	for (i = 0; i < f->nmetrics; i++)
		free(f->metrics[i]);
	for (i = 0; i < f->nlogs; i++)
		free(f->logs[i]);
	free(f->metrics);
	free(f->logs);
}

static const char *
base(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* What the main log says that matters: the tool's warnings and errors, and
 * the totals of its device timing summary. */
static cJSON *
read_log(const char *path)
{
	cJSON *log = cJSON_CreateObject(), *msgs = cJSON_CreateArray();
	struct kf_lines l;
	long n = 0;
	double d;

	cJSON_AddStringToObject(log, "file", base(path));
	if (kf_lines_open(&l, path) != 0) {
		cJSON_AddStringToObject(log, "error", strerror(errno));
		cJSON_AddItemToObject(log, "messages", msgs);
		return log;
	}
	while (kf_lines_next(&l) > 0) {
		char *s = kf_trim(l.s), *c;

		if (strstr(s, "[WARNING]") || strstr(s, "[ERROR]")) {
			if (n++ < MAX_LOG_LINES)
				add(msgs, s);
		} else if ((c = strstr(s, "(ns):")) != NULL && kf_parse_number(c + 5, &d)) {
			if (kf_startswith(s, "Total Execution Time"))
				cJSON_AddNumberToObject(log, "total_execution_time_ns", d);
			else if (kf_startswith(s, "Total Device Time"))
				cJSON_AddNumberToObject(log, "total_device_time_ns", d);
		}
	}
	kf_lines_close(&l);
	cJSON_AddItemToObject(log, "messages", msgs);
	if (n > MAX_LOG_LINES)
		cJSON_AddNumberToObject(log, "messages_left_out", (double)(n - MAX_LOG_LINES));
	return log;
}

/* The tool's own words on why there are no metrics, for the error. */
static const char *
log_reason(const cJSON *logs)
{
	const cJSON *lg, *m;

	cJSON_ArrayForEach(lg, logs)
		cJSON_ArrayForEach(m, kf_arr(lg, "messages"))
			if (cJSON_IsString(m))
				return m->valuestring;
	return NULL;
}

static const char *const no_metrics_hint =
	"unitrace writes metrics only for kernels that run while its session is "
	"resumed: with --start-paused the program's benchmark harness must resume "
	"it (it is given KERNELFOUNDRY_unitrace_cmd). Check also that the GPU "
	"supports the metric group (unitrace --device-list / -q) and that this user "
	"may read GPU metrics (sysctl dev.xe.observation_paranoid=0 or "
	"dev.i915.perf_stream_paranoid=0)";

static int
read_metrics(cJSON *rec, const char *dir, const struct files *f, cJSON *data,
    cJSON *warnings)
{
	cJSON *sections = cJSON_CreateArray(), *mf = cJSON_CreateArray(), *s;
	const char *group = NULL, *want = kf_str(rec, "group");
	long lines = 0, rows = 0;
	int sampling = 0, legacy = 0;
	size_t i;

	cJSON_AddItemToObject(data, "metrics_files", mf);
	cJSON_AddItemToObject(data, "sections", sections);
	for (i = 0; i < f->nmetrics; i++) {
		struct ut_csv_info info;

		add(mf, base(f->metrics[i]));
		if (ut_csv_read(f->metrics[i], sections, warnings, &info) != 0) {
			kf_fail(rec, "unreadable", "cannot read %s: %s", f->metrics[i], strerror(errno));
			return -1;
		}
		lines += info.lines;
		rows += info.rows;
		sampling |= info.sampling;
		legacy |= info.legacy;
		if (info.nuls) {
			char *w = xasprintf("%s: %ld NUL bytes dropped", base(f->metrics[i]), info.nuls);

			add(warnings, w);
			free(w);
		}
	}
	if (cJSON_GetArraySize(sections) == 0) {
		const char *why = log_reason(kf_arr(data, "logs"));

		if (lines < MIN_METRICS_LINES)
			kf_fail(rec, "empty_metrics", "%s in %s has %ld line%s and no kernel rows%s%s",
			    base(f->metrics[0]), dir, lines, lines == 1 ? "" : "s",
			    why ? "; unitrace said: " : "", why ? why : "");
		else
			kf_fail(rec, "no_kernels", "%s in %s has %ld lines but no kernel metrics rows%s%s",
			    base(f->metrics[0]), dir, lines, why ? "; unitrace said: " : "",
			    why ? why : "");
		kf_fail_hint(rec, "%s%s", sampling || lines < MIN_METRICS_LINES ?
		    "unitrace sometimes writes an empty metrics file, mostly with "
		    "--metric-sampling: run the pass again (kf-unitrace-ocl retries it). " : "",
		    no_metrics_hint);
		return -1;
	}
	cJSON_ArrayForEach(s, sections) {
		const char *g = kf_str(s, "group");

		if (g && group && strcmp(g, group) != 0)
			add(warnings, "device sections of different metric groups: the first one counts");
		if (g && !group)
			group = g;
	}
	cJSON_AddStringToObject(data, "layout", sampling ? "sampling" : legacy ? "legacy" : "query");
	cJSON_AddItemToObject(data, "group", group ? cJSON_CreateString(group) : cJSON_CreateNull());
	if (!group)
		add(warnings, "the metric group cannot be told from the columns");
	else if (want && strcmp(want, group) != 0) {
		char *w = xasprintf("the pass asked for %s but its columns are those of %s",
		    want, group);

		add(warnings, w);
		free(w);
	}
	cJSON_AddNumberToObject(data, "rows", (double)rows);
	return 0;
}

static int
read_timeline(cJSON *rec, const char *dir, cJSON *data, cJSON *warnings)
{
	int others;
	char *path = kf_chrome_pick(dir, &others), *err = NULL;
	cJSON *t;

	if (path == NULL) {
		cJSON_AddNullToObject(data, "timeline");
		add(warnings, "no Chrome trace (*.json): benchmark segments cannot be told "
		    "apart, every kernel counts");
		return 0;
	}
	t = kf_chrome_read(path, &err);
	if (t == NULL) {
		if (err)
			kf_fail(rec, "bad_timeline", "%s", err);
		else
			kf_fail(rec, "unreadable", "cannot read %s: %s", path, strerror(errno));
		kf_fail_hint(rec, "the timeline tells which kernels ran inside the benchmark loop; "
		    "remove the file to analyse every kernel, or profile again");
		free(err);
		free(path);
		return -1;
	}
	if (others)
		cJSON_AddNumberToObject(t, "other_json_files", others);
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(t, "truncated")))
		add(warnings, "the Chrome trace ends early (the program or unitrace was cut "
		    "off): only the events written before that are used");
	cJSON_AddItemToObject(data, "timeline", t);
	free(path);
	return 0;
}

/* The dot-free link unitrace_wrap made to dir, if it is still there. */
static void
drop_link(const cJSON *rec, const char *dir)
{
	const char *link = kf_str(rec, "unitrace_link");
	char *to, *real;

	if (link == NULL || !kf_startswith(link, "/tmp/kf-unitrace-"))
		return;
	to = realpath(link, NULL);
	real = realpath(dir, NULL);
	if (to && real && strcmp(to, real) == 0)
		unlink(link);
	free(to);
	free(real);
}

void
unitrace_read(cJSON *rec, const char *dir)
{
	drop_link(rec, dir);
	cJSON *data = cJSON_CreateObject(), *warnings = cJSON_CreateArray(), *logs;
	struct files f;
	size_t i;

	if (list_files(dir, &f) != 0) {
		kf_fail(rec, "unreadable", "cannot list %s: %s", dir, strerror(errno));
		goto out;
	}
	logs = cJSON_AddArrayToObject(data, "logs");
	for (i = 0; i < f.nlogs; i++)
		cJSON_AddItemToArray(logs, read_log(f.logs[i]));
	if (f.nmetrics == 0) {
		const char *why = log_reason(logs);

		kf_fail(rec, "no_metrics", "no unitrace metrics file (trace.metrics.<pid>) in %s%s%s",
		    dir, why ? "; unitrace said: " : "", why ? why : "");
		kf_fail_hint(rec, "%s", no_metrics_hint);
		goto out;
	}
	if (read_metrics(rec, dir, &f, data, warnings) != 0)
		goto out;
	if (read_timeline(rec, dir, data, warnings) != 0)
		goto out;
	cJSON_AddItemToObject(data, "warnings", warnings);
	warnings = NULL;
	kf_set(rec, "data", data);
	data = NULL;
out:
	cJSON_Delete(data);
	cJSON_Delete(warnings);
	files_free(&f);
	kf_emit(rec);
}
