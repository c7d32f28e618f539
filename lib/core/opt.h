/* kf: one way to parse options.
 *
 * Each program lists its options in a struct option array that ends with
 * KF_OPT_COMMON, and calls kf_getopt() in a loop; --help, --version and
 * -u/--unbuffered (put "u" in shortopts) are handled here. Usage errors exit with status 2. */
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
/* Print "prog: msg", the usage, and exit 2. */
void kf_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void kf_usage(void) __attribute__((noreturn));

/* Option values; a bad value is a usage error naming the option. */
double kf_opt_seconds(const char *arg, const char *opt);
long kf_opt_long(const char *arg, const char *opt, long min, long max);
/* A size with an optional K, M or G suffix (powers of 1024). */
size_t kf_opt_size(const char *arg, const char *opt);

#endif
