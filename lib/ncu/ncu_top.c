/* The ncu --top path: how much GPU time each kernel took in the timing run
 * (ncu_timing.csv: one gpu__time_duration.sum per launch), which K kernels
 * to profile in detail (framework machinery left out), and the ncu filter
 * arguments that select one launch of each (by mangled name, from
 * ncu_timing_mangled.csv, the same launches). kf-read --ncu-select makes the
 * choice during the run (libexec/kf/kf-ncu calls it); ncu_read adds the
 * timing to "data" afterwards.
 *
 * The CSV is streamed: memory grows with the number of distinct kernels,
 * not of launches. Everything returned is the caller's. */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csvrow.h"
#include "feedback.h"
#include "map.h"
#include "ncu.h"
#include "record.h"
#include "text.h"

#define MAX_ROW_LINES 64
#define MAX_LISTED 1000		/* kernels listed in data.timing */
#define MAX_NAME_RE 4096	/* bytes of a kernel name quoted in the filter */

/* Called for each launch with a duration: its ID (unique in a report, the
 * same in each of its exports), kernel name and nanoseconds. */
typedef void launch_fn(void *arg, const char *key, const char *name, double ns);

struct timing_rd {
	struct kf_lines l;
	struct kf_csvrow row;
	launch_fn *fn;
	void *arg;
	struct buf key;
	long c_id, c_name, c_sec, c_metric, c_unit, c_value, c_raw;
	char *raw_unit;		/* raw page: the unit of gpu__time_duration.sum */
	int have_hdr, want_units;
	long launches, bad_rows;
	int truncated;
};

static void
timing_hdr(struct timing_rd *t)
{
	size_t i;

	t->c_name = t->c_sec = t->c_metric = t->c_unit = t->c_value = t->c_raw = -1;
	t->c_id = 0;
	for (i = 0; i < t->row.n; i++) {
		const char *f = kf_csvrow_field(&t->row, i, NULL);
		long *c = strcmp(f, "Kernel Name") == 0 ? &t->c_name :
		    strcmp(f, "Section Name") == 0 ? &t->c_sec :
		    strcmp(f, "Metric Name") == 0 ? &t->c_metric :
		    strcmp(f, "Metric Unit") == 0 ? &t->c_unit :
		    strcmp(f, "Metric Value") == 0 ? &t->c_value :
		    strcmp(f, "gpu__time_duration.sum") == 0 ? &t->c_raw : NULL;

		if (c && *c < 0)
			*c = (long)i;
	}
	t->have_hdr = 1;
	t->want_units = t->c_metric < 0;
	free(t->raw_unit);
	t->raw_unit = NULL;
}

static const char *
col(const struct timing_rd *t, long c)
{
	return c < 0 || (size_t)c >= t->row.n ? NULL : kf_csvrow_field(&t->row, (size_t)c, NULL);
}

/* The launch's duration in this row: the timing run's metric, a details
 * page's Speed Of Light "Duration", a raw page's column. 1, 0 for a row of
 * another metric, -1 for a duration that cannot be read (value, unit). */
static int
row_ns(const struct timing_rd *t, double *ns)
{
	const char *m = col(t, t->c_metric), *s = col(t, t->c_sec), *v, *u;
	double d;

	if (t->c_metric >= 0) {
		if (m == NULL || !(strcmp(m, "gpu__time_duration.sum") == 0 ||
		    (strcmp(m, "Duration") == 0 && s && strcmp(s, NCU_SOL) == 0)))
			return 0;
		v = col(t, t->c_value);
		u = col(t, t->c_unit);
	} else {
		v = col(t, t->c_raw);
		u = t->raw_unit;
	}
	return v && u && kf_parse_number(v, &d) && ncu_to_ns(u, d, ns) ? 1 : -1;
}

static void
timing_row(struct timing_rd *t)
{
	const char *first = kf_csvrow_field(&t->row, 0, NULL), *name;
	double ns;
	int got;

	if (strcmp(first, "ID") == 0 && t->row.n > 1 &&
	    strcmp(kf_csvrow_field(&t->row, 1, NULL), "Process ID") == 0) {
		timing_hdr(t);
		return;
	}
	if (!t->have_hdr)
		return;
	if (t->want_units) {
		t->want_units = 0;
		if (first[0] == '\0') {
			free(t->raw_unit);
			t->raw_unit = col(t, t->c_raw) ? xstrdup(col(t, t->c_raw)) : NULL;
			return;
		}
	}
	if ((name = col(t, t->c_name)) == NULL || (got = row_ns(t, &ns)) < 0) {
		t->bad_rows++;
		return;
	}
	if (got == 0)
		return;
	buf_reset(&t->key);
	buf_puts(&t->key, col(t, t->c_id));
	t->fn(t->arg, t->key.s, name, ns);
	t->launches++;
}

static void
rank_launch(void *arg, const char *key, const char *name, double ns)
{
	kf_rank_add(arg, name, ns, 1);
}

/* Each launch of path with a duration to fn. 0, or -1 with errno when it
 * cannot be opened. */
static int
timing_scan(const char *path, launch_fn *fn, void *arg, struct timing_rd *t)
{
	int got;

	memset(t, 0, sizeof *t);
	t->fn = fn;
	t->arg = arg;
	if (kf_lines_open(&t->l, path) < 0)
		return -1;
	kf_csvrow_init(&t->row, ',');
	while ((got = kf_lines_next(&t->l)) > 0) {
		if (kf_csvrow_pending(&t->row) && t->row.nlines >= MAX_ROW_LINES) {
			kf_csvrow_drop(&t->row);
			t->bad_rows++;
		}
		if (!kf_csvrow_pending(&t->row) && t->l.s[0] != '"')
			continue;	/* ==PROF== lines, the program's output */
		if (kf_csvrow_feed(&t->row, t->l.s, t->l.len) == 1 && t->row.n > 0) {
			if (t->l.complete)
				timing_row(t);
			else
				t->truncated = 1;
		}
	}
	if (got < 0 || kf_csvrow_pending(&t->row))
		t->truncated = 1;
	kf_csvrow_free(&t->row);
	kf_lines_close(&t->l);
	free(t->raw_unit);
	buf_free(&t->key);
	return 0;
}

/* Sum path's launches per kernel into rank (unsorted). */
static int
timing_read(const char *path, struct kf_rank *rank, struct timing_rd *t)
{
	return timing_scan(path, rank_launch, rank, t);
}

/* The framework that launches kernel name for itself (machinery.tsv,
 * lib/machinery.c), or NULL: the detailed run is not spent on those. */
static const char *
machinery(const char *name)
{
	const struct kf_machine *m = kf_machinery_find(name);

	return m ? m->framework : NULL;
}

/* name as an ECMAScript (and POSIX extended) regular expression that
 * matches it alone; past MAX_NAME_RE bytes (one argument must stay well
 * under Linux's 128 KiB), its start (cut between characters) and ".*". */
static void
regex_quote(struct buf *b, const char *name)
{
	size_t n = strlen(name), i;

	if (n > MAX_NAME_RE)
		for (n = MAX_NAME_RE; n > 0 && ((unsigned char)name[n] & 0xC0) == 0x80; n--)
			;
	for (i = 0; i < n; i++) {
		if (strchr("\\^$.|?*+()[]{}", name[i]))
			buf_putc(b, '\\');
		buf_putc(b, name[i]);
	}
	if (name[n] != '\0')
		buf_puts(b, ".*");
}

/* The function name ncu's --kernel-name-base function matches, from the
 * name the CSV shows: "void ns::f<T>(int)" -> "f". */
static char *
function_base(const char *name)
{
	const char *end = name + strlen(name), *p;
	static const char pairs[][2] = { { '(', ')' }, { '<', '>' } };
	size_t i;
	int depth;

	for (i = 0; i < 2; i++) {
		if (end == name || end[-1] != pairs[i][1])
			continue;
		for (depth = 0, p = end - 1; p >= name; p--) {
			if (*p == pairs[i][1])
				depth++;
			else if (*p == pairs[i][0] && --depth == 0)
				break;
		}
		if (p >= name)
			end = p;
	}
	for (p = end; p > name && p[-1] != ' ' && p[-1] != ':'; p--)
		;
	return p < end ? xstrndup(p, (size_t)(end - p)) : xstrdup(name);
}

/* The chosen kernels and what the CSVs tell of their launches. */
struct choice {
	const struct kf_rank *rank;
	const size_t *pick;
	size_t n;
	struct kf_map byname;	/* chosen name: index + 1 */
	struct kf_map launch;	/* ID of a chosen kernel's launch: index + 1 */
	char **first;		/* each one's first launch's ID */
	struct kf_map *mangled;	/* each one's mangled names */
};

static void
choice_launch(void *arg, const char *key, const char *name, double ns)
{
	struct choice *c = arg;
	size_t i = (size_t)kf_map_get(&c->byname, name);
	int created;

	if (i-- == 0)
		return;
	kf_map_slot(&c->launch, key, &created)->val = (void *)(i + 1);
	if (c->first[i] == NULL)
		c->first[i] = xstrdup(key);
}

static void
choice_mangled(void *arg, const char *key, const char *name, double ns)
{
	struct choice *c = arg;
	size_t i = (size_t)kf_map_get(&c->launch, key);
	int created;

	if (i > 0 && !strchr(name, '\n'))
		kf_map_slot(&c->mangled[i - 1], name, &created)->val = c;
}

/* The launches of the chosen kernels in csv and, from the mangled CSV
 * beside it (the same report exported with --print-kernel-base mangled),
 * their mangled names. */
static void
choice_read(struct choice *c, const char *csv)
{
	const char *slash = strrchr(csv, '/');
	char *dir = slash ? xstrndup(csv, (size_t)(slash - csv) + 1) : xstrdup("");
	char *mangled = xasprintf("%s%s", dir, NCU_TIMING_MANGLED);
	struct timing_rd t;
	size_t i;
	int created;

	c->first = xcalloc(c->n + 1, sizeof *c->first);
	c->mangled = xcalloc(c->n + 1, sizeof *c->mangled);
	for (i = 0; i < c->n; i++)
		kf_map_slot(&c->byname, c->rank->v[c->pick[i]].name, &created)->val =
		    (void *)(i + 1);
	timing_scan(csv, choice_launch, c, &t);
	timing_scan(mangled, choice_mangled, c, &t);
	free(mangled);
	free(dir);
}

static void
choice_free(struct choice *c)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		free(c->first[i]);
		kf_map_free(&c->mangled[i]);
	}
	free(c->first);
	free(c->mangled);
	kf_map_free(&c->byname);
	kf_map_free(&c->launch);
}

/* ncu's arguments that profile the chosen kernels, one a line, into out.
 * The one place that knows how ncu's filters select. Measured on an H200
 * with ncu 2025.3.1 on ResNet-18's top 3 (PERFORMANCE.md): the names the
 * CSV shows ("void f<float>(T2, const T1 *)") are not the demangled names
 * ncu matches, so templated kernels match nothing with --kernel-name-base
 * demangled; function names merge a template's instances (18 launches with
 * per-launch-config); mangled names select exactly the chosen kernels, and
 * "--kernel-id ::regex:^(A|B|C)$:1" (one --kernel-id: a second is refused)
 * the first launch of each: 3 launches. --kernel-id splits at ':', so a
 * name with one falls back to --kernel-name and one launch per launch
 * configuration (13 launches for the same 3). With one launch a mangled
 * name, "--launch-count N --kill yes" ends the program once the N are
 * profiled (ncu then exits 0): the rest of the run would only cost time,
 * and the timing run has already run the program to its end. */
static void
top_filter(const struct choice *c, struct buf *out)
{
	struct buf re = {0};
	size_t i, j, nm = 0, nre = 0;
	int mangled = 1;

	for (i = 0; i < c->n; i++)
		if (c->mangled[i].n == 0)
			mangled = 0;
	for (i = 0; i < c->n; i++) {
		if (mangled) {
			struct kf_map_ent **e = kf_map_list(&c->mangled[i], &nm);

			for (j = 0; j < nm; j++) {
				buf_puts(&re, i + j > 0 ? "|" : "");
				regex_quote(&re, e[j]->key);
			}
			nre += nm;
			free(e);
		} else {
			char *f = function_base(c->rank->v[c->pick[i]].name);

			buf_puts(&re, i > 0 ? "|" : "");
			regex_quote(&re, f);
			nre++;	/* too many if two share it: the run just goes on */
			free(f);
		}
	}
	buf_printf(out, "--kernel-name-base\n%s\n", mangled ? "mangled" : "function");
	if (strchr(re.s, ':'))
		buf_printf(out, "--kernel-name\nregex:^(%s)$\n--filter-mode\nper-launch-config\n"
		    "--launch-count\n1\n", re.s);
	else
		buf_printf(out, "--kernel-id\n::regex:^(%s)$:1\n--launch-count\n%zu\n"
		    "--kill\nyes\n", re.s, nre);
	buf_free(&re);
}

/* The k kernels with the most time, machinery and names that cannot be
 * one argument (a line end) left out: indexes into the sorted rank. */
static size_t
top_pick(const struct kf_rank *rank, size_t k, size_t *pick)
{
	size_t i, n = 0;

	for (i = 0; i < rank->n && n < k; i++)
		if (!machinery(rank->v[i].name) && !strchr(rank->v[i].name, '\n'))
			pick[n++] = i;
	return n;
}

static cJSON *
top_json(const struct choice *c, long k, const struct buf *filter)
{
	cJSON *o = cJSON_CreateObject(), *a;
	const char *p, *e;
	size_t i;

	cJSON_AddNumberToObject(o, "top", (double)k);
	a = cJSON_AddArrayToObject(o, "chosen");
	for (i = 0; i < c->n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(c->rank->v[c->pick[i]].name));
	a = cJSON_AddArrayToObject(o, "filter");
	for (p = filter->s; p && *p; p = e + 1) {
		char *arg;

		e = strchr(p, '\n');
		arg = xstrndup(p, (size_t)(e - p));
		cJSON_AddItemToArray(a, cJSON_CreateString(arg));
		free(arg);
	}
	return o;
}

static int
write_top(const char *csv, cJSON *top)
{
	const char *slash = strrchr(csv, '/');
	char *dir = slash ? xstrndup(csv, (size_t)(slash - csv) + 1) : xstrdup("");
	char *path = xasprintf("%sncu_top.json", dir);
	char *text = cJSON_PrintUnformatted(top);
	FILE *f = fopen(path, "w");
	int ok = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF;

	if (f && fclose(f) != 0)
		ok = 0;
	if (!ok)
		kf_warn("cannot write %s: %s", path, strerror(errno));
	free(text);
	free(path);
	free(dir);
	return ok ? 0 : -1;
}

/* What --ncu-select prints: the filter, or the first launch's ID of each. */
static int
select_out(const struct choice *c, long k, const char *csv, int flags)
{
	struct buf filter = {0};
	size_t i;
	int st = 0;

	if (flags & KF_SELECT_IDS) {
		for (i = 0; i < c->n; i++)
			if (c->first[i])
				printf("%s\n", c->first[i]);
		return 0;
	}
	top_filter(c, &filter);
	if (flags & KF_SELECT_WRITE) {
		cJSON *top = top_json(c, k, &filter);

		if (write_top(csv, top) != 0)
			st = 1;
		cJSON_Delete(top);
	}
	fwrite(filter.s, 1, filter.len, stdout);
	buf_free(&filter);
	return st;
}

int
ncu_select(long k, const char *csv, int flags)
{
	struct kf_rank rank = {0};
	struct choice c = {0};
	struct timing_rd t;
	size_t *pick;
	int st = 0;

	if (timing_read(csv, &rank, &t) < 0) {
		kf_warn("cannot read %s: %s", csv, strerror(errno));
		return 1;
	}
	kf_rank_sort(&rank);
	pick = xcalloc(rank.n + 1, sizeof *pick);
	if ((c.n = top_pick(&rank, (size_t)k, pick)) == 0) {
		kf_warn("%s: no kernel launch with a duration (%ld launches, %zu kernels, "
		    "all framework machinery)", csv, t.launches, rank.n);
		st = 1;
	} else {
		c.rank = &rank;
		c.pick = pick;
		choice_read(&c, csv);
		st = select_out(&c, k, csv, flags);
		choice_free(&c);
	}
	free(pick);
	kf_rank_free(&rank);
	return st;
}

/* data.timing */

static cJSON *
read_top(const char *dir)
{
	char *path = kf_path_join(dir, "ncu_top.json"), *text = NULL;
	size_t cap = 0;
	ssize_t got;
	FILE *f = fopen(path, "r");
	cJSON *o = NULL;

	if (f && (got = getdelim(&text, &cap, '\0', f)) > 0)
		o = cJSON_Parse(text);
	if (f)
		fclose(f);
	free(text);
	free(path);
	if (o && !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(o, "chosen"))) {
		cJSON_Delete(o);
		o = NULL;
	}
	return o;
}

static int
in_list(const cJSON *a, const char *name)
{
	const cJSON *c;

	cJSON_ArrayForEach(c, a)
		if (cJSON_IsString(c) && strcmp(c->valuestring, name) == 0)
			return 1;
	return 0;
}

static cJSON *
timing_kernels(const struct kf_rank *rank, const cJSON *chosen, const struct kf_map *seen)
{
	cJSON *a = cJSON_CreateArray();
	size_t i;

	for (i = 0; i < rank->n && i < MAX_LISTED; i++) {
		const struct kf_rank_ent *e = &rank->v[i];
		cJSON *o = cJSON_CreateObject();
		const char *fw = machinery(e->name);

		cJSON_AddStringToObject(o, "name", e->name);
		cJSON_AddNumberToObject(o, "launches", (double)e->launches);
		cJSON_AddNumberToObject(o, "total_ns", e->total_ns);
		cJSON_AddNumberToObject(o, "share_pct", e->share);
		if (!e->grouped) {	/* for launch_bound (program.h) */
			cJSON_AddNumberToObject(o, "short_launches", (double)e->short_launches);
			cJSON_AddNumberToObject(o, "short_ns", e->short_ns);
		}
		cJSON_AddBoolToObject(o, "detailed", kf_map_get(seen, e->name) != NULL);
		if (chosen)
			cJSON_AddBoolToObject(o, "chosen", in_list(chosen, e->name));
		if (fw)
			cJSON_AddStringToObject(o, "machinery", fw);
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

/* The chosen kernels the detailed run did not profile. */
static cJSON *
timing_missing(const cJSON *chosen, const struct kf_map *seen)
{
	cJSON *a = cJSON_CreateArray();
	const cJSON *c;

	cJSON_ArrayForEach(c, chosen)
		if (cJSON_IsString(c) && kf_map_get(seen, c->valuestring) == NULL)
			cJSON_AddItemToArray(a, cJSON_CreateString(c->valuestring));
	return a;
}

cJSON *
ncu_timing_data(const char *dir, const struct kf_map *seen)
{
	char *path = kf_path_join(dir, NCU_TIMING);
	struct kf_rank rank = {0};
	struct timing_rd t;
	cJSON *o, *top, *notes;
	int saved = errno;	/* a write error on stdout is told by it */

	if (timing_read(path, &rank, &t) < 0) {
		free(path);
		errno = saved;
		return NULL;
	}
	free(path);
	kf_rank_sort(&rank);
	top = read_top(dir);
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "file", NCU_TIMING);
	cJSON_AddNumberToObject(o, "launches", (double)t.launches);
	cJSON_AddNumberToObject(o, "kernel_count", (double)rank.n);
	cJSON_AddNumberToObject(o, "total_ns", rank.total_ns);
	cJSON_AddItemToObject(o, "kernels", timing_kernels(&rank, cJSON_GetObjectItemCaseSensitive(
	    top, "chosen"), seen));
	if (top) {
		cJSON_AddItemToObject(o, "top", cJSON_DetachItemFromObjectCaseSensitive(top, "top"));
		cJSON_AddItemToObject(o, "chosen",
		    cJSON_DetachItemFromObjectCaseSensitive(top, "chosen"));
		cJSON_AddItemToObject(o, "missing", timing_missing(
		    cJSON_GetObjectItemCaseSensitive(o, "chosen"), seen));
	}
	cJSON_AddBoolToObject(o, "truncated", t.truncated);
	notes = cJSON_AddArrayToObject(o, "notes");
	if (rank.n > MAX_LISTED)
		cJSON_AddItemToArray(notes, cJSON_CreateString("only the first 1000 kernels "
		    "by GPU time are listed"));
	if (t.bad_rows) {
		char *s = xasprintf("%ld CSV row%s without a launch duration skipped",
		    t.bad_rows, t.bad_rows == 1 ? "" : "s");

		cJSON_AddItemToArray(notes, cJSON_CreateString(s));
		free(s);
	}
	cJSON_Delete(top);
	kf_rank_free(&rank);
	errno = saved;
	return o;
}

/* kf-feedback */

int
ncu_timing_rank(const cJSON *data, struct kf_rank *rank)
{
	const cJSON *t = kf_obj(data, "timing"), *k;
	int n = 0;

	cJSON_ArrayForEach(k, kf_arr(t, "kernels")) {
		const cJSON *ns = cJSON_GetObjectItemCaseSensitive(k, "total_ns");

		if (kf_str(k, "name") && cJSON_IsNumber(ns)) {
			kf_rank_add(rank, kf_str(k, "name"), ns->valuedouble,
			    (long)kf_num(k, "launches", 0));
			n++;
		}
	}
	if (n > 0)
		kf_rank_sort(rank);
	return n > 0;
}

void
ncu_timing_say(struct kf_fb *fb, const cJSON *data, size_t nl)
{
	const cJSON *t = kf_obj(data, "timing"), *c;
	const cJSON *missing = kf_arr(t, "missing");
	struct buf b = {0};
	double total = kf_num(t, "total_ns", 0);
	int top = (int)kf_num(t, "top", 0), n = 0;

	if (t == NULL)
		return;
	if (kf_num(t, "launches", 0) <= 0) {
		kf_fb_add(fb, FB_KEY, "Note: the timing run's %s holds no launch duration, so "
		    "the ranking covers only the %zu launch%s profiled in detail.",
		    kf_str(t, "file") ? kf_str(t, "file") : NCU_TIMING, nl, nl == 1 ? "" : "es");
		return;
	}
	buf_printf(&b, "A timing run measured all %.0f kernel launches (", kf_num(t, "launches", 0));
	kf_fmt_ns(&b, total);
	buf_printf(&b, " of GPU time in %.0f kernels); ", kf_num(t, "kernel_count", 0));
	if (top > 0)
		buf_printf(&b, "the details below come from a second run that profiled "
		    "the %d kernel%s with the most GPU time (%zu launch%s).", top,
		    top == 1 ? "" : "s", nl, nl == 1 ? "" : "es");
	else
		buf_printf(&b, "the details below come from %zu profiled launch%s.", nl,
		    nl == 1 ? "" : "es");
	kf_fb_add_buf(fb, FB_KEY, &b);
	cJSON_ArrayForEach(c, missing) {
		char *s = kf_kernel_short(c->valuestring, 60);

		buf_puts(&b, n++ == 0 ? "Note: the program runs twice (timing, then "
		    "details), and these kernels chosen from the timing run did not run "
		    "in the detailed run (random shapes, autotuning or caches can change "
		    "which kernels run), so they have no details: " : "; ");
		buf_puts(&b, s);
		free(s);
	}
	if (n > 0) {
		buf_putc(&b, '.');
		kf_fb_add_buf(fb, FB_KEY, &b);
	}
	kf_set(fb->analysis, "missing_from_details", missing ? cJSON_Duplicate(missing, 1) :
	    cJSON_CreateArray());
	buf_free(&b);
}
