/* What failed, for a record with an error: the one sentence that leads the
 * feedback of an error record and the report page's failed job, so that
 * "profiling failed" is said only when profiling did. */
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
	case KF_FAILED_INTERRUPTED:
		return xasprintf("The run was interrupted before %s wrote anything "
		    "complete, so there are no performance numbers for it.",
		    prof ? prof : "the profiler");
	default:
		return xasprintf("Profiling%s%s failed, so there are no performance "
		    "numbers for this run.", prof ? " with " : "", prof ? prof : "");
	}
}
