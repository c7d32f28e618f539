/* kf: the focus launch's hottest source lines, from its "source" (the
 * source page as kf-read kept it): where in the code the warps stall, why,
 * on which SASS instructions, and which lines make the excessive L2
 * sectors. Code built without -lineinfo has no lines: then the hottest
 * SASS instructions, and the hint to build with -lineinfo. */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "feedback.h"
#include "ncu_pages.h"
#include "num.h"
#include "path.h"
#include "record.h"

#define TEXT_LINES 3		/* lines in the first paragraph */
#define MORE_LINES 3		/* lines in the second */
#define TEXT_SASS 3		/* hot instructions without line info */

/* What a stall reason means (ncu's "Warp State" names). */
static const struct { const char *name, *why; } stalls[] = {
	{ "long_sb", "waiting for global or local memory data (L1TEX)" },
	{ "short_sb", "waiting for shared memory or special-register data (MIO)" },
	{ "lg", "the global/local memory queue full" },
	{ "mio", "the MIO (shared memory, special ops) queue full" },
	{ "drain", "waiting at exit for the stores (or atomics) before it to drain: "
	  "their cost, not this line's" },
	{ "barrier", "waiting at a block barrier (__syncthreads)" },
	{ "membar", "waiting at a memory barrier" },
	{ "math", "the math pipe busy" },
	{ "wait", "fixed-latency dependencies" },
	{ "not_selected", "ready but another warp issued" },
	{ "selected", "issuing" },
	{ "dispatch", "dispatch stalls" },
	{ "branch_resolving", "resolving branches" },
	{ "no_inst", "instruction cache misses" },
	{ "imc", "constant cache misses" },
	{ "tex", "the texture queue full" },
	{ "sleep", "sleeping" },
	{ "misc", "miscellaneous stalls" },
};

static const char *
stall_why(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof stalls / sizeof stalls[0]; i++)
		if (strcmp(stalls[i].name, name) == 0)
			return stalls[i].why;
	return NULL;
}

static double
pct(double part, double whole)
{
	return whole > 0 ? 100 * part / whole : 0;
}

/* Analysis */

static cJSON *
stalls_json(const cJSON *st, double samples)
{
	cJSON *a = cJSON_CreateArray(), *s;

	cJSON_ArrayForEach(s, st) {
		cJSON *o;

		if (!cJSON_IsNumber(s) || s->string == NULL)
			continue;
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "reason", s->string);
		cJSON_AddNumberToObject(o, "samples", s->valuedouble);
		cJSON_AddNumberToObject(o, "pct_of_line", pct(s->valuedouble, samples));
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

static cJSON *
sass_json(const cJSON *sass, double total)
{
	cJSON *a = cJSON_CreateArray(), *x;

	cJSON_ArrayForEach(x, sass) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "address", kf_str(x, "address") ? kf_str(x, "address") : "");
		cJSON_AddStringToObject(o, "text", kf_str(x, "text") ? kf_str(x, "text") : "");
		cJSON_AddNumberToObject(o, "stall_pct", pct(kf_num(x, "samples", 0), total));
		cJSON_AddNumberToObject(o, "l2_excessive_sectors",
		    kf_num(x, "l2_excessive_sectors", 0));
		if (kf_str(x, "stall"))
			cJSON_AddStringToObject(o, "stall", kf_str(x, "stall"));
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

static cJSON *
line_json(const cJSON *ln, double total)
{
	cJSON *o = cJSON_CreateObject();
	const cJSON *sh = cJSON_GetObjectItemCaseSensitive(ln, "shared_excessive_wavefronts");
	double samples = kf_num(ln, "samples", 0);

	cJSON_AddStringToObject(o, "file", kf_str(ln, "file") ? kf_str(ln, "file") : "");
	cJSON_AddNumberToObject(o, "line", kf_num(ln, "line", 0));
	cJSON_AddStringToObject(o, "text", kf_str(ln, "text") ? kf_str(ln, "text") : "");
	cJSON_AddNumberToObject(o, "stall_pct", pct(samples, total));
	cJSON_AddNumberToObject(o, "l2_excessive_sectors", kf_num(ln, "l2_excessive_sectors", 0));
	cJSON_AddNumberToObject(o, "l2_sectors", kf_num(ln, "l2_sectors", 0));
	if (cJSON_IsNumber(sh))
		cJSON_AddNumberToObject(o, "shared_excessive_wavefronts", sh->valuedouble);
	else
		cJSON_AddNullToObject(o, "shared_excessive_wavefronts");
	cJSON_AddItemToObject(o, "stalls", stalls_json(kf_obj(ln, "stalls"), samples));
	cJSON_AddItemToObject(o, "sass", sass_json(kf_arr(ln, "sass"), total));
	return o;
}

/* Text */

static void
say_stall(struct buf *b, const cJSON *ln)
{
	const cJSON *top = kf_obj(ln, "stalls") ? kf_obj(ln, "stalls")->child : NULL;
	double samples = kf_num(ln, "samples", 0);
	const char *why;

	if (!cJSON_IsNumber(top) || top->string == NULL || samples <= 0)
		return;
	why = stall_why(top->string);
	buf_printf(b, "; %.0f%% of them %s", pct(top->valuedouble, samples), top->string);
	if (why)
		buf_printf(b, " (%s)", why);
}

/* "stores" or "loads": what the line's instruction with the most excessive
 * sectors does (STG, LDG, ...), as far as its SASS kept says. */
static const char *
access_kind(const cJSON *ln)
{
	const cJSON *x, *best = NULL;
	const char *t;

	cJSON_ArrayForEach(x, kf_arr(ln, "sass"))
		if (kf_num(x, "l2_excessive_sectors", 0) > (best ?
		    kf_num(best, "l2_excessive_sectors", 0) : 0))
			best = x;
	t = best ? kf_str(best, "text") : NULL;
	if (t && t[0] == '@')
		t += strcspn(t, " ") + strspn(t + strcspn(t, " "), " ");
	if (t && (kf_startswith(t, "ST") || kf_startswith(t, "RED")))
		return "stores";
	if (t && kf_startswith(t, "LD"))
		return "loads";
	if (t && kf_startswith(t, "ATOM"))
		return "atomics";
	return "accesses";
}

static void
say_sectors(struct buf *b, const cJSON *ln, double kernel_exc)
{
	double exc = kf_num(ln, "l2_excessive_sectors", 0), all = kf_num(ln, "l2_sectors", 0);

	if (exc <= 0)
		return;
	buf_puts(b, "; ");
	if (kernel_exc > 0 && exc >= kernel_exc)
		buf_puts(b, "all ");
	kf_fmt_count(b, exc);
	buf_puts(b, " excessive L2 sectors");
	if (kernel_exc > 0 && exc < kernel_exc)
		buf_printf(b, " (%.0f%% of the kernel's)", pct(exc, kernel_exc));
	if (all > 0)
		buf_printf(b, ", %.0f%% of the line's sectors", pct(exc, all));
	buf_printf(b, ": uncoalesced %s", access_kind(ln));
}

static void
say_sass(struct buf *b, const cJSON *ln, double total)
{
	const cJSON *x = kf_arr(ln, "sass") ? kf_arr(ln, "sass")->child : NULL;

	if (x == NULL || kf_num(x, "samples", 0) <= 0 || !kf_str(x, "text"))
		return;
	buf_printf(b, "; hottest instruction `%s` (%.1f%%)", kf_str(x, "text"),
	    pct(kf_num(x, "samples", 0), total));
}

static void
say_line(struct buf *b, int n, const cJSON *ln, double total, double kernel_exc,
    const char *main)
{
	const char *sh;
	const cJSON *shc = cJSON_GetObjectItemCaseSensitive(ln, "shared_excessive_wavefronts");

	sh = kf_str(ln, "file") ? kf_base_name(kf_str(ln, "file")) : "?";
	buf_printf(b, "\n  %d. %s:%.0f `%s`: %.1f%% of stall samples", n, sh,
	    kf_num(ln, "line", 0), kf_str(ln, "text") ? kf_str(ln, "text") : "",
	    pct(kf_num(ln, "samples", 0), total));
	say_stall(b, ln);
	say_sectors(b, ln, kernel_exc);
	if (cJSON_IsNumber(shc) && shc->valuedouble > 0) {
		buf_puts(b, "; ");
		kf_fmt_count(b, shc->valuedouble);
		buf_puts(b, " excessive shared-memory wavefronts (bank conflicts)");
	}
	say_sass(b, ln, total);
	if (main && kf_str(ln, "file") && strcmp(main, kf_str(ln, "file")) != 0)
		buf_puts(b, "; header code inlined into the kernel, its samples also "
		    "counted on the line that calls it");
	buf_putc(b, '.');
}

/* Without line info: the hottest instructions. */
static void
say_no_lines(struct kf_fb *fb, const cJSON *src, double total, cJSON *focus)
{
	struct buf b = {0};
	const cJSON *x;
	int n = 0;

	buf_printf(&b, "Source lines: the source page has no line information for this "
	    "kernel (code built without -lineinfo, as cuBLAS and cuDNN are).");
	cJSON_ArrayForEach(x, kf_arr(src, "hot_sass")) {
		if (n == 0)
			buf_puts(&b, " Its hottest SASS instructions, by share of stall samples:");
		if (n++ == TEXT_SASS)
			break;
		buf_printf(&b, "\n  %d. %s `%s`: %.1f%%", n, kf_str(x, "address") ?
		    kf_str(x, "address") : "?", kf_str(x, "text") ? kf_str(x, "text") : "",
		    pct(kf_num(x, "samples", 0), total));
		if (kf_str(x, "stall"))
			buf_printf(&b, ", mostly %s", kf_str(x, "stall"));
	}
	if (n == 0)
		buf_puts(&b, " ncu's source export (--print-source cuda,sass) shows nothing "
		    "for such code, not even its SASS.");
	buf_puts(&b, "\nIf you own this code, build it with nvcc -lineinfo so that ncu "
	    "can name the lines.");
	kf_fb_add_buf(fb, FB_KEY, &b);
	cJSON_AddItemToObject(focus, "hot_sass", sass_json(kf_arr(src, "hot_sass"), total));
}

int
ncu_lines_say(struct kf_fb *fb, const cJSON *k, cJSON *focus)
{
	const cJSON *src = kf_obj(k, "source"), *ln;
	double total = kf_num(src, "samples", 0), exc = kf_num(src, "l2_excessive_sectors", 0);
	cJSON *arr;
	struct buf b = {0}, more = {0};
	int n = 0, inlined = 0;

	if (src == NULL)
		return 0;
	arr = cJSON_AddArrayToObject(focus, "source_lines");
	cJSON_AddBoolToObject(focus, "line_info", cJSON_IsTrue(
	    cJSON_GetObjectItemCaseSensitive(src, "line_info")));
	if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(src, "line_info"))) {
		say_no_lines(fb, src, total, focus);
		return 1;
	}
	buf_printf(&b, "Hottest source lines (share of the kernel's %.0f warp-stall "
	    "samples):", total);
	cJSON_ArrayForEach(ln, kf_arr(src, "lines")) {
		const char *mf = kf_str(src, "main_file"), *file = kf_str(ln, "file");

		cJSON_AddItemToArray(arr, line_json(ln, total));
		/* Header code inlined into the kernel is in its own file's block
		 * and again at the line that calls it: the text counts it once,
		 * there, so that the shares never add past 100%. */
		if (mf && file && strcmp(mf, file) != 0) {
			inlined++;
			continue;
		}
		/* The text names lines that matter: 1% of the samples or more,
		 * or excessive sectors. */
		if (pct(kf_num(ln, "samples", 0), total) < 1 &&
		    kf_num(ln, "l2_excessive_sectors", 0) <= 0)
			continue;
		if (n < TEXT_LINES)
			say_line(&b, n + 1, ln, total, exc, kf_str(src, "main_file"));
		else if (n < TEXT_LINES + MORE_LINES)
			say_line(&more, n + 1, ln, total, exc, kf_str(src, "main_file"));
		n++;
	}
	if (n == 0)
		buf_puts(&b, " none: the source page lists no line of this kernel.");
	if (inlined)
		buf_puts(&b, "\n(Header code inlined into the kernel is counted at the line "
		    "that calls it.)");
	/* kf-wrap ncu --sampled-source: the page has no per-instruction
	 * execution counts, so no line's divergence could be measured. */
	if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(src, "instructions_counted"))) {
		cJSON_AddFalseToObject(focus, "instructions_counted");
		buf_puts(&b, "\n(ncu did not count each instruction's executions: the source "
		    "page has no Instructions Executed, as under kf-wrap ncu --sampled-source, "
		    "so whether a line's warps diverge is not measured.)");
	}
	kf_fb_add_buf(fb, FB_KEY, &b);
	if (more.len > 0) {
		struct buf m = {0};

		buf_printf(&m, "More source lines:%s", more.s);
		kf_fb_add_buf(fb, FB_DETAIL, &m);
	}
	buf_free(&more);
	return 1;
}
