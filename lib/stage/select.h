/* kf: which profiler profiles a job, and what an architecture name means.
 *
 * Both are data tables in lib/stage/select.c. Ownership: the strings and structs
 * returned point into those static tables and are never freed; error
 * messages are written into a caller's struct buf. */
#ifndef KF_SELECT_H
#define KF_SELECT_H

#include "buf.h"
#include "profiler.h"

enum kf_vendor { KF_VENDOR_UNKNOWN, KF_VENDOR_NVIDIA, KF_VENDOR_INTEL };

/* One row of the architecture table: a word as it appears in an arch or GPU
 * name ("h200", "hopper", "bmg"), whose it is, and what it stands for. */
struct kf_arch {
	const char *word;
	enum kf_vendor vendor;
	const char *kind;	/* "family", "gpu", "codename", "product", "vendor" */
	const char *name;	/* the canonical name: "Hopper", "H200", "Battlemage" */
};

/* Classify a free-form architecture string ("NVIDIA H200", "sm_90",
 * "compute capability 8.6", "Arc B580", "lnl"), ignoring case. Returns the
 * row that decided it, or NULL when nothing in it is known. A compute
 * capability (sm_XX, compute_XX, "8.6") is answered from a row of its own. */
const struct kf_arch *kf_arch_classify(const char *arch);
const char *kf_vendor_name(enum kf_vendor v);	/* "nvidia", "intel", NULL */
/* The whole table, for --list-arch: rows until one with word NULL. */
const struct kf_arch *kf_arch_table(void);

/* A language and what may profile it. */
struct kf_lang;

/* What kf-select decided for one job. */
struct kf_choice {
	const char *language;		/* canonical, lower case: the one profiled */
	const struct kf_profiler *profiler;
	const char *mode;		/* "query" or "sampling" */
	const struct kf_arch *arch;	/* how arch was understood; may be NULL */
	int by_arch;			/* the profiler was chosen from the arch */
};

/* Choose for a job: language (any case), its reference_language (may be
 * NULL), arch (may be NULL), and a profiler name (NULL: the default).
 * 0 and *c filled, or -1 with an error kind returned in *kind ("no_profiler",
 * "unknown_language", "no_arch") and a message in err. */
int kf_select(const char *language, const char *reference_language,
    const char *arch, const char *profiler, struct kf_choice *c,
    const char **kind, struct buf *err);

/* Pass i of the choice for job: a copy of job with "profiler", "pass"
 * ("ncu.000"), "group" (unitrace), "mode", "passes_total", "profile_language"
 * and "vendor" (when the arch is known). The caller owns the record. */
cJSON *kf_pass_record(const cJSON *job, const struct kf_choice *c, int i);

/* The language the reference would profile with: reference_language, except
 * that "pytorch" (the usual reference) means the job's own language. */
const char *kf_profiling_language(const char *language,
    const char *reference_language);

/* "sycl, ocl, cuda, pytorch, triton" */
const char *kf_language_names(void);
/* The profilers a language allows, "unitrace, vtune"; NULL if unknown. */
const char *kf_language_profilers(const char *language);

#endif
