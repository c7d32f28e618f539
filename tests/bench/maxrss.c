/* maxrss: run a command and say what it cost.
 *
 *   maxrss [-n N] [-o FILE] CMD [ARG...]
 *
 * Runs CMD N times (default 1), one after the other, with the standard
 * streams it was given, and writes one line to FILE (default standard
 * error):
 *
 *   wall_s user_s sys_s maxrss_kb status
 *
 * wall_s is the total over the N runs (CLOCK_MONOTONIC), user_s and sys_s
 * the CPU time of the runs and of the children they waited for (wait4),
 * maxrss_kb the largest peak resident set of any run, status the last
 * run's exit status (128+N for a signal). Exit status: the last run's, or
 * 125 when maxrss itself fails. The benchmark (tests/bench/run) builds it. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double
tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

struct cost {
	double user, sys;
	long maxrss;
};

/* One run: its status, its cost added into *tot (maxrss: the largest). */
static int
run_once(char **argv, struct cost *tot)
{
	struct rusage ru;
	pid_t pid;
	int st;

	if ((pid = fork()) < 0) {
		perror("maxrss: fork");
		exit(125);
	}
	if (pid == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "maxrss: %s: %s\n", argv[0], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	while (wait4(pid, &st, 0, &ru) < 0) {
		if (errno != EINTR) {
			perror("maxrss: wait4");
			exit(125);
		}
	}
	tot->user += tv_s(ru.ru_utime);
	tot->sys += tv_s(ru.ru_stime);
	if (ru.ru_maxrss > tot->maxrss)
		tot->maxrss = ru.ru_maxrss;
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}

static void
usage(void)
{
	fputs("usage: maxrss [-n N] [-o FILE] CMD [ARG...]\n", stderr);
	exit(125);
}

int
main(int argc, char **argv)
{
	struct cost tot;
	const char *out = NULL;
	long i, n = 1;
	double t0, wall;
	FILE *f = stderr;
	int c, st = 0;

	while ((c = getopt(argc, argv, "+n:o:")) != -1) {
		switch (c) {
		case 'n':
			n = strtol(optarg, NULL, 10);
			if (n < 1)
				usage();
			break;
		case 'o':
			out = optarg;
			break;
		default:
			usage();
		}
	}
	if (optind >= argc)
		usage();
	memset(&tot, 0, sizeof tot);
	t0 = now();
	for (i = 0; i < n; i++)
		st = run_once(argv + optind, &tot);
	wall = now() - t0;
	if (out && (f = fopen(out, "w")) == NULL) {
		fprintf(stderr, "maxrss: %s: %s\n", out, strerror(errno));
		return 125;
	}
	fprintf(f, "%.6f %.6f %.6f %ld %d\n", wall, tot.user, tot.sys, tot.maxrss, st);
	if (f != stderr && fclose(f) != 0) {
		perror("maxrss: write");
		return 125;
	}
	return st;
}
