/* kf: reading profiler text files line by line, numbers, paths.
 *
 * Ownership: strings returned by kf_lines_next() belong to the reader and
 * stay valid until the next call; everything else returned is the caller's. */
#ifndef KF_TEXT_H
#define KF_TEXT_H

#include <stdio.h>
#include <stddef.h>

/* Lines of any length from a file: the line end (LF or CRLF) removed, NUL
 * bytes dropped (counted in nuls). */
struct kf_lines {
	char *s;		/* the current line, NUL-terminated */
	size_t len;
	long no;		/* its number, from 1 */
	int complete;		/* it ended with a newline (0: cut off at EOF) */
	long nuls;		/* NUL bytes dropped so far */
	int err;		/* the errno of a failed read, else 0 */
	/* The reader's: lines are found in its buffer, not copied out. */
	int fd, eof;
	char *buf;
	size_t cap, beg, end;	/* bytes read and not yet lines: [beg, end) */
	size_t scan;		/* no LF in [beg, scan) */
	size_t nul;		/* the first NUL at or after beg, or end: none */
};
int kf_lines_open(struct kf_lines *l, const char *path);	/* -1 and errno */
/* 1 with a line, 0 at the end, -1 on a read error (errno, and err). A
 * line's bytes may be changed in place. */
int kf_lines_next(struct kf_lines *l);
void kf_lines_close(struct kf_lines *l);

/* A number as profilers print it: optional sign, "," thousands separators,
 * decimals, exponent, surrounding blanks, a trailing "%". 1 if the whole
 * string is one, else 0 (n/a, words, empty). */
int kf_parse_number(const char *s, double *out);
int kf_parse_number_n(const char *s, size_t n, double *out);
/* m * 10^e10 (m of nd significant digits; negated when neg) when it is
 * exact without strtod: 1 and *out, else 0 (use strtod). */
int kf_decimal_exact(unsigned long long m, int nd, int e10, int neg, double *out);

/* Case-insensitive equality and prefix. */
int kf_strieq(const char *a, const char *b);
int kf_startswith(const char *s, const char *prefix);
int kf_endswith(const char *s, const char *suffix);
/* Remove leading and trailing blanks in place; returns s. */
char *kf_trim(char *s);

/* a/b (b absolute: b). */
char *kf_path_join(const char *a, const char *b);
/* mkdir -p; 0, or -1 with errno. */
int kf_mkdirs(const char *path, int mode);
/* The directory of the running program (from /proc/self/exe). */
const char *kf_exe_dir(void);
/* Find a file the project installs: $KF_DATADIR/name, EXE/../share/kf/name,
 * KF_DATADIR_DEFAULT/name. NULL if none exists. */
char *kf_data_file(const char *name);
/* Find a helper script: $KF_LIBEXECDIR/name, EXE/../libexec/kf/name,
 * KF_LIBEXECDIR_DEFAULT/name. */
char *kf_libexec_file(const char *name);
/* The last part of path: "bench.cu" of "/src/bench.cu"; path itself when
 * it has no '/' or ends in one. Points into path. */
const char *kf_base_name(const char *path);
/* A path that is a regular readable file. */
int kf_is_file(const char *path);
int kf_is_dir(const char *path);

/* "SIGKILL"; NULL for a number that is no signal (lib/core/signame.c). */
const char *kf_signame(int sig);

#endif
