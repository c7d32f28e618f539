/* kf: one way to parse options.
 *
 * Each program lists its options in a struct option array that ends with
 * KF_OPT_COMMON, and calls kf_getopt() in a loop; --help, --version and
 * -u/--unbuffered (put "u" in shortopts) are handled here, and -h is --help in every program. Usage errors exit with status 2. */
#ifndef KF_OPT_H
#define KF_OPT_H

#include <getopt.h>

enum { KF_OPT_HELP = 0x1000, KF_OPT_VERSION };

#define KF_OPT_COMMON \
	{ "help", no_argument, NULL, KF_OPT_HELP }, \
	{ "version", no_argument, NULL, KF_OPT_VERSION }, \
	{ "unbuffered", no_argument, NULL, 'u' }, \
	{ NULL, 0, NULL, 0 }

/* usage: the SYNOPSIS lines; help: the option list printed by --help. */
void kf_opt_init(const char *usage, const char *help);
/* getopt_long() that handles the common options; returns -1 at the end. */
int kf_getopt(int argc, char **argv, const char *shortopts,
    const struct option *longopts);
/* The common options' work for an option code c (-h, --help, --version
 * exit; -u sets unbuffered output): 1 when c was one, else 0. For a program
 * that parses some words itself. */
int kf_opt_common(int c);
/* Print "prog: msg", the usage, and exit 2. */
void kf_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void kf_usage(void) __attribute__((noreturn));

/* Option values; a bad value is a usage error naming the option. */
/* A duration as timeout(1) takes it: a number of seconds, or with one of
 * the units s, m, h, d ("90s", "5m", "1.5h"). */
double kf_opt_seconds(const char *arg, const char *opt);
/* The same, for any caller: 0 and *seconds set, or -1 when arg is not one. */
int kf_duration(const char *arg, double *seconds);
long kf_opt_long(const char *arg, const char *opt, long min, long max);
/* A size with an optional K, M or G suffix (powers of 1024). */
size_t kf_opt_size(const char *arg, const char *opt);
/* A percentage, 0 <= p < 100, with or without a trailing '%'. */
double kf_opt_pct(const char *arg, const char *opt);

#endif
