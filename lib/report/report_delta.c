/* kf: kf-report's before and after: analysis.delta (kf-feedback --baseline)
 * as the verdict, bars of the times, the focus kernel's metrics, the
 * kernels and the rules that changed. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "html.h"
#include "profiler.h"
#include "record.h"
#include "report.h"

/* A metric's name for people: the label the profiler's --baseline table
 * gives it (struct kf_cmp: "Compute (SM)"), a stall by its reason, else its
 * key in words ("registers per thread"). path is "throughput/dram_pct". */
static void
put_label(struct buf *b, const struct kf_profiler *p, const char *path)
{
	const struct kf_cmp_metric *m;
	const char *key = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t n = strlen(key);
	int pct = n > 4 && strcmp(key + n - 4, "_pct") == 0;
	size_t cut = pct ? 4 : 0;	/* "_pct", said as ", %" */

	for (m = p && p->cmp ? p->cmp->m : NULL; m && m->path; m++)
		if (strcmp(m->path, path) == 0) {
			html_text(b, m->label);
			buf_puts(b, m->kind == KF_CMP_PCT ? ", %" : m->kind == KF_CMP_GBPS ? ", GB/s" : "");
			return;
		}
	if (strncmp(key, "stall_", 6) == 0 && pct) {
		key += 6;
		n -= 6;
		buf_puts(b, "stalls: ");
	}
	/* "stall_pct" has no words left once "stall_" is taken */
	html_words(b, key, n > cut ? n - cut : 0);
	if (pct)
		buf_puts(b, ", %");
}

/* before and after of member key of d; 0 when it has not both. */
static int
before_after(const cJSON *d, const char *key, double *bef, double *aft)
{
	const cJSON *o = kf_obj(d, key);

	*bef = kf_num(o, "before", NAN);
	*aft = kf_num(o, "after", NAN);
	return isfinite(*bef) && isfinite(*aft);
}

static void
verdict_line(struct buf *b, const cJSON *d)
{
	double s = kf_num(d, "speedup", NAN);

	buf_puts(b, "<p class=\"delta\"><b>Against the baseline:</b> ");
	if (isfinite(s))
		buf_printf(b, "speedup <span class=\"speedup\">%.3g\xC3\x97</span>", s);
	if (kf_str(d, "verdict")) {
		buf_puts(b, isfinite(s) ? ", " : "");
		buf_puts(b, "<span class=\"verdict\">");
		html_text(b, kf_str(d, "verdict"));
		buf_puts(b, "</span>");
	}
	buf_puts(b, ".</p>\n");
}

static void
time_bars(struct buf *b, const cJSON *d)
{
	struct kf_report_bar r[4];
	double bef, aft;
	int n = 0;

	if (before_after(d, "total_gpu_time_ns", &bef, &aft)) {
		r[n++] = (struct kf_report_bar){ "GPU time, baseline", NULL, bef, NAN, "bar" };
		r[n++] = (struct kf_report_bar){ "GPU time, this run", NULL, aft, NAN, "after" };
	}
	if (before_after(d, "focus_duration_ns", &bef, &aft)) {
		r[n++] = (struct kf_report_bar){ "focus kernel, baseline", NULL, bef, NAN, "bar" };
		r[n++] = (struct kf_report_bar){ "focus kernel, this run", NULL, aft, NAN, "after" };
	}
	if (n)
		kf_report_bars(b, "delta", "Before and after", "time", r, n, KF_BAR_TIME);
}

/* One row per {before, after} leaf under o, named by its label. */
static void
metric_rows(struct buf *b, const struct kf_profiler *p, const cJSON *o, const char *path,
    int depth)
{
	const cJSON *m;

	cJSON_ArrayForEach(m, o) {
		double bef = kf_num(m, "before", NAN), aft = kf_num(m, "after", NAN);

		if (!cJSON_IsObject(m) || m->string == NULL)
			continue;
		struct buf sub = { 0 };

		buf_printf(&sub, "%s%s", path, m->string);
		if (isfinite(bef) && isfinite(aft)) {
			buf_printf(b, "<tr><td class=\"metric\" title=\"");
			html_text(b, sub.s);
			buf_puts(b, "\">");
			put_label(b, p, sub.s);
			buf_printf(b, "</td><td class=\"num\">%.4g</td><td class=\"num\">%.4g</td></tr>\n",
			    bef, aft);
		} else if (depth < 4) {
			buf_putc(&sub, '/');
			metric_rows(b, p, m, sub.s, depth + 1);
		}
		buf_free(&sub);
	}
}

static void
focus_table(struct buf *b, const struct kf_profiler *p, const cJSON *f)
{
	struct buf rows = { 0 };

	if (f == NULL)
		return;
	metric_rows(&rows, p, f, "", 0);
	buf_puts(b, "<h3>Focus kernel, before and after</h3><p class=\"delta-focus\"><code>");
	html_text(b, kf_str(f, "name"));
	buf_puts(b, "</code>");
	if (kf_str(f, "baseline_name")) {
		buf_puts(b, " against the baseline's <code>");
		html_text(b, kf_str(f, "baseline_name"));
		buf_puts(b, "</code>");
	}
	if (kf_str(f, "matched_by")) {
		buf_puts(b, " (matched by ");
		html_text(b, kf_str(f, "matched_by"));
		buf_puts(b, ")");
	}
	buf_puts(b, "</p>\n");
	if (rows.len)
		buf_printf(b, "<table class=\"delta-metrics\"><thead><tr><th>metric</th>"
		    "<th class=\"num\">baseline</th><th class=\"num\">this run</th></tr></thead>"
		    "<tbody>\n%s</tbody></table>\n", rows.s);
	buf_free(&rows);
}

static void
kernel_rows(struct buf *b, const cJSON *ks, int max)
{
	const cJSON *k;
	int i = 0;

	buf_puts(b, "<h3>Kernels, before and after</h3><table class=\"delta-kernels\"><thead><tr>"
	    "<th>kernel</th><th class=\"num\">baseline</th><th class=\"num\">this run</th>"
	    "<th>verdict</th></tr></thead><tbody>\n");
	cJSON_ArrayForEach(k, ks) {
		double bef, aft;
		int both = before_after(k, "total_ns", &bef, &aft);

		if (i++ == max)
			break;
		buf_puts(b, "<tr><td class=\"kernel\">");
		html_text_max(b, kf_str(k, "name"), 120);
		buf_puts(b, "</td><td class=\"num\">");
		if (both || isfinite(bef))
			html_ns(b, bef);
		buf_puts(b, "</td><td class=\"num\">");
		if (both || isfinite(aft))
			html_ns(b, aft);
		buf_puts(b, "</td><td>");
		html_text(b, kf_str(k, "verdict"));
		buf_puts(b, "</td></tr>\n");
	}
	buf_puts(b, "</tbody></table>\n");
}

/* Names of the rules in delta.rules[key], comma-separated. */
static void
rule_names(struct buf *b, const cJSON *rules, const char *key, const char *label)
{
	const cJSON *r;
	int n = 0;

	cJSON_ArrayForEach(r, kf_arr(rules, key)) {
		const char *name = kf_str(r, "name") ? kf_str(r, "name") :
		    kf_str(r, "kind") ? kf_str(r, "kind") : cJSON_IsString(r) ? r->valuestring : NULL;

		if (name == NULL)
			continue;
		buf_puts(b, n++ ? ", " : "<li>");
		if (n == 1)
			buf_printf(b, "%s: ", label);
		html_text(b, name);
	}
	if (n)
		buf_puts(b, "</li>");
}

static void
rules_changed(struct buf *b, const cJSON *d)
{
	const cJSON *rules = kf_obj(d, "advice");
	struct buf l = { 0 };

	rule_names(&l, rules, "resolved", "resolved");
	rule_names(&l, rules, "new", "new");
	rule_names(&l, rules, "changed", "changed");
	rule_names(&l, rules, "not_compared", "not compared (their section collected in one run only)");
	if (l.len)
		buf_printf(b, "<h3>Rules, before and after</h3><ul class=\"delta-rules\">%s</ul>\n", l.s);
	buf_free(&l);
}

void
kf_report_delta(struct buf *b, const cJSON *an)
{
	const cJSON *d = kf_obj(an, "delta");
	const char *st = kf_str(d, "status");

	if (d == NULL)
		return;
	if (st && strcmp(st, "ok") != 0) {
		buf_puts(b, "<p class=\"delta none\">No comparison with a baseline: ");
		html_text(b, kf_str(d, "message") ? kf_str(d, "message") : st);
		buf_puts(b, "</p>\n");
		return;
	}
	verdict_line(b, d);
}

void
kf_report_delta_chart(struct buf *b, const cJSON *an)
{
	const cJSON *d = kf_obj(an, "delta");
	const char *st = kf_str(d, "status");

	if (d && !(st && strcmp(st, "ok") != 0))
		time_bars(b, d);
}

void
kf_report_delta_details(struct buf *b, const cJSON *an, int n)
{
	const cJSON *d = kf_obj(an, "delta");
	const char *st = kf_str(d, "status");

	if (d == NULL || (st && strcmp(st, "ok") != 0))
		return;
	focus_table(b, kf_profiler_find(kf_str(an, "profiler")), kf_obj(d, "focus"));
	if (kf_arr(d, "kernels") && kf_arr(d, "kernels")->child)
		kernel_rows(b, kf_arr(d, "kernels"), n);
	rules_changed(b, d);
}
