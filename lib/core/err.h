/* kf: the program's name, and warnings and fatal errors on stderr (err.c). */
#ifndef KF_ERR_H
#define KF_ERR_H

#include <stdarg.h>

extern const char *kf_progname;	/* "kf-read"; set by kf_init() */

void kf_init(const char *argv0);

/* Print "prog: msg" to stderr: the one printer of every message kf writes
 * there. A format ending in ':' gets " strerror(errno)". */
void kf_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void kf_vwarn(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
/* kf_warn, then exit(status). */
void kf_die(int status, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

#endif
