/* kf: one way to parse options.
 *
 * Each program lists its options in a struct option array that ends with
 * KF_OPT_COMMON, and calls kf_getopt() in a loop; --help, --version and
 * -u/--unbuffered (put "u" in shortopts) are handled here, and -h is --help in every program. Usage errors exit with status 2. */
#ifndef KF_OPT_H
#define KF_OPT_H

#include <getopt.h>
#include <stddef.h>

enum { KF_OPT_HELP = 0x1000, KF_OPT_VERSION, KF_OPT_COMPLETE };

/* --complete is not in --help: it is for the shell's completion. */
#define KF_OPT_COMMON \
	{ "help", no_argument, NULL, KF_OPT_HELP }, \
	{ "version", no_argument, NULL, KF_OPT_VERSION }, \
	{ "unbuffered", no_argument, NULL, 'u' }, \
	{ "complete", no_argument, NULL, KF_OPT_COMPLETE }, \
	{ NULL, 0, NULL, 0 }

/* usage: the SYNOPSIS lines; help: the option list printed by --help. */
void kf_opt_init(const char *usage, const char *help);
/* getopt_long() that handles the common options; returns -1 at the end.
 * An option it does not know, or without its value, is a usage error:
 * "prog: unrecognized option '--x'", the hint (kf_opt_hint), the usage. */
int kf_getopt(int argc, char **argv, const char *shortopts,
    const struct option *longopts);
/* The common options' work for an option code c (-h, --help, --version
 * exit; -u sets unbuffered output): 1 when c was one, else 0. For a program
 * that parses some words itself. */
int kf_opt_common(int c);
/* The usage and the help, on standard output (what --help prints). */
void kf_opt_help(void);
/* fn(word) says, with kf_warn(), what to do about the unrecognized option
 * word ("--x", "-x"), before the usage. */
void kf_opt_hint(void (*fn)(const char *word));
/* A stage that another program runs for the user (kf-wrap under kf): its
 * usage errors show prog's usage, what the user typed, instead of its own. */
void kf_opt_usage_of(const char *prog, const char *usage);
/* Print "prog: msg", the usage, and exit 2. */
void kf_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void kf_usage(void) __attribute__((noreturn));

/* An option that has a new name: says so on standard error, once. */
void kf_opt_deprecated(const char *old, const char *now);

/* Completion. PROG --complete prints what PROG accepts, for
 * completion/kf.bash, one line each, fields separated by tabs:
 *	WHERE NAME KIND [VALUE]
 * WHERE is "-" (before a PROFILER operand, or anywhere in a program that
 * takes none), "+" (after any PROFILER) or a profiler's name (after that
 * one); NAME an option ("--gpu", "-n") or "PROFILER" (the first operand);
 * KIND "flag", "value" (a number or a name: nothing to offer), "file",
 * "dir", "command" or "words", and a "word" line for each value. Options
 * with no struct kf_optarg entry are flags or values as longopts says. */
enum { KF_ARG_VALUE = 1, KF_ARG_FILE, KF_ARG_DIR, KF_ARG_COMMAND, KF_ARG_WORDS,
	KF_ARG_HIDDEN };
typedef void kf_say_fn(const char *word);
struct kf_optarg {
	const char *name;		/* the long option without "--"; "PROFILER" */
	int kind;			/* KF_ARG_*; HIDDEN: a deprecated name */
	const char *const *words;	/* WORDS: values, NULL-terminated; may be NULL */
	void (*list)(kf_say_fn *say);	/* WORDS: values computed; may be NULL */
};
/* args ends with name NULL; more (may be NULL) prints further lines with
 * kf_complete_line(), after the options kf_getopt() was given. */
void kf_opt_complete(const struct kf_optarg *args, void (*more)(void));
void kf_complete_line(const char *where, const char *name, int kind, const char *word);
/* An option and its values, as args describes it (or as a flag or value). */
void kf_complete_option(const char *where, const char *name, int has_arg,
    const struct kf_optarg *args);

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
