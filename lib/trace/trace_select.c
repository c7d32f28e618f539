/* kf trace as --top's timing run: kf-read --profiler trace --select K DIR
 * reads the trace in DIR (libexec/kf/kf-ncu ran the program under the
 * tracer into OUT/trace), writes the timing source that ncu's selector
 * reads, OUT/ncu_timing.csv and OUT/ncu_timing_mangled.csv (one row per
 * launch, in launch order, as ncu --metrics gpu__time_duration.sum --csv
 * writes them; a "==KF==" line first says where they came from), and
 * hands them to ncu's selector through the registry: the choice and the
 * filter arguments are ncu's own (lib/ncu/ncu_choose.c). Without
 * KF_SELECT_WRITE the CSVs go into a folder of their own in TMPDIR, removed
 * after: the folder read is not written. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "err.h"
#include "lines.h"
#include "mem.h"
#include "path.h"
#include "record.h"
#include "trace.h"

#define TIMING_CSV KF_TIMING_CSV
#define TIMING_MANGLED_CSV KF_TIMING_MANGLED_CSV

struct launch_in_file {
	const struct trace_kernel *k;
	const struct trace_file *f;
	size_t fi;		/* f's index among the files */
	int waited;		/* KF_WAIT_COL's "yes" */
};

static int
cmp_launch(const void *x, const void *y)
{
	const struct launch_in_file *a = x, *b = y;

	if (a->k->start != b->k->start)
		return a->k->start < b->k->start ? -1 : 1;
	if (a->fi != b->fi)
		return a->fi < b->fi ? -1 : 1;
	return a->k < b->k ? -1 : a->k > b->k;
}

static void
csv_field(FILE *out, const char *s, int last)
{
	putc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			putc('"', out);
		putc(*s, out);
	}
	fputs(last ? "\"\n" : "\",", out);
}

/* Each launch of l (n) waited for where trace_waits says so. 1 when some
 * launch was, else 0. */
static int
mark_waits(struct trace_file *const *f, size_t nf, struct launch_in_file *l, size_t n)
{
	char **w = xcalloc(nf + 1, sizeof *w);
	size_t i, *o;
	int any = 0;

	for (i = 0; i < nf; i++) {
		o = trace_launch_order(f[i]);
		w[i] = xcalloc(f[i]->nk + 1, 1);
		any |= trace_waits(f[i], o, w[i]);
		free(o);
	}
	for (i = 0; i < n; i++)
		l[i].waited = w[l[i].fi][l[i].k - l[i].f->k];
	for (i = 0; i < nf; i++)
		free(w[i]);
	free(w);
	return any;
}

/* With ranges (a process of the program had its own profiler range), a
 * column RANGE_COL: "in" or "out" of its process's range, "" for a
 * process without one; with waits, a last column KF_WAIT_COL. */
static int
write_csv(const char *path, const char *from, const struct launch_in_file *l, size_t n, int mangled,
    int ranges, int waits)
{
	FILE *out = fopen(path, "w");
	size_t i;
	char b[3][96];
	int ok, in;

	if (out == NULL)
		return -1;
	fprintf(out, "==KF== timing from kf trace (CUPTI), %s\n", from);
	fputs("\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\","
	    "\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\","
	    "\"Metric Name\",\"Metric Unit\",\"Metric Value\"", out);
	fputs(ranges ? ",\"" KF_RANGE_COL "\"" : "", out);
	fputs(waits ? ",\"" KF_WAIT_COL "\"\n" : "\n", out);
	for (i = 0; i < n; i++) {
		const struct trace_kernel *k = l[i].k;
		const struct trace_name *nm = &l[i].f->names[k->name];

		fprintf(out, "\"%zu\",\"%ld\",\"\",\"\",", i, l[i].f->pid);
		csv_field(out, mangled ? nm->mangled : nm->demangled, 0);
		snprintf(b[0], sizeof b[0], "(%d, %d, %d)", k->block[0], k->block[1], k->block[2]);
		snprintf(b[1], sizeof b[1], "(%d, %d, %d)", k->grid[0], k->grid[1], k->grid[2]);
		snprintf(b[2], sizeof b[2], "%lld", (long long)(k->end - k->start));
		fprintf(out, "\"\",\"%u\",\"%s\",\"%s\",\"%u\",\"\",\"Command line profiler metrics\","
		    "\"gpu__time_duration.sum\",\"ns\",\"%s\"", k->stream, b[0], b[1], k->device, b[2]);
		in = ranges ? trace_in_range(l[i].f, k) : -1;
		fputs(in < 0 ? (ranges ? ",\"\"" : "") : in ? ",\"in\"" : ",\"out\"", out);
		fputs(!waits ? "\n" : l[i].waited ? ",\"yes\"\n" : ",\"\"\n", out);
	}
	ok = !ferror(out);
	if (fclose(out) != 0)
		ok = 0;
	return ok ? 0 : -1;
}

/* The folder that holds dir ("out" for "out/trace"). */
static char *
parent(const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	while (n > 0 && dir[n - 1] != '/')
		n--;
	return n == 0 ? xstrdup(".") : xstrndup(dir, n);
}

/* The timing CSVs of f into the folder up: *csv its ncu_timing.csv; *lp
 * its launches in ID order (*np of them; the caller frees *lp). */
static int
timing_csvs(const char *dir, const char *up, struct trace_file *const *f, size_t nf,
    char **csv, struct launch_in_file **lp, size_t *np)
{
	struct launch_in_file *l = NULL;
	size_t n = 0, cap = 0, i, j;
	char *mangled;
	int st = 0, ranges = 0, waits;

	for (i = 0; i < nf; i++)
		ranges |= f[i]->nr > 0;
	for (i = 0; i < nf; i++)
		for (j = 0; j < f[i]->nk; j++) {
			KF_GROW(l, n, cap, 1024);
			l[n].k = &f[i]->k[j];
			l[n].fi = i;
			l[n].waited = 0;
			l[n++].f = f[i];
		}
	if (n > 1)
		kf_sort(l, n, sizeof *l, cmp_launch);
	waits = mark_waits(f, nf, l, n);
	*csv = kf_path_join(up, TIMING_CSV);
	mangled = kf_path_join(up, TIMING_MANGLED_CSV);
	if (write_csv(*csv, dir, l, n, 0, ranges, waits) != 0) {
		kf_warn("cannot write %s:", *csv);
		st = -1;
	} else if (write_csv(mangled, dir, l, n, 1, ranges, waits) != 0) {
		kf_warn("cannot write %s:", mangled);
		st = -1;
	}
	free(mangled);
	*lp = l;
	*np = n;
	return st;
}

/* The steady state that ncu's choice found among the launches l (in ID
 * order, n of them), from its ranking in the folder up (KF_TIMING_RANKING's
 * steady_ids, written when launches were set aside before it): the start
 * of its first launch and the latest end of its launches into *from and
 * *to; 0, or -1 when it has none. */
static int
steady_window(const char *up, const struct launch_in_file *l, size_t n, int64_t *from,
    int64_t *to)
{
	char *path = kf_path_join(up, KF_TIMING_RANKING);
	struct kf_lines in;
	cJSON *o = NULL, *ids;
	double a = -1, b = -1;
	size_t i;

	if (kf_lines_open(&in, path) == 0) {
		if (kf_lines_next(&in) == 1)
			o = kf_json_parse(in.s, in.len);
		kf_lines_close(&in);
	}
	free(path);
	ids = o ? cJSON_GetObjectItemCaseSensitive(o, "steady_ids") : NULL;
	if (cJSON_GetArraySize(ids) == 2 && cJSON_IsNumber(cJSON_GetArrayItem(ids, 0)) &&
	    cJSON_IsNumber(cJSON_GetArrayItem(ids, 1))) {
		a = cJSON_GetArrayItem(ids, 0)->valuedouble;
		b = cJSON_GetArrayItem(ids, 1)->valuedouble;
	}
	cJSON_Delete(o);
	if (a < 0 || b < a || b >= (double)n)
		return -1;
	*from = l[(size_t)a].k->start;
	*to = l[(size_t)a].k->end;
	for (i = (size_t)a; i <= (size_t)b; i++)
		if (l[i].k->end > *to)
			*to = l[i].k->end;
	return 0;
}

/* KF_TIMING_TIMELINE into the folder up: the trace's timeline, its window
 * the steady state [from, to] where to > from. */
static void
timeline_file(const char *up, struct trace_file *const *f, size_t nf, int64_t from, int64_t to)
{
	cJSON *d = trace_data_window(f, nf, from, to), *o = cJSON_CreateObject();
	char *path = kf_path_join(up, KF_TIMING_TIMELINE), *s;
	FILE *out = NULL;
	int ok;

	cJSON_AddItemToObject(o, "timeline", cJSON_DetachItemFromObject(d, "timeline"));
	s = cJSON_PrintUnformatted(o);
	ok = s != NULL && (out = fopen(path, "w")) != NULL && fputs(s, out) >= 0 &&
	    putc('\n', out) != EOF;
	if (out != NULL && fclose(out) != 0)
		ok = 0;
	if (!ok)
		kf_warn("cannot write %s:", path);
	free(s);
	free(path);
	cJSON_Delete(o);
	cJSON_Delete(d);
}

/* A fresh folder for the CSVs that are not to be kept, or NULL. */
static char *
scratch(void)
{
	const char *tmp = getenv("TMPDIR");
	char *t = kf_path_join(tmp && *tmp ? tmp : "/tmp", "kf-select-XXXXXX");

	if (mkdtemp(t) == NULL) {
		kf_warn("cannot make a folder for the timing CSVs (%s):", t);
		free(t);
		return NULL;
	}
	return t;
}

static void
scratch_remove(char *t)
{
	char *p;

	if (t == NULL)
		return;
	p = kf_path_join(t, TIMING_CSV);
	unlink(p);
	free(p);
	p = kf_path_join(t, TIMING_MANGLED_CSV);
	unlink(p);
	free(p);
	rmdir(t);
	free(t);
}

int
trace_select(long k, const char *dir, int flags, struct buf *out)
{
	const struct kf_profiler *ncu = kf_profiler_find("ncu");
	struct trace_file **f;
	struct launch_in_file *l = NULL;
	char **paths, *csv = NULL, *up = NULL, *tmp = NULL;
	size_t n, i, whole = 0, nl = 0;
	int st = 1;

	if ((paths = trace_list(dir, &n)) == NULL) {
		kf_warn("cannot read the trace folder %s:", dir);
		return 1;
	}
	f = xcalloc(n + 1, sizeof *f);
	for (i = 0; i < n; i++) {
		f[i] = xcalloc(1, sizeof **f);
		if (trace_file_read(f[i], paths[i]) != 0)
			trace_file_parse(f[i], paths[i], "", 0);
		whole += f[i]->header && f[i]->nk > 0;
	}
	if (whole == 0) {
		int ended = n > 0;

		/* Every process traced to its exit (not a signal, which may
		 * have cut its last records off): it launched no kernel. */
		for (i = 0; i < n; i++)
			ended &= f[i]->header && f[i]->ended && f[i]->end_how &&
			    strcmp(f[i]->end_how, "exit") == 0;
		kf_warn("%s: no kf trace with a kernel launch (%zu trace file%s%s)", dir, n,
		    n == 1 ? "" : "s", ended ? ", each to its process's exit" : "");
		if (ended)
			st = KF_SELECT_NONE;
	} else if (ncu == NULL || ncu->select == NULL)
		kf_warn("no ncu selector to choose the kernels");
	else if ((up = flags & KF_SELECT_WRITE ? parent(dir) : (tmp = scratch())) != NULL &&
	    timing_csvs(dir, up, f, n, &csv, &l, &nl) == 0) {
		st = ncu->select(k, csv, flags, out);
		/* the timeline's window is the steady state the choice found */
		if (flags & KF_SELECT_WRITE) {
			int64_t from = 0, to = 0;

			if (steady_window(up, l, nl, &from, &to) != 0)
				from = to = 0;
			timeline_file(up, f, n, from, to);
		}
	}
	free(l);
	if (up != tmp)
		free(up);
	scratch_remove(tmp);
	for (i = 0; i < n; i++) {
		trace_file_free(f[i]);
		free(f[i]);
		free(paths[i]);
	}
	free(f);
	free(paths);
	free(csv);
	return st;
}
