/* kf: kf-report's page: the index of jobs, each job's section, the styles. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "program.h"
#include "buf.h"
#include "html.h"
#include "mem.h"
#include "record.h"
#include "report.h"
#include "timings.h"

enum { OVERVIEW_MAX = 60 };	/* jobs in the speedup chart; the index has all */

/* A job's status in the index: ok only when the program ran clean and was
 * analysed; else whose failure it was. */
enum st { ST_OK, ST_PROGRAM_FAILED, ST_PROFILER_FAILED, ST_NOT_STARTED, ST_FAILED, ST_N };
static const char *const st_word[ST_N] = { "ok", "program failed", "profiler failed",
	"not started", "failed" };
static const char *const st_class[ST_N] = { "ok", "program-failed", "profiler-failed",
	"not-started", "failed" };

struct kf_report {
	struct kf_report_opts o;
	/* The index's rows with and without the speedup column: the column is
	 * only written when some job was compared with a baseline. */
	struct buf index, index_sp, jobs;
	int n, compared, count[ST_N];
	/* The speedups against the baseline, in input order. */
	struct kf_report_bar sp[OVERVIEW_MAX];
	char *sp_id[OVERVIEW_MAX];
	int nsp, nsp_all;
};

/* Okabe-Ito colours: told apart with any colour vision, and in grey print. */
static const char css[] =
	":root{--blue:#0072B2;--orange:#E69F00;--sky:#56B4E9;--green:#009E73;"
	"--verm:#D55E00;--purple:#CC79A7;--ink:#1a1a1a;--grid:#d0d0d0}\n"
	"body{font:15px/1.45 system-ui,sans-serif;color:var(--ink);max-width:72rem;"
	"margin:0 auto;padding:1rem}\n"
	"h1{font-size:1.5rem}h2{font-size:1.2rem;border-bottom:2px solid var(--blue);"
	"padding-bottom:.2rem;overflow-wrap:anywhere}h3{font-size:1rem;margin:1rem 0 .3rem}\n"
	"table{border-collapse:collapse;width:100%;font-size:.9rem}"
	"table.delta-metrics,table.delta-kernels,table.launch{width:auto;min-width:50%}\n"
	"th,td{text-align:left;padding:.25rem .4rem;border-bottom:1px solid var(--grid);"
	"vertical-align:top;overflow-wrap:break-word}\n"
	"td.kernel,td.reason,td.text,td.where,td.finding{overflow-wrap:anywhere}td.kernel{min-width:10rem}"
	"td.finding{min-width:12rem}span.what,span.impact{font-size:.8rem;color:#444}\n"
	"td.num,th.num{text-align:right;white-space:nowrap}\n"
	"tr.failed td,tr.not-started td,tr.program-failed td,tr.profiler-failed td{background:#fbeee6}"
	".st-failed,.st-not-started,.st-program-failed,.st-profiler-failed{color:var(--verm);"
	"font-weight:bold}"
	"span.run{font-size:.8rem;color:var(--verm)}\n"
	"code,pre{font:13px/1.35 ui-monospace,monospace}pre{white-space:pre-wrap;margin:0}\n"
	".charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(26rem,1fr));"
	"gap:1rem}\n"
	"figure{margin:0}figcaption{font-size:.85rem;color:#444}\n"
	"svg{width:100%;max-width:44rem;height:auto;font:12px system-ui,sans-serif}\n"
	"svg .bar{fill:var(--blue)}svg .rest{fill:var(--sky)}svg .after{fill:var(--orange)}"
	"svg .slower{fill:var(--verm)}svg .one{stroke:var(--ink);stroke-dasharray:3 3}\n"
	".overview{max-width:44rem}\n"
	"svg .axis{stroke:var(--ink)}svg .grid{stroke:var(--grid)}\n"
	"svg .roof{stroke:var(--verm);stroke-width:2;fill:none}\n"
	"svg .ridge{stroke:var(--verm);stroke-dasharray:4 3}\n"
	"svg .pt{fill:var(--sky);stroke:var(--ink)}svg .pt.focus{fill:var(--orange)}\n"
	"svg .lab{fill:var(--ink)}svg .title{font-weight:bold}\n"
	"dl{display:grid;grid-template-columns:max-content 1fr;gap:.1rem 1rem}dd{margin:0;"
	"overflow-wrap:anywhere}dt{font-weight:bold}\n"
	".none{color:#555;font-style:italic}\n"
	"@media (max-width:60rem){body{font-size:13px;padding:.5rem}}\n"
	"@media print{body{max-width:none;font-size:11pt}section.job{break-before:page}"
	"figure,table{break-inside:avoid}a{color:inherit;text-decoration:none}}\n";

struct kf_report *
kf_report_new(const struct kf_report_opts *o)
{
	struct kf_report *r = xcalloc(1, sizeof *r);

	r->o = *o;
	return r;
}

void
kf_report_free(struct kf_report *r)
{
	int i;

	if (r == NULL)
		return;
	for (i = 0; i < r->nsp; i++)
		free(r->sp_id[i]);
	buf_free(&r->index);
	buf_free(&r->index_sp);
	buf_free(&r->jobs);
	free(r);
}

const cJSON *
kf_report_focus(const cJSON *an)
{
	const cJSON *f = kf_obj(an, "focus"), *k = kf_arr(an, "kernels");

	if (f == NULL && k && cJSON_IsObject(k->child))
		f = k->child;
	return f;
}

const char *
kf_report_kname(const cJSON *k)
{
	const char *s = kf_str(k, "short_name");

	return s ? s : kf_str(k, "name");
}

/* The focus kernel's time per launch as its profiler measures it (the
 * analysis core's time_ns: ncu's duration, unitrace's median, VTune's
 * average). */
static double
focus_ns(const cJSON *f)
{
	return kf_num(f, "time_ns", NAN);
}

/* The core's verdict (compute, memory, latency, balanced), else the side
 * of the ridge its roof puts the kernel on. */
static const char *
bound_of(const cJSON *f)
{
	const char *s = kf_str(kf_obj(f, "limiter"), "bound");

	return s ? s : kf_str(kf_obj(f, "roof"), "bound");
}

/* A pipe or memory level as people write it: "L2", "DRAM", "FMA" (short
 * names in capitals), "tensor", "shared". */
static void
put_unit(struct buf *b, const char *u)
{
	char up[8];
	size_t i, n = strlen(u);

	if (n > 4) {
		html_text(b, u);
		return;
	}
	for (i = 0; i <= n; i++)
		up[i] = (char)toupper((unsigned char)u[i]);
	html_text(b, up);
}

/* The diagnosis's first finding (analysis.diagnosis[0]): what limits the
 * kernel most, the same for every profiler. NULL when there is none. */
static const cJSON *
first_finding(const cJSON *an)
{
	const cJSON *d = kf_arr(an, "diagnosis");

	return d && cJSON_IsObject(d->child) ? d->child : NULL;
}

/* A finding's kind as words ("memory bound"), with its unit: "(dram)". */
static void
put_kind(struct buf *b, const cJSON *x)
{
	const char *k = kf_str(x, "kind"), *u = kf_str(x, "unit");

	for (; k && *k; k++)
		buf_putc(b, *k == '_' ? ' ' : *k);
	if (u) {
		buf_puts(b, " (");
		put_unit(b, u);
		buf_puts(b, ")");
	}
}

/* Where and how much, in the program's unit: "bench.cu:93 · 15% of the
 * GPU time (39% of the kernel's)", "84% of the traced window". */
static void
put_impact(struct buf *b, const cJSON *x)
{
	double pct = kf_num(x, "impact_pct", NAN), line = kf_num(x, "line", NAN);
	double kpct = kf_num(x, "kernel_impact_pct", NAN), same = kf_num(x, "same_gain_as", NAN);
	const char *file = kf_str(x, "file"), *basis = kf_str(x, "impact_basis");

	if (file)
		kf_report_where(b, file, line);
	if (isfinite(pct)) {
		buf_puts(b, file ? " \xC2\xB7 " : "");
		html_pct(b, pct);
		buf_puts(b, basis && strcmp(basis, "traced_window") == 0 ? " of the traced window" :
		    " of the GPU time");
		if (isfinite(kpct) && fabs(kpct - pct) >= 0.5) {
			buf_puts(b, " (");
			html_pct(b, kpct);
			buf_puts(b, " of the kernel's)");
		}
		/* one gain said by two findings (kf.7, same_gain_as) */
		if (isfinite(same))
			buf_printf(b, ": the same kernel%s and gain as %.0f, not more on top of it",
			    cJSON_GetArraySize(kf_arr(x, "kernels")) > 1 ? "s" : "", same + 1);
	}
}

/* "matrix 39.2%, elementwise 52.7%, layout 8.0%": analysis.program.classes,
 * most time first, the empty ones left out. */
static void
classes(struct buf *b, const cJSON *an)
{
	const cJSON *cl = kf_obj(kf_obj(an, "program"), "classes"), *c, *best;
	int said = 0, n = cJSON_GetArraySize(cl), i, *done;

	if (cl == NULL || n == 0)
		return;
	done = xcalloc((size_t)n, sizeof *done);
	buf_puts(b, "<dt>Work by class</dt><dd class=\"classes\">");
	for (;;) {
		best = NULL;
		for (c = cl->child, i = 0; c; c = c->next, i++)
			if (!done[i] && kf_num(c, "kernels", 0) > 0 &&
			    (best == NULL || kf_num(c, "ns", 0) > kf_num(best, "ns", 0)))
				best = c;
		if (best == NULL)
			break;
		for (c = cl->child, i = 0; c != best; c = c->next, i++)
			;
		done[i] = 1;
		buf_puts(b, said++ ? ", " : "");
		html_text(b, best->string);
		buf_putc(b, ' ');
		html_pct(b, kf_num(best, "share_pct", 0));
	}
	buf_puts(b, "</dd>");
	free(done);
}

/* The first run of the job (its own, or one of its passes') that did not end
 * with status 0: what the numbers may lack. NULL when all did. */
static const cJSON *
odd_run(const cJSON *rec)
{
	const cJSON *run = kf_obj(rec, "run"), *p;
	const char *by = kf_str(run, "ended_by");

	if (run && ((by && strcmp(by, "exit") != 0) || kf_num(run, "exit_code", 0) != 0))
		return run;
	cJSON_ArrayForEach(p, kf_arr(rec, "passes")) {
		run = kf_obj(p, "run");
		by = kf_str(run, "ended_by");
		if (run && ((by && strcmp(by, "exit") != 0) || kf_num(run, "exit_code", 0) != 0))
			return run;
	}
	return NULL;
}

/* How it ended, in a word or two: "exit 6", "inactivity", "timeout". */
static void
put_run_end(struct buf *b, const cJSON *run)
{
	const char *by = kf_str(run, "ended_by");

	if (by && strcmp(by, "exit") != 0)
		html_text(b, by);
	else
		buf_printf(b, "exit %ld", kf_num_long(run, "exit_code", 0, -1000000, 1000000));
}

static void
td_text(struct buf *b, const char *cls, const char *s, size_t max)
{
	buf_printf(b, "<td class=\"%s\">", cls);
	if (s && max) {
		buf_puts(b, "<span title=\"");
		html_text(b, s);
		buf_puts(b, "\">");
		html_text_max(b, s, max);
		buf_puts(b, "</span>");
	} else if (s) {
		html_text(b, s);
	}
	buf_puts(b, "</td>");
}

static void
put_speedup(struct buf *b, const cJSON *d)
{
	double s = kf_num(d, "speedup", NAN);
	const char *v = kf_str(d, "verdict");

	if (isfinite(s))
		buf_printf(b, "%.3g\xC3\x97", s);
	if (v) {
		buf_puts(b, isfinite(s) ? " " : "");
		html_text(b, v);
	}
}

/* The index's first finding: its kind, where and how much, what it says. */
static void
finding_cell(struct buf *b, const cJSON *x)
{
	if (x == NULL) {
		buf_puts(b, "<td class=\"finding none\">no finding</td>");
		return;
	}
	buf_puts(b, "<td class=\"finding\"><b>");
	put_kind(b, x);
	buf_puts(b, "</b>");
	if (kf_str(x, "file") || isfinite(kf_num(x, "impact_pct", NAN))) {
		buf_puts(b, "<br><span class=\"impact\">");
		put_impact(b, x);
		buf_puts(b, "</span>");
	}
	if (kf_str(x, "what")) {
		buf_puts(b, "<br><span class=\"what\" title=\"");
		html_text(b, kf_str(x, "what"));
		buf_puts(b, "\">");
		html_text_max(b, kf_str(x, "what"), 110);
		buf_puts(b, "</span>");
	}
	buf_puts(b, "</td>");
}

/* The job's status: its error's, else its diagnosis's first finding's
 * (a program that crashed or hung has numbers, and is not ok); a record
 * from before the diagnosis said so is judged by its runs, as kf-feedback
 * judges them. */
static enum st
job_status(const cJSON *rec, const cJSON *an, const cJSON *err)
{
	const char *k = kf_str(cJSON_GetArrayItem(kf_arr(an, "diagnosis"), 0), "kind");
	struct kf_diag d = {0};
	enum kf_failed w;
	int failed;

	if (err) {
		w = kf_error(rec) ? kf_what_failed(rec) : KF_FAILED_PROFILING;
		if (w == KF_FAILED_PROGRAM)
			return ST_PROGRAM_FAILED;
		return w == KF_FAILED_PROGRAM_NOT_STARTED || w == KF_FAILED_PROFILER_NOT_STARTED ?
		    ST_NOT_STARTED : ST_FAILED;
	}
	if (k && strcmp(k, "program_failed") == 0)
		return ST_PROGRAM_FAILED;
	if (k && strcmp(k, "profiler_failed") == 0)
		return ST_PROFILER_FAILED;
	failed = kf_prog_failed(&d, rec);
	kf_diag_free(&d);
	return failed ? ST_PROGRAM_FAILED : ST_OK;
}

/* A row of the index, into b (without the speedup column, which the caller
 * adds). */
static void
index_row(struct kf_report *r, struct buf *b, const cJSON *rec, const cJSON *an,
    const cJSON *err)
{
	const cJSON *f = kf_report_focus(an);
	enum st st = job_status(rec, an, err);

	buf_printf(b, "<tr class=\"%s\"><td class=\"num\">%d</td><td class=\"id\"><a href=\"#job-%d\">",
	    st_class[st], r->n, r->n);
	html_text(b, kf_str(rec, "id") ? kf_str(rec, "id") : "(no id)");
	buf_puts(b, "</a></td>");
	td_text(b, "profiler", kf_str(rec, "profiler"), 0);
	buf_printf(b, "<td class=\"status st-%s\">%s", st_class[st], st_word[st]);
	if (odd_run(rec)) {
		buf_puts(b, "<br><span class=\"run\">");
		put_run_end(b, odd_run(rec));
		buf_puts(b, "</span>");
	}
	buf_puts(b, "</td>");
	if (err) {
		buf_puts(b, "<td class=\"reason\" colspan=\"4\">");
		html_text(b, kf_str(err, "kind"));
		buf_puts(b, ": ");
		html_text_max(b, kf_str(err, "message"), 300);
		buf_puts(b, "</td>");
		return;
	}
	td_text(b, "kernel", f ? kf_report_kname(f) : NULL, 60);
	buf_puts(b, "<td class=\"time num\">");
	if (isfinite(focus_ns(f)))
		html_ns(b, focus_ns(f));
	buf_puts(b, "</td>");
	td_text(b, "bound", bound_of(f), 0);
	finding_cell(b, first_finding(an));
}

/* The job's row, into both indexes. */
static void
index_rows(struct kf_report *r, const cJSON *rec, const cJSON *an, const cJSON *err)
{
	struct buf row = { 0 };

	index_row(r, &row, rec, an, err);
	buf_add(&r->index, row.s, row.len);
	buf_puts(&r->index, "</tr>\n");
	buf_add(&r->index_sp, row.s, row.len);
	buf_puts(&r->index_sp, "<td class=\"speedup num\">");
	if (err == NULL)
		put_speedup(&r->index_sp, kf_obj(an, "delta"));
	buf_puts(&r->index_sp, "</td></tr>\n");
	r->compared += err == NULL && kf_obj(an, "delta") != NULL;
	buf_free(&row);
}

static void
dl_item(struct buf *b, const char *term, const char *text)
{
	if (text == NULL)
		return;
	buf_printf(b, "<dt>%s</dt><dd>", term);
	html_text(b, text);
	buf_puts(b, "</dd>");
}

/* The core's limiter: the pipe or memory level closest to its peak, and
 * where that share came from; a unit of the other side as busy, where the
 * core names one (limiter.tie). */
static void
limiter(struct buf *b, const cJSON *lim)
{
	double pct = kf_num(lim, "pct", NAN);
	const cJSON *tie = kf_obj(lim, "tie");

	if (kf_str(lim, "unit") == NULL)
		return;
	buf_puts(b, "<dt>Limit</dt><dd class=\"limiter\"");
	if (kf_str(lim, "metric")) {
		buf_puts(b, " title=\"");
		html_text(b, kf_str(lim, "metric"));
		buf_puts(b, "\"");
	}
	buf_puts(b, ">");
	put_unit(b, kf_str(lim, "unit"));
	if (isfinite(pct)) {
		buf_puts(b, " at ");
		html_pct(b, pct);
		buf_puts(b, " of its peak");
	}
	if (kf_str(tie, "unit") && isfinite(kf_num(tie, "pct", NAN))) {
		buf_puts(b, "; ");
		put_unit(b, kf_str(tie, "unit"));
		buf_puts(b, " at ");
		html_pct(b, kf_num(tie, "pct", NAN));
		buf_printf(b, ", within %.1f points: at both limits",
		    kf_num(tie, "within_points", NAN));
	}
	buf_puts(b, "</dd>");
}

static void
job_summary(struct buf *b, const cJSON *rec, const cJSON *an, const cJSON *f)
{
	buf_puts(b, "<dl class=\"summary\">");
	dl_item(b, "Profiler", kf_str(rec, "profiler"));
	dl_item(b, "GPU", kf_str(kf_obj(rec, "worker"), "gpu_name"));
	dl_item(b, "Run", kf_str(odd_run(rec), "message"));
	if (f) {
		buf_puts(b, "<dt>Focus kernel</dt><dd class=\"focus-name\"><code>");
		html_text(b, kf_str(f, "name"));
		buf_puts(b, "</code></dd>");
	}
	if (isfinite(focus_ns(f))) {
		buf_puts(b, "<dt>Time per launch</dt><dd class=\"focus-time\">");
		html_ns(b, focus_ns(f));
		if (kf_str(f, "time_label")) {
			buf_puts(b, " (");
			html_text(b, kf_str(f, "time_label"));
			buf_puts(b, ")");
		}
		buf_puts(b, "</dd>");
	}
	dl_item(b, "Bound", bound_of(f));
	limiter(b, kf_obj(f, "limiter"));
	classes(b, an);
	buf_puts(b, "</dl>\n");
}

/* The profiler's own advice (analysis.advice: ncu's rules, VTune's
 * recommendations), the first max, with their estimated speedups. */
static void
advice_table(struct buf *b, const cJSON *an, int max)
{
	const cJSON *adv = kf_arr(an, "advice"), *x;
	const char *word = kf_core_advice_word(adv);
	int i = 0;

	if (adv == NULL || adv->child == NULL || max == 0)
		return;
	buf_printf(b, "<h3>The profiler's %s</h3><table class=\"advice\"><thead><tr>"
	    "<th>%s</th><th class=\"num\">est. speedup</th><th>what it says</th></tr></thead>"
	    "<tbody>\n", word, kf_str(adv->child, "kind") ? kf_str(adv->child, "kind") : "name");
	cJSON_ArrayForEach(x, adv) {
		double sp = kf_num(x, "speedup_pct", NAN);

		if (i++ == max)
			break;
		buf_puts(b, "<tr>");
		td_text(b, "name", kf_str(x, "name"), 0);
		buf_puts(b, "<td class=\"num\">");
		if (isfinite(sp)) {
			buf_printf(b, "%.3g%% ", sp);
			html_text(b, kf_str(x, "speedup_type"));
		}
		buf_puts(b, "</td>");
		td_text(b, "text", kf_str(x, "text"), 0);
		buf_puts(b, "</tr>\n");
	}
	buf_puts(b, "</tbody></table>\n");
}

/* The first max findings of the diagnosis, as the text leads with them. */
static void
diagnosis(struct buf *b, const cJSON *an, int max)
{
	const cJSON *x;
	int i = 0;

	if (first_finding(an) == NULL)
		return;
	buf_puts(b, "<h3>Diagnosis</h3><ol class=\"diagnosis\">\n");
	cJSON_ArrayForEach(x, kf_arr(an, "diagnosis")) {
		if (i++ == max)
			break;
		buf_puts(b, "<li><b>");
		put_kind(b, x);
		buf_puts(b, "</b>");
		if (kf_str(x, "file") || isfinite(kf_num(x, "impact_pct", NAN))) {
			buf_puts(b, " <span class=\"impact\">");
			put_impact(b, x);
			buf_puts(b, "</span>");
		}
		if (kf_str(x, "what")) {
			buf_puts(b, ": ");
			html_text(b, kf_str(x, "what"));
		}
		if (kf_str(x, "fix")) {
			buf_puts(b, " <span class=\"fix\"><b>Fix:</b> ");
			html_text(b, kf_str(x, "fix"));
			buf_puts(b, "</span>");
		}
		buf_puts(b, "</li>\n");
	}
	buf_puts(b, "</ol>\n");
}

static void
job_failed(struct buf *b, const cJSON *rec, const cJSON *err)
{
	char *what = kf_error(rec) ? kf_what_failed_text(rec) : NULL;

	/* The sentence the feedback leads with: whose failure it was. */
	buf_puts(b, "<p class=\"st-failed\">");
	html_text(b, what ? what : "Profiling failed.");
	free(what);
	buf_puts(b, " <span class=\"kind\">");
	html_text(b, kf_str(err, "kind"));
	buf_puts(b, " (");
	html_text(b, kf_str(err, "stage"));
	buf_puts(b, ")</span></p><p class=\"message\">");
	html_text(b, kf_str(err, "message"));
	buf_puts(b, "</p>");
	if (kf_str(err, "hint")) {
		buf_puts(b, "<p class=\"hint\"><b>What to do:</b> ");
		html_text(b, kf_str(err, "hint"));
		buf_puts(b, "</p>");
	}
	if (kf_str(odd_run(rec), "message")) {
		buf_puts(b, "<p class=\"run\"><b>The run:</b> ");
		html_text(b, kf_str(odd_run(rec), "message"));
		buf_puts(b, "</p>");
	}
}

/* Where the job's time went (kf-feedback --timings), folded: the same
 * lines, each number with its field. */
static void
job_timings(struct buf *b, const cJSON *rec)
{
	struct buf t = {0};

	/* a job with none recorded has no fold */
	if (kf_timings_rows(&t, rec) > 0) {
		buf_puts(b, "<details class=\"timings\"><summary>Where the time went, in "
		    "seconds</summary><pre>");
		html_text(b, t.s);
		buf_puts(b, "</pre></details>\n");
	}
	buf_free(&t);
}

static void
job_section(struct kf_report *r, const cJSON *rec, const cJSON *an, const cJSON *err)
{
	struct buf *b = &r->jobs;
	const cJSON *f = kf_report_focus(an);

	buf_printf(b, "<section class=\"job\" id=\"job-%d\"><h2>%d. ", r->n, r->n);
	html_text(b, kf_str(rec, "id") ? kf_str(rec, "id") : "(no id)");
	buf_puts(b, "</h2>\n");
	if (err) {
		job_failed(b, rec, err);
		job_timings(b, rec);
		buf_puts(b, "</section>\n");
		return;
	}
	job_summary(b, rec, an, f);
	diagnosis(b, an, 3);
	kf_report_delta(b, an);
	buf_puts(b, "<div class=\"charts\">");
	kf_report_delta_chart(b, an);
	kf_report_time_chart(b, an, r->o.top);
	kf_report_roofline(b, rec, an, r->o.gpus_file, r->o.top);
	kf_report_pct_chart(b, an);
	kf_report_stalls(b, f);
	buf_puts(b, "</div>\n");
	kf_report_launch(b, f);
	advice_table(b, an, r->o.rules);
	kf_report_lines(b, f, r->o.lines);
	kf_report_delta_details(b, an, r->o.top);
	job_timings(b, rec);
	buf_puts(b, "</section>\n");
}

/* Keep the job's speedup for the overview: faster, slower or unchanged. */
static void
add_speedup(struct kf_report *r, const cJSON *rec, const cJSON *d)
{
	double s = kf_num(d, "speedup", NAN);
	const char *v = kf_str(d, "verdict");

	if (!isfinite(s))
		return;
	r->nsp_all++;
	if (r->nsp == OVERVIEW_MAX)
		return;
	r->sp_id[r->nsp] = xasprintf("%d. %s", r->n, kf_str(rec, "id") ? kf_str(rec, "id") : "(no id)");
	r->sp[r->nsp] = (struct kf_report_bar){ r->sp_id[r->nsp], NULL, s, NAN,
	    v && strcmp(v, "faster") == 0 ? "bar" : v && strcmp(v, "slower") == 0 ? "slower" : "rest" };
	r->nsp++;
}

void
kf_report_add(struct kf_report *r, const cJSON *rec)
{
	const cJSON *an = kf_obj(rec, "analysis"), *err = kf_error(rec);
	const char *st = kf_str(an, "status");
	cJSON *made = NULL;

	if (err == NULL)
		err = kf_obj(an, "error");
	if (err == NULL && st && strcmp(st, "failed") == 0) {
		made = cJSON_CreateObject();
		kf_set_str(made, "kind", "failed");
		kf_set_str(made, "message", "analysis.status is \"failed\", with no error object");
		err = made;
	}
	r->n++;
	r->count[job_status(rec, an, err)]++;
	if (err == NULL)
		add_speedup(r, rec, kf_obj(an, "delta"));
	index_rows(r, rec, an, err);
	job_section(r, rec, an, err);
	cJSON_Delete(made);
}

static void
page_head(struct kf_report *r, struct buf *b)
{
	const char *sep;
	int i;

	buf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	    "style-src 'unsafe-inline'\">\n"
	    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>");
	html_text(b, r->o.title);
	buf_printf(b, "</title>\n<style>\n%s</style></head>\n<body>\n<h1>", css);
	html_text(b, r->o.title);
	buf_printf(b, "</h1>\n<p class=\"counts\">%d job%s", r->n, r->n == 1 ? "" : "s");
	for (i = 0, sep = ": "; i < ST_N; i++)
		if (r->count[i]) {
			buf_printf(b, "%s%d %s", sep, r->count[i], st_word[i]);
			sep = ", ";
		}
	buf_puts(b, ".</p>\n");
}

/* The speedups of the jobs that have a baseline, as one chart. */
static void
overview(struct kf_report *r, struct buf *b)
{
	if (r->nsp == 0)
		return;
	buf_puts(b, "<div class=\"overview\">");
	kf_report_bars(b, "speedups", "Speedup against the baseline (total GPU time)", "speedup",
	    r->sp, r->nsp, KF_BAR_RATIO);
	if (r->nsp_all > r->nsp)
		buf_printf(b, "<p class=\"none\">The first %d of %d jobs with a baseline; the index "
		    "has them all.</p>", r->nsp, r->nsp_all);
	buf_puts(b, "</div>\n");
}

int
kf_report_write(struct kf_report *r, FILE *f)
{
	struct buf head = { 0 }, *index;
	int ok;

	errno = 0;
	page_head(r, &head);
	overview(r, &head);
	buf_printf(&head, "<table class=\"index\"><thead><tr><th class=\"num\">#</th><th>id</th>"
	    "<th>profiler</th><th>status</th><th>focus kernel</th><th class=\"num\">time</th>"
	    "<th>bound</th><th>first finding</th>%s</tr></thead><tbody>\n",
	    r->compared ? "<th class=\"num\">speedup</th>" : "");
	index = r->compared ? &r->index_sp : &r->index;
	ok = fwrite(head.s, 1, head.len, f) == head.len &&
	    fwrite(index->s ? index->s : "", 1, index->len, f) == index->len &&
	    fputs("</tbody></table>\n", f) >= 0 &&
	    fwrite(r->jobs.s ? r->jobs.s : "", 1, r->jobs.len, f) == r->jobs.len &&
	    fputs("</body></html>\n", f) >= 0;
	buf_free(&head);
	if (!ok && errno == 0)
		errno = EIO;
	return ok ? 0 : -1;
}
