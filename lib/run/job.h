/* kf: kf-run's engine: one job (a record's argv running in a session of
 * its own), the set of running jobs, and the "run" record of each.
 *
 * bin/kf-run.c keeps the options, the queue, the output order and the
 * poll() loop; everything a job is and how it ends is here: checking the
 * record kf-wrap made, capturing its two streams (bounded tails, saved logs,
 * end markers), its limits (timeout, inactivity, marker grace, SIGTERM then
 * SIGKILL), which processes are its (session, group, or an orphan carrying
 * its tag), and the "run" object that says what happened.
 *
 * Ownership: a struct kf_job owns its record until the caller takes it
 * (j->rec = NULL) and is released with kf_job_free(); records and strings
 * returned are the caller's. */
#ifndef KF_JOB_H
#define KF_JOB_H

#include <sys/types.h>
#include <cJSON.h>

#include "buf.h"
#include "marker.h"
#include "proc.h"

/* The environment variable that tags every process of a job. */
#define KF_JOB_TAG "KF_RUN_JOB"
#define KF_JOB_GIVE_UP 5.0	/* after SIGKILL, seconds before a job is let go */
#define KF_JOB_RECHECK 0.1	/* while leftovers die, look again this often */

enum kf_ended {
	KF_END_NONE, KF_END_EXIT, KF_END_TIMEOUT, KF_END_INACTIVITY,
	KF_END_MARKER, KF_END_INTERRUPTED
};
/* "exit", "timeout", "inactivity", "end_marker", "interrupted" (the
 * record's run.ended_by); NULL for KF_END_NONE. */
extern const char *const kf_ended_names[];

struct kf_job;

/* What every job shares: kf-run's options. */
struct kf_job_opts {
	double timeout, inactivity;	/* defaults for records without their own */
	double grace;			/* SIGTERM to SIGKILL */
	double mgrace, pgrace;		/* after a literal marker, a pytest summary */
	double drain;			/* after exit, for output still coming */
	size_t tail;			/* bytes of each stream kept */
	int save;			/* --save-output */
	int timeout_set, inactivity_set; /* given: they beat the record's own */
	/* --live: told each piece of a job's output as it comes (k: 0
	 * stdout, 1 stderr); NULL: nobody. */
	void (*echo)(struct kf_job *j, int k, const char *s, size_t n);
};

struct kf_stream {
	int *fd;		/* into the job's kf_child */
	struct kf_tail tail;
	int log;		/* --save-output file, or -1 */
	struct kf_marker marker;
};

struct kf_job {
	cJSON *rec;
	long seq, line;
	char *file;		/* where the record came from; owned */
	char tag[48];		/* KF_JOB_TAG's value: finds its orphans */
	int slot;
	const char *gpu;	/* --gpus: the job's GPU, or NULL */
	struct kf_child c;
	struct kf_stream s[2];
	const char *marker;	/* NULL, "pytest" or a literal */
	double timeout, inactivity;
	double start, last_io, marker_at, term_at, kill_at, exited_at;
	enum kf_ended ended;
	int status, reaped, waiting, leftovers;
	const struct kf_marker *hit;	/* the stream's that saw the marker */
	struct buf note;
	struct buf echo[2];	/* --live: a line of each stream not yet ended */
	const struct kf_job_opts *o;
};

/* Why rec cannot be run (argv, env, end_marker, timeout, inactivity as
 * kf-wrap makes them), or NULL when it can. */
const char *kf_job_check(const cJSON *rec);
/* A job for rec (taken), not started: c.pid is -1 until kf_spawn. The
 * record's own timeout and inactivity win over o's defaults, not over
 * limits given on the command line (timeout_set, inactivity_set). file is
 * copied. With o->save, the streams' logs are opened in output_dir. */
struct kf_job *kf_job_new(cJSON *rec, long seq, const char *file, long line,
    int slot, pid_t self, const struct kf_job_opts *o);
void kf_job_free(struct kf_job *j);

/* Read what stream k (0 stdout, 1 stderr) has, without blocking. */
void kf_job_read(struct kf_job *j, int k, double now);
/* The "run" object of a job that ran (sig: the signal that stopped
 * kf-run, or 0). */
cJSON *kf_job_run(const struct kf_job *j, double now, int sig);
/* The "run" object of a program that could not be started (errno err). */
cJSON *kf_job_not_started(const char *argv0, int err);
/* The "run" object of a job that was not started: status code as a shell
 * gives it (127, 126), "started": false, msg as its message. */
cJSON *kf_job_not_run(int code, const char *msg);

/* The running jobs: slots[0..n), NULL where free. */
struct kf_jobset {
	struct kf_job **slots;
	int n, nrunning;
	pid_t self;
};

/* Signal (sig != 0) and count the living processes of j (NULL: every
 * orphan of ours), descendants included. */
int kf_jobs_signal_tree(const struct kf_jobset *js, const struct kf_job *j, int sig);
/* Any child of ours that is not a running job's program? */
int kf_jobs_strays(const struct kf_jobset *js);
/* How many processes of j are alive (0: none). */
int kf_jobs_alive(const struct kf_jobset *js, const struct kf_job *j);
/* SIGTERM (with SIGCONT) or SIGKILL to j's whole tree, noting when. */
void kf_jobs_signal(const struct kf_jobset *js, struct kf_job *j, int sig, double now);
/* End j for why (TERM now, KILL after the grace), once. */
void kf_jobs_end(const struct kf_jobset *js, struct kf_job *j, enum kf_ended why,
    double now);
/* Apply j's limits at now. */
void kf_jobs_timers(const struct kf_jobset *js, struct kf_job *j, double now);
/* When next to look at j, or INFINITY. */
double kf_job_wake_at(const struct kf_job *j, double now);
/* Collect exited programs (waitpid) into their jobs. */
void kf_jobs_reap(struct kf_jobset *js, double now);

#endif
