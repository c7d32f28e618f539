/* kf: signal names ("SIGKILL") for messages and records (signame.h). */
#include <signal.h>
#include <stdio.h>

#include "signame.h"

static const char *const signames[] = {
	NULL, "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT",
	"SIGBUS", "SIGFPE", "SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2",
	"SIGPIPE", "SIGALRM", "SIGTERM", "SIGSTKFLT", "SIGCHLD", "SIGCONT",
	"SIGSTOP", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGURG", "SIGXCPU",
	"SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH", "SIGIO", "SIGPWR",
	"SIGSYS",
};

const char *
kf_signame(int sig)
{
	static char rt[24];

	if (sig > 0 && sig < (int)(sizeof signames / sizeof signames[0]))
		return signames[sig];
	if (sig >= SIGRTMIN && sig <= SIGRTMAX) {
		snprintf(rt, sizeof rt, "SIGRTMIN+%d", sig - SIGRTMIN);
		return rt;
	}
	return NULL;
}
