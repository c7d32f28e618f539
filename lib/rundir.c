/* A fresh output directory per run (kf-wrap's output_dir). */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rundir.h"
#include "text.h"
#include "util.h"

#define RUNS_MAX 100000

/* mkdir of the last component only, the parents made first. */
static int
make_new(const char *path)
{
	char *parent = xstrdup(path), *slash = strrchr(parent, '/');
	int rc = 0;

	if (slash && slash != parent) {
		*slash = '\0';
		rc = kf_mkdirs(parent, 0777);
	}
	free(parent);
	return rc == 0 ? mkdir(path, 0777) : -1;
}

char *
kf_run_dir(const char *path)
{
	long n;

	if (make_new(path) == 0)
		return xstrdup(path);
	for (n = 2; errno == EEXIST && n <= RUNS_MAX; n++) {
		char *p = xasprintf("%s.%ld", path, n);

		if (make_new(p) == 0)
			return p;
		free(p);
	}
	return NULL;
}

int
kf_dir_used(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int used = 0;

	if (d == NULL)
		return errno == ENOENT ? 0 : -1;
	while (!used && (e = readdir(d)) != NULL)
		used = strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	return used;
}
