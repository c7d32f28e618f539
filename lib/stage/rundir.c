/* A fresh output directory per run (kf-wrap's output_dir). */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "map.h"
#include "mem.h"
#include "path.h"
#include "rundir.h"

#define RUNS_MAX 100000

/* The folders this process made (kf_run_mkdirs, kf_run_dir). */
static struct kf_map made;

static int
note_mkdir(const char *p)
{
	int created;

	if (mkdir(p, 0777) != 0)
		return -1;
	kf_map_slot(&made, p, &created)->val = &made;
	return 0;
}

int
kf_run_mkdirs(const char *path)
{
	char *p = xstrdup(path), *s;
	int rc = 0;

	for (s = p + 1; rc == 0; s++) {
		if (*s == '/' || *s == '\0') {
			char c = *s;

			*s = '\0';
			if (note_mkdir(p) != 0 && errno != EEXIST)
				rc = -1;
			*s = c;
			if (c == '\0')
				break;
		}
	}
	free(p);
	if (rc == 0 && !kf_is_dir(path)) {
		errno = ENOTDIR;
		rc = -1;
	}
	return rc;
}

const char *
kf_run_dir_made(const char *path)
{
	static char *out;
	char *p = xstrdup(path), *s;

	free(out);
	out = NULL;
	for (s = p + 1; ; s++) {
		if (*s == '/' || *s == '\0') {
			char c = *s;

			*s = '\0';
			if (kf_map_get(&made, p)) {
				out = xstrdup(p);
				free(p);
				return out;
			}
			*s = c;
			if (c == '\0')
				break;
		}
	}
	free(p);
	return NULL;
}

void
kf_run_dir_unmake(const char *path, const char *made_dir, const char *cwd)
{
	size_t n = strlen(made_dir);
	char *d;

	/* made must be path or a folder of it */
	if (strncmp(path, made_dir, n) != 0 || (path[n] != '\0' && path[n] != '/'))
		return;
	d = path[0] != '/' && cwd ? kf_path_join(cwd, path) : xstrdup(path);
	n += strlen(d) - strlen(path);
	for (;;) {
		char *slash;

		if (rmdir(d) != 0 || strlen(d) <= n || (slash = strrchr(d, '/')) == NULL)
			break;
		*slash = '\0';
		if (strlen(d) < n)
			break;
	}
	free(d);
}

/* mkdir of the last component only, the parents made first. */
static int
make_new(const char *path)
{
	char *parent = xstrdup(path), *slash = strrchr(parent, '/');
	int rc = 0;

	if (slash && slash != parent) {
		*slash = '\0';
		rc = kf_run_mkdirs(parent);
	}
	free(parent);
	return rc == 0 ? note_mkdir(path) : -1;
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
