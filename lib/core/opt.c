/* kf: one way to parse options: getopt_long with --help and --version for
 * every program, usage errors (status 2), and typed option values (opt.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opt.h"
#include "record.h"

#ifndef KF_VERSION
#define KF_VERSION "0"
#endif

static const char *usage_text = "";
static const char *help_text = "";

void
kf_opt_init(const char *usage, const char *help)
{
	usage_text = usage;
	help_text = help ? help : "";
}

static void
print_usage(FILE *f)
{
	const char *p = usage_text, *nl;
	int first = 1;

	/* Each SYNOPSIS line is prefixed with "usage: prog" or its indent. */
	while (*p) {
		nl = strchr(p, '\n');
		if (nl == NULL)
			nl = p + strlen(p);
		fprintf(f, "%s %s %.*s\n", first ? "usage:" : "      ",
		    kf_progname, (int)(nl - p), p);
		first = 0;
		p = *nl ? nl + 1 : nl;
	}
}

void
kf_usage(void)
{
	print_usage(stderr);
	exit(2);
}

void
kf_usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", kf_progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	kf_usage();
}

int
kf_getopt(int argc, char **argv, const char *shortopts,
    const struct option *longopts)
{
	int c;

	for (;;) {
		c = getopt_long(argc, argv, shortopts, longopts, NULL);
		switch (c) {
		case KF_OPT_HELP:
			print_usage(stdout);
			fputs(help_text, stdout);
			exit(fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1);
		case KF_OPT_VERSION:
			printf("%s %s\n", kf_progname, KF_VERSION);
			exit(fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1);
		case 'u':
			kf_set_unbuffered(1);
			continue;
		case '?':
		case ':':
			kf_usage();
		default:
			return c;
		}
	}
}

double
kf_opt_seconds(const char *arg, const char *opt)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(arg, &end);
	if (end == arg || *end || errno || d < 0 || isnan(d) || isinf(d))
		kf_usage_error("%s: not a number of seconds: '%s'", opt, arg);
	return d;
}

long
kf_opt_long(const char *arg, const char *opt, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (end == arg || *end || errno || v < min || v > max)
		kf_usage_error("%s: expected a whole number from %ld to %ld: '%s'",
		    opt, min, max, arg);
	return v;
}

size_t
kf_opt_size(const char *arg, const char *opt)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(arg, &end);
	if (end == arg || errno || d < 0 || isnan(d))
		kf_usage_error("%s: not a size: '%s'", opt, arg);
	switch (*end) {
	case 'k': case 'K': d *= 1024; end++; break;
	case 'm': case 'M': d *= 1024 * 1024; end++; break;
	case 'g': case 'G': d *= 1024.0 * 1024 * 1024; end++; break;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end || d > 1e15)
		kf_usage_error("%s: not a size: '%s'", opt, arg);
	return (size_t)d;
}
