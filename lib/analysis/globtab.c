/* kf: tables of kernel-name globs read from share/kf, for the machinery
 * set aside and the kernel classes. */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "globtab.h"
#include "mem.h"
#include "path.h"

/* A pattern for mangled names: each "::" of it matches anything, as the
 * lengths and codes between a mangled name's parts do
 * ("*stream_executor::*DelayKernel*" matches
 * "_ZN15stream_executor12_GLOBAL__N_111DelayKernelE..."). */
static char *
mangled_pattern(const char *p)
{
	char *m = xstrdup(p), *d = m;

	for (; *p; p++) {
		if (p[0] == ':' && p[1] == ':') {
			*d++ = '*';
			p++;
		} else {
			*d++ = *p;
		}
	}
	*d = '\0';
	return m;
}

/* One row of ncols tab-separated fields, none empty: 1; a comment or a
 * blank line: 0; anything else: -1. */
static int
parse_line(char *line, int ncols, struct kf_globrow *r)
{
	char *f[KF_GLOBTAB_MAXCOLS], *p = line;
	int i;

	line[strcspn(line, "\r\n")] = '\0';
	if (line[0] == '#' || line[0] == '\0')
		return 0;
	for (i = 0; i < ncols; i++) {
		f[i] = p;
		p = strchr(p, '\t');
		if ((p == NULL) != (i == ncols - 1))
			return -1;
		if (p)
			*p++ = '\0';
		if (f[i][0] == '\0')
			return -1;
	}
	memset(r, 0, sizeof *r);
	for (i = 0; i < ncols; i++)
		r->col[i] = xstrdup(f[i]);
	r->mangled = mangled_pattern(f[0]);
	return 1;
}

static void
load(struct kf_globtab *t)
{
	char *path = kf_data_file(t->file), *line = NULL;
	size_t cap = 0, no = 0;
	FILE *f;

	t->loaded = 1;
	if (path == NULL || (f = fopen(path, "r")) == NULL) {
		t->err = xasprintf("%s, %s, %s (set KF_DATADIR to kf's share/kf)", t->file,
		    t->what, path ? strerror(errno) : "is not installed");
		free(path);
		return;
	}
	while (getline(&line, &cap, f) != -1) {
		struct kf_globrow r;
		int got;

		no++;
		if ((got = parse_line(line, t->ncols, &r)) < 0 && t->err == NULL)
			t->err = xasprintf("%s:%zu: not %s", path, no, t->form);
		if (got <= 0)
			continue;
		r.line = no;
		t->v = xrealloc(t->v, (t->n + 1) * sizeof *t->v);
		t->v[t->n++] = r;
	}
	free(line);
	fclose(f);
	free(path);
}

const struct kf_globrow *
kf_globtab_find(struct kf_globtab *t, const char *name)
{
	int fl = t->casefold ? FNM_CASEFOLD : 0;
	size_t i;

	if (!t->loaded)
		load(t);
	for (i = 0; name && i < t->n; i++)
		if (fnmatch(t->v[i].col[0], name, fl) == 0 ||
		    (strncmp(name, "_Z", 2) == 0 && fnmatch(t->v[i].mangled, name, fl) == 0))
			return &t->v[i];
	return NULL;
}

const char *
kf_globtab_error(struct kf_globtab *t)
{
	if (!t->loaded)
		load(t);
	return t->err;
}
