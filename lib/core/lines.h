/* kf: reading profiler text files line by line (lines.c).
 *
 * Ownership: the line kf_lines_next() finds belongs to the reader and stays
 * valid until the next call. */
#ifndef KF_LINES_H
#define KF_LINES_H

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

#endif
