#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

const char *kf_progname = "kf";

void
kf_init(const char *argv0)
{
	const char *p;

	if (argv0 == NULL || *argv0 == '\0')
		return;
	p = strrchr(argv0, '/');
	kf_progname = p ? p + 1 : argv0;
}

static void
vwarn(const char *fmt, va_list ap)
{
	int saved = errno;
	size_t n = strlen(fmt);

	fprintf(stderr, "%s: ", kf_progname);
	vfprintf(stderr, fmt, ap);
	if (n > 0 && fmt[n - 1] == ':')
		fprintf(stderr, " %s", strerror(saved));
	fputc('\n', stderr);
}

void
kf_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
}

void
kf_die(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
	exit(status);
}
