/* A fresh output directory per run (kf-wrap's output_dir). */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "map.h"
#include "mem.h"
#include "path.h"
#include "rundir.h"

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

/* The directories this process gave out: an empty one is used again only
 * when no record of this stream has it (two jobs of one id, side by side). */
static struct kf_map given;

static char *
give(char *p)
{
	int created;

	kf_map_slot(&given, p, &created)->val = &given;	/* any non-NULL mark */
	return p;
}

/* p is free for a run: made now, or empty and not given out yet. 0 with
 * errno EEXIST when it is taken, another errno when it cannot be made. */
static int
claim(const char *p)
{
	if (make_new(p) == 0)
		return 1;
	if (errno != EEXIST)
		return 0;
	if (kf_map_get(&given, p) == NULL && kf_dir_used(p) == 0)
		return 1;
	errno = EEXIST;
	return 0;
}

char *
kf_run_dir(const char *path)
{
	long n;

	if (claim(path))
		return give(xstrdup(path));
	for (n = 2; errno == EEXIST && n <= RUNS_MAX; n++) {
		char *p = xasprintf("%s.%ld", path, n);

		if (claim(p))
			return give(p);
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
