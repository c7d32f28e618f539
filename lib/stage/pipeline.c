/* kf: a pipeline of programs by fork and exec (see pipeline.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "err.h"
#include "mem.h"
#include "pipeline.h"

#define MAX_STAGES 16

static volatile sig_atomic_t npids, nforward;
static pid_t pids[MAX_STAGES];

char *
kf_sibling(const char *name)
{
	char self[PATH_MAX], *slash, *path;
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);

	if (n <= 0)
		return xstrdup(name);
	self[n] = '\0';
	if ((slash = strrchr(self, '/')) == NULL)
		return xstrdup(name);
	*slash = '\0';
	path = xasprintf("%s/%s", self, name);
	if (access(path, X_OK) == 0)
		return path;
	free(path);
	return xstrdup(name);
}

static volatile sig_atomic_t got;

static void
pass_on(int sig)
{
	sig_atomic_t i;

	got = sig;
	for (i = 0; i < npids && i < nforward; i++)
		kill(pids[i], sig);
}

/* SIGINT and SIGQUIT reach the stages from the terminal (or the group):
 * only noted here. */
static void
note(int sig)
{
	got = sig;
}

int
kf_pipeline_signal(void)
{
	return got;
}

/* In the child: its pipe ends on 0 and 1, the dispositions of a fresh
 * program, then the program. A stage after those that start work ignores
 * the signals that stop work: when they come to the whole group (a
 * terminal's ^C, timeout(1), CI), it still reads to the end of what the
 * stages before it write and says what happened. */
static void
exec_stage(char *const argv[], int in, int out, int late)
{
	static const int sigs[] = { SIGINT, SIGQUIT, SIGTERM, SIGHUP };
	size_t i;

	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		signal(sigs[i], late ? SIG_IGN : SIG_DFL);
	if ((in != 0 && (dup2(in, 0) < 0 || close(in) != 0)) ||
	    (out != 1 && (dup2(out, 1) < 0 || close(out) != 0)))
		_exit(126);
	execvp(argv[0], argv);
	kf_warn("cannot run %s:", argv[0]);
	_exit(errno == ENOENT || errno == ENOTDIR ? 127 : 126);
}

int
kf_wait_status(int ws)
{
	if (WIFEXITED(ws))
		return WEXITSTATUS(ws);
	if (WIFSIGNALED(ws))
		return 128 + WTERMSIG(ws);
	return 1;
}

static void spawn_stage(char *const argv[], pid_t pgid, int in, int out, int err,
    int late);

/* Start the stages, the first reading in, the last writing out, each pid
 * into pid_of[] as it starts (*started counts them, for the signal
 * handler); with group, in a process group of their own with standard
 * error on err (kf_pipeline_spawn). Returns how many started (all but
 * after a failed pipe or fork). */
static int
start_stages(char *const *const cmds[], int n, int forward, int in, int out, int err,
    int group, pid_t pid_of[], volatile sig_atomic_t *started)
{
	int i, fd[2], from = in;
	pid_t pid;

	for (i = 0; i < n; i++) {
		fd[0] = -1;
		fd[1] = out;
		if (i < n - 1 && pipe2(fd, O_CLOEXEC) != 0) {
			kf_warn("pipe:");
			break;
		}
		if ((pid = fork()) < 0) {
			kf_warn("fork:");
			if (fd[0] >= 0) {
				close(fd[0]);
				close(fd[1]);
			}
			break;
		}
		if (pid == 0 && group)
			spawn_stage(cmds[i], i ? pid_of[0] : 0, from, fd[1], err, i >= forward);
		if (pid == 0)
			exec_stage(cmds[i], from, fd[1], i >= forward);
		/* Also here, so that the group is there before a signal to it. */
		if (group)
			setpgid(pid, i ? pid_of[0] : pid);
		pid_of[i] = pid;
		if (started)
			*started = i + 1;
		if (from != in)
			close(from);
		if (fd[1] != out)
			close(fd[1]);
		from = fd[0];
	}
	if (from != in && from >= 0)
		close(from);
	return i;
}

int
kf_pipeline_run(char *const *const cmds[], int n, int forward)
{
	struct sigaction ign = { .sa_handler = note }, fwd = { .sa_handler = pass_on };
	struct sigaction old[4];
	int status[MAX_STAGES] = {0}, i, started, ws, ret = 0;
	pid_t pid;

	if (n < 1 || n > MAX_STAGES)
		return 2;
	nforward = forward;
	sigaction(SIGINT, &ign, &old[0]);
	sigaction(SIGQUIT, &ign, &old[1]);
	sigaction(SIGTERM, &fwd, &old[2]);
	sigaction(SIGHUP, &fwd, &old[3]);
	started = start_stages(cmds, n, forward, 0, 1, 2, 0, pids, &npids);
	for (i = 0; i < started; ) {
		if ((pid = waitpid(-1, &ws, 0)) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int k = 0; k < started; k++)
			if (pids[k] == pid)
				status[k] = kf_wait_status(ws);
		i++;
	}
	npids = 0;
	sigaction(SIGINT, &old[0], NULL);
	sigaction(SIGQUIT, &old[1], NULL);
	sigaction(SIGTERM, &old[2], NULL);
	sigaction(SIGHUP, &old[3], NULL);
	for (i = 0; i < started; i++)
		if (status[i])
			ret = status[i];
	return started < n ? (ret ? ret : 1) : ret;
}

/* A stage of kf_pipeline_spawn, in the child: its group, a fresh mask and
 * SIGPIPE, its standard error, then as kf_pipeline_run's stages. */
static void
spawn_stage(char *const argv[], pid_t pgid, int in, int out, int err, int late)
{
	sigset_t none;

	setpgid(0, pgid);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	if (err != 2 && dup2(err, 2) < 0)
		_exit(126);
	exec_stage(argv, in, out, late);
}

int
kf_pipeline_spawn(char *const *const cmds[], int n, int forward, int in,
    int out, int err, pid_t pid_of[])
{
	return start_stages(cmds, n, forward, in, out, err, 1, pid_of, NULL);
}
