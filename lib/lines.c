#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"
#include "util.h"

int
kf_lines_open(struct kf_lines *l, const char *path)
{
	FILE *f = fopen(path, "r");

	if (f == NULL)
		return -1;
	kf_lines_fdopen(l, f);
	l->owned = 1;
	return 0;
}

void
kf_lines_fdopen(struct kf_lines *l, FILE *f)
{
	memset(l, 0, sizeof *l);
	l->f = f;
}

int
kf_lines_next(struct kf_lines *l)
{
	ssize_t n = getline(&l->s, &l->cap, l->f);
	char *p, *q, *end;

	if (n < 0)
		return ferror(l->f) ? -1 : 0;
	l->no++;
	l->complete = n > 0 && l->s[n - 1] == '\n';
	if (l->complete)
		n--;
	if (n > 0 && l->s[n - 1] == '\r')
		n--;
	if (memchr(l->s, '\0', (size_t)n)) {
		for (p = q = l->s, end = l->s + n; p < end; p++) {
			if (*p)
				*q++ = *p;
			else
				l->nuls++;
		}
		n = q - l->s;
	}
	l->s[n] = '\0';
	l->len = (size_t)n;
	return 1;
}

void
kf_lines_close(struct kf_lines *l)
{
	if (l->owned && l->f)
		fclose(l->f);
	free(l->s);
	memset(l, 0, sizeof *l);
}
