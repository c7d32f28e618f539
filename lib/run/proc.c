/* Spawning, signals, the process table and output tails, for kf-run. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>

#include "buf.h"
#include "err.h"
#include "mem.h"
#include "proc.h"
#include "record.h"

extern char **environ;

static sigset_t orig_mask;
static int pipe_was_ignored;

double
kf_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
was_ignored(int sig)
{
	struct sigaction sa;

	if (sigaction(sig, NULL, &sa) != 0)
		return 0;
	return sa.sa_handler == SIG_IGN;
}

int
kf_proc_init(const int *sigs, int nsigs)
{
	sigset_t set;
	int i, fd;

	/* Orphans of a job come to us, not to init, so none escapes. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0)
		kf_warn("cannot become a child subreaper:");
	pipe_was_ignored = was_ignored(SIGPIPE);
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	for (i = 0; i < nsigs; i++) {
		/* A signal ignored by whoever started us stays ignored
		 * (a background job in a script ignores SIGINT). */
		if (!was_ignored(sigs[i]))
			sigaddset(&set, sigs[i]);
	}
	if (sigprocmask(SIG_BLOCK, &set, &orig_mask) != 0)
		kf_die(1, "sigprocmask:");
	fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (fd < 0)
		kf_die(1, "signalfd:");
	return fd;
}

uint64_t
kf_proc_signals(int sfd)
{
	struct signalfd_siginfo si;
	uint64_t got = 0;

	while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si)
		if (si.ssi_signo < 64)
			got |= (uint64_t)1 << si.ssi_signo;
	return got;
}

/* Make fd the descriptor target in a child, inherited across exec. */
static int
move_fd(int fd, int target)
{
	if (fd == target)
		return fcntl(fd, F_SETFD, 0);
	return dup2(fd, target) < 0 ? -1 : 0;
}

void
kf_proc_die_of(int sig)
{
	sigset_t set;

	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
}

/* In the child, between fork and exec: only async-signal-safe calls. The
 * error pipe carries {where, errno}: where 0 exec, 1 chdir. in: standard
 * input (-1: /dev/null); out, err: standard output and error (-1: left as
 * they are); session: a session of its own, else a process group. */
static void __attribute__((noreturn))
exec_child(char *const argv[], char *const envp[], const char *cwd, int in, int out,
    int err, int session, int ep)
{
	int e[2] = {0, 0}, null = -1;

	if (session)
		setsid();
	else
		setpgid(0, 0);
	if (!pipe_was_ignored)
		signal(SIGPIPE, SIG_DFL);
	sigprocmask(SIG_SETMASK, &orig_mask, NULL);
	if (in < 0 && (in = null = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0)
		goto fail;
	if (move_fd(in, 0) < 0 || (out >= 0 && move_fd(out, 1) < 0) ||
	    (err >= 0 && move_fd(err, 2) < 0))
		goto fail;
	if (cwd && chdir(cwd) != 0) {
		e[0] = 1;
		goto fail;
	}
	/* execvp searches the PATH of environ: the program's own. */
	environ = (char **)envp;
	execvp(argv[0], argv);
fail:
	e[1] = errno;
	while (write(ep, e, sizeof e) < 0 && errno == EINTR)
		;
	_exit(127);
}

/* The error pipe of a child just forked: 0 when it closed (the exec
 * worked), else the child reaped, errno set and 1 (chdir) or 0 (exec)
 * into *where, and -1. */
static int
exec_result(pid_t pid, int ep, int *where)
{
	int e[2] = {0, 0};
	ssize_t n;

	do
		n = read(ep, e, sizeof e);
	while (n < 0 && errno == EINTR);
	close(ep);
	if (n != (ssize_t)sizeof e)
		return 0;
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	*where = e[0];
	errno = e[1];
	return -1;
}

static void
close_pair(int p[2])
{
	if (p[0] >= 0)
		close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
	p[0] = p[1] = -1;
}

int
kf_spawn(char *const argv[], char *const envp[], const char *cwd, struct kf_child *c)
{
	int out[2] = {-1, -1}, err[2] = {-1, -1}, ep[2] = {-1, -1};
	int where = 0, saved;
	pid_t pid;

	c->pid = -1;
	c->out = c->err = -1;
	if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0 ||
	    pipe2(ep, O_CLOEXEC) != 0)
		goto fail;
	pid = fork();
	if (pid < 0)
		goto fail;
	if (pid == 0)
		exec_child(argv, envp, cwd, -1, out[1], err[1], 1, ep[1]);
	close(out[1]);
	close(err[1]);
	close(ep[1]);
	out[1] = err[1] = ep[1] = -1;
	/* The error pipe closes on a successful exec, or carries errno. */
	if (exec_result(pid, ep[0], &where) != 0) {
		saved = errno;
		close_pair(out);
		close_pair(err);
		errno = saved;
		return where ? -3 : -1;
	}
	fcntl(out[0], F_SETFL, O_NONBLOCK);
	fcntl(err[0], F_SETFL, O_NONBLOCK);
	c->pid = pid;
	c->out = out[0];
	c->err = err[0];
	return 0;
fail:
	saved = errno;
	close_pair(out);
	close_pair(err);
	close_pair(ep);
	errno = saved;
	return -2;
}

pid_t
kf_spawn_io(char *const argv[], char *const envp[], const int fds[3])
{
	int ep[2], where = 0, saved;
	pid_t pid;

	if (pipe2(ep, O_CLOEXEC) != 0)
		return -2;
	if ((pid = fork()) < 0) {
		saved = errno;
		close(ep[0]);
		close(ep[1]);
		errno = saved;
		return -2;
	}
	if (pid == 0)
		exec_child(argv, envp, NULL, fds[0], fds[1], fds[2], 0, ep[1]);
	/* Both sides set the group: no signal can reach it before it is. */
	setpgid(pid, pid);
	close(ep[1]);
	return exec_result(pid, ep[0], &where) != 0 ? -1 : pid;
}

void
kf_child_close(struct kf_child *c)
{
	if (c->out >= 0)
		close(c->out);
	if (c->err >= 0)
		close(c->err);
	c->out = c->err = -1;
}

static void
capture_read(int *fd, struct buf *out, size_t max)
{
	char chunk[4096];
	ssize_t n = read(*fd, chunk, sizeof chunk);

	if (n > 0 && out) {
		size_t room = max > out->len ? max - out->len : 0;

		buf_add(out, chunk, (size_t)n < room ? (size_t)n : room);
	} else if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		close(*fd);
		*fd = -1;
	}
}

int
kf_capture(char *const argv[], double timeout, size_t max, struct buf *out)
{
	double deadline = kf_now() + timeout;
	struct kf_child c;
	int status, r;

	if (kf_spawn(argv, environ, NULL, &c) != 0)
		return -1;
	while (c.out >= 0 || c.err >= 0) {
		struct pollfd pfd[2] = {{c.out, POLLIN, 0}, {c.err, POLLIN, 0}};
		double left = deadline - kf_now();

		if (left <= 0)
			break;
		if (poll(pfd, 2, (int)(left * 1000) + 1) < 0 && errno != EINTR)
			break;
		if (c.out >= 0 && pfd[0].revents)
			capture_read(&c.out, out, max);
		if (c.err >= 0 && pfd[1].revents)
			capture_read(&c.err, NULL, 0);
	}
	kf_child_close(&c);
	/* Closed output usually means exited; allow it until the deadline. */
	while ((r = waitpid(c.pid, &status, WNOHANG)) == 0 && kf_now() < deadline) {
		struct timespec ts = {0, 10 * 1000 * 1000};

		nanosleep(&ts, NULL);
	}
	if (r == c.pid)
		return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	kill(-c.pid, SIGKILL);
	while (waitpid(c.pid, NULL, 0) < 0 && errno == EINTR)
		;
	return -1;
}

/* "pid (comm) S ppid pgrp session ...": comm may hold spaces and ')'. */
static int
read_stat(pid_t pid, struct kf_pinfo *pi)
{
	char path[64], s[1024], *p;
	int fd, ppid, pgid, sid;
	ssize_t n;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, s, sizeof s - 1);
	close(fd);
	if (n <= 0)
		return -1;
	s[n] = '\0';
	if ((p = strrchr(s, ')')) == NULL)
		return -1;
	if (sscanf(p + 1, " %c %d %d %d", &pi->state, &ppid, &pgid, &sid) != 4)
		return -1;
	pi->pid = pid;
	pi->ppid = ppid;
	pi->pgid = pgid;
	pi->sid = sid;
	return 0;
}

int
kf_ptab_read(struct kf_ptab *t)
{
	struct dirent *d;
	DIR *dir;

	t->n = 0;
	if ((dir = opendir("/proc")) == NULL)
		return -1;
	while ((d = readdir(dir)) != NULL) {
		struct kf_pinfo pi;

		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		if (read_stat((pid_t)atoi(d->d_name), &pi) != 0)
			continue;	/* gone meanwhile */
		KF_GROW(t->p, t->n, t->cap, 256);
		t->p[t->n++] = pi;
	}
	closedir(dir);
	return 0;
}

void
kf_ptab_free(struct kf_ptab *t)
{
	free(t->p);
	t->p = NULL;
	t->n = t->cap = 0;
}

/* The whole of a /proc file (they report size 0: read to the end). */
static char *
slurp(const char *path, size_t *len)
{
	struct buf b = {0};
	char chunk[4096];
	ssize_t n;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return NULL;
	while ((n = read(fd, chunk, sizeof chunk)) > 0)
		buf_add(&b, chunk, (size_t)n);
	close(fd);
	if (n < 0) {
		buf_free(&b);
		return NULL;
	}
	*len = b.len;
	return buf_take(&b);
}

int
kf_children(pid_t **pids, size_t *n)
{
	char path[64], *s, *p, *end;
	size_t len, cap = 0;

	snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)getpid());
	if ((s = slurp(path, &len)) == NULL)
		return -1;
	*pids = NULL;
	*n = 0;
	for (p = s; ; p = end) {
		long v = strtol(p, &end, 10);

		if (end == p)
			break;
		KF_GROW(*pids, *n, cap, 16);
		(*pids)[(*n)++] = (pid_t)v;
	}
	free(s);
	return 0;
}

char *
kf_environ_get(pid_t pid, const char *name)
{
	char path[64], *s, *p, *end, *val = NULL;
	size_t len, nl = strlen(name);

	snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
	if ((s = slurp(path, &len)) == NULL)
		return NULL;
	for (p = s, end = s + len; p < end; p += strlen(p) + 1)
		if (strncmp(p, name, nl) == 0 && p[nl] == '=') {
			val = xstrdup(p + nl + 1);
			break;
		}
	free(s);
	return val;
}

void
kf_tail_init(struct kf_tail *t, size_t cap)
{
	t->b = cap ? xmalloc(cap) : NULL;
	t->cap = cap;
	t->pos = 0;
	t->total = 0;
}

void
kf_tail_add(struct kf_tail *t, const char *p, size_t n)
{
	size_t first;

	t->total += n;
	if (t->cap == 0)
		return;
	if (n >= t->cap) {
		memcpy(t->b, p + n - t->cap, t->cap);
		t->pos = 0;
		return;
	}
	first = t->cap - t->pos < n ? t->cap - t->pos : n;
	memcpy(t->b + t->pos, p, first);
	memcpy(t->b, p + first, n - first);
	t->pos = (t->pos + n) % t->cap;
}

char *
kf_tail_str(const struct kf_tail *t)
{
	size_t len, start, skip = 0;
	char *lin, *s;

	if (t->total <= t->cap) {
		len = (size_t)t->total;
		start = 0;
	} else {
		len = t->cap;
		start = t->pos;
	}
	lin = xmalloc(len + 1);
	if (len > 0) {
		memcpy(lin, t->b + start, len - start);
		memcpy(lin + len - start, t->b, start);
	}
	/* A cut through a UTF-8 character would start with a stray byte. */
	if (t->total > t->cap)
		while (skip < 3 && skip < len && ((unsigned char)lin[skip] & 0xc0) == 0x80)
			skip++;
	s = kf_bytes_dup(lin + skip, len - skip);
	free(lin);
	return s;
}

void
kf_tail_free(struct kf_tail *t)
{
	free(t->b);
	t->b = NULL;
}
