/* kf: kf-ncu, the chain of runs behind kf-wrap ncu (libexec/kf/kf-ncu,
 * man kf-wrap(1)): the timing run (the program under kf's tracer, or ncu's
 * timing run), the choice (ncu_choose.c, in this process), the detailed
 * run (held by ncu --mode launch beside the timing run and attached to, one
 * attach a process, or after it), the exports of its report's pages, and
 * its account (ncu_detailed.json, ncu_timings.json). Split by what each
 * part does:
 *   ncu_chain.c   the arguments, the timing run, the choice, XLA's flags
 *   ncu_detail.c  the detailed run: held and attached, or after the timing
 *                 run, under its limit; the account of it
 *   ncu_early.c   the held program's first attach, which profiles nothing,
 *                 under the range gate: its work before its range beside
 *                 the timing run's, then ended for the attach that details
 *   ncu_export.c  the pages exported side by side, a report a process
 *                 joined, kf-wrap ncu --import
 *   ncu_out.c     the output directory's paths, ncu's argv, the account
 *                 of kf-ncu's seconds (NCU_TIMINGS)
 *   ncu_proc.c    the processes: started, passed on, waited on, ended
 *   ncu_ports.c   the TCP ports the held program listens on
 * Each calls only those below it in this list (ncu_detail.c's stop
 * accounts the detailed run, so it is there and not in ncu_chain.c).
 * Not for use outside lib/ncu.
 *
 * Ownership: struct ncu_chain is kf-ncu's, for the whole run; every string
 * and array in it is its own, freed by ncu_chain_free. */
#ifndef KF_NCU_CHAIN_H
#define KF_NCU_CHAIN_H

#include <cJSON.h>

#include "buf.h"
#include "env.h"

#define NCU_NPORTS 8		/* ports held for one program: one a process */
#define NCU_RANGE_PROCS 64	/* processes in ranges at once, the range gate follows */
#define NCU_HELD_MAXC "2"	/* --max-connections of one process's port */

/* The range gate's variables for a program run under a sweep's lock
 * (KF_NCU_RANGE=1, ncu's --profile-from-start off; lib/ncu/gate): its
 * work before its profiler range runs with the GPU's lock held shared,
 * beside other jobs' such work, its range with it held alone. */
struct ncu_range {
	const char *env[10];	/* LD_PRELOAD, KF_RANGE_REQ, _ACK, _PID: NAME,
				 * VALUE pairs, then NULL */
	char *keep[4];		/* their values: the library, the request's and
				 * the answer's paths, kf-ncu's pid */
	long off, lines;	/* the requests read so far: bytes, lines */
	long in[NCU_RANGE_PROCS];	/* the processes in their ranges */
	int nin;
	int alone;		/* the GPU had alone for them */
};

struct ncu_chain {
	const char *ncu, *dir, *select;
	long top;
	char **targs, **dargs, **cmd;	/* into argv: not owned */
	int ntargs, ndargs, ncmd;
	char **own_dargs;	/* dargs when kf-ncu added to them: owned */
	char *sections;		/* the folder of ncu_sampled_sections: owned */

	struct kf_env env;	/* what every program started from now on gets */
	struct buf sel;		/* the detailed run's filter, one argument a line */
	int timing_st;		/* the timing run's status: the program's own */
	long timing_s;		/* its whole seconds */
	const char *timed_by;	/* "ncu", "trace" */
	int traced, procs;

	int held;		/* the held program (ncu --mode launch): a handle, or -1 */
	int port;		/* the first of its NCU_NPORTS ports */
	char *port_lock;	/* the directory that claims them, or NULL */

	int phase_detail;	/* in the detailed run: a stop is accounted */
	int attached;		/* the held program was attached to */
	int attached_procs, parts, timed_out, st;
	long limit;
	double detail_start;
	cJSON *attempts;
	char *xla_res, *held_xla, *xla_add;
	struct ncu_range held_range;	/* --top's held program's range gate */
	int held_ranged;		/* ... it has one */
	int early;		/* its first attach (ncu_early.c): a handle, or -1 */
	int early_tried;	/* ... started, or not to be */
	double early_at;	/* ... when started */
	double early_parked;	/* when the held program was seen at its range's start */
	double timing_range_at;	/* when the traced timing run's range was had, or 0 */
	double early_defer;	/* when the timing run's range began to wait for
				 * the held program to reach its own, or 0 */
	const char *xla_mem, *triton_env;

	double t0;		/* when kf-ncu started */
	double detail_at;	/* when the detailed run's ncu (attach) started */
	double program_end;	/* when the program under it ended */
	cJSON *timings;		/* seconds by part, and ncu's replay passes */
};

/* ncu_out.c */
/* A path in the output directory (name may hold a printf format). */
char *ncu_out_path(const struct ncu_chain *c, const char *name);
/* kf-wrap ncu --sampled-source (KF_NCU_SAMPLED_SOURCE=1 in kf-ncu's
 * environment): the folder NCU_SECTIONS_DIR with ncu's stock sections, as
 * ncu itself writes them (--section-folder-restore), and kf's section
 * KfSourceSampled beside them, and --section-folder FOLDER before the
 * detailed run's arguments. 0 (nothing to do included), or -1 after
 * saying why on standard error. */
int ncu_sampled_sections(struct ncu_chain *c);
/* path is a regular file with something in it. */
int ncu_file_nonempty(const char *path);
/* ncu's argv: NCU, the words of pre (NULL-terminated), the filter's words
 * when with_sel, the TIMING_ARGs (args 't') or DETAIL_ARGs ('d'), then the
 * command (with_cmd). The strings are borrowed; the array is the caller's. */
char **ncu_argv(const struct ncu_chain *c, const char *const *pre, int with_sel, int args,
    int with_cmd);
/* ncu --mode attach to the process held on port, its report out, with
 * the filter's words asel and the DETAIL_ARGs, env (NULL: c->env); its
 * output passed on and read for ncu's marks, or into the descriptor log
 * (>= 0). A handle (ncu_proc.c). */
int ncu_attach_start(const struct ncu_chain *c, int port, const char *out,
    const struct buf *asel, const struct kf_env *env, int log);
/* Add seconds to the timings' member name. */
void ncu_time_add(struct ncu_chain *c, const char *name, double seconds);
/* NCU_TIMINGS written: the seconds by part, ncu's own lines' split of the
 * detailed run, its launches profiled and replay passes. */
void ncu_timings_write(struct ncu_chain *c);

/* ncu_detail.c */
/* A stop signal came: the detailed run accounted as stopped where it was
 * running, every process of the chain ended, its ports let go; exits. */
void ncu_chain_stopped(struct ncu_chain *c) __attribute__((noreturn));
/* The held program: ncu --mode launch on the claimed ports (the command
 * alone), its output into NCU_LAUNCH_LOG, c->env with extra (NULL, or
 * NAME, VALUE pairs up to a NULL) set; 0, or -1 when it could not be
 * started. top_path: --top's held program (every process, XLA's flags). */
int ncu_held_start(struct ncu_chain *c, int top_path, const char *const *extra);
/* Its end, its output printed, its ports let go, and why (NULL: nothing)
 * on standard error. */
void ncu_held_stop(struct ncu_chain *c, const char *why);
/* The held program let go, nothing of it printed, its report removed. */
void ncu_held_drop(struct ncu_chain *c);
/* The detailed run of --top; c->st its status. */
void ncu_detail_top(struct ncu_chain *c);
/* The detailed run of TOP 0 under a sweep's GPU lock, held until the lock
 * is had: 0 with c->st the program's status, or -1 when it is to run
 * unheld (nothing of it printed). */
int ncu_held_run(struct ncu_chain *c);
/* ncu's run of the program with the filter and the DETAIL_ARGs, waited
 * for (up to limit seconds when limit > 0: then c->timed_out); stdin: the
 * descriptor for its standard input (-1: none). Its status. */
int ncu_detail_run(struct ncu_chain *c, int stdin_fd, long limit);
/* NCU_DETAILED: what the detailed run did. */
void ncu_detail_account(struct ncu_chain *c, const char *status, int code);
/* The detailed run left a report (one, or one a process). */
int ncu_have_report(const struct ncu_chain *c);

/* The range gate for a program whose request and answer are the files
 * req and ack of the output directory (removed now): 0 with r filled, or
 * -1 (r empty) where there is none: no KF_NCU_RANGE=1, no sweep's lock, a
 * detailed run not of the program's range, or no libkfgate.so. */
int ncu_range_env(const struct ncu_chain *c, const char *req, const char *ack,
    struct ncu_range *r);
/* The range gate's requests read since the last look: at a process's
 * "start", the GPU had alone (where it was not) and the answer written
 * (*at: when the first range asked; *waited: the waits added up); at its
 * "stop", once no process is in a range, the GPU held shared again and
 * the answer removed. 0, or -1 on a stop signal. */
int ncu_range_poll(struct ncu_range *r, double *at, double *waited);
/* Whether ncu profiled a launch before the range asked for the GPU at
 * range_at (0: it never asked): then said, with what (the run) taken
 * again, and range_unseen counted. */
int ncu_range_early(struct ncu_chain *c, double range_at, const char *what);
/* Its strings let go and the answer removed; the request too unless kept. */
void ncu_range_done(struct ncu_range *r, int kept);

/* ncu_early.c: the held program's first attach (KF_NCU_EARLY=1; off by
 * default), for --top's held program under the range gate. ncu holds the
 * program at its first CUDA call until an attach connects and takes the
 * filter an attach gives, so without it the program's work before its
 * range waits for the choice; an attach that profiles nothing lets it do
 * that work beside the timing run's, and at the program's range, once the
 * choice is made, it is ended and the detailing attach connects (ncu
 * 2025.3.1 on an H100 attached again to a program whose first attach
 * ended by SIGINT, examples/h200/top44/reattach.sh). */
/* Started, once, when the held program listens and the GPU's lock is had
 * shared (its work never beside the timing run's range); its output into
 * NCU_EARLY_LOG. */
void ncu_early_poll(struct ncu_chain *c);
/* Whether the timing run's range (its gate's requests: timing) must wait
 * before it is had: 1 while it asks and the held program, attached early,
 * runs its work before its range (the range waits for it to reach its
 * own, where the gate holds it with its GPU work ended), 0 when not, and
 * -1 when the wait is to end with the held program (a second process of
 * it reached CUDA, or it did not reach its range within 30 s of the
 * timing run's): said, and the caller stops it. */
int ncu_early_busy(struct ncu_chain *c, const struct ncu_range *timing);
/* After the choice: waits (to deadline) for the held program to reach its
 * range, then ends the first attach. 0: the program waits at its range's
 * start for the detailing attach (or the first attach had ended by itself
 * before it connected, the program still at its first CUDA call: the
 * detailing one connects as it would have); -1: the program ended
 * first, or the deadline came (why says which); -2: a stop signal came. */
int ncu_early_switch(struct ncu_chain *c, double deadline, char *why, size_t n);
/* After a timing run that failed: waits (to until) for the held program,
 * attached early, to reach its range (1), or to end (0: it failed too, or
 * ended without a range); -1 at until, -2 on a stop signal. */
int ncu_early_settle(struct ncu_chain *c, double until);
/* The first attach ended, where it runs. */
void ncu_early_end(struct ncu_chain *c);

/* ncu_export.c */
/* The pages of the detailed report (or of each process's, joined); 0, or
 * the status to exit with when its details page did not export. */
int ncu_export_report(struct ncu_chain *c);
/* The timing run's details page, by name and by mangled name; 0 or the
 * status of the export that failed. */
int ncu_export_timing(struct ncu_chain *c);
/* kf-wrap ncu --import: NCU DIR SELECT REPORT. */
int ncu_import_main(int argc, char **argv);

/* ncu_proc.c: handles of started processes */
int ncu_proc_init(void);
/* Start argv with env (NULL: this process's environment); fds as
 * kf_spawn_io's (in -1: /dev/null; out, err -1: ours); pass_on: its
 * standard output goes through a pipe of ours, passed on to our standard
 * output and read for ncu's replay passes. A handle; a program that could
 * not be executed is a handle already ended with status 127 (not found)
 * or 126, after a message. */
int ncu_proc_start(char *const argv[], const struct kf_env *env, int in, int out, int err,
    int pass_on);
/* 1 when h has ended, 0 at the deadline (a kf_now() time), -1 when a stop
 * signal came. */
int ncu_proc_wait(int h, double deadline);
int ncu_proc_done(int h);
/* Its status as a shell gives it: the exit status, or 128 + the signal. */
int ncu_proc_status(int h);
/* Its wall seconds: from its start to its end (or to now). */
double ncu_proc_seconds(int h);
/* End h's process group and every process under it: TERM, then KILL
 * after 5 s; reaped. */
void ncu_proc_end(int h);
/* Signal h's process group, where it runs. */
void ncu_proc_signal(int h, int sig);
/* End every process still running. */
void ncu_proc_end_all(void);
/* Sleep; -1 when a stop signal came. */
int ncu_proc_sleep(double seconds);
/* The stop signal that came (TERM, INT, HUP), or 0. */
int ncu_proc_stopped(void);
/* Bytes onto our standard output, whole. */
void ncu_out(const char *s, size_t n);
/* A file onto our standard output, read for replay passes as it goes. */
void ncu_out_file(const char *path);
/* ncu's "==PROF== Profiling ... - N passes" lines seen: launches and passes. */
void ncu_proc_passes(long *launches, long *passes);
/* When (kf_now) ncu's lines passed on said it connected to the program,
 * and its first and last launches were profiled; 0: not seen. */
void ncu_proc_marks(double *connected, double *first, double *last);
/* Forget them, and the passes: a detailed run begins again. */
void ncu_proc_marks_reset(void);
/* 1 when ncu's lines since the reset said "No kernels were profiled". */
int ncu_proc_said_none(void);
/* How many times ncu's lines since the reset said it backed up device
 * memory in system memory: the GPU had no room for its copy of what a
 * kernel can reach, so each replay pass restores from host memory. */
long ncu_proc_host_backups(void);
/* The GPU's lock of a sweep (KF_NCU_GPU_LOCK): 0 once held (or when there
 * is none), -1 when a stop signal came first; *waited: the seconds. */
int ncu_gpu_lock(double *waited);
/* The same, held op (LOCK_EX, or LOCK_SH beside other jobs' shared work);
 * a lock held the other way is converted. A request for it alone goes
 * before the requests for it shared that come while it waits (the
 * turnstile LOCK.turn, ncu_proc.c). */
int ncu_gpu_lock_as(int op, double *waited);
/* A program asked for the GPU (a gate of its own: lib/ncu/gate, kf's
 * tracer): had as op (LOCK_EX alone, LOCK_SH beside other jobs' work
 * before their ranges), then the answer written to the file ack ("locked
 * WAITED_S"); *waited: the seconds. 0, or -1 on a stop signal. */
int ncu_gpu_grant(const char *ack, int op, double *waited);
void ncu_gpu_unlock(void);
/* The lock had alone held shared from now on (Linux converts a flock in
 * one step: no other job has it in between); nothing where it is not had
 * alone. 0, or -1 on a stop signal. */
int ncu_gpu_share(void);
/* How the lock is had now: LOCK_EX, LOCK_SH, or 0 (not had). */
int ncu_gpu_held(void);
/* The seconds this process has had the lock alone (LOCK_EX), its timing
 * and detailed runs together: what paces a sweep; -1 when it never had
 * the lock (no sweep). */
double ncu_gpu_alone(void);
/* The seconds it had the lock shared (the range gate: the program's own
 * GPU work outside its ranges, beside other jobs' such work); -1 when it
 * never had it so. */
double ncu_gpu_shared(void);

/* ncu_ports.c */
/* /proc/net/tcp can be read. */
int ncu_ports_readable(void);
/* How many TCP ports of lo..hi have a socket of the machine (listening:
 * only those that listen), the first max of them into ports in order;
 * -1 when /proc/net/tcp cannot be read. */
int ncu_ports_used(int lo, int hi, int listening, int *ports, int max);
/* A block of NCU_NPORTS ports in 50000-57999 that no socket uses, claimed
 * against other runs of kf-ncu on the machine: 0, c->port and c->port_lock
 * set; -1 when 16 tries found none. */
int ncu_ports_claim(struct ncu_chain *c);
void ncu_ports_release(struct ncu_chain *c);

#endif
