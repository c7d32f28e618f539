/* The unitrace path: reading what one pass left in its output_dir (metrics
 * tables, the timeline, the main log); the wrapped command is in
 * unitrace_wrap.c, the tables' parser in unitrace_csv.c. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "chrome.h"
#include "feedback.h"
#include "lines.h"
#include "mem.h"
#include "num.h"
#include "path.h"
#include "profiler.h"
#include "record.h"
#include "unitrace.h"

enum { MIN_METRICS_LINES = 10, MAX_LOG_LINES = 20 };

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
		kf_sort(f->metrics, f->nmetrics, sizeof *f->metrics, by_str);
	if (f->nlogs)
		kf_sort(f->logs, f->nlogs, sizeof *f->logs, by_str);
	return 0;
}

/* Does the main log hold the metrics table itself, as unitrace of 2024
 * wrote it ("== Kernel Metrics ==" in trace.<pid>, no trace.metrics.<pid>)? */
static int
log_has_metrics(const char *path)
{
	struct kf_lines l;
	int found = 0;

	if (kf_lines_open(&l, path) != 0)
		return 0;
	while (!found && kf_lines_next(&l) > 0)
		found = strcmp(kf_trim(l.s), "== Kernel Metrics ==") == 0;
	kf_lines_close(&l);
	return found;
}

/* No metrics file: the main logs that hold the table are read as ones. */
static int
metrics_from_logs(struct files *f)
{
	size_t i;

	for (i = 0; i < f->nlogs; i++)
		if (log_has_metrics(f->logs[i]))
			push(&f->metrics, &f->nmetrics, xstrdup(f->logs[i]));
	return f->nmetrics > 0;
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
				kf_push_str(msgs, s);
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
		struct unitrace_csv_info info;

		kf_push_str(mf, base(f->metrics[i]));
		if (unitrace_csv_read(f->metrics[i], sections, warnings, &info) != 0) {
			kf_fail(rec, "unreadable", "cannot read %s: %s", f->metrics[i], strerror(errno));
			return -1;
		}
		lines += info.lines;
		rows += info.rows;
		sampling |= info.sampling;
		legacy |= info.legacy;
		if (info.nuls) {
			char *w = xasprintf("%s: %ld NUL bytes dropped", base(f->metrics[i]), info.nuls);

			kf_push_str(warnings, w);
			free(w);
		}
	}
	if (cJSON_GetArraySize(sections) == 0) {
		const char *why = log_reason(kf_arr(data, "logs"));

		if (kf_fail_if_stopped(rec, "unitrace", "the metrics file has no kernel rows"))
			return -1;
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
			kf_push_str(warnings, "device sections of different metric groups: the first one counts");
		if (g && !group)
			group = g;
	}
	cJSON_AddStringToObject(data, "layout", sampling ? "sampling" : legacy ? "legacy" : "query");
	cJSON_AddItemToObject(data, "group", group ? cJSON_CreateString(group) : cJSON_CreateNull());
	if (!group)
		kf_push_str(warnings, "the metric group cannot be told from the columns");
	else if (want && strcmp(want, group) != 0) {
		char *w = xasprintf("the pass asked for %s but its columns are those of %s",
		    want, group);

		kf_push_str(warnings, w);
		free(w);
	}
	cJSON_AddNumberToObject(data, "rows", (double)rows);
	return 0;
}

static int
read_timeline(cJSON *rec, const char *dir, cJSON *data, cJSON *warnings)
{
	int others;
	char *path = kf_chrome_pick(dir, &others);
	struct buf msg = {0};
	cJSON *t;

	if (path == NULL) {
		cJSON_AddNullToObject(data, "timeline");
		kf_push_str(warnings, "no Chrome trace (*.json): benchmark segments cannot be told "
		    "apart, every kernel counts");
		return 0;
	}
	t = kf_chrome_read(path, &msg);
	if (t == NULL) {
		if (msg.len)
			kf_fail(rec, "bad_timeline", "%s", msg.s);
		else
			kf_fail(rec, "unreadable", "cannot read %s: %s", path, strerror(errno));
		kf_fail_hint(rec, "the timeline tells which kernels ran inside the benchmark loop; "
		    "remove the file to analyse every kernel, or profile again");
		buf_free(&msg);
		free(path);
		return -1;
	}
	if (others)
		cJSON_AddNumberToObject(t, "other_json_files", others);
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(t, "truncated")))
		kf_push_str(warnings, "the Chrome trace ends early (the program or unitrace was cut "
		    "off): only the events written before that are used");
	cJSON_AddItemToObject(data, "timeline", t);
	free(path);
	return 0;
}

/* The dot-free link to dir in /tmp that kf-wrap of earlier versions made
 * (now kf-unitrace gives unitrace a prefix that ends with the run), if it
 * is still there. */
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
	if (f.nmetrics == 0 && metrics_from_logs(&f))
		cJSON_AddTrueToObject(data, "metrics_in_log");
	if (f.nmetrics == 0) {
		const char *why = log_reason(logs);

		if (kf_fail_if_stopped(rec, "unitrace", "no unitrace metrics file"))
			goto out;
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
