/* unitrace metrics tables: the --metric-query layout of today, the legacy
 * one (repeated headers, trailing commas, unquoted names, %g floats), several
 * "=== Device #N Metrics ===" sections, and the ", "-separated
 * --metric-sampling layout. unitrace never escapes the quoted kernel name,
 * so a row is split from both ends by the header's column count and
 * whatever is left in the middle is the name. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "lines.h"
#include "map.h"
#include "mem.h"
#include "num.h"
#include "record.h"
#include "unitrace.h"

const char *const unitrace_groups[3] = {
	"ComputeBasic", "MemoryProfile", "VectorEngineProfile",
};

enum { MAX_WARN = 20 };

/* Samples of one kernel in the sampling layout. */
struct agg {
	char *name;
	double *sum;
	long *cnt;
	long samples, instances;
	double last_id;
};

struct sect {
	cJSON *cols;
	cJSON *rows;
	char *header;
	int ncols, kcol, idcol, gpucol;
	int sampling, trailing;
	long device;
	long idle;
	struct kf_map agg;
};

struct csv_reader {
	const char *path, *base;
	cJSON *sections, *warnings;
	struct unitrace_csv_info *info;
	struct sect *s;
	long device;
	long nwarn;
};

static void
warn(struct csv_reader *r, long line, const char *fmt, const char *arg)
{
	struct buf b = {0};

	if (r->nwarn++ >= MAX_WARN)
		return;
	buf_printf(&b, "%s: line %ld: ", r->base, line);
	buf_printf(&b, fmt, arg);
	cJSON_AddItemToArray(r->warnings, cJSON_CreateString(b.s));
	buf_free(&b);
}

int
unitrace_col(const cJSON *columns, const char *name)
{
	const cJSON *c;
	int i = 0;

	cJSON_ArrayForEach(c, columns) {
		if (cJSON_IsString(c) && strcmp(c->valuestring, name) == 0)
			return i;
		i++;
	}
	return -1;
}

double
unitrace_val(const cJSON *row, int i)
{
	const cJSON *v;

	if (i < 0 || (v = cJSON_GetArrayItem(row, i)) == NULL || !cJSON_IsNumber(v))
		return NAN;
	return v->valuedouble;
}

/* A metric by its name without the unit: "SLM_ACCESS_COUNT" matches
 * "SLM_ACCESS_COUNT[events]" whatever the unit is written as. */
static int
has(const cJSON *columns, const char *base)
{
	const cJSON *c;
	size_t n = strlen(base);

	cJSON_ArrayForEach(c, columns) {
		const char *s = cJSON_IsString(c) ? c->valuestring : "";

		if (strncmp(s, base, n) == 0 && (s[n] == '\0' || s[n] == '['))
			return 1;
	}
	return 0;
}

const char *
unitrace_group_of(const cJSON *cols)
{
	/* The reference's three rules, in its order ... */
	if (has(cols, "SLM_BANK_CONFLICT_COUNT") && has(cols, "XVE_INST_EXECUTED_ALU0_ALL"))
		return "ComputeBasic";
	if (has(cols, "XVE_INST_EXECUTED_XMX_INT8"))
		return "VectorEngineProfile";
	if (has(cols, "SLM_ACCESS_COUNT"))
		return "MemoryProfile";
	/* ... then what tells the groups apart on GPUs whose groups lack those
	 * columns (PVC's ComputeBasic has no SLM counters): only
	 * VectorEngineProfile counts instructions by type. */
	if (has(cols, "XVE_INST_EXECUTED_FP32") || has(cols, "XVE_INST_EXECUTED_INT32"))
		return "VectorEngineProfile";
	if (has(cols, "XVE_INST_EXECUTED_ALU0_ALL") && has(cols, "GPU_MEMORY_BYTE_READ") &&
	    has(cols, "XVE_STALL"))
		return "ComputeBasic";
	if (!has(cols, "XVE_INST_EXECUTED_ALU0_ALL") &&
	    (has(cols, "SLM_BYTE_READ") || has(cols, "L3_HIT")))
		return "MemoryProfile";
	return NULL;
}

static int
by_value(const void *a, const void *b)
{
	const double *x = *(const double *const *)a, *y = *(const double *const *)b;

	if (*x != *y)
		return *x < *y ? -1 : 1;
	return x < y ? -1 : x > y;	/* stable, as pandas' sort_values */
}

size_t
unitrace_median_pick(const double *v, size_t n)
{
	const double **p;
	size_t i, k;

	if (n == 0)
		return 0;
	p = xcalloc(n, sizeof *p);
	for (i = 0; i < n; i++)
		p[i] = &v[i];
	kf_sort(p, n, sizeof *p, by_value);
	k = (size_t)(p[n / 2] - v);
	free(p);
	return k;
}

/* Split s at sep into trimmed fields; the array's strings point into s. */
static char **
split(char *s, size_t *nout)
{
	size_t n = 1, i = 0;
	char **v, *p;

	for (p = s; *p; p++)
		n += *p == ',';
	v = xcalloc(n + 1, sizeof *v);
	for (p = s;; ) {
		char *c = strchr(p, ',');

		if (c)
			*c = '\0';
		v[i++] = kf_trim(p);
		if (c == NULL)
			break;
		p = c + 1;
	}
	*nout = i;
	return v;
}

static cJSON *
value(const char *s, size_t n)
{
	double d;

	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	while (n > 0 && (*s == ' ' || *s == '\t'))
		s++, n--;
	if (n == 0)
		return cJSON_CreateNull();
	if (kf_parse_number_n(s, n, &d))
		return cJSON_CreateNumber(d);
	{
		char *t = xstrndup(s, n);
		cJSON *v = cJSON_CreateString(t);

		free(t);
		return v;
	}
}

static void
agg_free(struct sect *s)
{
	struct kf_map_ent **l;
	size_t i, n;

	l = kf_map_list(&s->agg, &n);
	for (i = 0; i < n; i++) {
		struct agg *a = l[i]->val;

		free(a->name);
		free(a->sum);
		free(a->cnt);
		free(a);
	}
	free(l);
	kf_map_free(&s->agg);
}

/* The sampling layout: one row per kernel, the mean of its samples. */
static void
agg_rows(struct sect *s, cJSON *obj)
{
	cJSON *samples = cJSON_AddArrayToObject(obj, "samples");
	cJSON *inst = cJSON_AddArrayToObject(obj, "instances");
	struct kf_map_ent **l;
	size_t i, n;
	int c;

	l = kf_map_list(&s->agg, &n);
	for (i = 0; i < n; i++) {
		struct agg *a = l[i]->val;
		cJSON *row = cJSON_CreateArray();

		for (c = 0; c < s->ncols; c++) {
			if (c == s->kcol)
				cJSON_AddItemToArray(row, cJSON_CreateString(a->name));
			else if (c == s->idcol || a->cnt[c] < a->samples)
				cJSON_AddItemToArray(row, cJSON_CreateNull());
			else
				cJSON_AddItemToArray(row, cJSON_CreateNumber(a->sum[c] / (double)a->samples));
		}
		cJSON_AddItemToArray(s->rows, row);
		cJSON_AddItemToArray(samples, cJSON_CreateNumber((double)a->samples));
		cJSON_AddItemToArray(inst, cJSON_CreateNumber((double)a->instances));
	}
	free(l);
	cJSON_AddNumberToObject(obj, "idle_samples", (double)s->idle);
}

static void
sect_end(struct csv_reader *r)
{
	struct sect *s = r->s;
	const char *group;
	cJSON *obj;

	if (s == NULL)
		return;
	r->s = NULL;
	if (s->sampling && s->agg.n == 0 && s->idle == 0)
		goto out;
	if (!s->sampling && cJSON_GetArraySize(s->rows) == 0)
		goto out;
	obj = cJSON_CreateObject();
	cJSON_AddStringToObject(obj, "file", r->base);
	cJSON_AddNumberToObject(obj, "device", (double)s->device);
	cJSON_AddStringToObject(obj, "layout", s->sampling ? "sampling" :
	    r->info->legacy ? "legacy" : "query");
	group = unitrace_group_of(s->cols);
	cJSON_AddItemToObject(obj, "group", group ? cJSON_CreateString(group) : cJSON_CreateNull());
	cJSON_AddItemToObject(obj, "columns", s->cols);
	s->cols = NULL;
	if (s->sampling)
		agg_rows(s, obj);
	cJSON_AddItemToObject(obj, "rows", s->rows);
	s->rows = NULL;
	cJSON_AddItemToArray(r->sections, obj);
out:
	cJSON_Delete(s->cols);
	cJSON_Delete(s->rows);
	agg_free(s);
	free(s->header);
	free(s);
}

/* A header has a "Kernel" and a "GpuTime[ns]" column; the text tables of the
 * main log ("Kernel, Calls, Time (ns), ...") have no GpuTime. */
static int
header(struct csv_reader *r, const char *line, long no)
{
	char *copy = xstrdup(line);
	size_t n, i;
	char **f = split(copy, &n);
	int kcol = -1, gpu = -1, trailing = 0;
	struct sect *s;

	for (i = 0; i < n; i++) {
		if (strcmp(f[i], "Kernel") == 0 && kcol < 0)
			kcol = (int)i;
		if (strcmp(f[i], "GpuTime[ns]") == 0)
			gpu = (int)i;
	}
	if (kcol < 0 || strchr(line, '"')) {
		free(f);
		free(copy);
		return 0;
	}
	if (gpu < 0) {
		/* Another table begins: rows below are not metrics. */
		sect_end(r);
		free(f);
		free(copy);
		return 1;
	}
	if (r->s && strcmp(r->s->header, line) == 0) {
		r->info->legacy = 1;		/* the header before every row */
		free(f);
		free(copy);
		return 1;
	}
	sect_end(r);
	if (n > 1 && f[n - 1][0] == '\0') {
		trailing = 1;
		n--;
	}
	s = r->s = xcalloc(1, sizeof *s);
	s->header = xstrdup(line);
	s->cols = cJSON_CreateArray();
	s->rows = cJSON_CreateArray();
	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(s->cols, cJSON_CreateString(f[i]));
	s->ncols = (int)n;
	s->kcol = kcol;
	s->gpucol = gpu;
	s->idcol = unitrace_col(s->cols, "GlobalInstanceId");
	s->sampling = strstr(line, ", ") != NULL;
	s->trailing = trailing;
	s->device = r->device >= 0 ? r->device : 0;
	if (s->sampling)
		r->info->sampling = 1;
	if (trailing || unitrace_col(s->cols, "Device") >= 0)
		r->info->legacy = 1;
	(void)no;
	free(f);
	free(copy);
	return 1;
}

static void
add_sample(struct sect *s, cJSON *row, const char *name)
{
	struct kf_map_ent *e;
	struct agg *a;
	cJSON *v;
	int c = 0;
	double id;

	if (strncmp(name, "NoKernel", 8) == 0) {
		s->idle++;
		cJSON_Delete(row);
		return;
	}
	e = kf_map_slot(&s->agg, name, NULL);
	if (e->val == NULL) {
		a = e->val = xcalloc(1, sizeof *a);
		a->name = xstrdup(name);
		a->sum = xcalloc((size_t)s->ncols, sizeof *a->sum);
		a->cnt = xcalloc((size_t)s->ncols, sizeof *a->cnt);
		a->last_id = NAN;
	}
	a = e->val;
	cJSON_ArrayForEach(v, row) {
		if (cJSON_IsNumber(v)) {
			a->sum[c] += v->valuedouble;
			a->cnt[c]++;
		}
		c++;
	}
	/* Samples of one instance come one after another. */
	id = unitrace_val(row, s->idcol);
	if (!(id == a->last_id))
		a->instances++;
	a->last_id = id;
	a->samples++;
	cJSON_Delete(row);
}

/* Split a data row: kcol fields from the left, the rest from the right, the
 * name in between (its quotes removed, never unescaped). */
static int
split_row(struct csv_reader *r, char *line, long no)
{
	struct sect *s = r->s;
	size_t len = strlen(line);
	int right = s->ncols - 1 - s->kcol, i;
	char *lp = line, *end, *name;
	const char **lf, **rf;
	size_t *rl;
	cJSON *out;
	double gt;

	if (len > 0 && line[len - 1] == ',' && s->trailing)
		line[--len] = '\0';
	lf = xcalloc((size_t)s->kcol + 1, sizeof *lf);
	rf = xcalloc((size_t)right + 1, sizeof *rf);
	rl = xcalloc((size_t)right + 1, sizeof *rl);
	for (i = 0; i < s->kcol; i++) {
		char *c = strchr(lp, ',');

		if (c == NULL)
			goto bad;
		*c = '\0';
		lf[i] = lp;
		lp = c + 1;
	}
	end = line + len;
	for (i = right - 1; i >= 0; i--) {
		char *c = end;

		while (c > lp && c[-1] != ',')
			c--;
		if (c == lp)
			goto bad;
		rf[i] = c;
		rl[i] = (size_t)(end - c);
		end = c - 1;
	}
	*end = '\0';
	name = kf_trim(lp);
	len = strlen(name);
	if (len >= 2 && name[0] == '"' && name[len - 1] == '"') {
		name[len - 1] = '\0';
		name++;
	}
	if (*name == '\0')
		goto bad;
	out = cJSON_CreateArray();
	for (i = 0; i < s->kcol; i++)
		cJSON_AddItemToArray(out, value(lf[i], strlen(lf[i])));
	cJSON_AddItemToArray(out, cJSON_CreateString(name));
	for (i = 0; i < right; i++)
		cJSON_AddItemToArray(out, value(rf[i], rl[i]));
	gt = unitrace_val(out, s->gpucol);
	if (isnan(gt)) {
		cJSON_Delete(out);
		goto bad;
	}
	r->info->rows++;
	if (s->sampling)
		add_sample(s, out, name);
	else
		cJSON_AddItemToArray(s->rows, out);
	free(lf);
	free(rf);
	free(rl);
	return 1;
bad:
	free(lf);
	free(rf);
	free(rl);
	r->info->skipped++;
	warn(r, no, "%s", "not a metrics row (too few fields, or no GpuTime): skipped");
	return 0;
}

static void
banner(struct csv_reader *r, const char *line)
{
	long dev;

	sect_end(r);
	if (sscanf(line, "=== Device #%ld Metrics ===", &dev) == 1)
		r->device = dev;
	else if (strstr(line, "Kernel Metrics"))
		r->device = 0, r->info->legacy = 1;
	else
		r->device = -1;
}

int
unitrace_csv_read(const char *path, cJSON *sections, cJSON *warnings, struct unitrace_csv_info *info)
{
	struct kf_lines l;
	struct csv_reader r;
	const char *slash = strrchr(path, '/');
	int rc;

	if (kf_lines_open(&l, path) != 0)
		return -1;
	memset(info, 0, sizeof *info);
	memset(&r, 0, sizeof r);
	r.path = path;
	r.base = slash ? slash + 1 : path;
	r.sections = sections;
	r.warnings = warnings;
	r.info = info;
	r.device = -1;
	while ((rc = kf_lines_next(&l)) > 0) {
		char *s = kf_trim(l.s);

		info->lines++;
		if (*s == '\0')
			continue;
		if (s[0] == '=' && s[1] == '=')
			banner(&r, s);
		else if (header(&r, s, l.no))
			;
		else if (r.s && s[0] != '[')	/* "[INFO] ..." lines of the tool */
			split_row(&r, s, l.no);
	}
	info->nuls = l.nuls;
	sect_end(&r);
	if (r.nwarn > MAX_WARN) {
		struct buf b = {0};

		buf_printf(&b, "%s: %ld more warnings left out", r.base, r.nwarn - MAX_WARN);
		cJSON_AddItemToArray(warnings, cJSON_CreateString(b.s));
		buf_free(&b);
	}
	kf_lines_close(&l);
	if (rc < 0)
		return -1;
	return 0;
}
