/* kf-ncu's processes, on top of lib/run: each started in a process group of
 * its own (kf_spawn_io), reaped as SIGCHLD comes (the signalfd of
 * kf_proc_init), waited on with a deadline, its output passed on as it
 * comes and read for ncu's replay passes, ended with everything under it
 * (kf_ptree_signal and its group); a stop signal (TERM, INT, HUP) ends
 * any wait. And the GPU's lock of a sweep (pipelines/kf-gpu-lock -l).
 *
 * A handle is an index into a table of at most MAX_KIDS processes, the
 * chain's whole life. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/wait.h>

#include "buf.h"
#include "err.h"
#include "mem.h"
#include "ncu_chain.h"
#include "proc.h"
#include "ptree.h"

#define MAX_KIDS 64
#define GRACE 5.0		/* after TERM, seconds before KILL */
#define LOCK_POLL 0.02		/* seconds between tries of the GPU's lock */

extern char **environ;

struct kid {
	pid_t pid;		/* -1: never ran */
	int status, done;
	int out;		/* the read end of its output, passed on; -1 */
	struct buf line;	/* its output's line in progress */
	double t0, t_end;	/* when it started and ended (kf_now) */
};

static struct kid kids[MAX_KIDS];
static int nkids;
static int sfd = -1, stop_sig;
static long prof_launches, prof_passes;
static double t_connected, t_first, t_last;	/* when ncu's lines said so */
static int said_none;		/* ncu said "No kernels were profiled" */
static long host_backups;	/* ncu said it backed up device memory in host memory */
static int prof_open;		/* a "==PROF== Profiling" line not ended yet */
static int timed = 1;		/* lines read as they come: their time is theirs */
static int lock_fd = -1;
static int lock_op;		/* LOCK_EX or LOCK_SH, while lock_fd is had */
static double alone_since;	/* when the lock was had alone (LOCK_EX), or 0 */
static double alone_s = -1;	/* the seconds it was had alone before; -1: never had */
static double shared_since;	/* when it was had shared (LOCK_SH), or 0 */
static double shared_s = -1;	/* the seconds it was had shared before; -1: never */

int
ncu_proc_init(void)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP };

	sfd = kf_proc_init(sigs, 3);
	return sfd;
}

/* "==PROF== Profiling "k" - 0: 0%....50%....100% - 8 passes"; ncu may
 * print a warning inside it, the rest on a line of its own (on an H100:
 * "==PROF== Profiling "max_pool_forward_nchw" - 0: 0%.", then "==WARNING==
 * Launching the workload is taking more time than expected. ...", then
 * "...50%....100% - 23 passes"). */
static void
scan_line(const char *s, size_t n)
{
	static const char backup[] = "==WARNING== Backing up device memory in system memory";
	const char *p;
	long v;
	int start;

	if (timed && n >= 30 && memmem(s, n, "==PROF== Connected to process", 29) &&
	    t_connected == 0)
		t_connected = kf_now();
	if (n >= 36 && memmem(s, n, "==WARNING== No kernels were profiled", 36))
		said_none = 1;
	if (n >= sizeof backup - 1 && memmem(s, n, backup, sizeof backup - 1))
		host_backups++;
	start = n >= 19 && memmem(s, n, "==PROF== Profiling ", 19) != NULL;
	if (!start && !(prof_open && n > 0 && s[0] == '.'))
		return;
	prof_open = 1;
	while (n > 0 && (s[n - 1] == '\r' || s[n - 1] == ' '))
		n--;
	if (n >= 7 && memcmp(s + n - 7, " passes", 7) == 0)
		n -= 7;
	else if (n >= 5 && memcmp(s + n - 5, " pass", 5) == 0)
		n -= 5;
	else
		return;
	prof_open = 0;
	for (p = s + n; p > s && p[-1] >= '0' && p[-1] <= '9'; p--)
		;
	if (p == s + n)
		return;
	v = strtol(p, NULL, 10);
	prof_launches++;
	prof_passes += v;
	if (!timed)
		return;
	t_last = kf_now();
	if (t_first == 0)
		t_first = t_last;
}

static void
scan(struct buf *line, const char *p, size_t n)
{
	const char *e;

	while (n > 0) {
		if ((e = memchr(p, '\n', n)) == NULL) {
			if (line->len < 4096)
				buf_add(line, p, n);
			return;
		}
		buf_add(line, p, (size_t)(e - p));
		scan_line(line->s ? line->s : "", line->len);
		buf_reset(line);
		n -= (size_t)(e - p) + 1;
		p = e + 1;
	}
}

void
ncu_out(const char *s, size_t n)
{
	ssize_t w;

	while (n > 0) {
		w = write(STDOUT_FILENO, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;		/* no reader: what is left is lost */
		s += w;
		n -= (size_t)w;
	}
}

/* A held program's log: ncu's lines in it count only where the attach's
 * said nothing (one of the two prints them), and have no time of their own. */
void
ncu_out_file(const char *path)
{
	struct buf line = {0};
	char chunk[8192];
	ssize_t n;
	long l = prof_launches, p = prof_passes, h = host_backups;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	timed = 0;
	while ((n = read(fd, chunk, sizeof chunk)) > 0) {
		ncu_out(chunk, (size_t)n);
		scan(&line, chunk, (size_t)n);
	}
	close(fd);
	if (line.len)
		scan_line(line.s, line.len);
	timed = 1;
	buf_free(&line);
	if (l > 0) {
		prof_launches = l;
		prof_passes = p;
	}
	if (h > 0)
		host_backups = h;
}

void
ncu_proc_passes(long *launches, long *passes)
{
	*launches = prof_launches;
	*passes = prof_passes;
}

long
ncu_proc_host_backups(void)
{
	return host_backups;
}

void
ncu_proc_marks_reset(void)
{
	t_connected = t_first = t_last = 0;
	prof_launches = prof_passes = host_backups = 0;
	said_none = prof_open = 0;
}

int
ncu_proc_said_none(void)
{
	return said_none;
}

void
ncu_proc_marks(double *connected, double *first, double *last)
{
	*connected = t_connected;
	*first = t_first;
	*last = t_last;
}

/* Read what kid k's output has; at its end, close it. */
static void
pass_on(struct kid *k)
{
	char chunk[8192];
	ssize_t n = read(k->out, chunk, sizeof chunk);

	if (n > 0) {
		ncu_out(chunk, (size_t)n);
		scan(&k->line, chunk, (size_t)n);
	} else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
		close(k->out);
		k->out = -1;
		if (k->line.len)
			scan_line(k->line.s, k->line.len);
		buf_free(&k->line);
	}
}

static void
reap(void)
{
	int status, i;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
		for (i = 0; i < nkids; i++)
			if (kids[i].pid == pid && !kids[i].done) {
				kids[i].done = 1;
				kids[i].t_end = kf_now();
				kids[i].status = WIFEXITED(status) ? WEXITSTATUS(status) :
				    WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
			}
}

/* Wait for an event (a signal, output) until deadline; handle it. */
static void
pump(double deadline)
{
	struct pollfd pfd[MAX_KIDS + 1];
	int map[MAX_KIDS + 1], n = 0, i, ms;
	double left = deadline - kf_now();
	uint64_t got;

	pfd[n].fd = sfd;
	pfd[n].events = POLLIN;
	map[n++] = -1;
	for (i = 0; i < nkids; i++)
		if (kids[i].out >= 0) {
			pfd[n].fd = kids[i].out;
			pfd[n].events = POLLIN;
			map[n++] = i;
		}
	ms = left <= 0 ? 0 : left > 3600 ? 3600 * 1000 : (int)(left * 1000) + 1;
	if (poll(pfd, (nfds_t)n, ms) <= 0)
		return;
	for (i = 1; i < n; i++)
		if (pfd[i].revents)
			pass_on(&kids[map[i]]);
	if (pfd[0].revents) {
		got = kf_proc_signals(sfd);
		if (got & ((uint64_t)1 << SIGTERM))
			stop_sig = SIGTERM;
		else if (got & ((uint64_t)1 << SIGINT))
			stop_sig = SIGINT;
		else if (got & ((uint64_t)1 << SIGHUP))
			stop_sig = SIGHUP;
		reap();
	}
}

int
ncu_proc_start(char *const argv[], const struct kf_env *env, int in, int out, int err,
    int pass)
{
	int fds[3] = { in, out, err }, p[2] = { -1, -1 }, h;
	struct kid *k;
	pid_t pid;

	if (nkids == MAX_KIDS)
		kf_die(1, "more than %d processes", MAX_KIDS);
	h = nkids++;
	k = &kids[h];
	memset(k, 0, sizeof *k);
	k->out = -1;
	k->t0 = k->t_end = kf_now();
	if (pass && pipe2(p, O_CLOEXEC) == 0) {
		fds[1] = p[1];
		k->out = p[0];
		fcntl(p[0], F_SETFL, O_NONBLOCK);
	}
	pid = kf_spawn_io(argv, env ? env->v : environ, fds);
	if (p[1] >= 0)
		close(p[1]);
	if (pid < 0) {
		int e = errno;

		if (pid == -1 && (e == ENOENT || e == ENOTDIR))
			kf_warn("%s: not found", argv[0]);
		else
			kf_warn("%s: cannot execute: %s", argv[0], strerror(e));
		k->pid = -1;
		k->done = 1;
		k->status = pid == -1 && (e == ENOENT || e == ENOTDIR) ? 127 : 126;
		if (k->out >= 0)
			close(k->out);
		k->out = -1;
		return h;
	}
	k->pid = pid;
	return h;
}

int
ncu_proc_wait(int h, double deadline)
{
	struct kid *k = &kids[h];
	double drain;

	for (;;) {
		reap();
		if (k->done)
			break;
		if (stop_sig)
			return -1;
		if (kf_now() >= deadline)
			return 0;
		pump(deadline);
	}
	/* What it wrote before it ended comes before what comes next; a
	 * process it left behind may hold its output open: not waited for. */
	drain = kf_now() + 0.5;
	while (k->out >= 0 && kf_now() < drain) {
		struct pollfd pfd = { k->out, POLLIN, 0 };

		if (poll(&pfd, 1, 50) > 0)
			pass_on(k);
		else if (k->pid < 0 || kill(-k->pid, 0) != 0)
			break;
	}
	return 1;
}

int
ncu_proc_done(int h)
{
	reap();
	return kids[h].done;
}

int
ncu_proc_status(int h)
{
	return kids[h].status;
}

double
ncu_proc_seconds(int h)
{
	return (kids[h].done ? kids[h].t_end : kf_now()) - kids[h].t0;
}

static int
under(const struct kf_pinfo *p, void *arg)
{
	return p->pid == *(pid_t *)arg;
}

void
ncu_proc_end(int h)
{
	struct kid *k = &kids[h];
	double until;

	if (k->pid < 0)
		return;
	if (!k->done) {
		kf_ptree_signal(under, &k->pid, SIGTERM);
		kill(-k->pid, SIGTERM);
		kill(-k->pid, SIGCONT);
		until = kf_now() + GRACE;
		while (!k->done && kf_now() < until) {
			reap();
			if (!k->done)
				pump(until < kf_now() + 0.1 ? until : kf_now() + 0.1);
		}
		kf_ptree_signal(under, &k->pid, SIGKILL);
		kill(-k->pid, SIGKILL);
		while (!k->done) {
			reap();
			if (!k->done)
				pump(kf_now() + 0.1);
		}
	} else {
		/* What it left in its group (a program ncu started) goes too. */
		kill(-k->pid, SIGKILL);
	}
	if (k->out >= 0) {
		close(k->out);
		k->out = -1;
		buf_free(&k->line);
	}
}

void
ncu_proc_signal(int h, int sig)
{
	struct kid *k = &kids[h];

	if (k->pid > 0 && !k->done)
		kill(-k->pid, sig);
}

void
ncu_proc_end_all(void)
{
	int i;

	for (i = 0; i < nkids; i++)
		if (!kids[i].done)
			ncu_proc_end(i);
}

int
ncu_proc_sleep(double seconds)
{
	double until = kf_now() + seconds;

	while (!stop_sig && kf_now() < until)
		pump(until);
	return stop_sig ? -1 : 0;
}

int
ncu_proc_stopped(void)
{
	return stop_sig;
}

/* flock(fd, op) tried every LOCK_POLL s rather than waited on, since a
 * stop signal must end the wait: 0 once had (or after an error other than
 * a wait, said), -1 on a stop signal. */
static int
lock_poll(int fd, int op, const char *path)
{
	while (flock(fd, op | LOCK_NB) != 0) {
		if (errno != EWOULDBLOCK && errno != EINTR) {
			kf_warn("cannot lock %s:", path);
			return 0;
		}
		if (ncu_proc_sleep(LOCK_POLL) != 0)
			return -1;
	}
	return 0;
}

/* The GPU alone comes first. Under the range gate jobs hold the lock
 * shared while they work before their ranges; a range waiting for it alone
 * would wait while any does, and jobs starting such work would pass it
 * (flock serves no one first). So a request for the lock alone holds the
 * turnstile PATH.turn while it waits, and one for it shared passes through
 * the turnstile (had, then let go) first: jobs starting their work before
 * their ranges queue behind a range that waits, which has the GPU once the
 * jobs already at that work reach their own ranges or end. The shared
 * lock of a job asking for it alone is let go before its turn (flock would
 * let it go anyway to convert it): kept, it would hold up the job at the
 * turnstile, which holds up this one. */
int
ncu_gpu_lock_as(int op, double *waited)
{
	const char *path = getenv("KF_NCU_GPU_LOCK");
	double t = kf_now();
	static int turn_said;
	char *tpath;
	int tfd, st = 0;

	*waited = 0;
	if (path == NULL || *path == '\0' || (lock_fd >= 0 && lock_op == op))
		return 0;
	if (lock_fd >= 0 && op == LOCK_SH) {
		/* from alone to shared: no one to queue behind */
		st = lock_poll(lock_fd, op, path);
	} else {
		/* a lock had shared is let go before the wait for it alone */
		if (shared_since > 0)
			shared_s += kf_now() - shared_since, shared_since = 0;
		if (lock_fd >= 0)
			close(lock_fd);
		if ((lock_fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666)) < 0) {
			kf_warn("cannot open the GPU's lock %s:", path);
			return 0;
		}
		tpath = xasprintf("%s.turn", path);
		if ((tfd = open(tpath, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666)) < 0 &&
		    !turn_said++)
			kf_warn("cannot open %s, the GPU lock's turnstile: no job goes first:", tpath);
		if (tfd >= 0 && (st = lock_poll(tfd, LOCK_EX, tpath)) == 0 && op == LOCK_SH)
			close(tfd), tfd = -1;
		if (st == 0)
			st = lock_poll(lock_fd, op, path);
		if (tfd >= 0)
			close(tfd);
		free(tpath);
	}
	if (st != 0) {
		close(lock_fd);
		lock_fd = -1;
		return -1;
	}
	lock_op = op;
	*waited = kf_now() - t;
	if (alone_s < 0)
		alone_s = 0;
	if (op == LOCK_EX && alone_since == 0)
		alone_since = kf_now();
	else if (op != LOCK_EX && alone_since > 0)
		alone_s += kf_now() - alone_since, alone_since = 0;
	if (op == LOCK_SH && shared_since == 0) {
		if (shared_s < 0)
			shared_s = 0;
		shared_since = kf_now();
	} else if (op != LOCK_SH && shared_since > 0) {
		shared_s += kf_now() - shared_since, shared_since = 0;
	}
	return 0;
}

int
ncu_gpu_lock(double *waited)
{
	return ncu_gpu_lock_as(LOCK_EX, waited);
}

int
ncu_gpu_grant(const char *ack, int op, double *waited)
{
	FILE *f;

	if (ncu_gpu_lock_as(op, waited) != 0)
		return -1;
	if ((f = fopen(ack, "w")) == NULL)
		kf_warn("cannot write %s:", ack);
	else
		fprintf(f, "locked %.3f\n", *waited), fclose(f);
	return 0;
}

int
ncu_gpu_share(void)
{
	double waited;

	if (lock_fd < 0 || lock_op != LOCK_EX)
		return 0;
	return ncu_gpu_lock_as(LOCK_SH, &waited);
}

void
ncu_gpu_unlock(void)
{
	if (lock_fd >= 0)
		close(lock_fd);
	lock_fd = -1;
	if (alone_since > 0)
		alone_s += kf_now() - alone_since, alone_since = 0;
	if (shared_since > 0)
		shared_s += kf_now() - shared_since, shared_since = 0;
}

int
ncu_gpu_held(void)
{
	return lock_fd >= 0 ? lock_op : 0;
}

double
ncu_gpu_alone(void)
{
	return alone_s < 0 ? -1 : alone_s + (alone_since > 0 ? kf_now() - alone_since : 0);
}

double
ncu_gpu_shared(void)
{
	return shared_s < 0 ? -1 : shared_s + (shared_since > 0 ? kf_now() - shared_since : 0);
}
