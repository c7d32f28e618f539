/* kf: lines from a file (lines.h), found in a buffer of the reader's own:
 * no copy per line (getline copies each out of stdio's buffer) and one
 * pass for NUL bytes per read, not per line. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lines.h"
#include "mem.h"

#define LINES_READ (1 << 16)

int
kf_lines_open(struct kf_lines *l, const char *path)
{
	memset(l, 0, sizeof *l);
	if ((l->fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;	/* l->buf NULL: kf_lines_close does nothing */
	l->cap = LINES_READ;
	l->buf = xmalloc(l->cap);
	return 0;
}

static size_t
first_nul(const struct kf_lines *l, size_t from)
{
	const char *z = memchr(l->buf + from, '\0', l->end - from);

	return z ? (size_t)(z - l->buf) : l->end;
}

/* More bytes after l->end: 1, 0 at the end of the file, -1 on an error. */
static int
fill(struct kf_lines *l)
{
	ssize_t got;

	if (l->beg > 0) {
		memmove(l->buf, l->buf + l->beg, l->end - l->beg);
		l->end -= l->beg;
		l->scan -= l->beg;
		l->nul -= l->beg;
		l->beg = 0;
	}
	/* A line longer than the buffer doubles it. */
	if (l->cap - l->end < LINES_READ / 2) {
		l->cap *= 2;
		l->buf = xrealloc(l->buf, l->cap);
	}
	/* One byte kept for the NUL after a last line without LF. */
	do
		got = read(l->fd, l->buf + l->end, l->cap - l->end - 1);
	while (got < 0 && errno == EINTR);
	if (got <= 0)
		return (int)got;
	if (l->nul == l->end) {
		l->end += (size_t)got;
		l->nul = first_nul(l, l->nul);
	} else {
		l->end += (size_t)got;
	}
	return 1;
}

int
kf_lines_next(struct kf_lines *l)
{
	char *nl, *p, *q, *end;
	size_t a, b, next;
	int got;

	for (;;) {
		if ((nl = memchr(l->buf + l->scan, '\n', l->end - l->scan)) != NULL) {
			a = l->beg;
			b = (size_t)(nl - l->buf);
			next = b + 1;
			l->complete = 1;
			break;
		}
		l->scan = l->end;
		if (!l->eof) {
			if ((got = fill(l)) < 0) {
				l->err = errno;
				return -1;
			}
			l->eof = got == 0;
			continue;
		}
		if (l->beg == l->end)
			return 0;
		a = l->beg;
		b = next = l->end;
		l->complete = 0;
		break;
	}
	l->no++;
	l->beg = l->scan = next;
	l->s = l->buf + a;
	if (l->nul < b) {
		for (p = q = l->s, end = l->buf + b; p < end; p++) {
			if (*p)
				*q++ = *p;
			else
				l->nuls++;
		}
		b = (size_t)(q - l->buf);
		l->nul = first_nul(l, next);
	}
	if (b > a && l->buf[b - 1] == '\r')
		b--;
	l->buf[b] = '\0';
	l->len = b - a;
	return 1;
}

void
kf_lines_close(struct kf_lines *l)
{
	if (l->buf) {
		close(l->fd);
		free(l->buf);
	}
	memset(l, 0, sizeof *l);
}
