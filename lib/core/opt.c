/* kf: one way to parse options: getopt_long with --help and --version for
 * every program, usage errors (status 2), and typed option values, durations with units (opt.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "mem.h"
#include "opt.h"
#include "record.h"

#ifndef KF_VERSION
#define KF_VERSION "0"
#endif

static const char *usage_text = "";
static const char *usage_prog;		/* kf_opt_usage_of: whose usage errors */
static const char *usage_of = "";
static const char *help_text = "";
/* What kf_getopt() was last given, for --complete. */
static const char *cur_shortopts = "";
static const struct option *cur_longopts;
static const struct kf_optarg *complete_args;
static void (*complete_more)(void);
static void (*bad_option_hint)(const char *word);

void
kf_opt_init(const char *usage, const char *help)
{
	usage_text = usage;
	help_text = help ? help : "";
}

void
kf_opt_usage_of(const char *prog, const char *usage)
{
	usage_prog = prog;
	usage_of = usage;
}

static void
print_usage(FILE *f)
{
	const char *p = f == stderr && usage_prog ? usage_of : usage_text, *nl;
	const char *prog = f == stderr && usage_prog ? usage_prog : kf_progname;
	int first = 1;

	/* Each SYNOPSIS line is prefixed with "usage: prog" or its indent. */
	while (*p) {
		nl = strchr(p, '\n');
		if (nl == NULL)
			nl = p + strlen(p);
		fprintf(f, "%s %s %.*s\n", first ? "usage:" : "      ",
		    prog, (int)(nl - p), p);
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

	va_start(ap, fmt);
	kf_vwarn(fmt, ap);
	va_end(ap);
	kf_usage();
}

/* shortopts with "h" and ':' (a missing value is told apart) added after
 * a leading '+' or '-'; one program has one set of short options, so the
 * string is made once. */
static const char *
with_h(const char *shortopts)
{
	static char buf[128];
	size_t lead = shortopts[0] == '+' || shortopts[0] == '-';

	if (buf[0] == '\0') {
		if (strlen(shortopts) + 3 > sizeof buf)
			return shortopts;
		memcpy(buf, shortopts, lead);
		buf[lead] = ':';
		buf[lead + 1] = 'h';
		strcpy(buf + lead + 2, shortopts + lead);
	}
	return buf;
}

void
kf_opt_hint(void (*fn)(const char *word))
{
	bad_option_hint = fn;
}

/* How many long options start with name (n bytes). */
static int
prefix_matches(const char *name, size_t n)
{
	const struct option *o;
	int k = 0;

	for (o = cur_longopts; o && o->name; o++)
		k += strncmp(o->name, name, n) == 0;
	return k;
}

/* getopt_long's complaint c ('?', ':') about the word before optind, said
 * here, with the program's name and its hint, then the usage. */
static void __attribute__((noreturn))
bad_option(int c, int argc, char **argv)
{
	const char *w = optind > 0 && optind <= argc ? argv[optind - 1] : "";
	int is_long = strncmp(w, "--", 2) == 0 && w[2];
	size_t n = is_long ? strcspn(w + 2, "=") : 0;
	char *word = is_long ? xasprintf("--%.*s", (int)n, w + 2) :
	    xasprintf("-%c", optopt ? optopt : '?');

	if (c == ':')
		kf_warn("option '%s' requires an argument", word);
	else if (is_long && optopt)
		kf_warn("option '%s' doesn't allow an argument", word);
	else if (is_long && prefix_matches(w + 2, n) > 1)
		kf_warn("option '%s' is ambiguous", word);
	else
		kf_warn("unrecognized option '%s'", word);
	if (c == '?' && bad_option_hint)
		bad_option_hint(word);
	free(word);
	kf_usage();
}

int
kf_getopt(int argc, char **argv, const char *shortopts,
    const struct option *longopts)
{
	int c;

	cur_shortopts = shortopts;
	cur_longopts = longopts;
	opterr = 0;
	for (;;) {
		c = getopt_long(argc, argv, with_h(shortopts), longopts, NULL);
		if (c == '?' || c == ':')
			bad_option(c, argc, argv);
		if (!kf_opt_common(c))
			return c;
	}
}

void
kf_opt_deprecated(const char *old, const char *now)
{
	static int said;

	if (!said++)
		kf_warn("%s is now %s; the old name will go", old, now);
}

void
kf_opt_complete(const struct kf_optarg *args, void (*more)(void))
{
	complete_args = args;
	complete_more = more;
}

void
kf_complete_line(const char *where, const char *name, int kind, const char *word)
{
	static const char *const kinds[] = { "flag", "value", "file", "dir", "command",
		"words" };

	if (word)
		printf("%s\t%s\tword\t%s\n", where, name, word);
	else if (kind >= 0 && kind <= KF_ARG_WORDS)
		printf("%s\t%s\t%s\n", where, name, kinds[kind]);
}

/* kf_say_fn has no context: the option being listed is kept here. */
static const char *say_where, *say_name;

static void
say_word(const char *w)
{
	kf_complete_line(say_where, say_name, 0, w);
}

static const struct kf_optarg *
arg_entry(const struct kf_optarg *args, const char *name)
{
	for (; args && args->name; args++)
		if (strcmp(args->name, name) == 0)
			return args;
	return NULL;
}

/* The lines of one option: its kind, and for words each value. */
static void
option_lines(const char *where, const char *name, int has_arg, const struct kf_optarg *a)
{
	const char *const *w;
	int kind = a ? a->kind : has_arg != no_argument ? KF_ARG_VALUE : 0;

	if (kind == KF_ARG_HIDDEN)
		return;
	kf_complete_line(where, name, kind, NULL);
	if (kind != KF_ARG_WORDS)
		return;
	for (w = a->words; w && *w; w++)
		kf_complete_line(where, name, 0, *w);
	say_where = where;
	say_name = name;
	if (a->list)
		a->list(say_word);
}

void
kf_complete_option(const char *where, const char *name, int has_arg,
    const struct kf_optarg *args)
{
	option_lines(where, name, has_arg,
	    arg_entry(args, strncmp(name, "--", 2) == 0 ? name + 2 : name));
}

/* The long option whose short form is c, or NULL. */
static const struct option *
long_of(int c)
{
	const struct option *o;

	for (o = cur_longopts; o && o->name; o++)
		if (o->val == c)
			return o;
	return NULL;
}

/* Every option kf_getopt() knows, long and short, then the program's more. */
static void
complete(void)
{
	const struct option *o, *l;
	const struct kf_optarg *a;
	const char *s;
	char shortname[3] = "-";

	for (o = cur_longopts; o && o->name; o++) {
		char *name;

		if (o->val == KF_OPT_COMPLETE)
			continue;
		name = xasprintf("--%s", o->name);
		option_lines("-", name, o->has_arg, arg_entry(complete_args, o->name));
		free(name);
	}
	/* a short option is listed as its long one */
	for (s = with_h(cur_shortopts); *s; s++) {
		if (*s == ':' || *s == '+' || *s == '-')
			continue;
		shortname[1] = *s;
		if ((l = long_of(*s == 'h' ? KF_OPT_HELP : *s)) != NULL)
			option_lines("-", shortname, l->has_arg, arg_entry(complete_args, l->name));
		else
			kf_complete_line("-", shortname, s[1] == ':' ? KF_ARG_VALUE : 0, NULL);
	}
	/* the operands: "PROFILER", "FILE" */
	for (a = complete_args; a && a->name; a++)
		if (a->name[0] >= 'A' && a->name[0] <= 'Z')
			option_lines("-", a->name, required_argument, a);
	if (complete_more)
		complete_more();
}

void
kf_opt_help(void)
{
	print_usage(stdout);
	fputs(help_text, stdout);
}

int
kf_opt_common(int c)
{
	switch (c) {
	case 'h':
	case KF_OPT_HELP:
		kf_opt_help();
		exit(fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1);
	case KF_OPT_VERSION:
		printf("%s %s\n", kf_progname, KF_VERSION);
		exit(fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1);
	case KF_OPT_COMPLETE:
		complete();
		exit(fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1);
	case 'u':
		kf_set_unbuffered(1);
		return 1;
	default:
		return 0;
	}
}

int
kf_duration(const char *arg, double *seconds)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(arg, &end);
	if (end == arg || errno || d < 0 || isnan(d) || isinf(d) ||
	    (!(*arg >= '0' && *arg <= '9') && *arg != '.'))
		return -1;
	switch (*end) {
	case '\0': case 's': break;
	case 'm': d *= 60; break;
	case 'h': d *= 3600; break;
	case 'd': d *= 86400; break;
	default: return -1;
	}
	if (*end && end[1])
		return -1;
	if (isinf(d))
		return -1;
	*seconds = d;
	return 0;
}

double
kf_opt_seconds(const char *arg, const char *opt)
{
	double d;

	if (kf_duration(arg, &d) != 0)
		kf_usage_error("%s: not a number of seconds: '%s' (or with a unit: "
		    "90s, 5m, 1h, 1d)", opt, arg);
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

double
kf_opt_pct(const char *arg, const char *opt)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(arg, &end);
	if (end == arg || (*end && strcmp(end, "%") != 0) || errno || !(d >= 0 && d < 100))
		kf_usage_error("%s: expected a percentage from 0 up to 100: '%s'", opt, arg);
	return d;
}
