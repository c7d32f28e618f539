/* kf: the findings about the whole program: program_failed from the runs a
 * record holds, launch_bound from the launches' durations, machinery from
 * the ranking. Every profiler's feedback uses them. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "levers.h"
#include "mem.h"
#include "program.h"
#include "record.h"
#include "signame.h"

static void
grp_add(struct kf_launches *l, double total_ns, long n, double short_ns, long nshort)
{
	KF_GROW(l->v, l->n, l->cap, 64);
	l->v[l->n].total_ns = total_ns;
	l->v[l->n].n = n;
	l->v[l->n].short_ns = short_ns;
	l->v[l->n].nshort = nshort;
	l->n++;
}

void
kf_launches_add(struct kf_launches *l, double ns, long n)
{
	int s = ns < KF_SHORT_LAUNCH_NS;

	if (n < 1 || !isfinite(ns) || ns < 0)
		return;
	grp_add(l, ns * (double)n, n, s ? ns * (double)n : 0, s ? n : 0);
	if (n > 1)
		l->means = 1;
}

void
kf_launches_add_counted(struct kf_launches *l, double total_ns, long n, double short_ns,
    long nshort)
{
	if (n < 1 || !isfinite(total_ns) || total_ns < 0 || nshort < 0 || nshort > n ||
	    !isfinite(short_ns) || short_ns < 0 || short_ns > total_ns)
		return;
	grp_add(l, total_ns, n, short_ns, nshort);
}

void
kf_launches_free(struct kf_launches *l)
{
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

/* "8,311": counts as a person reads them. */
static void
put_count(struct buf *b, long n)
{
	char d[32];
	int len = snprintf(d, sizeof d, "%ld", n), i;

	for (i = 0; i < len; i++) {
		if (i > 0 && d[i - 1] != '-' && (len - i) % 3 == 0)
			buf_putc(b, ',');
		buf_putc(b, d[i]);
	}
}

static void
ev_named(struct kf_finding *f, const char *metric, const char *what, double v,
    const char *unit)
{
	char *name = xasprintf("%s: %s", metric, what);

	kf_finding_ev(f, name, v, unit);
	free(name);
}

int
kf_prog_launch_bound(struct kf_diag *d, const struct kf_launches *l)
{
	const char *metric = l && l->metric ? l->metric : "launch durations";
	double total = 0, short_ns = 0, lpct, tpct;
	long n = 0, nshort = 0;
	struct kf_finding *f;
	struct buf b = {0};
	size_t i;

	for (i = 0; l && i < l->n; i++) {
		n += l->v[i].n;
		total += l->v[i].total_ns;
		nshort += l->v[i].nshort;
		short_ns += l->v[i].short_ns;
	}
	if (n < KF_LAUNCH_BOUND_MIN || 2 * nshort <= n || total <= 0)
		return 0;
	lpct = 100.0 * (double)nshort / (double)n;
	tpct = 100.0 * short_ns / total;
	buf_puts(&b, "Most launches are too short to fill the GPU: ");
	put_count(&b, nshort);
	buf_puts(&b, " of ");
	put_count(&b, n);
	buf_printf(&b, " launches (%.1f%%) ran under %.0f µs%s, %.1f%% of the ",
	    lpct, KF_SHORT_LAUNCH_NS / 1e3, l->means ? " (some by their kernel's mean launch)" : "",
	    tpct);
	kf_fmt_ns(&b, total);
	buf_puts(&b, " of GPU time measured. Between launches this short the GPU may wait for "
	    "the host, but these timings have no timestamps, so the idle time between launches "
	    "was not measured (kf trace measures it)");
	f = kf_diag_add(d, KF_LAUNCH_BOUND, NULL, NAN, "%s", b.s);
	ev_named(f, metric, "launches", (double)n, NULL);
	ev_named(f, metric, "launches under 10 us", (double)nshort, NULL);
	ev_named(f, metric, "share of launches under 10 us", round(lpct * 10) / 10, "%");
	ev_named(f, metric, "GPU time", total, "ns");
	ev_named(f, metric, "GPU time in launches under 10 us", short_ns, "ns");
	kf_finding_impact(f, NAN, "not estimated: the GPU's idle time between launches, what "
	    "fewer launches save, needs timestamps (kf trace), not launch durations");
	kf_finding_fix(f, "fewer, larger launches: fuse the small kernels (torch.compile, a "
	    "fused kernel of your own) or replay the sequence as a graph (CUDA graphs, "
	    "torch.compile mode=\"reduce-overhead\", SYCL graphs)");
	buf_free(&b);
	return 1;
}

int
kf_prog_machinery(struct kf_diag *d, const struct kf_rank *r)
{
	size_t own = kf_rank_own(r), i;
	double ns = 0, share;
	long launches = 0;
	struct kf_finding *f;
	struct buf b = {0};

	if (r == NULL || own == r->n)
		return 0;
	for (i = own; i < r->n; i++) {
		ns += r->v[i].total_ns;
		launches += r->v[i].launches;
	}
	share = r->total_ns > 0 ? 100 * ns / r->total_ns : 0;
	buf_printf(&b, "Framework machinery, not the program's work (share/kf/machinery.tsv), "
	    "took %.1f%% of the GPU time (", share);
	kf_fmt_ns(&b, ns);
	buf_printf(&b, " over %ld launch%s): ", launches, launches == 1 ? "" : "es");
	for (i = own; i < r->n && i < own + 3; i++)
		buf_printf(&b, "%s%s (%s %s)", i > own ? ", " : "", r->v[i].shown,
		    r->v[i].machine->framework, r->v[i].machine->what);
	if (r->n - own > 3)
		buf_printf(&b, " and %zu more", r->n - own - 3);
	buf_puts(&b, "; it is set aside, and the findings are about the rest");
	f = kf_diag_add(d, KF_MACHINERY, NULL, NAN, "%s", b.s);
	kf_finding_ev(f, "share_pct", round(share * 10) / 10, "%");
	kf_finding_ev(f, "total_ns", ns, "ns");
	kf_finding_ev(f, "launches", (double)launches, NULL);
	buf_free(&b);
	return 1;
}

void
kf_prog_findings(struct kf_fb *fb, const struct kf_rank *r, const struct kf_launches *l)
{
	if (r == NULL)
		return;
	kf_prog_rank(fb, r, l);
	kf_prog_machinery(&fb->diag, r);
}

/* ---- program_failed ---- */

/* Failures that are the profiler's or the command's, not the program's:
 * their error record says so, and nothing of the program ran. */
static int
not_the_program(const cJSON *e)
{
	static const char *const kinds[] = {
		"no_permission", "profiler_not_found", "program_not_found",
		"profiler_not_executable", "program_not_executable",
		"collect_failed", "report_failed", "no_kernels", "profiler_error",
		"no_tracer", NULL,
	};
	const char *k = kf_str(e, "kind");
	int i;

	for (i = 0; k && kinds[i]; i++)
		if (strcmp(k, kinds[i]) == 0)
			return 1;
	return 0;
}

/* How run ended badly, said into b ("exited with status 6"); 0 if it ended
 * well (or was interrupted by the user: not the program's failure). */
static int
run_failed(const cJSON *run, struct buf *b)
{
	const cJSON *sig = cJSON_GetObjectItemCaseSensitive(run, "signal");
	const cJSON *code = cJSON_GetObjectItemCaseSensitive(run, "exit_code");
	const char *by = kf_str(run, "ended_by");
	char *why;

	if (run == NULL || cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(run, "started")))
		return 0;
	if (by && (strcmp(by, "timeout") == 0 || strcmp(by, "inactivity") == 0) &&
	    (why = kf_run_stopped(run)) != NULL) {
		buf_printf(b, "did not finish: %s", why);
		free(why);
		return 1;
	}
	if (by && strcmp(by, "interrupted") == 0)
		return 0;
	if (cJSON_IsString(sig)) {
		buf_printf(b, "was killed by %s (run.signal)", sig->valuestring);
		return 1;
	}
	if (cJSON_IsNumber(sig)) {
		buf_printf(b, "was killed by signal %.0f (run.signal)", sig->valuedouble);
		return 1;
	}
	if (cJSON_IsNumber(code) && code->valuedouble != 0) {
		buf_printf(b, "exited with status %.0f (run.exit_code)", code->valuedouble);
		return 1;
	}
	return 0;
}

static int
sig_number(const char *name)
{
	int i;

	for (i = 1; i < 65; i++)
		if (kf_signame(i) && strcmp(kf_signame(i), name) == 0)
			return i;
	return -1;
}

/* The profilers' own lines in a run's output: ncu's "==PROF==",
 * "==WARNING==", "==ERROR==", VTune's "vtune: ...", unitrace's "[INFO]"
 * and "[WARNING]" (FORMATS.md); the first of each pair below is the prefix
 * of an error. */
static const char *const tool_prefix[][2] = {
	{ "==ERROR== ", "==" },
	{ "vtune: Error:", "vtune: " },
	{ NULL, "[INFO]" },
	{ NULL, "[WARNING]" },
};

/* Lines that are not the program's own: the profilers', and kf's own
 * helpers' messages ("kf-ncu: export failed: ..."). */
static int
tool_line(const char *s, size_t n)
{
	const char *colon = memchr(s, ':', n);
	size_t i, k;

	for (i = 0; i < sizeof tool_prefix / sizeof tool_prefix[0]; i++)
		for (k = 0; k < 2; k++)
			if (tool_prefix[i][k] && n >= strlen(tool_prefix[i][k]) &&
			    strncmp(s, tool_prefix[i][k], strlen(tool_prefix[i][k])) == 0)
				return 1;
	return n > 3 && strncmp(s, "kf-", 3) == 0 && colon &&
	    strcspn(s, " :") == (size_t)(colon - s);
}

/* The last max lines of text that are the program's own, at most 160
 * bytes each, joined by " | "; nothing if there are none. */
static void
tail_lines(const char *text, int max, struct buf *b)
{
	const char *end, *s;
	const char *start[8];
	size_t len[8];
	int n = 0, i;

	if (text == NULL)
		return;
	if (max > 8)
		max = 8;
	end = text + strlen(text);
	while (end > text && n < max) {
		const char *e = end;

		while (e > text && (e[-1] == '\n' || e[-1] == '\r'))
			e--;
		s = e;
		while (s > text && s[-1] != '\n')
			s--;
		end = s;
		while (s < e && (*s == ' ' || *s == '\t'))
			s++;
		if (s == e || tool_line(s, (size_t)(e - s)))
			continue;
		start[n] = s;
		len[n] = (size_t)(e - s);
		n++;
	}
	for (i = n - 1; i >= 0; i--) {
		size_t l = len[i] > 160 ? 160 : len[i];

		/* Do not cut inside a UTF-8 character. */
		while (l < len[i] && l > 0 && (start[i][l] & 0xc0) == 0x80)
			l--;
		buf_puts(b, i == n - 1 ? "" : " | ");
		buf_add(b, start[i], l);
		if (l < len[i])
			buf_puts(b, "...");
	}
}

/* What a line of the program says went wrong: 1, a failed assertion (a
 * device-side assert's "file:line: ... Assertion `...' failed", C's
 * assert); 2, an exception (Python's "torch.AcceleratorError: CUDA error:
 * ...", "RuntimeError: ...", C++'s "terminate called after throwing"); 0,
 * neither. */
static int
own_error_line(const char *s, size_t n)
{
	char *l = xstrndup(s, n), *c;
	size_t k;
	int kind = 0;

	if (strstr(l, "Assertion") && strstr(l, "failed"))
		kind = 1;
	else if (strncmp(l, "terminate called", 16) == 0)
		kind = 2;
	else if ((c = strchr(l, ':')) != NULL && c > l) {
		/* NAME: where NAME, dotted, ends in Error or Exception */
		for (k = 0; l + k < c && (isalnum((unsigned char)l[k]) || l[k] == '_' ||
		    l[k] == '.'); k++)
			;
		if (l + k == c && ((k >= 5 && strncmp(c - 5, "Error", 5) == 0) ||
		    (k >= 9 && strncmp(c - 9, "Exception", 9) == 0)))
			kind = 2;
	}
	free(l);
	return kind;
}

/* Line s (n bytes), at most 300 of them, into b after sep. */
static void
put_line(struct buf *b, const char *sep, const char *s, size_t n)
{
	size_t l = n > 300 ? 300 : n;

	while (l < n && l > 0 && (s[l] & 0xc0) == 0x80)
		l--;
	buf_puts(b, sep);
	buf_add(b, s, l);
	if (l < n)
		buf_puts(b, "...");
}

/* The program's own error lines in text: its first failed assertion (a
 * device-side assert prints one a thread) and its last exception (Python
 * prints the one that ended it last), joined by " | ". */
static void
own_errors(const char *text, struct buf *b)
{
	const char *s = text, *e, *as = NULL, *ex = NULL;
	size_t n, an = 0, xn = 0;
	int k;

	while (s && *s) {
		e = strchr(s, '\n');
		n = e ? (size_t)(e - s) : strlen(s);
		while (n > 0 && s[n - 1] == '\r')
			n--;
		k = tool_line(s, n) ? 0 : own_error_line(s, n);
		if (k == 1 && as == NULL) {
			as = s;
			an = n;
		} else if (k == 2) {
			ex = s;
			xn = n;
		}
		s = e ? e + 1 : NULL;
	}
	if (as)
		put_line(b, "", as, an);
	if (ex)
		put_line(b, as ? " | " : "", ex, xn);
}

/* The error lines in text that start with prefix, each once, into b. */
static void
error_lines(const char *text, const char *prefix, struct buf *b, int *said)
{
	const char *s = text, *nl;

	while (s && (s = strstr(s, prefix)) != NULL) {
		size_t n;
		char *line;

		nl = strchr(s, '\n');
		n = nl ? (size_t)(nl - s) : strlen(s);
		while (n > 0 && s[n - 1] == '\r')
			n--;
		/* Only at a line start. */
		if (s == text || s[-1] == '\n') {
			line = xstrndup(s, n > 300 ? 300 : n);
			if (b->s == NULL || strstr(b->s, line) == NULL)
				buf_printf(b, "%s\"%s\"", (*said)++ ? ", " : "", line);
			free(line);
		}
		s += n > 0 ? n : 1;
	}
}

/* The profiler's own error lines: collated.messages of level "error", and
 * the profilers' error lines in the run's output, each once. */
static void
tool_errors(const cJSON *rec, const cJSON *run, struct buf *b)
{
	const cJSON *m;
	const char *streams[] = { "stdout", "stderr" };
	int said = 0, i;
	size_t k;

	cJSON_ArrayForEach(m, kf_arr(kf_obj(rec, "collated"), "messages")) {
		const char *lvl = kf_str(m, "level"), *t = kf_str(m, "text");

		if (lvl && t && strcmp(lvl, "error") == 0)
			buf_printf(b, "%s\"==ERROR== %s\"", said++ ? ", " : "", t);
	}
	for (i = 0; i < 2; i++)
		for (k = 0; k < sizeof tool_prefix / sizeof tool_prefix[0]; k++)
			if (tool_prefix[k][0])
				error_lines(kf_str(run, streams[i]), tool_prefix[k][0], b, &said);
}

/* The record's command, for a person to run ("python3 x.py"). */
static void
put_cmd(const cJSON *rec, struct buf *b)
{
	const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(rec, "cmd"), *a;
	int i = 0;

	if (cJSON_IsString(cmd)) {
		buf_puts(b, cmd->valuestring);
		return;
	}
	cJSON_ArrayForEach(a, cmd) {
		/* an argument that is not UTF-8: its text, for people */
		const char *s = cJSON_IsString(a) ? a->valuestring : kf_str(a, "text");

		if (s == NULL)
			continue;
		if (i++)
			buf_putc(b, ' ');
		if (s[0] == '\0' || strpbrk(s, " \t\n'\"$`\\|&;<>()*?"))
			buf_printf(b, "'%s'", s);
		else
			buf_puts(b, s);
	}
}

/* The first run of rec that ended badly, with its pass name. */
static const cJSON *
failed_run(const cJSON *rec, const char **pass, int *npass, struct buf *how)
{
	const cJSON *p, *passes = kf_arr(rec, "passes");

	*npass = cJSON_GetArraySize(passes);
	*pass = NULL;
	cJSON_ArrayForEach(p, passes) {
		if (not_the_program(kf_obj(p, "error")))
			continue;
		if (run_failed(kf_obj(p, "run"), how)) {
			*pass = kf_str(p, "pass");
			return kf_obj(p, "run");
		}
	}
	if (passes == NULL && run_failed(kf_obj(rec, "run"), how))
		return kf_obj(rec, "run");
	return NULL;
}

static void
failed_evidence(struct kf_finding *f, const cJSON *run)
{
	const cJSON *sig = cJSON_GetObjectItemCaseSensitive(run, "signal");
	const char *by = kf_str(run, "ended_by");
	double v;

	if (!isnan(v = kf_num(run, "exit_code", NAN)))
		kf_finding_ev(f, "run.exit_code", v, NULL);
	if (cJSON_IsNumber(sig))
		kf_finding_ev(f, "run.signal", sig->valuedouble, NULL);
	else if (cJSON_IsString(sig) && sig_number(sig->valuestring) > 0)
		kf_finding_ev(f, "run.signal", sig_number(sig->valuestring), NULL);
	if (by && strcmp(by, "exit") != 0 && !isnan(v = kf_num(run, "limit_s", NAN)))
		kf_finding_ev(f, "run.limit_s", v, "s");
	if (!isnan(v = kf_num(run, "elapsed_s", NAN)))
		kf_finding_ev(f, "run.elapsed_s", v, "s");
}

int
kf_prog_failed(struct kf_diag *d, const cJSON *rec)
{
	const char *pass, *prof = kf_str(rec, "profiler");
	const cJSON *run, *code = kf_obj(rec, "collated") ?
	    cJSON_GetObjectItemCaseSensitive(kf_obj(rec, "collated"), "app_exit_code") : NULL;
	struct buf how = {0}, b = {0}, t = {0};
	struct kf_finding *f;
	int npass, said, numbers = kf_error(rec) == NULL && kf_obj(rec, "collated") != NULL;

	if (not_the_program(kf_error(rec)))
		return 0;
	run = failed_run(rec, &pass, &npass, &how);
	if (run == NULL && cJSON_IsNumber(code) && code->valuedouble != 0)
		buf_printf(&how, "exited with status %.0f (%s: collated.app_exit_code)",
		    code->valuedouble, prof ? prof : "the profiler");
	else if (run == NULL)
		return 0;
	buf_printf(&b, "The program failed: its run%s%s %s", pass && npass > 1 ? " of pass " : "",
	    pass && npass > 1 ? pass : "", how.s);
	/* Its own words first: what an assert or exception said. */
	own_errors(kf_str(run, "stderr"), &t);
	if (t.len == 0)
		own_errors(kf_str(run, "stdout"), &t);
	if ((said = t.len > 0))
		buf_printf(&b, ". It said: \"%s\"", t.s);
	buf_reset(&t);
	tool_errors(rec, run, &t);
	if (t.len)
		buf_printf(&b, ". %s said: %s", prof ? prof : "The profiler", t.s);
	buf_reset(&t);
	/* Its own words are enough; the tail would repeat them. */
	if (!said)
		tail_lines(kf_str(run, "stderr"), 4, &t);
	if (!said && t.len) {
		buf_printf(&b, ". The last lines of its stderr: \"%s\"", t.s);
	} else if (!said) {
		tail_lines(kf_str(run, "stdout"), 2, &t);
		if (t.len)
			buf_printf(&b, ". Its stderr has no line of its own; the last of its "
			    "stdout: \"%s\"", t.s);
		else if (run && kf_str(run, "stderr"))
			buf_puts(&b, ". Its stdout and stderr have no line of its own");
	}
	buf_puts(&b, numbers ? ". The numbers that follow are from the kernels that ran "
	    "before it ended, not from a whole run" : ". There are no performance numbers "
	    "for this run");
	f = kf_diag_add(d, KF_PROGRAM_FAILED, NULL, NAN, "%s", b.s);
	failed_evidence(f, run);
	if (run == NULL)
		kf_finding_ev(f, "collated.app_exit_code", code->valuedouble, NULL);
	buf_reset(&t);
	put_cmd(rec, &t);
	kf_finding_fix(f, "make the program run to its end outside the profiler first%s%s%s, "
	    "fix what its own messages say, then profile it again", t.len ? " (" : "",
	    t.len ? t.s : "", t.len ? ")" : "");
	buf_free(&how);
	buf_free(&b);
	buf_free(&t);
	return 1;
}
