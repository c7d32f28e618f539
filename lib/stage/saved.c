/* Saved profiles as kf-read's records (see saved.h). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "mem.h"
#include "path.h"
#include "profiler.h"
#include "record.h"
#include "saved.h"

static char *
slurp(const char *path)
{
	struct buf b = {0};
	char chunk[65536];
	size_t n;
	FILE *f = fopen(path, "r");

	if (f == NULL)
		return NULL;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_add(&b, chunk, n);
	fclose(f);
	if (b.s == NULL)
		buf_puts(&b, "");
	return buf_take(&b);
}

/* The record kept in dir (dir/kf.json) when it is the one of the job in
 * folder jd (one of its passes is there), else NULL. */
static cJSON *
saved_record(const char *dir, const char *jd)
{
	char *f = kf_path_join(dir, KF_SAVED_RECORD), *s = slurp(f);
	cJSON *rec = s ? kf_json_parse(s, strlen(s)) : NULL;
	const cJSON *p;
	const char *od;
	size_t n = strlen(jd);

	free(f);
	free(s);
	cJSON_ArrayForEach(p, kf_arr(rec, "passes"))
		if ((od = kf_str(p, "output_dir")) && strncmp(od, jd, n) == 0 && od[n] == '/')
			return rec;
	cJSON_Delete(rec);
	return NULL;
}

/* A pass folder's name, PROFILER.NNN: its profiler, else NULL. */
static const struct kf_profiler *
pass_name(const char *name)
{
	const char *dot = strrchr(name, '.');
	char p[32];

	if (dot == NULL || dot - name >= (long)sizeof p || strlen(dot + 1) != 3 ||
	    strspn(dot + 1, "0123456789") != 3)
		return NULL;
	memcpy(p, name, (size_t)(dot - name));
	p[dot - name] = '\0';
	return kf_profiler_find(p);
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The pass folders in dir, sorted; their count. */
static int
pass_dirs(const char *dir, char ***names)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char *p;
	int n = 0;
	size_t cap = 0;

	*names = NULL;
	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		p = kf_path_join(dir, e->d_name);
		if (e->d_name[0] != '.' && pass_name(e->d_name) && kf_is_dir(p)) {
			KF_GROW(*names, n, cap, 4);
			(*names)[n++] = xstrdup(e->d_name);
		}
		free(p);
	}
	closedir(d);
	kf_sort(*names, (size_t)n, sizeof **names, cmp_str);
	return n;
}

static void
free_names(char **v, int n)
{
	while (n > 0)
		free(v[--n]);
	free(v);
}

/* The job folder under dir: dir itself when it holds pass folders, else its
 * one subfolder that does (profile's run directory: RUN/ID/ncu.000). NULL
 * with the reason in err. */
static char *
job_dir(const char *dir, struct buf *err)
{
	DIR *d;
	struct dirent *e;
	char **names, *p, *found = NULL;
	int n, several = 0;

	if ((n = pass_dirs(dir, &names)) > 0) {
		free_names(names, n);
		return xstrdup(dir);
	}
	if ((d = opendir(dir)) == NULL) {
		buf_printf(err, "%s: %s", dir, strerror(errno));
		return NULL;
	}
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		p = kf_path_join(dir, e->d_name);
		if (kf_is_dir(p) && (n = pass_dirs(p, &names)) > 0) {
			free_names(names, n);
			if (found) {
				several = 1;
				free(p);
				continue;
			}
			found = p;
		} else
			free(p);
	}
	closedir(d);
	if (several) {
		buf_printf(err, "%s holds several jobs: name one of its folders", dir);
		free(found);
		return NULL;
	}
	if (found == NULL)
		buf_printf(err, "%s is not a kf output directory: it holds no pass folder "
		    "(ncu.000, unitrace.000, ...) and no job folder with one", dir);
	return found;
}

int
kf_saved_replay(const char *dir, char **id, const cJSON *worker, struct buf *recs, struct buf *err)
{
	const struct kf_profiler *p;
	cJSON *saved = NULL, *r;
	char **names = NULL, *jd = NULL, *one, *pd;
	int n, i;

	if (!kf_is_dir(dir)) {
		buf_printf(err, "%s: %s", dir, access(dir, F_OK) == 0 ?
		    "not a directory" : strerror(errno));
		return -1;
	}
	if ((p = pass_name(kf_base_name(dir))) != NULL) {
		names = xcalloc(1, sizeof *names);
		names[0] = xstrdup(kf_base_name(dir));
		n = 1;
		jd = kf_path_join(dir, "..");
		one = realpath(jd, NULL);
		free(jd);
		jd = one ? one : xstrdup(dir);
	} else {
		if ((jd = job_dir(dir, err)) == NULL)
			return -1;
		n = pass_dirs(jd, &names);
	}
	/* Profile's record: in the run directory, above the job folder. */
	if ((saved = saved_record(dir, jd)) == NULL) {
		one = kf_path_join(jd, "..");
		pd = realpath(one, NULL);
		free(one);
		if (pd)
			saved = saved_record(pd, jd);
		free(pd);
	}
	if (saved && worker == NULL)
		worker = kf_obj(saved, "worker");
	/* The job's id: profile's record says it; else the folder's name. */
	if (*id == NULL)
		*id = xstrdup(kf_str(saved, "id") ? kf_str(saved, "id") : kf_base_name(jd));
	for (i = 0; i < n; i++) {
		p = pass_name(names[i]);
		pd = kf_path_join(jd, names[i]);
		r = cJSON_CreateObject();
		kf_set_str(r, "id", *id);
		kf_set_str(r, "profiler", p->name);
		kf_set_str(r, "pass", names[i]);
		kf_set_str(r, "output_dir", pd);
		if (worker)
			kf_set(r, "worker", cJSON_Duplicate(worker, 1));
		kf_json_buf(recs, r);
		buf_putc(recs, '\n');
		cJSON_Delete(r);
		free(pd);
	}
	free_names(names, n);
	free(jd);
	cJSON_Delete(saved);
	return 0;
}

