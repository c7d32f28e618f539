/* The scaffolding the fuzz targets share: see fuzz.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "collate.h"
#include "err.h"
#include "feedback.h"
#include "fuzz.h"
#include "mem.h"
#include "path.h"
#include "profiler.h"
#include "record.h"

#ifndef FUZZ_DATADIR
#define FUZZ_DATADIR "share/kf"
#endif

static char dir[256];
static FILE *devnull, *capture;
static char *cap_s;
static size_t cap_n;

static void
cleanup(void)
{
	char *p;

	/* Only the files the targets write: the directory is ours. */
	static const char *const names[] = {
		"ncu_report.csv", "trace.metrics.1", "python3.1.json",
		"trace.json", "vtune_hotspots_pass0.tsv", "trace.1",
	};
	size_t i;

	for (i = 0; i < sizeof names / sizeof names[0]; i++) {
		p = kf_path_join(dir, names[i]);
		unlink(p);
		free(p);
	}
	rmdir(dir);
}

void
fz_init(const char *prog)
{
	const char *tmp = getenv("TMPDIR");

	if (dir[0])
		return;
	kf_init(prog);
	if (getenv("KF_DATADIR") == NULL)
		setenv("KF_DATADIR", FUZZ_DATADIR, 1);
	/* tmpfs when there is one: a file per input costs microseconds. */
	if (access("/dev/shm", W_OK) == 0)
		tmp = "/dev/shm";
	else if (tmp == NULL)
		tmp = "/tmp";
	snprintf(dir, sizeof dir, "%s/kf-fuzz.XXXXXX", tmp);
	if (mkdtemp(dir) == NULL)
		kf_die(1, "mkdtemp %s:", dir);
	atexit(cleanup);
	if ((devnull = fopen("/dev/null", "w")) == NULL)
		kf_die(1, "/dev/null:");
	stdout = devnull;
}

const char *
fz_dir(void)
{
	return dir;
}

void
fz_put(const char *name, const uint8_t *d, size_t n)
{
	char *p = kf_path_join(dir, name);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0)
		kf_die(1, "%s:", p);
	while (n > 0) {
		ssize_t w = write(fd, d, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			kf_die(1, "write %s:", p);
		d += w;
		n -= (size_t)w;
	}
	close(fd);
	free(p);
}

void
fz_rm(const char *name)
{
	char *p = kf_path_join(dir, name);

	unlink(p);
	free(p);
}

cJSON *
fz_record(const char *profiler)
{
	cJSON *rec = cJSON_CreateObject();

	cJSON_AddStringToObject(rec, "id", "fuzz");
	cJSON_AddStringToObject(rec, "profiler", profiler);
	cJSON_AddStringToObject(rec, "output_dir", dir);
	return rec;
}

void
fz_begin(void)
{
	cap_s = NULL;
	cap_n = 0;
	if ((capture = open_memstream(&cap_s, &cap_n)) == NULL)
		kf_die(1, "open_memstream:");
	stdout = capture;
}

char *
fz_end(size_t *n)
{
	fclose(capture);
	capture = NULL;
	stdout = devnull;
	*n = cap_n;
	return cap_s;
}

void
fz_feedback(cJSON *rec, int variant)
{
	/* Plain, and short with the fewest kernels and rules, a named GPU and
	 * the reference's focus: one per input, to keep the targets fast. */
	static const struct kf_fb_opts opts[] = {
		{ 0, 5, 5, NULL, NULL, NULL },
		{ 300, 1, 0, "B580", NULL, "longest" },
	};
	const struct kf_profiler *p = kf_profiler_find(kf_str(rec, "profiler"));
	const struct kf_fb_opts *o = &opts[variant & 1];
	struct kf_fb fb;
	char *text;

	kf_fb_init(&fb, o);
	if (p && !kf_error(rec) && kf_obj(rec, "collated"))
		p->feedback(rec, &fb);
	text = kf_fb_render(&fb, o->max_chars);
	if (o->max_chars && strlen(text) > o->max_chars)
		abort();	/* --max-chars is a promise */
	free(text);
	kf_fb_free(&fb);
}

void
fz_read(const char *profiler, int npass, int variant)
{
	const struct kf_profiler *p = kf_profiler_find(profiler);
	cJSON *rec = fz_record(profiler);
	char *out;
	size_t len;

	fz_begin();
	p->read(rec, fz_dir());
	out = fz_end(&len);
	if (len == 0 || out[len - 1] != '\n' || memchr(out, '\n', len) != out + len - 1)
		abort();
	fz_pipeline(out, len, npass, variant);
	free(out);
	cJSON_Delete(rec);
}

void
fz_pipeline(const char *out, size_t n, int npass, int variant)
{
	static const char *const pass[] = { "000", "001", "002" };
	static const char *const group[] = {
		"ComputeBasic", "MemoryProfile", "VectorEngineProfile",
	};
	const char *s = out, *end = out + n, *nl;

	for (; s < end; s = nl + 1) {
		cJSON *rec, *recs[3], *job;
		int i;

		if ((nl = memchr(s, '\n', (size_t)(end - s))) == NULL)
			nl = end;
		/* A reader writes strict JSON objects, one a line; kf-collate
		 * reads them keeping "data" as text. */
		if ((rec = kf_json_parse_keep(s, (size_t)(nl - s), kf_collate_keep)) == NULL ||
		    !cJSON_IsObject(rec))
			abort();
		for (i = 0; i < npass && i < 3; i++) {
			char *name = xasprintf("%s.%s", kf_str(rec, "profiler") ?
			    kf_str(rec, "profiler") : "x", pass[i]);

			recs[i] = cJSON_Duplicate(rec, 1);
			kf_set_str(recs[i], "pass", name);
			if (npass > 1)
				kf_set_str(recs[i], "group", group[i]);
			free(name);
		}
		job = kf_collate_job(recs, npass);
		for (i = 0; i < npass; i++)
			cJSON_Delete(recs[i]);
		/* kf-feedback reads kf-collate's line as it does. */
		{
			struct buf b = {0};
			cJSON *fb;

			kf_json_buf(&b, job);
			if ((fb = kf_json_parse_keep(b.s, b.len, kf_profiler_keep_paths())) == NULL)
				abort();
			kf_fb_unkeep(fb);
			fz_feedback(fb, variant);
			cJSON_Delete(fb);
			buf_free(&b);
		}
		cJSON_Delete(job);
		cJSON_Delete(rec);
	}
}
