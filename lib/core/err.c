/* kf: the program's name, warnings and fatal errors on stderr (err.h);
 * standard descriptors held open so that nothing else takes them. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"

const char *kf_progname = "kf";

/* A closed standard descriptor would be taken by the next open(), pipe() or
 * signalfd(), and records would go there. Hold it with /dev/null opened
 * the wrong way round: reads see EOF, writes fail with EBADF as they should. */
static void
hold_std_fds(void)
{
	int fd;

	for (fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
			continue;
		if (open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY) != fd)
			_exit(1);
	}
}

void
kf_init(const char *argv0)
{
	static char outbuf[1 << 16];
	static int out_set;
	const char *p;

	hold_std_fds();
	/* Records are long and go to pipes: 64 KiB a write, not 4 (a
	 * terminal keeps its line buffering). Once, before any output. */
	if (!out_set && !isatty(STDOUT_FILENO))
		setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
	out_set = 1;
	if (argv0 == NULL || *argv0 == '\0')
		return;
	p = strrchr(argv0, '/');
	kf_progname = p ? p + 1 : argv0;
}

/* One write(2) for the whole line, so that the messages of processes that
 * share the descriptor (kf's stages, a child whose exec failed) never
 * interleave; a message too long for the buffer is cut, not lost. */
void
kf_vwarn(const char *fmt, va_list ap)
{
	char m[4096];
	int saved = errno, len;
	size_t n = strlen(fmt), used;
	const char *p;
	ssize_t w;

	len = snprintf(m, sizeof m, "%s: ", kf_progname);
	used = len < 0 ? 0 : (size_t)len < sizeof m ? (size_t)len : sizeof m - 1;
	len = vsnprintf(m + used, sizeof m - used, fmt, ap);
	if (len > 0)
		used += (size_t)len < sizeof m - used ? (size_t)len : sizeof m - used - 1;
	if (n > 0 && fmt[n - 1] == ':' && used < sizeof m - 1) {
		len = snprintf(m + used, sizeof m - used, " %s", strerror(saved));
		if (len > 0)
			used += (size_t)len < sizeof m - used ? (size_t)len : sizeof m - used - 1;
	}
	if (used >= sizeof m - 1)
		used = sizeof m - 2;
	m[used++] = '\n';
	fflush(stderr);
	for (p = m; used > 0; p += w, used -= (size_t)w) {
		w = write(STDERR_FILENO, p, used);
		if (w < 0 && errno == EINTR) {
			w = 0;
			continue;
		}
		if (w <= 0)
			break;
	}
	errno = saved;
}

void
kf_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	kf_vwarn(fmt, ap);
	va_end(ap);
}

void
kf_die(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	kf_vwarn(fmt, ap);
	va_end(ap);
	exit(status);
}
