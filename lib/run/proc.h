/* kf: running programs for kf-run: spawning each in its own session,
 * the signal set-up that lets one poll() wait for output, children and
 * signals, the process table, and bounded tails of output.
 *
 * Ownership: struct kf_child, kf_tail and kf_ptab belong to the caller and
 * are released with kf_child_close(), kf_tail_free() and kf_ptab_free();
 * strings and arrays
 * returned are the caller's to free(). */
#ifndef KF_PROC_H
#define KF_PROC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "buf.h"

/* Seconds on the monotonic clock. */
double kf_now(void);

/* Make this process a child subreaper (orphans of its children come back
 * to it), ignore SIGPIPE, and block SIGCHLD and those of sigs that were not
 * ignored at start, to be read from the signalfd returned. The signal mask
 * and dispositions found at start are what kf_spawn() gives programs. */
int kf_proc_init(const int *sigs, int nsigs);
/* The signals waiting on the signalfd, as a bit mask (1 << signo). */
uint64_t kf_proc_signals(int sfd);
/* Die of sig, as the shell expects of a program it stopped: its default
 * action restored, unblocked (kf_proc_init blocked it) and raised. Returns
 * only when sig does not end a process. */
void kf_proc_die_of(int sig);

struct kf_child {
	pid_t pid;	/* also its session and process group id */
	int out, err;	/* non-blocking read ends of its stdout, stderr; -1: closed */
};

/* Start argv (argv[0] searched in envp's PATH) with the environment envp,
 * standard input from /dev/null, in a new session, in the directory cwd
 * (NULL: this one). 0 on success; -1 with errno when the program could not
 * be executed (ENOENT, ENOTDIR: not found; anything else: not executable),
 * the child then already reaped; -2 with errno when no process could be
 * made (pipes, fork); -3 with errno when cwd could not be entered. */
int kf_spawn(char *const argv[], char *const envp[], const char *cwd, struct kf_child *c);
void kf_child_close(struct kf_child *c);
/* Start argv (argv[0] searched in envp's PATH) with the environment envp in
 * a process group of its own, its standard input, output and error the
 * descriptors fds[0], fds[1], fds[2] (-1: /dev/null for input; this
 * process's own for output and error). Its pid; -1 with errno when the
 * program could not be executed (the child then already reaped); -2 with
 * errno when no process could be made. */
pid_t kf_spawn_io(char *const argv[], char *const envp[], const int fds[3]);


/* Run argv (kf-run's environment) for its standard output: at most max
 * bytes into out, at most timeout seconds (then killed). The exit status,
 * or -1 when it could not run or did not exit by itself. Reaps only its own
 * child: safe before the SIGCHLD loop starts. */
int kf_capture(char *const argv[], double timeout, size_t max, struct buf *out);

/* The process table, from /proc. */
struct kf_pinfo {
	pid_t pid, ppid, pgid, sid;
	char state;		/* 'Z': a zombie, nothing left to end */
};
struct kf_ptab {
	struct kf_pinfo *p;
	size_t n, cap;
};
int kf_ptab_read(struct kf_ptab *t);	/* 0, or -1 with errno */
void kf_ptab_free(struct kf_ptab *t);

/* The children of this process as the kernel lists them; -1 where the
 * kernel does not (then read the process table). */
int kf_children(pid_t **pids, size_t *n);
/* The value of name in pid's environment (NULL: not there, or unreadable). */
char *kf_environ_get(pid_t pid, const char *name);

/* The last cap bytes of a stream, and how many there were in all. */
struct kf_tail {
	char *b;
	size_t cap, pos;	/* pos: where the next byte goes */
	uint64_t total;
};
void kf_tail_init(struct kf_tail *t, size_t cap);
void kf_tail_add(struct kf_tail *t, const char *p, size_t n);
/* The tail in order, as kf_bytes_dup() keeps bytes (NUL as C0 80); when
 * bytes were dropped, starting at a character boundary. */
char *kf_tail_str(const struct kf_tail *t);
void kf_tail_free(struct kf_tail *t);

#endif
