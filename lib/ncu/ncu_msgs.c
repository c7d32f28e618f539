/* ncu's messages in what it wrote (==ERROR==, ==WARNING==), and what
 * failed when the details page holds no launch: kf-read's error kinds
 * (no_permission, program_not_found, profiler_not_found, program_failed,
 * no_kernels, profiler_error, no_report, no_csv, truncated), each with its
 * hint. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "map.h"
#include "mem.h"
#include "ncu.h"
#include "ncu_reader.h"
#include "num.h"
#include "record.h"
#include "runend.h"

#define MAX_MESSAGES 100

/* Messages: ncu's ==ERROR== and ==WARNING== lines, each once with a count. */

void
ncu_rd_message(struct ncu_reader *r, const char *line, const char *source)
{
	const char *level, *text;
	struct kf_map_ent *e;
	char *key, *t;
	int created;

	if (kf_startswith(line, "==ERROR=="))
		level = "error", text = line + 9;
	else if (kf_startswith(line, "==WARNING=="))
		level = "warning", text = line + 11;
	else
		return;
	t = kf_trim(xstrdup(text));
	key = xasprintf("%s %s", level, t);
	/* Past MAX_MESSAGES distinct ones, only those seen are counted. */
	if (r->msgidx.n >= MAX_MESSAGES && kf_map_get(&r->msgidx, key) == NULL) {
		free(key);
		free(t);
		return;
	}
	e = kf_map_slot(&r->msgidx, key, &created);
	free(key);
	if (!created) {
		cJSON *m = cJSON_GetArrayItem(r->msgs, (int)((size_t)e->val - 1));

		kf_set_num(m, "count", kf_num(m, "count", 1) + 1);
	} else {
		cJSON *m = cJSON_CreateObject();

		cJSON_AddStringToObject(m, "level", level);
		cJSON_AddStringToObject(m, "text", t);
		cJSON_AddStringToObject(m, "source", source);
		cJSON_AddNumberToObject(m, "count", 1);
		cJSON_AddItemToArray(r->msgs, m);
		e->val = (void *)(size_t)cJSON_GetArraySize(r->msgs);
	}
	free(t);
}

/* The run's stdout and stderr tails carry ncu's messages when it wrote no
 * log file (the program was not found, say). */
void
ncu_rd_run_messages(struct ncu_reader *r)
{
	static const char *const streams[] = { "stdout", "stderr" };
	const cJSON *run = kf_obj(r->rec, "run");
	size_t i;

	for (i = 0; run && i < 2; i++) {
		const char *s = kf_str(run, streams[i]);

		while (s && *s) {
			size_t n = strcspn(s, "\n");
			char *line = xstrndup(s, n);

			line[strcspn(line, "\r")] = '\0';
			ncu_rd_message(r, line, streams[i]);
			free(line);
			s += n + (s[n] != '\0');
		}
	}
}

const char *
ncu_rd_find_message(const struct ncu_reader *r, const char *level, const char *needle)
{
	const cJSON *m;

	cJSON_ArrayForEach(m, r->msgs) {
		const char *t = kf_str(m, "text");

		if (t && (level == NULL || strcmp(kf_str(m, "level"), level) == 0) &&
		    strstr(t, needle))
			return t;
	}
	return NULL;
}

void
ncu_rd_note(struct ncu_reader *r, const char *fmt, ...)
{
	struct buf b = {0};
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	cJSON_AddItemToArray(r->notes, cJSON_CreateString(b.s));
	buf_free(&b);
}


/* The program's own exit status, when ncu reports it. */
int
ncu_rd_app_error(const struct ncu_reader *r, long *code)
{
	const char *t = ncu_rd_find_message(r, "error", "The application returned an error code (");

	if (t == NULL)
		return 0;
	*code = strtol(strchr(t, '(') + 1, NULL, 10);
	return 1;
}

/* Failures */

static void
run_status(struct ncu_reader *r, struct buf *b)
{
	const cJSON *run = kf_obj(r->rec, "run");
	const char *by = kf_str(run, "ended_by");
	double code = kf_num(run, "exit_code", -1);

	if (by && strcmp(by, "exit") != 0)
		buf_printf(b, " (the run was ended by %s)", by);
	else if (code >= 0)
		buf_printf(b, " (ncu exited with status %.0f)", code);
}

static int
fail_known(struct ncu_reader *r, const char *what)
{
	const cJSON *run = kf_obj(r->rec, "run");
	struct buf b = {0};
	const char *t;
	long code;

	if ((t = ncu_rd_find_message(r, NULL, "ERR_NVGPUCTRPERM")) != NULL) {
		kf_fail(r->rec, "no_permission", "%s: ncu may not read the GPU performance "
		    "counters: ==ERROR== %s", what, t);
		kf_fail_hint(r->rec, "run ncu as root (under sudo -E), or let every user "
		    "profile: add 'options nvidia NVreg_RestrictProfilingToAdminUsers=0' to a "
		    "file in /etc/modprobe.d/, then reload the nvidia kernel module (or reboot); "
		    "see https://developer.nvidia.com/ERR_NVGPUCTRPERM");
	} else if ((t = ncu_rd_find_message(r, "error", "does not exist or is not an executable")) != NULL) {
		kf_fail(r->rec, "program_not_found", "%s: ncu could not start the program: "
		    "==ERROR== %s", what, t);
		kf_fail_hint(r->rec, "check the command: its program must exist and be "
		    "executable; give ncu an absolute path, or ./NAME for a program in the "
		    "working directory");
	} else if (run && kf_num(run, "exit_code", -1) == 127 &&
	    ncu_rd_find_message(r, "error", "") == NULL) {
		kf_fail(r->rec, "profiler_not_found", "%s: ncu itself was not found (exit "
		    "status 127)", what);
		kf_fail_hint(r->rec, "install NVIDIA Nsight Compute, or add the folder that "
		    "holds ncu to PATH");
	} else if (ncu_rd_app_error(r, &code) && code > 0) {
		/* The program failed before ncu profiled any kernel. A run ncu
		 * started says so (and not "No kernels were profiled"); after an
		 * attach, the program held for it says so in its own log (ncu
		 * --mode launch), which kf-ncu passes on (an H100, ncu 2025.3.1). */
		kf_fail(r->rec, "program_failed", "%s: the program exited with status %ld before "
		    "ncu profiled any kernel", what, code);
		kf_fail_hint(r->rec, "run the program to its end without the profiler first: "
		    "its own output (run.stderr, run.stdout) says why it failed; fix that, then "
		    "profile it again");
	} else if ((t = ncu_rd_find_message(r, "warning", "No kernels were profiled")) != NULL) {
		const char *child = ncu_rd_find_message(r, "warning", "--target-processes all");

		kf_fail(r->rec, "no_kernels", "%s: ncu profiled no kernel: ==WARNING== %s%s%s",
		    what, t, child ? " ==WARNING== " : "", child ? child : "");
		kf_fail_hint(r->rec, "check that the program launches CUDA kernels on an "
		    "NVIDIA GPU; if they run in a child process (python, sh -c, mpirun), add "
		    "--target-processes all; check kernel filters (--kernel-name, --kernel-id) "
		    "and --launch-skip/--launch-count");
	} else if ((t = ncu_rd_find_message(r, "error", "")) != NULL) {
		buf_printf(&b, "%s: ncu reported: ==ERROR== %s", what, t);
		run_status(r, &b);
		kf_fail(r->rec, "profiler_error", "%s", b.s);
		kf_fail_hint(r->rec, "read ncu's message above; the run's stdout and stderr "
		    "in \"run\" have the rest");
	} else {
		return 0;
	}
	buf_free(&b);
	return 1;
}

/* A --top run whose detailed run left no launch: the failure becomes the
 * detailed run's (data.timing.detailed_run.error) and the timing run's
 * ranking still flows, as data with no launch. */
void
ncu_rd_timing_rescue(struct ncu_reader *r)
{
	cJSON *e, *data, *timing, *dr;

	if (r->timing == NULL || (e = cJSON_DetachItemFromObjectCaseSensitive(r->rec,
	    "error")) == NULL)
		return;
	data = cJSON_CreateObject();
	cJSON_AddStringToObject(data, "format", "details");
	cJSON_AddStringToObject(data, "report", NCU_REPORT);
	cJSON_AddArrayToObject(data, "kernels");
	cJSON_AddNumberToObject(data, "kernel_count", 0);
	cJSON_AddItemToObject(data, "messages", cJSON_Duplicate(r->msgs, 1));
	cJSON_AddBoolToObject(data, "truncated", 0);
	cJSON_AddItemToObject(data, "notes", cJSON_Duplicate(r->notes, 1));
	timing = ncu_timing_data(r->timing, 0, r->msgs);
	dr = cJSON_GetObjectItemCaseSensitive(timing, "detailed_run");
	cJSON_AddItemToObject(dr, "error", e);
	if (!kf_str(dr, "status"))
		kf_set_str(dr, "status", "failed");
	cJSON_AddItemToObject(data, "timing", timing);
	if (r->timings)
		cJSON_AddItemToObject(data, "timings", cJSON_Duplicate(r->timings, 1));
	kf_set(r->rec, "data", data);
}

void
ncu_rd_fail_no_report(struct ncu_reader *r, const char *dir)
{
	struct buf b = {0};
	char *what = xasprintf("no %s in %s", NCU_REPORT, dir);

	ncu_rd_run_messages(r);
	if (!fail_known(r, what) && !kf_fail_if_stopped(r->rec, "ncu", what)) {
		buf_puts(&b, what);
		run_status(r, &b);
		kf_fail(r->rec, "no_report", "%s", b.s);
		/* A record that was run needs no advice to run it. */
		if (kf_obj(r->rec, "run"))
			kf_fail_hint(r->rec, "ncu ran but wrote no %s: the run's own output "
			    "(run.stdout, run.stderr) says why", NCU_REPORT);
		else
			kf_fail_hint(r->rec, "profile with kf-wrap ncu and kf-run first (ncu "
			    "writes its report there with --log-file), or point output_dir at a "
			    "directory that holds %s", NCU_REPORT);
	}
	buf_free(&b);
	free(what);
}

void
ncu_rd_fail_no_kernel(struct ncu_reader *r)
{
	char *what;

	ncu_rd_run_messages(r);
	if (!r->have_hdr) {
		what = xasprintf("%s holds no ncu CSV table", r->path);
		if (!fail_known(r, what) && !kf_fail_if_stopped(r->rec, "ncu", what)) {
			kf_fail(r->rec, "no_csv", "%s (no header line starting "
			    "\"ID\",\"Process ID\")%s", what, r->l.no > 0 && !r->l.complete ?
			    "; it ends mid-line, so it may have been cut off" : "");
			kf_fail_hint(r->rec, "run ncu with --csv (kf-wrap does), or export a saved "
			    "report with: ncu -i REPORT.ncu-rep --csv --page details");
		}
	} else if (r->truncated) {
		what = xasprintf("%s is cut off before its first kernel launch is complete "
		    "(header at line %ld)", r->path, r->hdr_line);
		if (kf_fail_if_stopped(r->rec, "ncu", what))
			goto out;
		kf_fail(r->rec, "truncated", "%s is cut off before its first kernel launch "
		    "is complete (header at line %ld)", r->path, r->hdr_line);
		kf_fail_hint(r->rec, "the profiler or the program was probably stopped (a "
		    "timeout?) or the disk filled up; profile again, with more time");
	} else {
		what = xasprintf("%s has a CSV header but no kernel rows", r->path);
		if (!fail_known(r, what) && !kf_fail_if_stopped(r->rec, "ncu", what)) {
			kf_fail(r->rec, "no_kernels", "%s", what);
			kf_fail_hint(r->rec, "check that the program launches CUDA kernels, "
			    "and ncu's kernel filters (--kernel-name, --launch-skip)");
		}
	}
out:
	free(what);
	ncu_rd_timing_rescue(r);
	kf_emit(r->rec);
}

