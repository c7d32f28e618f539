/* kf: kf-report's focus kernel in detail, as Nsight Compute's details page
 * shows it: the launch statistics, the warp stalls, the hot source lines
 * with their stalls and excess sectors. Each part is drawn from what the
 * analysis holds and left out when it holds nothing for it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "feedback.h"
#include "html.h"
#include "record.h"
#include "buf.h"
#include "mem.h"
#include "path.h"
#include "report.h"

enum { STALLS_MAX = 8 };	/* stall reasons drawn; the rest are summed */

void
kf_report_where(struct buf *b, const char *file, double line)
{
	if (file == NULL) {
		buf_puts(b, "?");
	} else {
		buf_puts(b, "<span title=\"");
		html_text(b, file);
		buf_puts(b, "\">");
		html_text(b, kf_base_name(file));
		buf_puts(b, "</span>");
	}
	if (isfinite(line))
		buf_printf(b, ":%.0f", line);
}

static void
put_number(struct buf *b, double v)
{
	if (v == floor(v) && fabs(v) < 1e15)
		buf_printf(b, "%.0f", v);
	else
		buf_printf(b, "%.4g", v);
}

/* A member's name in words: "registers_per_thread" is "registers per
 * thread", "achieved_pct" of occupancy "achieved occupancy, %". */
static void
put_words(struct buf *b, const char *key, const char *of)
{
	size_t n = strlen(key);
	int pct = n > 4 && strcmp(key + n - 4, "_pct") == 0;

	html_words(b, key, n - (pct ? 4 : 0));
	if (of) {
		buf_putc(b, ' ');
		html_text(b, of);
	}
	if (pct)
		buf_puts(b, ", %");
}

/* A value: a number, or an array of them as "32 × 8 × 1 (256)". */
static int
put_value(struct buf *b, const cJSON *v)
{
	const cJSON *x, *arr = cJSON_IsArray(v) ? v : NULL;
	double prod = 1;
	int n = 0;

	if (cJSON_IsNumber(v)) {
		put_number(b, v->valuedouble);
		return 1;
	}
	if (cJSON_IsString(v)) {
		html_text(b, v->valuestring);
		return 1;
	}
	cJSON_ArrayForEach(x, arr) {
		if (!cJSON_IsNumber(x))
			return 0;
		buf_puts(b, n++ ? " \xC3\x97 " : "");
		put_number(b, x->valuedouble);
		prod *= x->valuedouble;
	}
	if (n > 1) {
		buf_puts(b, " (");
		put_number(b, prod);
		buf_puts(b, ")");
	}
	return n > 0;
}

/* One row per member of o that has a value. */
static void
stat_rows(struct buf *b, const cJSON *o, const char *of)
{
	const cJSON *m;

	cJSON_ArrayForEach(m, o) {
		struct buf v = { 0 };

		if (m->string && put_value(&v, m)) {
			buf_puts(b, "<tr><td class=\"stat\" title=\"");
			html_text(b, m->string);
			buf_puts(b, "\">");
			put_words(b, m->string, of);
			buf_printf(b, "</td><td class=\"num\">%s</td></tr>\n", v.s);
		}
		buf_free(&v);
	}
}

void
kf_report_launch(struct buf *b, const cJSON *f)
{
	struct buf rows = { 0 };

	stat_rows(&rows, kf_obj(f, "launch"), NULL);
	stat_rows(&rows, kf_obj(f, "occupancy"), "occupancy");
	if (rows.len)
		buf_printf(b, "<h3>Launch statistics</h3><table class=\"launch\"><tbody>\n"
		    "%s</tbody></table>\n", rows.s);
	buf_free(&rows);
}

struct stall {
	const char *reason;
	double pct;		/* of all the kernel's stall samples */
};

static int
by_pct(const void *a, const void *b)
{
	double x = ((const struct stall *)a)->pct, y = ((const struct stall *)b)->pct;

	return x < y ? 1 : x > y ? -1 : strcmp(((const struct stall *)a)->reason,
	    ((const struct stall *)b)->reason);
}

/* Each reason's share of the kernel's stall samples, over the hot lines:
 * a line's share (stall_pct) times the reason's share of the line. *cover
 * gets the lines' share of all samples, *nl their number. */
static int
line_stalls(const cJSON *f, struct stall **out, double *cover, int *nl)
{
	const cJSON *l, *x;
	struct stall *v = NULL;
	int n = 0, i;

	*cover = 0;
	*nl = 0;
	cJSON_ArrayForEach(l, kf_arr(f, "source_lines")) {
		double lp = kf_num(l, "stall_pct", NAN);

		if (!isfinite(lp) || lp <= 0)
			continue;
		*cover += lp;
		++*nl;
		cJSON_ArrayForEach(x, kf_arr(l, "stalls")) {
			const char *why = kf_str(x, "reason");
			double p = kf_num(x, "pct_of_line", NAN);

			if (why == NULL || !isfinite(p))
				continue;
			for (i = 0; i < n && strcmp(v[i].reason, why) != 0; i++)
				;
			if (i == n) {
				v = xrealloc(v, ((size_t)n + 1) * sizeof *v);
				v[n++] = (struct stall){ why, 0 };
			}
			v[i].pct += lp * p / 100;
		}
	}
	kf_sort(v, (size_t)n, sizeof *v, by_pct);
	*out = v;
	return n;
}

void
kf_report_stalls(struct buf *b, const cJSON *f)
{
	struct kf_report_bar r[STALLS_MAX + 1];
	struct stall *v;
	struct buf title = { 0 };
	double cover, rest = 0;
	int n, nl, i, k = 0;

	if ((n = line_stalls(f, &v, &cover, &nl)) == 0) {
		free(v);
		return;
	}
	for (i = 0; i < n; i++) {
		if (k < STALLS_MAX)
			r[k++] = (struct kf_report_bar){ v[i].reason, NULL, v[i].pct, NAN, "bar" };
		else
			rest += v[i].pct;
	}
	if (rest > 0)
		r[k++] = (struct kf_report_bar){ "other reasons", NULL, rest, NAN, "rest" };
	buf_printf(&title, "Warp stalls: %d hot line%s, %.1f%% of the samples", nl,
	    nl == 1 ? "" : "s", fmin(cover, 100));
	kf_report_bars(b, "stalls", title.s, "share of the kernel's stall samples", r, k,
	    KF_BAR_PCT);
	buf_free(&title);
	free(v);
}

/* The line's main stall reason (the first of its stalls). */
static void
top_stall(struct buf *b, const cJSON *stalls)
{
	const char *why = stalls && stalls->child ? kf_str(stalls->child, "reason") : NULL;

	if (why == NULL)
		return;
	buf_puts(b, " <span class=\"stall\">");
	html_text(b, why);
	buf_puts(b, "</span>");
}

/* Whether any of the first max lines has a number for key. */
static int
any_num(const cJSON *sl, const char *key, int max)
{
	const cJSON *x;
	int i = 0;

	cJSON_ArrayForEach(x, sl)
		if (i++ < max && isfinite(kf_num(x, key, NAN)))
			return 1;
	return 0;
}

/* An excess count and its share of the whole: "58.7 M (78%)". */
static void
excess_cell(struct buf *b, const cJSON *x, const char *key, const char *of)
{
	double v = kf_num(x, key, NAN), all = of ? kf_num(x, of, NAN) : NAN;

	buf_puts(b, "<td class=\"num excess\">");
	if (isfinite(v)) {
		kf_fmt_count(b, v);
		if (v > 0 && isfinite(all) && all > 0)
			buf_printf(b, " (%.0f%%)", 100 * v / all);
	}
	buf_puts(b, "</td>");
}

void
kf_report_lines(struct buf *b, const cJSON *f, int max)
{
	const cJSON *sl = kf_arr(f, "source_lines"), *x;
	int i = 0, l2, shared;

	if (sl == NULL || sl->child == NULL || max == 0)
		return;
	l2 = any_num(sl, "l2_excessive_sectors", max);
	shared = any_num(sl, "shared_excessive_wavefronts", max);
	buf_printf(b, "<h3>Hot source lines</h3><table class=\"source\"><thead><tr><th>where</th>"
	    "<th class=\"num\">stalls</th>%s%s<th>code</th></tr></thead><tbody>\n",
	    l2 ? "<th class=\"num\" title=\"L2 sectors beyond the fewest the accesses need, "
	    "and their share of the line's sectors\">excess L2 sectors</th>" : "",
	    shared ? "<th class=\"num\" title=\"shared-memory wavefronts beyond the fewest "
	    "the accesses need: bank conflicts\">excess shared wavefronts</th>" : "");
	cJSON_ArrayForEach(x, sl) {
		double st = kf_num(x, "stall_pct", NAN);

		if (i++ == max)
			break;
		buf_puts(b, "<tr><td class=\"where\">");
		kf_report_where(b, kf_str(x, "file"), kf_num(x, "line", NAN));
		buf_puts(b, "</td><td class=\"num\">");
		if (isfinite(st))
			html_pct(b, st);
		top_stall(b, kf_arr(x, "stalls"));
		buf_puts(b, "</td>");
		if (l2)
			excess_cell(b, x, "l2_excessive_sectors", "l2_sectors");
		if (shared)
			excess_cell(b, x, "shared_excessive_wavefronts", NULL);
		buf_puts(b, "<td><pre><code>");
		html_text(b, kf_str(x, "text"));
		buf_puts(b, "</code></pre></td></tr>\n");
	}
	buf_puts(b, "</tbody></table>\n");
}
