/* What failed, for a record with an error: the one sentence that leads the
 * feedback of an error record and the report page's failed job, so that
 * "profiling failed" is said only when profiling did. */
#include <math.h>
#include <string.h>

#include "feedback.h"
#include "mem.h"
#include "record.h"

static int
is_one_of(const char *s, const char *const *set)
{
	for (; s && *set; set++)
		if (strcmp(s, *set) == 0)
			return 1;
	return 0;
}

/* Whether the run, or a pass's run (a collated record), was interrupted. */
static int
interrupted(const cJSON *rec)
{
	const char *by = kf_str(kf_obj(rec, "run"), "ended_by");
	const cJSON *p;

	if (by && strcmp(by, "interrupted") == 0)
		return 1;
	cJSON_ArrayForEach(p, kf_arr(rec, "passes"))
		if ((by = kf_str(kf_obj(p, "run"), "ended_by")) && strcmp(by, "interrupted") == 0)
			return 1;
	return 0;
}

/* The error kinds of a profiler or program that could not be started:
 * kf-run's, as it looked them up (require.h), and the readers' when the
 * profiler said so. */
static const char *const program_kinds[] = { "program_not_found",
	"program_not_executable", NULL };
static const char *const profiler_kinds[] = { "profiler_not_found",
	"profiler_not_executable", "no_tracer", NULL };

enum kf_failed
kf_what_failed(const cJSON *rec)
{
	static const char *const prepare[] = { "kf-select", "kf-wrap", NULL };
	static const char *const not_started[] = { "spawn", "program_not_found",
		"profiler_not_found", "interrupted", "bad_record", "bad_cwd", NULL };
	const cJSON *e = kf_error(rec);
	const char *stage = kf_str(e, "stage"), *kind = kf_str(e, "kind");

	if (kind && strcmp(kind, "bad_json") == 0)
		return KF_FAILED_INPUT;
	if (is_one_of(kind, program_kinds))
		return KF_FAILED_PROGRAM_NOT_STARTED;
	if (is_one_of(kind, profiler_kinds))
		return KF_FAILED_PROFILER_NOT_STARTED;
	/* a reader's: the program failed before anything was profiled */
	if (kind && strcmp(kind, "program_failed") == 0)
		return KF_FAILED_PROGRAM;
	if (is_one_of(stage, prepare))
		return KF_FAILED_PREPARE;
	if (stage && strcmp(stage, "kf-run") == 0 && is_one_of(kind, not_started) &&
	    !kf_obj(rec, "run"))
		return KF_FAILED_NOT_RUN;
	if (stage && strcmp(stage, "kf-feedback") == 0)
		return KF_FAILED_ANALYSIS;
	if (kind && strcmp(kind, "stopped") == 0 && interrupted(rec))
		return KF_FAILED_INTERRUPTED;
	return KF_FAILED_PROFILING;
}

char *
kf_what_failed_text(const cJSON *rec)
{
	const char *prof = kf_str(rec, "profiler");
	const char *stage = kf_str(kf_error(rec), "stage");

	switch (kf_what_failed(rec)) {
	case KF_FAILED_INPUT:
		return xasprintf("%s could not read this input as a record (it is not "
		    "a JSON object), so nothing was profiled or analysed for it.",
		    stage ? stage : "kf");
	case KF_FAILED_PREPARE:
		return xasprintf("The job was not run: %s could not prepare it, so "
		    "nothing was profiled.", stage);
	case KF_FAILED_NOT_RUN:
		return xstrdup("The job was not run: kf-run could not start it, so "
		    "nothing was profiled.");
	case KF_FAILED_ANALYSIS:
		if (!kf_obj(rec, "run") && !cJSON_GetObjectItemCaseSensitive(rec, "data") &&
		    !kf_obj(rec, "collated"))
			return xstrdup("This record holds no profile: it was not run "
			    "and read (a job or a pass record given to kf-feedback), so "
			    "there are no performance numbers.");
		return xstrdup("This record was not analysed: kf-feedback cannot "
		    "make feedback of it, so there are no performance numbers.");
	case KF_FAILED_PROGRAM_NOT_STARTED:
		return xstrdup("The program could not be started, so nothing ran and "
		    "nothing was profiled.");
	case KF_FAILED_PROFILER_NOT_STARTED:
		return xasprintf("The profiler%s%s could not be started, so nothing ran "
		    "and nothing was profiled.", prof ? " " : "", prof ? prof : "");
	case KF_FAILED_INTERRUPTED:
		return xasprintf("The run was interrupted before %s wrote anything "
		    "complete, so there are no performance numbers for it.",
		    prof ? prof : "the profiler");
	case KF_FAILED_PROGRAM:
		return xasprintf("The program failed before %s profiled any kernel, so "
		    "there are no performance numbers for this run.", prof ? prof : "the profiler");
	default:
		return xasprintf("Profiling%s%s failed, so there are no performance "
		    "numbers for this run.", prof ? " with " : "", prof ? prof : "");
	}
}

/* The run that says how it was not started: the record's, or its first
 * pass's that has one. */
static const cJSON *
run_of(const cJSON *rec)
{
	const cJSON *p, *run = kf_obj(rec, "run");

	cJSON_ArrayForEach(p, kf_arr(rec, "passes"))
		if (run == NULL && kf_obj(p, "run"))
			run = kf_obj(p, "run");
	return run;
}

int
kf_not_started(struct kf_diag *d, const cJSON *rec)
{
	enum kf_failed w = kf_what_failed(rec);
	const cJSON *e = kf_error(rec);
	const char *msg = kf_str(e, "message"), *hint = kf_str(e, "hint");
	struct kf_finding *f;
	double code;
	size_t n;

	if (w != KF_FAILED_PROGRAM_NOT_STARTED && w != KF_FAILED_PROFILER_NOT_STARTED)
		return 0;
	/* The message ends where the finding goes on. */
	n = msg ? strlen(msg) : 0;
	while (n > 0 && (msg[n - 1] == '.' || msg[n - 1] == ' '))
		n--;
	f = kf_diag_add(d, KF_NOT_STARTED, NULL, NAN, "Nothing ran: %.*s (%s, %s); there are "
	    "no performance numbers", msg ? (int)n : 26, msg ? msg : "it could not be started",
	    kf_str(e, "stage") ? kf_str(e, "stage") : "kf", kf_str(e, "kind"));
	code = kf_num(run_of(rec), "exit_code", NAN);
	if (!isnan(code))
		kf_finding_ev(f, "run.exit_code", code, NULL);
	if (hint)
		kf_finding_fix(f, "%s", hint);
	return 1;
}
