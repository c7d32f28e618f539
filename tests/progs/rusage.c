/* rusage: run a command and write what it used, as the kernel counted it
 * (wait4), to a file: "MAXRSS_KB USER_S SYS_S". Needs nothing installed,
 * unlike GNU time. usage: rusage OUTFILE CMD [ARG...]; exits as CMD did. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>

int
main(int argc, char **argv)
{
	struct rusage ru;
	FILE *f;
	pid_t pid;
	int st;

	if (argc < 3) {
		fputs("usage: rusage OUTFILE CMD [ARG...]\n", stderr);
		return 2;
	}
	if ((pid = fork()) < 0)
		return perror("fork"), 2;
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		perror(argv[2]);
		_exit(127);
	}
	if (wait4(pid, &st, 0, &ru) < 0)
		return perror("wait4"), 2;
	if ((f = fopen(argv[1], "w")) == NULL)
		return perror(argv[1]), 2;
	fprintf(f, "%ld %.3f %.3f\n", ru.ru_maxrss,
	    ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
	    ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
	if (fclose(f) != 0)
		return perror(argv[1]), 2;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
