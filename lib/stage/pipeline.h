/* kf: running a pipeline of programs (kf's own stages), connected by pipes,
 * as a shell would, without a shell: every command is an argv array.
 *
 * Ownership: the caller owns the argv arrays; kf_sibling() returns a string
 * the caller frees. */
#ifndef KF_PIPELINE_H
#define KF_PIPELINE_H

#include <sys/types.h>

/* kf's usage (the SYNOPSIS of kf(1)): kf prints it, and so does kf-wrap
 * when kf runs it (kf-wrap --kf-usage), for a usage error in the words
 * that kf hands it. */
#define KF_FRONT_USAGE \
	"[--json | --timings] [-q] [-n N] [-t S] [-i S] [--no-collated] [--gpu NAME] PROFILER [options] -- CMD [ARG ...]\n" \
	"[options] ncu --import FILE.ncu-rep\n" \
	"[options] reread PATH ..."
/* The first word kf gives kf-wrap: its usage errors show kf's usage. */
#define KF_FRONT_USAGE_OPT "--kf-usage"

/* The path of the program name next to the running program
 * (/proc/self/exe) when it is there and executable, else name itself, for
 * execvp() to find on PATH. */
char *kf_sibling(const char *name);

/* Run cmds[0] | cmds[1] | ... | cmds[n-1]: the first reads this process's
 * standard input, the last writes its standard output; all share its
 * standard error. While they run, SIGINT and SIGQUIT are only noted here (the
 * terminal sends them to every stage) and SIGTERM and SIGHUP are passed on
 * to the first `forward` stages: those that start work, while the later ones
 * end with their input and still write what came. Returns the status of the rightmost stage that did not
 * succeed, as a shell's pipefail: its exit status, 128 + N when signal N
 * ended it, 127 when it could not be found, 126 when it could not be run;
 * 0 when all succeeded. */
int kf_pipeline_run(char *const *const cmds[], int n, int forward);
/* The last of those signals that came while kf_pipeline_run ran (0: none).
 * The stages after the first `forward` ignore them (they finish with what
 * comes), so a signal to the whole group still ends with every record. */
int kf_pipeline_signal(void);

/* Start cmds[0] | ... | cmds[n-1] and return at once, for a caller that
 * runs several pipelines and waits for them in its own loop (kf-mcp): the
 * stages in a new process group (its id is pids[0]), the first reading in,
 * the last writing out, all writing err (the caller's descriptors, left
 * open here; every other descriptor of the caller should be close-on-exec).
 * Stages from `forward` on ignore SIGINT, SIGQUIT, SIGTERM and SIGHUP, as
 * kf_pipeline_run's do, so that SIGTERM to the group stops the work and
 * the later stages still write what came. The signal mask is emptied and
 * SIGPIPE is the default in every stage. Returns how many started (all but
 * after a failed pipe or fork, said on stderr); the caller reaps
 * pids[0 .. returned - 1]. */
int kf_pipeline_spawn(char *const *const cmds[], int n, int forward, int in,
    int out, int err, pid_t pids[]);

/* A wait status as a shell gives it: the exit status, 128 + N for signal
 * N, 1 otherwise. */
int kf_wait_status(int ws);

#endif
