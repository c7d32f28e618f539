/* kf: GPU roofs (share/kf/gpus.json), looked up by the names machines
 * report (gpu_roofs.h). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "gpu_roofs.h"
#include "mem.h"
#include "path.h"
#include "record.h"

static cJSON *db;		/* an array of GPUs: the extra file's first */
static char *db_err;
static char *db_extra;

/* Lower case, blanks squeezed, ends trimmed. */
static char *
norm(const char *s)
{
	char *o = xmalloc(strlen(s) + 1), *q = o;
	int blank = 0;

	for (; *s; s++) {
		if (isspace((unsigned char)*s)) {
			blank = q != o;
			continue;
		}
		if (blank)
			*q++ = ' ';
		blank = 0;
		*q++ = (char)tolower((unsigned char)*s);
	}
	*q = '\0';
	return o;
}

static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	struct buf b = {0};
	char chunk[8192];
	size_t n;

	if (f == NULL)
		return NULL;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_add(&b, chunk, n);
	if (ferror(f)) {
		fclose(f);
		buf_free(&b);
		return NULL;
	}
	fclose(f);
	if (b.s == NULL)
		buf_puts(&b, "");
	return buf_take(&b);
}

/* Append the GPUs of path to db: {"gpus": [...]}, an array, or one GPU. */
static int
load(const char *path)
{
	char *text = slurp(path);
	cJSON *j, *list, *g;

	if (text == NULL) {
		db_err = xasprintf("cannot read GPU roofs %s: %s", path, strerror(errno));
		return -1;
	}
	j = cJSON_Parse(text);
	free(text);
	if (j == NULL) {
		db_err = xasprintf("GPU roofs %s: not valid JSON", path);
		return -1;
	}
	list = cJSON_IsArray(j) ? j : (cJSON *)kf_arr(j, "gpus");
	if (list == NULL && kf_obj(j, "roofs"))
		list = NULL;
	if (list) {
		while ((g = cJSON_DetachItemFromArray(list, 0)) != NULL) {
			if (cJSON_IsObject(g) && kf_str(g, "name") && kf_obj(g, "roofs"))
				cJSON_AddItemToArray(db, g);
			else
				cJSON_Delete(g);
		}
		cJSON_Delete(j);
	} else if (kf_str(j, "name") && kf_obj(j, "roofs")) {
		cJSON_AddItemToArray(db, j);
	} else {
		cJSON_Delete(j);
		db_err = xasprintf("GPU roofs %s: no \"gpus\" array of {\"name\", \"roofs\"}", path);
		return -1;
	}
	return 0;
}

static void
load_db(const char *extra)
{
	char *main_file;

	if (db && ((extra == NULL && db_extra == NULL) ||
	    (extra && db_extra && strcmp(extra, db_extra) == 0)))
		return;
	cJSON_Delete(db);
	free(db_err);
	free(db_extra);
	db_err = NULL;
	db_extra = extra ? xstrdup(extra) : NULL;
	db = cJSON_CreateArray();
	if (extra && load(extra) != 0)
		return;
	main_file = kf_data_file("gpus.json");
	if (main_file == NULL)
		db_err = xstrdup("gpus.json, the table of GPU roofs, is not installed "
		    "(set KF_DATADIR to kf's share/kf)");
	else
		load(main_file);
	free(main_file);
}

static int
listed(const cJSON *list, const char *key, int substring)
{
	const cJSON *a;
	int hit = 0;

	cJSON_ArrayForEach(a, list) {
		char *n;

		if (!cJSON_IsString(a))
			continue;
		n = norm(a->valuestring);
		hit = substring ? *n && strstr(key, n) != NULL : strcmp(key, n) == 0;
		free(n);
		if (hit)
			break;
	}
	return hit;
}

static char *
known(void)
{
	struct buf b = {0};
	const cJSON *g;

	cJSON_ArrayForEach(g, db) {
		if (b.len)
			buf_puts(&b, ", ");
		buf_puts(&b, kf_str(g, "name"));
	}
	return buf_take(&b);
}

const cJSON *
kf_gpu_roofs_all(const char *gpus_file)
{
	load_db(gpus_file);
	return db_err ? NULL : db;
}

const cJSON *
kf_gpu_roofs_find(const char *name, const char *gpus_file, struct buf *msg)
{
	const cJSON *g, *hit = NULL;
	char *key;

	load_db(gpus_file);
	if (db_err) {
		if (msg)
			buf_puts(msg, db_err);
		return NULL;
	}
	if (name == NULL || *name == '\0')
		return NULL;
	key = norm(name);
	cJSON_ArrayForEach(g, db) {
		char *n = norm(kf_str(g, "name"));
		int eq = strcmp(n, key) == 0;

		free(n);
		if (eq || listed(kf_arr(g, "aliases"), key, 0)) {
			hit = g;
			break;
		}
	}
	for (g = db->child; g && !hit; g = g->next)
		if (listed(kf_arr(g, "match"), key, 1))
			hit = g;
	free(key);
	if (hit == NULL && msg) {
		char *k = known();

		buf_printf(msg, "no hardware roofs for GPU '%s' (known: %s); add it with "
		    "kf-feedback --gpus-file FILE, or name a known one with --gpu", name, k);
		free(k);
	}
	return hit;
}

const cJSON *
kf_gpu_roofs_find_arch(const char *cc, double sm_count, const char *gpus_file)
{
	const cJSON *g;

	load_db(gpus_file);
	if (cc == NULL)
		return NULL;
	cJSON_ArrayForEach(g, db) {
		const cJSON *a = kf_obj(g, "arch");
		const char *c = kf_str(a, "cc");

		if (c && strcmp(c, cc) == 0 && kf_num(a, "sm_count", -1) == sm_count)
			return g;
	}
	return NULL;
}

/* The lookup of kf_gpu_roofs_for(): candidates tried in order; the first failure's
 * message is kept to explain an unknown GPU. */
struct lookup {
	const char *gpus_file, **via, **name;
	struct buf first;	/* empty: no name tried has failed */
};

static const cJSON *
try_name(struct lookup *l, const char *cand, const char *via)
{
	const cJSON *g;
	int failed = l->first.len > 0;

	if (cand == NULL || *cand == '\0')
		return NULL;
	g = kf_gpu_roofs_find(cand, l->gpus_file, failed ? NULL : &l->first);
	if (g || !failed) {
		*l->via = via;
		*l->name = cand;
	}
	if (g)
		buf_reset(&l->first);
	return g;
}

const cJSON *
kf_gpu_roofs_for(const cJSON *rec, const cJSON *devices, const char *opt_gpu,
    const char *gpus_file, const char **via, const char **name, struct buf *msg)
{
	const cJSON *w = kf_obj(rec, "worker"), *g = NULL, *d;
	struct lookup l = { gpus_file, via, name, {0} };

	*via = NULL;
	*name = NULL;
	if (opt_gpu) {
		*via = "--gpu";
		*name = opt_gpu;
		return kf_gpu_roofs_find(opt_gpu, gpus_file, msg);
	}
	if ((g = try_name(&l, kf_str(w, "cpu_info"), "cpu_info")) != NULL ||
	    (g = try_name(&l, kf_str(w, "gpu_name"), "gpu_name")) != NULL)
		goto done;
	/* The devices the trace names count only when the worker names none. */
	if (l.first.len == 0) {
		cJSON_ArrayForEach(d, devices) {
			if (cJSON_IsString(d) && (g = try_name(&l, d->valuestring, "device")))
				goto done;
		}
	}
	if (l.first.len == 0) {
		load_db(gpus_file);
		buf_puts(msg, db_err ? db_err : "the record names no GPU "
		    "(no worker.gpu_name or worker.cpu_info, no device in the trace): "
		    "name one with kf-feedback --gpu NAME");
	} else {
		buf_puts(msg, l.first.s);
	}
done:
	buf_free(&l.first);
	return g;
}

double
kf_gpu_roof(const cJSON *gpu, const char *metric)
{
	const cJSON *r = kf_obj(kf_obj(gpu, "roofs"), metric);
	const cJSON *v = r ? cJSON_GetObjectItemCaseSensitive(r, "value") :
	    cJSON_GetObjectItemCaseSensitive(kf_obj(gpu, "roofs"), metric);

	return cJSON_IsNumber(v) && v->valuedouble > 0 ? v->valuedouble : NAN;
}

const char *
kf_gpu_roof_source(const cJSON *gpu, const char *metric)
{
	return kf_str(kf_obj(kf_obj(gpu, "roofs"), metric), "source");
}
