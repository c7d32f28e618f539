/* kf: framework machinery, the kernels a framework launches for itself
 * (autotuner timers, buffer checks), read from share/kf/machinery.tsv so
 * that every profiler's feedback can set them aside. */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feedback.h"
#include "mem.h"
#include "path.h"

static struct kf_machine *table;
static size_t ntable;
static int loaded;
static char *load_err;

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

/* One "PATTERN<TAB>FRAMEWORK<TAB>WHAT" line; 0 if it is not one. */
static int
parse_line(char *line, struct kf_machine *m)
{
	char *t1, *t2;

	line[strcspn(line, "\r\n")] = '\0';
	if (line[0] == '#' || line[0] == '\0')
		return 0;
	if ((t1 = strchr(line, '\t')) == NULL || (t2 = strchr(t1 + 1, '\t')) == NULL)
		return -1;
	*t1 = *t2 = '\0';
	if (line[0] == '\0' || t1[1] == '\0' || t2[1] == '\0')
		return -1;
	m->pattern = xstrdup(line);
	m->mangled = mangled_pattern(line);
	m->framework = xstrdup(t1 + 1);
	m->what = xstrdup(t2 + 1);
	return 1;
}

static void
load(void)
{
	char *path = kf_data_file("machinery.tsv"), *line = NULL;
	size_t cap = 0;
	long no = 0;
	FILE *f;

	loaded = 1;
	if (path == NULL || (f = fopen(path, "r")) == NULL) {
		load_err = xasprintf("machinery.tsv, the table of framework kernels, %s "
		    "(set KF_DATADIR to kf's share/kf)", path ? strerror(errno) : "is not installed");
		free(path);
		return;
	}
	while (getline(&line, &cap, f) != -1) {
		struct kf_machine m;
		int r;

		no++;
		if ((r = parse_line(line, &m)) < 0 && load_err == NULL)
			load_err = xasprintf("%s:%ld: not PATTERN<TAB>FRAMEWORK<TAB>WHAT", path, no);
		if (r <= 0)
			continue;
		table = xrealloc(table, (ntable + 1) * sizeof *table);
		table[ntable++] = m;
	}
	free(line);
	fclose(f);
	free(path);
}

const struct kf_machine *
kf_machinery_find(const char *name)
{
	size_t i;

	if (!loaded)
		load();
	for (i = 0; name && i < ntable; i++)
		if (fnmatch(table[i].pattern, name, 0) == 0 ||
		    (strncmp(name, "_Z", 2) == 0 && fnmatch(table[i].mangled, name, 0) == 0))
			return &table[i];
	return NULL;
}

const char *
kf_machinery_error(void)
{
	if (!loaded)
		load();
	return load_err;
}
