/* kf: the profiler paths (ncu, unitrace, vtune) behind one interface.
 *
 * kf-select, kf-wrap, kf-read, kf-collate and kf-feedback look a profiler up
 * by name and call its functions; each path lives in its own lib/ files. */
#ifndef KF_PROFILER_H
#define KF_PROFILER_H

#include <cJSON.h>

#include "feedback.h"

struct kf_wrap_opts {
	const char *tool;	/* the profiler's program; NULL: its usual name */
	char **args;		/* extra profiler arguments, before the command */
	int nargs;
	int sudo;		/* run the profiler under sudo -E */
	int no_timeline;	/* unitrace: leave out the Chrome logging */
	int top;		/* ncu: time every launch, detail the top kernels; 0: all */
	const char *session;	/* unitrace: session id; NULL: a fresh one */
};

/* kf-wrap: rec has output_dir (created), pass, group, mode; cmd is the
 * program's argv. Set "argv", "env" and "end_marker". 0, or -1 after
 * kf_fail(rec, ...). */
typedef int kf_wrap_fn(cJSON *rec, char *const *cmd, int ncmd,
    const struct kf_wrap_opts *o);

/* kf-read: parse what the profiler left in dir and write the record, with
 * "data" or with an error (kf_emit, or kf_emit_begin/kf_emit_end to stream).
 * rec belongs to the caller. */
typedef void kf_read_fn(cJSON *rec, const char *dir);

/* kf-collate: merge the "data" of one job's good passes (n >= 1, in pass
 * order) into a new "collated" object. NULL after kf_fail(out, ...). */
typedef cJSON *kf_collate_fn(cJSON *out, cJSON *const *passes, int n);

/* kf-feedback: add the sections and the analysis for a collated record. */
typedef void kf_feedback_fn(const cJSON *rec, struct kf_fb *fb);

struct kf_profiler {
	const char *name;
	int npasses;
	const char *const *groups;	/* unitrace metric groups, per pass */
	kf_wrap_fn *wrap;
	kf_read_fn *read;
	kf_collate_fn *collate;		/* NULL: the one pass's data as it is */
	kf_feedback_fn *feedback;
	int lazy;	/* feedback reads kept members with kf_json_lazy() */
};

/* NULL when unknown. Matching ignores case. */
const struct kf_profiler *kf_profiler_find(const char *name);
/* "ncu, unitrace, vtune" */
const char *kf_profiler_names(void);

/* The paths' functions, in lib/ncu*.c, lib/unitrace*.c, lib/vtune*.c. */
kf_wrap_fn ncu_wrap, unitrace_wrap, vtune_wrap;
kf_read_fn ncu_read, unitrace_read, vtune_read;
kf_collate_fn unitrace_collate, vtune_collate;
kf_feedback_fn ncu_feedback, unitrace_feedback, vtune_feedback;

#endif
