/* kf: the profilers (ncu, unitrace, vtune, trace) behind one interface.
 *
 * Each profiler lives in its own folder (lib/ncu, lib/unitrace, lib/vtune,
 * lib/trace) and exports one descriptor, struct kf_profiler, that carries
 * everything the shared stages need: its name, vendor, passes, the
 * languages it profiles, the variable that pins a GPU, what kf-feedback may
 * keep unparsed, the per-pass fields that kf-collate drops, and its wrap,
 * read, collate and feedback functions. lib/stage/profiler.c is the list of
 * descriptors; select, wrap, run, collate and feedback look a profiler up
 * here and name none.
 *
 * Adding a profiler: a folder lib/NAME with its functions and descriptor,
 * one line in lib/stage/profiler.c, LIBDIRS in the Makefile, its tests and
 * docs.
 * Descriptors and every string they point to are static: never freed. */
#ifndef KF_PROFILER_H
#define KF_PROFILER_H

#include <cJSON.h>

#include "buf.h"

struct kf_fb;
/* A kf-wrap option that only some profiler takes (ncu's --top, unitrace's
 * --no-timeline): its descriptor lists it, kf-wrap parses and documents it
 * with the others, and the wrap function reads it with kf_wrap_opt(). */
struct kf_popt {
	const char *name;	/* the long option, without "--" */
	const char *arg;	/* its value's name in --help ("K"); NULL: a flag */
	long min, max;		/* a value is a whole number in [min, max] */
	const char *help;	/* one line for --help */
};

enum { KF_POPT_MAX = 16 };

/* An option of the profiler program itself (ncu's --set), which kf-wrap
 * passes on, and the values it takes: for completion (PROG --complete). */
struct kf_tool_opt {
	const char *name;		/* "--set" */
	const char *const *values;	/* NULL-terminated */
};

/* What kf-feedback --baseline compares for one profiler beyond the analysis
 * core (lib/analysis/delta.c: the focus's time_ns, the ranking, the advice,
 * the roof), in its own terms: the focus kernel's numbers. */
enum { KF_CMP_PCT, KF_CMP_NUM, KF_CMP_GBPS, KF_CMP_STR };
struct kf_cmp_metric {
	const char *path, *label;	/* in analysis.focus ("throughput/dram_pct") */
	int kind;			/* KF_CMP_*: how a move is told from noise */
};
struct kf_cmp {
	const struct kf_cmp_metric *m;		/* ends with path NULL */
	int stalls;		/* also every "stall_*_pct" member */
	int kernel_terms;	/* analysis.kernels[] carry time_ns and the
				 * verdicts: compared per kernel too */
};

struct kf_wrap_opts {
	const char *tool;	/* the profiler's program; NULL: its usual name */
	char **args;		/* extra profiler arguments, before the command */
	int nargs;
	int sudo;		/* run the profiler under sudo -E */
	/* The profiler options given: names and values ("" for a flag). */
	const char *popt_name[KF_POPT_MAX], *popt_val[KF_POPT_MAX];
	int npopt;
};

/* The value of profiler option name ("" for a flag), or NULL when it was
 * not given. */
const char *kf_wrap_opt(const struct kf_wrap_opts *o, const char *name);
/* Its value as a whole number, or def when it was not given. */
long kf_wrap_opt_long(const struct kf_wrap_opts *o, const char *name, long def);

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

/* kf-read --select K FILE, and kf-wrap --top's choice (made in kf-ncu
 * itself): the filter arguments, one a line, into out, that detail one
 * launch of each of the K kernels with the most GPU time in FILE, a timing
 * run's output. Nothing is written beside FILE (a reader does not write
 * its input) unless KF_SELECT_WRITE: then the choice, and what it was made
 * from, for the run that owns the folder (kf-ncu); with KF_SELECT_IDS
 * instead the ID of each one's first launch, one a line; with
 * KF_SELECT_PER_PROCESS the filter for one process of the program (an ncu
 * --mode attach to each): its launch count is one a chosen kernel. 0, or
 * 1 after a message, or KF_SELECT_NONE after one when FILE is whole and
 * shows that the program launched no kernel (kf trace: each process traced
 * to its exit). */
/* The timing run's launches in ncu's form, one row a launch (ncu
 * --metrics gpu__time_duration.sum --csv), and the same with mangled kernel
 * names: what a timing source writes beside itself for ncu's selector, and
 * what kf-read reads in an output directory of ncu --top. */
#define KF_TIMING_CSV "ncu_timing.csv"
#define KF_TIMING_MANGLED_CSV "ncu_timing_mangled.csv"
/* A column of theirs that ncu's own have not: "in" or "out" of the
 * program's own profiler range (cudaProfilerStart/Stop), "" for a process
 * without one. */
#define KF_RANGE_COL "KF Profiler Range"
/* Another: "yes" where the host waited for the GPU (cudaEventSynchronize,
 * cudaStreamSynchronize, cudaDeviceSynchronize: kf trace's synchronisations)
 * after the launch started and before the next launch of its process, ""
 * where it did not; there where some process of the program waited so. An
 * autotuner's timed runs of candidates are waited for one by one. */
#define KF_WAIT_COL "KF Host Waited"
enum { KF_SELECT_WRITE = 1, KF_SELECT_IDS = 2, KF_SELECT_PER_PROCESS = 4 };
enum { KF_SELECT_NONE = 2 };	/* what a selector returns: above */
/* With KF_SELECT_WRITE, a timing source that has timestamps (kf trace)
 * also writes beside the CSV what only they show: {"timeline"}, as its own
 * kf-read gives it; ncu's reader adds it to data.timing. */
#define KF_TIMING_TIMELINE "trace_timeline.json"
/* With KF_SELECT_WRITE, ncu's selector writes its ranking beside the CSV;
 * its "steady_ids" ([first, last] launch ID, where launches were set aside
 * before the steady state) give a timing source the window of its
 * timeline. */
#define KF_TIMING_RANKING "ncu_ranking.json"
typedef int kf_select_fn(long k, const char *file, int flags, struct buf *out);

/* kf-feedback: add the sections and the analysis for a collated record. */
typedef void kf_feedback_fn(const cJSON *rec, struct kf_fb *fb);

/* A language the profiler can profile, and how. */
struct kf_prof_lang {
	const char *language;	/* canonical name, as in lib/stage/select.c */
	const char *mode;	/* "query" or "sampling" */
	int rank;		/* 1: the language's default profiler, 2: the
				 * next; 0: chosen by the arch's vendor */
	int fallback;		/* rank 0, and the choice when the vendor is
				 * unknown (the reference's) */
};

struct kf_profiler {
	const char *name;
	/* The profiler's program, as kf-wrap runs it unless --tool names
	 * another; NULL: none (kf's own tracer runs inside the program). */
	const char *tool;
	const char *vendor;		/* "nvidia", "intel": as kf_vendor_name() */
	int npasses;
	const char *const *groups;	/* a name per pass ("group"), or NULL */
	const struct kf_prof_lang *langs;	/* ends with language NULL */
	const struct kf_popt *opts;	/* kf-wrap options of its own; ends with
					 * name NULL; may be NULL */
	const struct kf_tool_opt *tool_opts;	/* ends with name NULL; may be NULL */
	const char *gpu_env;		/* the variable that pins its GPU */
	/* Members of a launch that kf-feedback keeps as text and parses on
	 * first use (kf_json_lazy), relative to "data" or "collated"
	 * ("kernels/x/metrics/x"); NULL: its feedback reads whole trees. */
	const char *const *keep;
	/* Fields of a pass record that are the pass's own, besides the
	 * common ones ("unitrace_link"): kf-collate leaves them out. */
	const char *const *pass_fields;
	/* kf-read's hint for a run kf-run stopped: how to profile less ("ncu:
	 * -a --launch-count -a N"), and why a long profile looks like a hang to
	 * kf-run's inactivity limit; NULL: nothing to say. */
	const char *less, *silent;
	kf_wrap_fn *wrap;
	kf_read_fn *read;
	kf_collate_fn *collate;		/* NULL: the one pass's data as it is */
	kf_feedback_fn *feedback;
	kf_select_fn *select;		/* NULL: no timing run to select from */
	const struct kf_cmp *cmp;	/* NULL: --baseline compares total times */
};

/* Every profiler, in a fixed order, ending with NULL. */
extern const struct kf_profiler *const kf_profilers[];
/* NULL when unknown. Matching ignores case. */
const struct kf_profiler *kf_profiler_find(const char *name);
/* "ncu, unitrace, vtune" */
const char *kf_profiler_names(void);
/* How p profiles language (canonical name), or NULL when it cannot. */
const struct kf_prof_lang *kf_profiler_lang(const struct kf_profiler *p,
    const char *language);
/* kf-feedback's keep paths: every profiler's keep, under "data/" and
 * "collated/"; NULL-terminated, static. */
const char *const *kf_profiler_keep_paths(void);

/* The descriptors, each in its profiler's folder. */
extern const struct kf_profiler kf_ncu, kf_unitrace, kf_vtune, kf_trace;

#endif
