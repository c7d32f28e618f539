/* The ncu --top path, the choice: kf-read --profiler ncu --select K reads
 * the ranking (ncu_timing.c) from a timing run's CSVs, or from a ranking
 * file (NCU_RANKING) that another timing source wrote, picks the K kernels
 * with the most time (framework machinery left out), writes both files and
 * gives ncu's filter arguments that profile one launch of each in every
 * process that ran it. Everything returned is the caller's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "machinery.h"
#include "mem.h"
#include "ncu.h"
#include "ncu_top.h"
#include "num.h"
#include "record.h"

#define MAX_NAME_RE 4096	/* bytes of a kernel name quoted in the filter */

/* The choice */

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

static int
pickable(const cJSON *e)
{
	const char *key = kf_str(e, "key"), *name = kf_str(e, "name");

	return key && name && !strchr(key, '\n') && !ncu_machinery(name);
}

/* The k kernels with the most time, machinery left out, into pick. */
static size_t
top_pick(const cJSON *rk, size_t k, const cJSON **pick)
{
	const cJSON *e;
	size_t n = 0;

	cJSON_ArrayForEach(e, kf_arr(rk, "kernels")) {
		if (n == k)
			break;
		if (pickable(e))
			pick[n++] = e;
	}
	return n;
}

/* A kernel's first launch that the detailed run repeats: in the steady
 * state, or before it in an autotuner's timed trials, which the program
 * runs again (cuDNN's benchmark mode chooses anew in each process). */
static double
first_launch(const cJSON *e)
{
	double v, t;

	if (!kf_str(e, "first_id") || !kf_parse_number(kf_str(e, "first_id"), &v))
		return -1;
	if (kf_str(e, "first_trial_id") && kf_parse_number(kf_str(e, "first_trial_id"), &t) && t < v)
		return t;
	return v;
}

/* Up to n spares into spare: the kernels next by time whose first launch
 * (first_launch) comes after the first launches of all n chosen.
 * The detailed run ends the program once as many launches as chosen are
 * profiled, in launch order: a spare is reached only when a chosen kernel
 * did not run (the detailed run runs other kernels: shapes, autotuning,
 * caches), and is then detailed in its place, in the same run. */
static size_t
spare_pick(const cJSON *rk, const cJSON **pick, size_t n, const cJSON **spare)
{
	const cJSON *e;
	double last = -1;
	size_t i, ns = 0, seen = 0;

	for (i = 0; i < n; i++) {
		if (first_launch(pick[i]) < 0)
			return 0;
		if (first_launch(pick[i]) > last)
			last = first_launch(pick[i]);
	}
	cJSON_ArrayForEach(e, kf_arr(rk, "kernels")) {
		if (ns == n)
			break;
		if (!pickable(e) || seen++ < n)
			continue;
		if (first_launch(e) > last)
			spare[ns++] = e;
	}
	return ns;
}

/* ncu's arguments that profile the chosen kernels, one a line, into out;
 * *count: the launches they select. The one place that knows how ncu's
 * filters select. Measured on an H200 with ncu 2025.3.1 on ResNet-18's top
 * 3 (PERFORMANCE.md): the names the CSV shows ("void f<float>(T2, const T1
 * *)") are not the demangled names ncu matches, so templated kernels match
 * nothing with --kernel-name-base demangled; function names merge a
 * template's instances (18 launches with per-launch-config); mangled names
 * select exactly the chosen kernels, and "--kernel-id ::regex:^(A|B|C)$:1"
 * (one --kernel-id: a second is refused) the first launch of each: 3
 * launches. That first launch is counted in each process (two
 * torch.multiprocessing workers: the first kernels of each took the
 * launches), and --launch-count over all of them: so the count is one
 * launch per process that ran each chosen kernel in the timing run, and
 * with --kill yes ncu ends the program only once all of those are
 * profiled (ncu then exits 0; the timing run has already run the program
 * to its end). --kernel-id splits at ':', so a name with one falls back to
 * --kernel-name and one launch per launch configuration (13 launches for
 * the same 3). With per_process the filter is for an attach to one
 * process of the program (kf-ncu holds each): one launch of each kernel. */
static void
top_filter(const cJSON *rk, const cJSON **pick, size_t n, const cJSON **spare, size_t ns,
    int per_process, struct buf *out, long *count)
{
	const char *id = kf_str(rk, "identity");
	struct buf re = {0};
	size_t i;
	int mangled = id && strcmp(id, "mangled") == 0;

	*count = 0;
	for (i = 0; i < n + ns; i++) {
		const cJSON *e = i < n ? pick[i] : spare[i - n];

		buf_puts(&re, i > 0 ? "|" : "");
		if (mangled) {
			regex_quote(&re, kf_str(e, "key"));
		} else {
			char *f = function_base(kf_str(e, "name"));

			regex_quote(&re, f);	/* too many if two share it: the run just goes on */
			free(f);
		}
		if (i < n)
			*count += per_process || (long)kf_num(e, "process_count", 1) <= 0 ? 1 :
			    (long)kf_num(e, "process_count", 1);
	}
	buf_printf(out, "--kernel-name-base\n%s\n", mangled ? "mangled" : "function");
	if (strchr(re.s, ':')) {
		buf_printf(out, "--kernel-name\nregex:^(%s)$\n--filter-mode\nper-launch-config\n"
		    "--launch-count\n1\n", re.s);
		*count = -1;
	} else {
		buf_printf(out, "--kernel-id\n::regex:^(%s)$:1\n--launch-count\n%ld\n"
		    "--kill\nyes\n", re.s, *count);
	}
	buf_free(&re);
}

static cJSON *
top_json(const cJSON *rk, const cJSON **pick, size_t n, const cJSON **spare, size_t ns, long k,
    const struct buf *filter, long count)
{
	cJSON *o = cJSON_CreateObject(), *a, *b;
	const char *p, *e;
	size_t i;

	cJSON_AddNumberToObject(o, "top", (double)k);
	cJSON_AddStringToObject(o, "identity", kf_str(rk, "identity") ? kf_str(rk, "identity") : "name");
	a = cJSON_AddArrayToObject(o, "chosen");
	b = cJSON_AddArrayToObject(o, "chosen_keys");
	for (i = 0; i < n; i++) {
		cJSON_AddItemToArray(a, cJSON_CreateString(kf_str(pick[i], "name")));
		cJSON_AddItemToArray(b, cJSON_CreateString(kf_str(pick[i], "key")));
	}
	a = cJSON_AddArrayToObject(o, "spares");
	b = cJSON_AddArrayToObject(o, "spare_keys");
	for (i = 0; i < ns; i++) {
		cJSON_AddItemToArray(a, cJSON_CreateString(kf_str(spare[i], "name")));
		cJSON_AddItemToArray(b, cJSON_CreateString(kf_str(spare[i], "key")));
	}
	if (count >= 0)
		cJSON_AddNumberToObject(o, "launch_count", (double)count);
	cJSON_AddNumberToObject(o, "process_count", kf_num(rk, "process_count", 1));
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

/* o into the file name in path's folder. */
static int
write_beside(const char *path, const char *name, const cJSON *o)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? xstrndup(path, (size_t)(slash - path) + 1) : xstrdup("");
	char *out = xasprintf("%s%s", dir, name);
	char *text = cJSON_PrintUnformatted(o);
	FILE *f = fopen(out, "w");
	int ok = f && text && fputs(text, f) >= 0 && fputc('\n', f) != EOF;

	if (f && fclose(f) != 0)
		ok = 0;
	if (!ok)
		kf_warn("cannot write %s: %s", out, strerror(errno));
	free(text);
	free(out);
	free(dir);
	return ok ? 0 : -1;
}

/* What kf-read --select prints: the filter, or the first launch's ID of each. */
static int
select_out(const cJSON *rk, const cJSON **pick, size_t n, long k, const char *path,
    int flags, int from_csv, struct buf *out)
{
	struct buf filter = {0};
	const cJSON **spare = xcalloc(n + 1, sizeof *spare);
	size_t i, ns;
	long count;
	int st = 0;

	if (flags & KF_SELECT_IDS) {
		for (i = 0; i < n; i++)
			if (kf_str(pick[i], "first_id"))
				buf_printf(out, "%s\n", kf_str(pick[i], "first_id"));
		free(spare);
		return 0;
	}
	ns = spare_pick(rk, pick, n, spare);
	top_filter(rk, pick, n, spare, ns, (flags & KF_SELECT_PER_PROCESS) != 0, &filter, &count);
	if (count < 0) {
		/* no --kill: every launch the filter selects is profiled */
		ns = 0;
		buf_reset(&filter);
		top_filter(rk, pick, n, spare, 0, (flags & KF_SELECT_PER_PROCESS) != 0, &filter,
		    &count);
	}
	if (flags & KF_SELECT_WRITE) {
		cJSON *top = top_json(rk, pick, n, spare, ns, k, &filter, count);

		if (from_csv && write_beside(path, NCU_RANKING, rk) != 0)
			st = 1;
		if (write_beside(path, NCU_TOP, top) != 0)
			st = 1;
		cJSON_Delete(top);
	}
	buf_add(out, filter.s, filter.len);
	buf_free(&filter);
	free(spare);
	return st;
}

int
ncu_select(long k, const char *path, int flags, struct buf *out)
{
	int from_csv = !kf_endswith(path, ".json"), st = 0;
	cJSON *rk = from_csv ? ncu_ranking_csv(path) : ncu_ranking_load(path);
	const cJSON **pick;
	size_t n;

	if (rk == NULL) {
		kf_warn("cannot read %s: %s", path, strerror(errno));
		return 1;
	}
	pick = xcalloc((size_t)cJSON_GetArraySize(kf_arr(rk, "kernels")) + 1, sizeof *pick);
	n = top_pick(rk, (size_t)k, pick);
	/* Without the table, framework machinery would be chosen as kernels. */
	if (kf_machinery_error())
		kf_warn("%s", kf_machinery_error());
	if (n == 0) {
		kf_warn("%s: no kernel launch with a duration (%.0f launches, %.0f kernels, "
		    "all framework machinery)", path, kf_num(rk, "launches", 0),
		    kf_num(rk, "kernel_count", 0));
		st = 1;
	} else {
		st = select_out(rk, pick, n, k, path, flags, from_csv, out);
	}
	free(pick);
	cJSON_Delete(rk);
	return st;
}
