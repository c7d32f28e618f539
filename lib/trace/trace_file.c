/* kf trace files (trace.h): one file into a struct trace_file. A line is
 * taken whole or not at all: a bad line is counted and left out, the lines
 * around it still count, and a last line without its line end (a file cut
 * off in the middle of a write) is never read. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "mem.h"
#include "num.h"
#include "path.h"
#include "trace.h"

#define MAX_FIELDS 24

const char *const trace_drop_kinds[6] = { "kernel", "copy", "set", "sync", "marker", "other" };

struct fields {
	char *v[MAX_FIELDS];
	int n;
};

static void
split(char *s, struct fields *fl)
{
	fl->n = 0;
	while (fl->n < MAX_FIELDS) {
		fl->v[fl->n++] = s;
		if ((s = strchr(s, '\t')) == NULL)
			break;
		*s++ = '\0';
	}
}

/* A whole decimal number in [lo, hi]. */
static int
parse_whole(const char *s, long long lo, long long hi, long long *out)
{
	char *end;
	long long v;

	if (*s == '\0' || (*s != '-' && (*s < '0' || *s > '9')))
		return 0;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end != '\0' || v < lo || v > hi)
		return 0;
	*out = v;
	return 1;
}

/* The fields from first on as numbers into out, each within [lo, hi]. */
static int
parse_wholes(const struct fields *fl, int first, int count, long long lo, long long hi,
    long long *out)
{
	int i;

	if (fl->n != first + count)
		return 0;
	for (i = 0; i < count; i++)
		if (!parse_whole(fl->v[first + i], lo, hi, &out[i]))
			return 0;
	return 1;
}

/* "key=value" fields of the header and end lines. */
static const char *
kv(const struct fields *fl, int from, const char *key)
{
	size_t n = strlen(key);
	int i;

	for (i = from; i < fl->n; i++)
		if (strncmp(fl->v[i], key, n) == 0 && fl->v[i][n] == '=')
			return fl->v[i] + n + 1;
	return NULL;
}

static long long
kv_num(const struct fields *fl, int from, const char *key, long long def)
{
	const char *v = kv(fl, from, key);
	long long x;

	return v && parse_whole(v, -(1LL << 62), 1LL << 62, &x) ? x : def;
}

static int
header(struct trace_file *f, const struct fields *fl)
{
	const char *cmd = kv(fl, 2, "cmd");
	long long t0;

	if (f->header || fl->n < 2 || strcmp(fl->v[1], "1") != 0)
		return 0;
	if (!parse_whole(kv(fl, 2, "t0") ? kv(fl, 2, "t0") : "", 0, INT64_MAX / 2, &t0))
		return 0;
	f->header = 1;
	f->t0 = f->t1 = t0;
	f->pid = (long)kv_num(fl, 2, "pid", -1);
	f->ppid = (long)kv_num(fl, 2, "ppid", -1);
	f->cupti = (long)kv_num(fl, 2, "cupti", 0);
	f->cmd = xstrdup(cmd ? cmd : "");
	return 1;
}

/* A time relative to t0 as an absolute one, within what int64 holds. */
static int
when(const struct trace_file *f, long long rel, long long dur, int64_t *start, int64_t *end)
{
	if (rel < -(1LL << 61) || rel > (1LL << 61) || dur < 0 || dur > (1LL << 61))
		return 0;
	*start = f->t0 + rel;
	*end = *start + dur;
	return 1;
}

static void
seen(struct trace_file *f, int64_t end)
{
	if (end > f->t1 && !f->ended)
		f->t1 = end;
}

static int
name_line(struct trace_file *f, const struct fields *fl)
{
	long long id;

	if (fl->n != 4 || !parse_whole(fl->v[1], 1, 1 << 30, &id) || (size_t)id != f->nnames + 1)
		return 0;
	KF_GROW(f->names, f->nnames, f->capnames, 16);
	f->names[f->nnames].mangled = xstrdup(fl->v[2]);
	f->names[f->nnames].demangled = xstrdup(fl->v[3][0] ? fl->v[3] : fl->v[2]);
	f->nnames++;
	return 1;
}

static int
kernel_line(struct trace_file *f, const struct fields *fl)
{
	long long v[18];
	struct trace_kernel *k;
	int i;

	if (!parse_wholes(fl, 1, 18, -(1LL << 62), 1LL << 62, v) || v[0] < 1 || (size_t)v[0] > f->nnames)
		return 0;
	for (i = 3; i < 16; i++)
		if (v[i] < 0 || v[i] > UINT32_MAX || (i >= 6 && i <= 14 && i != 12 && v[i] > INT32_MAX))
			return 0;
	KF_GROW(f->k, f->nk, f->capk, 16);
	k = &f->k[f->nk];
	if (!when(f, v[1], v[2], &k->start, &k->end))
		return 0;
	k->name = (uint32_t)(v[0] - 1);
	k->device = (uint32_t)v[3];
	k->stream = (uint32_t)v[5];
	for (i = 0; i < 3; i++) {
		k->grid[i] = (int32_t)v[6 + i];
		k->block[i] = (int32_t)v[9 + i];
	}
	k->regs = (uint32_t)v[12];
	k->smem_static = (int32_t)v[13];
	k->smem_dynamic = (int32_t)v[14];
	k->graph = (uint32_t)v[15];
	k->corr = v[17] >= 0 && v[17] <= UINT32_MAX ? (uint32_t)v[17] : 0;
	f->nk++;
	seen(f, k->end);
	return 1;
}

/* C, S and Y lines. The numbers: a copy's after its kind (bytes start
 * dur device stream ...), a set's (bytes start dur device stream ...), a
 * synchronisation's (type start dur context stream). */
static int
op_line(struct trace_file *f, const struct fields *fl, char kind)
{
	int first = kind == 'C' ? 2 : 1, count = kind == 'C' ? 8 : kind == 'S' ? 7 : 5;
	long long v[8];
	struct trace_op *o;

	if (!parse_wholes(fl, first, count, -(1LL << 62), 1LL << 62, v) || v[0] < 0)
		return 0;
	if (kind == 'C' && (strlen(fl->v[1]) >= sizeof o->copy || fl->v[1][0] == '\0'))
		return 0;
	KF_GROW(f->ops, f->nops, f->capops, 16);
	o = &f->ops[f->nops];
	memset(o, 0, sizeof *o);
	if (!when(f, v[1], v[2], &o->start, &o->end))
		return 0;
	o->kind = kind;
	if (kind == 'C')
		strcpy(o->copy, fl->v[1]);
	o->bytes = kind == 'Y' ? 0 : (uint64_t)v[0];
	o->sync = kind == 'Y' && v[0] <= UINT32_MAX ? (uint32_t)v[0] : 0;
	o->device = kind == 'Y' ? 0 : (uint32_t)(v[3] & 0xffffffff);
	o->stream = (uint32_t)(v[4] & 0xffffffff);
	f->nops++;
	seen(f, o->end);
	return 1;
}

static int
marker_line(struct trace_file *f, const struct fields *fl)
{
	long long v[3];
	struct trace_marker *m;

	if (fl->n != 6 || !parse_whole(fl->v[1], 0, UINT32_MAX, &v[0]) ||
	    !parse_whole(fl->v[2], 0, UINT32_MAX, &v[1]) ||
	    !parse_whole(fl->v[3], -(1LL << 61), 1LL << 61, &v[2]))
		return 0;
	KF_GROW(f->m, f->nm, f->capm, 16);
	m = &f->m[f->nm++];
	m->flags = (uint32_t)v[0];
	m->id = (uint32_t)v[1];
	m->time = f->t0 + v[2];
	m->domain = xstrdup(fl->v[4]);
	m->name = xstrdup(fl->v[5]);
	seen(f, m->time);
	return 1;
}

static int
range_line(struct trace_file *f, const struct fields *fl)
{
	long long v[2];
	struct trace_range *r;
	int start = fl->n == 4 && strcmp(fl->v[1], "start") == 0;

	if (fl->n != 4 || (!start && strcmp(fl->v[1], "stop") != 0) ||
	    !parse_whole(fl->v[2], 0, UINT32_MAX, &v[0]) ||
	    !parse_whole(fl->v[3], -(1LL << 61), 1LL << 61, &v[1]))
		return 0;
	KF_GROW(f->r, f->nr, f->capr, 8);
	r = &f->r[f->nr++];
	r->corr = (uint32_t)v[0];
	r->start = start;
	r->time = f->t0 + v[1];
	seen(f, r->time);
	return 1;
}

int
trace_in_range(const struct trace_file *f, const struct trace_kernel *k)
{
	const struct trace_range *last = NULL;
	size_t i;

	if (f->nr == 0)
		return -1;
	/* the last call of the range before the launch's, by correlation */
	for (i = 0; i < f->nr; i++)
		if (f->r[i].corr < k->corr && (last == NULL || f->r[i].corr > last->corr))
			last = &f->r[i];
	return last && last->start;
}

struct at {
	int64_t start;
	size_t i;
};

static int
cmp_at(const void *x, const void *y)
{
	const struct at *a = x, *b = y;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

size_t *
trace_launch_order(const struct trace_file *f)
{
	struct at *v = xcalloc(f->nk + 1, sizeof *v);
	size_t *o = xcalloc(f->nk + 1, sizeof *o), i;

	for (i = 0; i < f->nk; i++) {
		v[i].start = f->k[i].start;
		v[i].i = i;
	}
	if (f->nk > 1)
		kf_sort(v, f->nk, sizeof *v, cmp_at);
	for (i = 0; i < f->nk; i++)
		o[i] = v[i].i;
	free(v);
	return o;
}

static int
cmp_time(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return a < b ? -1 : a > b;
}

/* Whether one of the n sorted times e lies in [from, to). */
static int
any_in(const int64_t *e, size_t n, int64_t from, int64_t to)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (e[mid] < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && e[lo] < to;
}

int
trace_waits(const struct trace_file *f, const size_t *order, char *waited)
{
	int64_t *ends = xcalloc(f->nops + 1, sizeof *ends);
	size_t n = 0, i;
	int any = 0;

	for (i = 0; i < f->nops; i++)
		if (TRACE_HOST_WAITS(&f->ops[i]))
			ends[n++] = f->ops[i].end;
	if (n > 1)
		kf_sort(ends, n, sizeof *ends, cmp_time);
	for (i = 0; i < f->nk; i++) {
		waited[order[i]] = any_in(ends, n, f->k[order[i]].start,
		    i + 1 < f->nk ? f->k[order[i + 1]].start : INT64_MAX);
		any |= waited[order[i]];
	}
	free(ends);
	return any;
}

static int
drop_line(struct trace_file *f, const struct fields *fl)
{
	long long n;
	int i;

	if (fl->n != 3 || !parse_whole(fl->v[2], 0, 1LL << 62, &n))
		return 0;
	for (i = 0; i < 6; i++)
		if (strcmp(fl->v[1], trace_drop_kinds[i]) == 0) {
			f->dropped[i] += (unsigned long long)n;
			return 1;
		}
	return 0;
}

static int
end_line(struct trace_file *f, const struct fields *fl)
{
	long long rel;
	const char *how = kv(fl, 2, "end");

	if (f->ended || fl->n < 2 || !parse_whole(fl->v[1], 0, 1LL << 61, &rel))
		return 0;
	f->ended = 1;
	f->t1 = f->t0 + rel;
	f->end_how = xstrdup(how ? how : "");
	f->signal = (long)kv_num(fl, 2, "signal", 0);
	f->cupti_dropped = (unsigned long long)kv_num(fl, 2, "cupti_dropped", 0);
	return 1;
}

static void
line(struct trace_file *f, char *s)
{
	struct fields fl;
	int ok;

	split(s, &fl);
	if (!f->header) {
		ok = strcmp(fl.v[0], "#kftrace") == 0 && header(f, &fl);
	} else if (fl.v[0][0] != '\0' && fl.v[0][1] == '\0' && !f->ended) {
		switch (fl.v[0][0]) {
		case 'N': ok = name_line(f, &fl); break;
		case 'K': ok = kernel_line(f, &fl); break;
		case 'C': case 'S': case 'Y': ok = op_line(f, &fl, fl.v[0][0]); break;
		case 'M': ok = marker_line(f, &fl); break;
		case 'P': ok = range_line(f, &fl); break;
		case 'D': ok = drop_line(f, &fl); break;
		case 'E': ok = end_line(f, &fl); break;
		default: f->unknown_lines++; return;	/* a later version's */
		}
	} else {
		ok = 0;
	}
	if (!ok) {
		if (f->bad_lines++ == 0)
			f->bad_first = f->lines;
	}
}

void
trace_file_parse(struct trace_file *f, const char *path, const char *s, size_t n)
{
	const char *end = s + n, *nl;
	char *copy;

	memset(f, 0, sizeof *f);
	f->path = xstrdup(path);
	f->signal = 0;
	while (s < end) {
		if ((nl = memchr(s, '\n', (size_t)(end - s))) == NULL) {
			f->cut = 1;
			break;
		}
		f->lines++;
		copy = xstrndup(s, (size_t)(nl - s));
		if (strlen(copy) != (size_t)(nl - s)) {	/* a NUL: not ours */
			if (f->bad_lines++ == 0)
				f->bad_first = f->lines;
		} else {
			line(f, copy);
		}
		free(copy);
		s = nl + 1;
	}
}

int
trace_file_read(struct trace_file *f, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct buf b = {0};
	char chunk[65536];
	ssize_t got;
	int err = 0;

	if (fd < 0)
		return -1;
	while ((got = read(fd, chunk, sizeof chunk)) != 0) {
		if (got < 0) {
			if (errno == EINTR)
				continue;
			err = errno;
			break;
		}
		buf_add(&b, chunk, (size_t)got);
	}
	close(fd);
	trace_file_parse(f, path, b.s ? b.s : "", b.len);
	f->io_err = err;
	buf_free(&b);
	return 0;
}

void
trace_file_free(struct trace_file *f)
{
	size_t i;

	for (i = 0; i < f->nnames; i++) {
		free(f->names[i].mangled);
		free(f->names[i].demangled);
	}
	for (i = 0; i < f->nm; i++) {
		free(f->m[i].domain);
		free(f->m[i].name);
	}
	free(f->names);
	free(f->k);
	free(f->ops);
	free(f->m);
	free(f->r);
	free(f->cmd);
	free(f->end_how);
	free(f->path);
	memset(f, 0, sizeof *f);
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **
trace_list(const char *dir, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **v = NULL;
	size_t cap = 0;

	*n = 0;
	if (d == NULL)
		return NULL;
	while ((e = readdir(d)) != NULL) {
		if (!kf_startswith(e->d_name, "trace.") || !kf_endswith(e->d_name, ".kft"))
			continue;
		KF_GROW(v, *n + 1, cap, 16);
		v[(*n)++] = kf_path_join(dir, e->d_name);
	}
	closedir(d);
	KF_GROW(v, *n + 1, cap, 16);
	v[*n] = NULL;
	if (*n > 1)
		kf_sort(v, *n, sizeof *v, cmp_str);
	return v;
}
