/* kf: the Intel VTune path: reading the tab-separated hotspots report a
 * pass leaves (kf-read; the command is in vtune_wrap.c, the merge of passes
 * in vtune_collate.c).
 *
 * The report has one row per computing task, columns named "Parent:Child"
 * (some with a "(%)" suffix, some with commas in the name). Rows that share
 * a kernel name (SIMD width variants) are merged here, in vtune_read, the
 * way the reference does: total times added, the per-instance metrics of
 * the variant with the longest total time kept, each variant listed. A
 * value the longest variant lacks comes from the longest variant that has
 * it (the reference fills such gaps only when the longer row comes later).
 * vtune_collate then only copies the one pass's data.
 *
 * Ownership: every cJSON tree built here is attached to the record or freed
 * before returning. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "feedback.h"
#include "map.h"
#include "profiler.h"
#include "record.h"
#include "vtune.h"
#include "buf.h"
#include "lines.h"
#include "mem.h"
#include "num.h"
#include "path.h"

#define MAX_MESSAGES 5
#define MAX_VARIANTS 32	/* rows of one kernel listed in "variants" */

/* ---- kf-read: the columns ---- */

enum { NUM, STR };

/* Report columns by name, after normalising: "(%)" removed, "EU" (older
 * GPUs) read as "XVE", case ignored. */
static const struct col {
	const char *name, *key;
	int type;
} known[] = {
	{ "Work Size:Global", "work_size_global", STR },
	{ "Work Size:Local", "work_size_local", STR },
	{ "Computing Task:Total Time", "total_time_s", NUM },
	{ "Computing Task:Average Time", "average_time_s", NUM },
	{ "Computing Task:Instance Count", "instance_count", NUM },
	{ "Computing Task:SIMD Width", "simd_width", NUM },
	{ "Computing Task:SVM Usage Type", "svm_usage_type", STR },
	{ "Computing Task:Spill Memory Size", "spill_memory_size", NUM },
	{ "XVE Array:Active", "xve_active_pct", NUM },
	{ "XVE Array:Stalled", "xve_stalled_pct", NUM },
	{ "XVE Array:Idle", "xve_idle_pct", NUM },
	{ "XVE Threads Occupancy", "occupancy_pct", NUM },
	{ "Peak XVE Threads Occupancy", "peak_occupancy_pct", NUM },
	{ "Peak XVE Threads Occupancy:Work Size Limit", "peak_occupancy_work_size_limit_pct", NUM },
	{ "Peak XVE Threads Occupancy:SLM Use Limit", "peak_occupancy_slm_limit_pct", NUM },
	{ "Peak XVE Threads Occupancy:Barriers Use Limit", "peak_occupancy_barriers_limit_pct", NUM },
	{ "XVE Stall Reasons:Send", "stall_send_pct", NUM },
	{ "XVE Stall Reasons:Barrier", "stall_barrier_pct", NUM },
	{ "XVE Stall Reasons:SBID", "stall_sbid_pct", NUM },
	{ "XVE Stall Reasons:Instruction Fetch", "stall_instruction_fetch_pct", NUM },
	{ "XVE Stall Reasons:Dist or Acc", "stall_dist_acc_pct", NUM },
	{ "XVE Pipelines:ALU0 active", "alu0_active_pct", NUM },
	{ "XVE Pipelines:ALU1 active", "alu1_active_pct", NUM },
	{ "XVE Pipelines:XMX active", "xmx_active_pct", NUM },
	{ "XVE Instructions:ALU0 Instructions", "alu0_instructions", NUM },
	{ "XVE Instructions:ALU1 Instructions", "alu1_instructions", NUM },
	{ "XVE Instructions:XMX instructions", "xmx_instructions", NUM },
	{ "GPU Memory Bandwidth, GB/sec:Read", "gpu_memory_read_gbps", NUM },
	{ "GPU Memory Bandwidth, GB/sec:Write", "gpu_memory_write_gbps", NUM },
	{ "GPU L3:Busy", "l3_busy_pct", NUM },
	{ "GPU L3:Stalled", "l3_stalled_pct", NUM },
	{ "GPU L3:Miss Ratio", "l3_miss_pct", NUM },
	{ "GPU L3:Average Bandwidth, GB/s:Read", "l3_read_gbps", NUM },
	{ "GPU L3:Average Bandwidth, GB/s:Write", "l3_write_gbps", NUM },
	{ "TLB Misses", "tlb_misses", NUM },
};
#define NKNOWN (sizeof known / sizeof known[0])

/* The column name as looked up: trimmed, "(%)" dropped, EU read as XVE. */
static char *
normal_name(const char *s)
{
	static const char *const eu[][2] = {
		{ "EU Array", "XVE Array" },
		{ "EU Threads Occupancy", "XVE Threads Occupancy" },
		{ "Peak EU Threads Occupancy", "Peak XVE Threads Occupancy" },
		{ "EU Stall Reasons", "XVE Stall Reasons" },
		{ "EU Pipelines", "XVE Pipelines" },
		{ "EU Instructions", "XVE Instructions" },
	};
	char *n = kf_trim(xstrdup(s)), *p;
	size_t i;

	while ((p = strstr(n, "(%)")) != NULL)
		memmove(p, p + 3, strlen(p + 3) + 1);
	kf_trim(n);
	for (i = 0; i < sizeof eu / sizeof eu[0]; i++) {
		size_t m = strlen(eu[i][0]);

		if (strncmp(n, eu[i][0], m) == 0 && (n[m] == '\0' || n[m] == ':')) {
			char *r = xasprintf("%s%s", eu[i][1], n + m);

			free(n);
			return r;
		}
	}
	return n;
}

static int
lookup(const char *name)
{
	char *n = normal_name(name);
	size_t i;
	int r = -1;

	for (i = 0; i < NKNOWN && r < 0; i++)
		if (kf_strieq(n, known[i].name))
			r = (int)i;
	free(n);
	return r;
}

/* ---- kf-read: splitting lines ---- */

struct fields {
	char **v;
	size_t n, cap;
};

static void
fields_add(struct fields *f, char *s)
{
	KF_GROW(f->v, f->n, f->cap, 64);
	f->v[f->n++] = s;
}

/* The quote that closes the quoted field at p (a '"' followed by delim or
 * the end, "" being an escaped quote), or NULL. */
static char *
closing_quote(char *p, char delim)
{
	for (p++; *p; p++) {
		if (*p == '"' && p[1] == '"')
			p++;
		else if (*p == '"' && (p[1] == delim || p[1] == '\0'))
			return p;
	}
	return NULL;
}

/* Split s in place at delim. A field that starts with '"' is read as a
 * quoted field ("" inside is one quote); VTune is not known to quote, but
 * a name holding the delimiter could only survive that way. */
static void
split(char *s, char delim, struct fields *f)
{
	char *p = s;

	f->n = 0;
	for (;;) {
		char *q = *p == '"' ? closing_quote(p, delim) : NULL;

		if (q) {
			char *r = p + 1, *w = p;

			for (; r < q; r++) {
				*w++ = *r;
				if (*r == '"')
					r++;	/* "" is one quote */
			}
			*w = '\0';
			fields_add(f, p);
			if (q[1] == '\0')
				return;
			p = q + 2;
			continue;
		}
		/* Not quoted, or no closing quote: the field as it stands. */
		fields_add(f, p);
		while (*p && *p != delim)
			p++;
		if (*p == '\0')
			return;
		*p++ = '\0';
	}
}

/* ---- kf-read: the report ---- */

/* One value of a kernel's merged metrics: that of the row with the longest
 * total time among the rows that have it. */
struct cell {
	int has;
	double t;		/* the total time of the row it came from */
	double num;
	char *str;		/* text, or NULL for a number */
};

/* A kernel: its rows merged as they stream by, so memory grows with the
 * kernels and columns, not the rows. */
struct kernel {
	char *name;
	size_t order;
	long rows, best_row;
	double total_ns, best_t, inst;
	int ninst;
	struct cell *c;		/* per column id */
	size_t nc;
	cJSON *variants;	/* the first MAX_VARIANTS rows, in brief */
};

struct report {
	char delim;
	size_t ncol;
	int *colid;		/* column id per column (-1: the name) */
	char **colname;
	struct kf_map others;	/* unknown column name -> NKNOWN + n + 1 */
	char **othername;
	size_t nother;
	struct cell *row;	/* the row being read, per column id */
	size_t nrow;
	struct kf_map index;	/* kernel name -> kernel number + 1 */
	struct kernel *k;
	size_t nk, capk;
	long rows, skipped;
	cJSON *messages;
	long nmessages;
};

static void
report_free(struct report *r)
{
	size_t i, j;

	for (i = 0; i < r->ncol; i++)
		free(r->colname[i]);
	free(r->colname);
	free(r->colid);
	for (i = 0; i < r->nother; i++)
		free(r->othername[i]);
	free(r->othername);
	kf_map_free(&r->others);
	free(r->row);
	for (i = 0; i < r->nk; i++) {
		free(r->k[i].name);
		for (j = 0; j < r->k[i].nc; j++)
			free(r->k[i].c[j].str);
		free(r->k[i].c);
		cJSON_Delete(r->k[i].variants);
	}
	free(r->k);
	kf_map_free(&r->index);
	cJSON_Delete(r->messages);
}

/* A progress line ends in '\r' and the next text overwrites it; what shows
 * is what follows the last '\r'. A UTF-8 byte order mark is dropped too. */
static char *
visible(char *s)
{
	char *cr = strrchr(s, '\r');

	if (cr)
		s = cr + 1;
	if ((unsigned char)s[0] == 0xef && (unsigned char)s[1] == 0xbb &&
	    (unsigned char)s[2] == 0xbf)
		s += 3;
	return s;
}

static void
note_message(struct report *r, const char *s)
{
	char *t;

	r->skipped++;
	if (*s == '\0' || r->nmessages++ >= MAX_MESSAGES)
		return;
	t = kf_trim(xstrndup(s, strnlen(s, 300)));
	cJSON_AddItemToArray(r->messages, cJSON_CreateString(t));
	free(t);
}

/* "Computing Task" then a delimiter, or alone. */
static int
is_header(const char *s, char *delim)
{
	static const char head[] = "Computing Task";
	size_t m = sizeof head - 1;

	if (strncmp(s, head, m) != 0)
		return 0;
	if (s[m] == '\0' || s[m] == '\t' || s[m] == ';' || s[m] == ',') {
		*delim = s[m] ? s[m] : '\t';
		return 1;
	}
	return 0;
}

/* The column id of a column kf does not know, by its name. */
static int
other_id(struct report *r, const char *name)
{
	struct kf_map_ent *e = kf_map_slot(&r->others, name, NULL);

	if (e->val == NULL) {
		r->othername = xrealloc(r->othername, (r->nother + 1) * sizeof *r->othername);
		r->othername[r->nother++] = xstrdup(name);
		e->val = (void *)(NKNOWN + r->nother);
	}
	return (int)((size_t)e->val - 1);
}

static void
read_header(struct report *r, char *s, char delim)
{
	struct fields f = {0};
	size_t i;

	for (i = 0; i < r->ncol; i++)
		free(r->colname[i]);
	r->delim = delim;
	split(s, delim, &f);
	r->ncol = f.n;
	r->colid = xrealloc(r->colid, f.n * sizeof *r->colid);
	r->colname = xrealloc(r->colname, f.n * sizeof *r->colname);
	for (i = 0; i < f.n; i++) {
		r->colname[i] = kf_trim(xstrdup(f.v[i]));
		r->colid[i] = i == 0 ? -1 : lookup(f.v[i]);
		if (i > 0 && r->colid[i] < 0)
			r->colid[i] = other_id(r, r->colname[i]);
	}
	free(f.v);
}

static struct kernel *
kernel_for(struct report *r, const char *name)
{
	struct kf_map_ent *e = kf_map_slot(&r->index, name, NULL);
	struct kernel *k;

	if (e->val)
		return &r->k[(size_t)e->val - 1];
	KF_GROW(r->k, r->nk, r->capk, 16);
	k = &r->k[r->nk];
	memset(k, 0, sizeof *k);
	k->name = xstrdup(name);
	k->variants = cJSON_CreateArray();
	k->order = r->nk;
	e->val = (void *)(++r->nk);
	return k;
}

/* Read one cell into the row; empty cells stay missing (not 0). */
static void
put_cell(struct report *r, size_t col, char *cell)
{
	int id = r->colid[col], isnum;
	double d = 0;

	kf_trim(cell);
	if (*cell == '\0')
		return;
	isnum = (id < (int)NKNOWN && known[id].type == STR) ? 0 : kf_parse_number(cell, &d);
	if (id < (int)NKNOWN && known[id].type == NUM && !isnum)
		id = other_id(r, r->colname[col]);	/* text such as "n/a": kept as it is */
	if ((size_t)id >= r->nrow) {
		r->row = xrealloc(r->row, (size_t)(id + 1) * sizeof *r->row);
		memset(r->row + r->nrow, 0, ((size_t)id + 1 - r->nrow) * sizeof *r->row);
		r->nrow = (size_t)id + 1;
	}
	if (r->row[id].has)
		return;		/* the same metric twice ("Active" and "Active(%)") */
	r->row[id].has = 1;
	r->row[id].num = d;
	r->row[id].str = isnum ? NULL : cell;
}

static int
id_of(const char *key)
{
	size_t i;

	for (i = 0; i < NKNOWN; i++)
		if (strcmp(known[i].key, key) == 0)
			return (int)i;
	return -1;
}

static void
add_cell(cJSON *o, const char *key, const struct cell *c)
{
	if (c->str)
		cJSON_AddStringToObject(o, key, c->str);
	else
		cJSON_AddNumberToObject(o, key, c->num);
}

/* Fold the row just read into its kernel: each value is kept from the row
 * with the longest total time that has it (the first of equals). */
static void
merge_row(struct report *r, struct kernel *k)
{
	static const char *const vkeys[] = {
		"simd_width", "instance_count", "total_time_s", "average_time_s",
		"work_size_global", "work_size_local", NULL,
	};
	int tid = id_of("total_time_s"), iid = id_of("instance_count");
	double t = r->row[tid].has && !r->row[tid].str ? r->row[tid].num : 0;
	size_t i;

	if (k->nc < r->nrow) {
		k->c = xrealloc(k->c, r->nrow * sizeof *k->c);
		memset(k->c + k->nc, 0, (r->nrow - k->nc) * sizeof *k->c);
		k->nc = r->nrow;
	}
	if (k->rows == 0 || t > k->best_t) {
		k->best_t = t;
		k->best_row = k->rows;
	}
	k->total_ns += round(t * 1e9);
	if (r->row[iid].has && !r->row[iid].str) {
		k->inst += r->row[iid].num;
		k->ninst++;
	}
	for (i = 0; i < r->nrow; i++) {
		struct cell *c = &k->c[i], *n = &r->row[i];

		if (!n->has || (c->has && t <= c->t))
			continue;
		free(c->str);
		c->has = 1;
		c->t = t;
		c->num = n->num;
		c->str = n->str ? xstrdup(n->str) : NULL;
	}
	if (k->rows < MAX_VARIANTS) {
		cJSON *v = cJSON_CreateObject();
		int id;

		for (i = 0; vkeys[i]; i++)
			if ((id = id_of(vkeys[i])) >= 0 && r->row[id].has)
				add_cell(v, vkeys[i], &r->row[id]);
		cJSON_AddItemToArray(k->variants, v);
	}
	k->rows++;
}

static void
read_row(struct report *r, char *s)
{
	struct fields f = {0};
	size_t i, extra;
	struct buf name = {0};

	split(s, r->delim, &f);
	/* More cells than columns: the name held the delimiter. */
	extra = f.n > r->ncol ? f.n - r->ncol : 0;
	for (i = 0; i <= extra; i++) {
		if (i)
			buf_putc(&name, r->delim);
		buf_puts(&name, f.v[i]);
	}
	kf_trim(name.s);
	/* A row of delimiters only has no name; a line without any delimiter
	 * under a header of several columns is no row (program output, a
	 * message), even cut short a row has its name and a delimiter. */
	if (name.s[strspn(name.s, " \t;")] == '\0' || kf_startswith(name.s, "vtune:") ||
	    kf_startswith(name.s, "war:") || (f.n == 1 && r->ncol > 1)) {
		note_message(r, s);
	} else {
		if (r->nrow < NKNOWN) {
			r->row = xrealloc(r->row, NKNOWN * sizeof *r->row);
			r->nrow = NKNOWN;
		}
		for (i = 0; i < r->nrow; i++)
			r->row[i].has = 0;
		for (i = 1; i < r->ncol && i + extra < f.n; i++)
			put_cell(r, i, f.v[i + extra]);
		merge_row(r, kernel_for(r, name.s));
		r->rows++;
	}
	buf_free(&name);
	free(f.v);
}

static cJSON *
kernel_json(struct report *r, struct kernel *k)
{
	cJSON *o = cJSON_CreateObject(), *m = cJSON_CreateObject(), *other = NULL;
	size_t i;

	cJSON_AddStringToObject(o, "name", k->name);
	if (k->name[0] == '[')
		cJSON_AddTrueToObject(o, "pseudo");
	cJSON_AddNumberToObject(o, "rows", (double)k->rows);
	for (i = 0; i < k->nc; i++) {
		if (!k->c[i].has)
			continue;
		if (i < NKNOWN) {
			add_cell(m, known[i].key, &k->c[i]);
		} else {
			if (other == NULL)
				other = cJSON_CreateObject();
			add_cell(other, r->othername[i - NKNOWN], &k->c[i]);
		}
	}
	if (k->rows > 1) {
		if (cJSON_HasObjectItem(m, "total_time_s") || k->total_ns > 0)
			kf_set_num(m, "total_time_s", k->total_ns / 1e9);
		if (k->ninst > 1)
			kf_set_num(m, "instance_count_all", k->inst);
	}
	cJSON_AddItemToObject(o, "metrics", m);
	if (other)
		cJSON_AddItemToObject(o, "other", other);
	cJSON_AddItemToObject(o, "variants", k->variants);
	k->variants = NULL;
	if (k->rows > MAX_VARIANTS)
		cJSON_AddNumberToObject(o, "variants_omitted", (double)(k->rows - MAX_VARIANTS));
	cJSON_AddNumberToObject(o, "metrics_from_variant", (double)k->best_row);
	return o;
}

static int
by_total(const void *a, const void *b)
{
	const struct kernel *x = *(struct kernel *const *)a, *y = *(struct kernel *const *)b;

	if (x->total_ns != y->total_ns)
		return x->total_ns < y->total_ns ? 1 : -1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* ---- kf-read: why there is nothing to read ---- */

/* The last line of text that starts with prefix (a copy), or NULL. */
static char *
last_line_with(const char *text, const char *prefix)
{
	const char *p, *found = NULL;
	size_t m = strlen(prefix);

	for (p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (strncmp(p, prefix, m) == 0)
			found = p;
	if (found == NULL)
		return NULL;
	return xstrndup(found, strcspn(found, "\r\n"));
}

/* The kf-vtune line of the run's stderr says what (a copy), or NULL. */
static char *
run_says(const cJSON *rec, const char *what)
{
	const char *err = kf_str(kf_obj(rec, "run"), "stderr");
	char *line = err ? last_line_with(err, "kf-vtune: ") : NULL;

	if (line && strstr(line, what))
		return line;
	free(line);
	return NULL;
}

/* Fail rec (kind, message) explaining from its "run" why dir holds no
 * usable report; what = what is wrong with the report. */
static void
fail_no_report(cJSON *rec, const char *dir, const char *kind, const char *what)
{
	const cJSON *run = kf_obj(rec, "run");
	const char *err = run ? kf_str(run, "stderr") : NULL;
	char *line = NULL, *verr = NULL;

	if (err) {
		line = last_line_with(err, "kf-vtune: ");
		verr = last_line_with(err, "vtune: Error:");
	}
	if (line && strstr(line, "collection failed")) {
		kf_fail(rec, "collect_failed", "%s: %s%s%s", what, line + 10,
		    verr ? "; " : "", verr ? verr : "");
		kf_fail_hint(rec, "VTune could not collect GPU hotspots. Check the program runs "
		    "without VTune, and that VTune can profile this GPU (vtune-self-checker.sh; "
		    "GPU metrics need the Intel GPU driver with observation allowed, e.g. sysctl "
		    "dev.i915.perf_stream_paranoid=0 or dev.xe.observation_paranoid=0)");
	} else if (line && strstr(line, "report failed")) {
		kf_fail(rec, "report_failed", "%s: %s%s%s", what, line + 10,
		    verr ? "; " : "", verr ? verr : "");
		kf_fail_hint(rec, "the collection finished but 'vtune -report hotspots' failed: run "
		    "it by hand on %s/" VTUNE_RESULT_DIR " to see why", dir);
	} else if (kf_fail_if_stopped(rec, "VTune", what)) {
		/* said */
	} else if (run && kf_num(run, "exit_code", 0) != 0) {
		kf_fail(rec, kind, "%s: the profiled run exited with status %.0f%s%s", what,
		    kf_num(run, "exit_code", 0), verr ? "; " : "", verr ? verr : "");
		kf_fail_hint(rec, "see run.stderr: the program, or VTune, failed");
	} else if (run == NULL) {
		kf_fail(rec, kind, "%s (the record has no \"run\": nothing says how it was made)", what);
		kf_fail_hint(rec, "profile with kf-wrap vtune -- CMD | kf-run, or point output_dir "
		    "at a folder holding " VTUNE_REPORT_FILE);
	} else {
		kf_fail(rec, kind, "%s", what);
		kf_fail_hint(rec, "the run ended normally but left no usable report; see run.stdout "
		    "and run.stderr");
	}
	free(line);
	free(verr);
}

/* ---- kf-read ---- */

static void
parse(struct kf_lines *l, struct report *r, int *header)
{
	char delim;

	while (kf_lines_next(l) == 1) {
		char *s = visible(l->s);

		/* A header later on (reports run together) starts a new column set. */
		if (is_header(s, &delim)) {
			read_header(r, s, delim);
			*header = 1;
			continue;
		}
		if (!*header)
			note_message(r, s);
		else if (*s)
			read_row(r, s);
	}
}

void
vtune_read(cJSON *rec, const char *dir)
{
	char *path = kf_path_join(dir, VTUNE_REPORT_FILE), *what, *failed = NULL;
	struct report r = {0};
	struct kf_lines l;
	struct kernel **order;
	cJSON *data, *ks;
	int header = 0, rc;
	size_t i, real = 0;

	r.messages = cJSON_CreateArray();
	if (kf_lines_open(&l, path) != 0) {
		if (errno == ENOENT) {
			what = xasprintf("no " VTUNE_REPORT_FILE " in %s", dir);
			fail_no_report(rec, dir, "no_report", what);
			free(what);
		} else {
			kf_fail(rec, "read_error", "cannot open %s: %s", path, strerror(errno));
		}
		goto out;
	}
	parse(&l, &r, &header);
	rc = l.err ? -1 : 0;
	errno = l.err;
	if (rc < 0) {
		kf_fail(rec, "read_error", "error reading %s after line %ld: %s", path, l.no,
		    strerror(errno));
		kf_lines_close(&l);
		goto out;
	}
	if (!header) {
		what = l.no == 0 ? xasprintf("%s is empty", path) :
		    xasprintf("%s has no 'Computing Task' header line (%ld line%s read)",
			path, l.no, l.no == 1 ? "" : "s");
		fail_no_report(rec, dir, l.no == 0 ? "empty_report" : "no_header", what);
		free(what);
		kf_lines_close(&l);
		goto out;
	}
	if (r.delim == ',') {
		kf_fail(rec, "bad_report", "%s is comma-separated: VTune's column names hold "
		    "commas, so its columns cannot be told apart", path);
		kf_fail_hint(rec, "make the report with -csv-delimiter tab (as kf-wrap vtune does)");
		kf_lines_close(&l);
		goto out;
	}
	for (i = 0; i < r.nk; i++)
		real += r.k[i].name[0] != '[';
	if ((r.nk == 0 || real == 0) && (failed = run_says(rec, "report failed")) != NULL) {
		what = xasprintf("%s has a header but no computing task", path);
		fail_no_report(rec, dir, "no_rows", what);
		free(what);
		kf_lines_close(&l);
		goto out;
	} else if (r.nk == 0 || real == 0) {
		kf_fail(rec, r.nk == 0 ? "no_rows" : "no_kernels", "%s has a header but %s", path,
		    r.nk == 0 ? "no rows" : "no computing task (only [Outside any task])");
		kf_fail_hint(rec, "VTune saw no GPU kernel: the collection starts paused, so the "
		    "program must resume it around its timed loop (it is told how by "
		    "KERNELFOUNDRY_PROFILER=vtune and KERNELFOUNDRY_vtune_result_dir), and its "
		    "kernels must run on the GPU");
		kf_lines_close(&l);
		goto out;
	}

	data = cJSON_CreateObject();
	cJSON_AddStringToObject(data, "file", VTUNE_REPORT_FILE);
	cJSON_AddStringToObject(data, "delimiter", r.delim == '\t' ? "tab" : "semicolon");
	cJSON_AddNumberToObject(data, "columns", (double)r.ncol);
	cJSON_AddNumberToObject(data, "rows", (double)r.rows);
	cJSON_AddNumberToObject(data, "skipped_lines", (double)r.skipped);
	if (r.messages->child) {
		cJSON_AddItemToObject(data, "messages", r.messages);
		r.messages = NULL;
	}
	if (l.nuls)
		cJSON_AddNumberToObject(data, "nul_bytes", (double)l.nuls);
	/* Rows came, but the report command failed: they may not be all. */
	if (failed != NULL || (failed = run_says(rec, "report failed")) != NULL) {
		cJSON_AddTrueToObject(data, "incomplete");
		cJSON_AddStringToObject(data, "warning", failed + 10);
	}
	kf_lines_close(&l);
	order = xmalloc(r.nk * sizeof *order);
	for (i = 0; i < r.nk; i++)
		order[i] = &r.k[i];
	kf_sort(order, r.nk, sizeof *order, by_total);
	ks = cJSON_AddArrayToObject(data, "kernels");
	for (i = 0; i < r.nk; i++)
		cJSON_AddItemToArray(ks, kernel_json(&r, order[i]));
	free(order);
	kf_set(rec, "data", data);
out:
	kf_emit(rec);
	report_free(&r);
	free(failed);
	free(path);
}
