/* kf: the Nsight Compute path: names shared by its reader and feedback,
 * and its functions (the descriptor kf_ncu is in ncu_desc.c). */
#ifndef KF_NCU_H
#define KF_NCU_H

#include "ncu_files.h"
#include "profiler.h"

kf_wrap_fn ncu_wrap;		/* ncu_wrap.c */
kf_read_fn ncu_read;		/* ncu_read.c */
kf_feedback_fn ncu_feedback;	/* ncu_feedback.c */
/* kf-ncu, kf-wrap ncu's command (libexec/kf/kf-ncu): its main
 * (ncu_chain.c). */
int ncu_chain_main(int argc, char **argv);

/* v in unit ("us", "msecond", ...) as nanoseconds into *ns; 0 when the
 * unit is not a time (ncu_timing.c). */
int ncu_to_ns(const char *unit, double v, double *ns);

/* Section display names, as metric rows carry them. */
#define NCU_SOL "GPU Speed Of Light Throughput"
#define NCU_LAUNCH "Launch Statistics"
#define NCU_OCCUPANCY "Occupancy"

/* kf-read --profiler ncu --select K FILE (profiler.h): the ncu filter
 * arguments for the K kernels with the most GPU time in FILE (a timing
 * CSV, or a ranking file: NAME.json); with KF_SELECT_WRITE, also FILE's
 * folder's ncu_ranking.json (from a CSV) and ncu_top.json. ncu_choose.c. */
kf_select_fn ncu_select;
/* The ranking of a timing CSV's launches, by mangled name when the
 * CSV's mangled export is beside it (x.csv: x_mangled.csv); NULL with errno
 * when CSV cannot be read. */
cJSON *ncu_ranking_csv(const char *csv);

/* ncu_read's side: the timing run of dir (NULL when there is none), each
 * detailed launch given its identity in it, then data.timing (profiled:
 * the launches the detailed report holds; msgs: ncu's messages). */
struct ncu_timing;
struct ncu_timing *ncu_timing_open(const char *dir);
void ncu_timing_ident(struct ncu_timing *t, cJSON *k);
cJSON *ncu_timing_data(struct ncu_timing *t, long profiled, const cJSON *msgs);
void ncu_timing_close(struct ncu_timing *t);

/* kf-ncu's account of where its time went (NCU_TIMINGS), for
 * data.timings; NULL when there is none (ncu_account.c). */
cJSON *ncu_timings_load(const char *dir);

struct kf_rank;
/* kf-feedback: the ranking from data.timing (every launch of the timing
 * run in its steady state: those set aside before it are not ranked),
 * sorted; 0 when there is none. */
int ncu_timing_rank(const cJSON *data, struct kf_rank *rank);
/* What the timing run covered, and the chosen kernels the detailed run
 * missed, and why. */
void ncu_timing_say(struct kf_fb *fb, const cJSON *data, size_t nl);
/* profiler_failed, when ncu's detailed run of a --top run failed, hung or
 * was stopped while the program's own run, the timing run, was clean. */
void ncu_profiler_failed(struct kf_fb *fb, const cJSON *data);
/* The feedback of a --top run whose detailed run profiled nothing; 0 when
 * data has no timing run. */
int ncu_timing_only(struct kf_fb *fb, const cJSON *data);
/* With several processes, where kernel name ran in the timing run. */
void ncu_timing_procs(struct kf_fb *fb, const cJSON *data, const char *name);
/* A note when most of the timing run's GPU time (timing: data.timing) came
 * before its steady state, or is XLA's machinery in rank. */
void ncu_xla_note(struct kf_fb *fb, const struct kf_rank *rank, const cJSON *timing);

#endif
