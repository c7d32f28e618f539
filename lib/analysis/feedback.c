/* kf: feedback text built from sections with priorities, rendered within
 * a character budget, and the number formats every profiler's text uses. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "feedback.h"
#include "levers.h"
#include "mem.h"
#include "profiler.h"
#include "record.h"

void
kf_fb_unkeep(cJSON *rec)
{
	const struct kf_profiler *p = kf_profiler_find(kf_str(rec, "profiler"));

	if (p == NULL || p->keep == NULL)
		kf_json_unkeep_all(rec);
}

void
kf_fb_init(struct kf_fb *fb, const struct kf_fb_opts *opt)
{
	memset(fb, 0, sizeof *fb);
	fb->opt = opt;
	fb->analysis = cJSON_CreateObject();
}

void
kf_fb_free(struct kf_fb *fb)
{
	size_t i;

	for (i = 0; i < fb->n; i++)
		free(fb->sec[i].text);
	free(fb->sec);
	kf_diag_free(&fb->diag);
	kf_prog_free(fb->prog);
	cJSON_Delete(fb->analysis);
	memset(fb, 0, sizeof *fb);
}

static void
add(struct kf_fb *fb, int prio, char *text)
{
	size_t n = strlen(text);

	while (n > 0 && text[n - 1] == '\n')
		text[--n] = '\0';
	if (n == 0) {
		free(text);
		return;
	}
	KF_GROW(fb->sec, fb->n, fb->cap, 16);
	fb->sec[fb->n].prio = prio;
	fb->sec[fb->n].text = text;
	fb->n++;
}

void
kf_fb_add(struct kf_fb *fb, int prio, const char *fmt, ...)
{
	struct buf b = {0};
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	add(fb, prio, buf_take(&b));
}

void
kf_fb_add_buf(struct kf_fb *fb, int prio, struct buf *b)
{
	add(fb, prio, buf_take(b));
}

void
kf_fb_lead(struct kf_fb *fb)
{
	struct buf b = {0};
	size_t n, max;

	kf_diag_sort(&fb->diag);
	kf_set(fb->analysis, "diagnosis", kf_diag_json(&fb->diag));
	if (fb->diag.n == 0)
		return;
	/* At most three findings in about KF_LEAD_CHARS: fewer when they are
	 * long, never none. */
	for (max = 3; max > 0; max--) {
		buf_reset(&b);
		buf_puts(&b, "Diagnosis (most time at stake first):\n");
		kf_diag_text(&fb->diag, &b, max);
		if (b.len <= KF_LEAD_CHARS)
			break;
	}
	if (max == 0) {
		buf_reset(&b);
		buf_puts(&b, "Diagnosis (most time at stake first):\n");
		kf_diag_text(&fb->diag, &b, 1);
	}
	n = fb->n;
	add(fb, FB_LEAD, buf_take(&b));
	if (fb->n > n) {
		struct kf_fb_sec lead = fb->sec[n];

		memmove(fb->sec + 1, fb->sec, n * sizeof *fb->sec);
		fb->sec[0] = lead;
	}
}

struct slot {
	int prio;
	size_t i;
};

static int
by_prio(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;

	if (x->prio != y->prio)
		return x->prio < y->prio ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* The sections in the order they get room: by priority, then in reading
 * order. */
static size_t *
fill_order(const struct kf_fb *fb)
{
	struct slot *s = xcalloc(fb->n + 1, sizeof *s);
	size_t *o = xcalloc(fb->n + 1, sizeof *o), i;

	for (i = 0; i < fb->n; i++) {
		s[i].prio = fb->sec[i].prio;
		s[i].i = i;
	}
	if (fb->n > 1)
		kf_sort(s, fb->n, sizeof *s, by_prio);
	for (i = 0; i < fb->n; i++)
		o[i] = s[i].i;
	free(s);
	return o;
}

/* How much of text fits in room: all of it, else whole lines from the
 * start (at least two: a heading and an item), else the heading and the
 * first item's first sentences, else nothing. */
static size_t
fit_lines(const char *text, size_t room)
{
	size_t n = strlen(text), cut = 0, lines = 0, i, sentence = 0;
	const char *p;

	if (n <= room)
		return n;
	for (p = text; (p = strchr(p, '\n')) != NULL && (size_t)(p - text) <= room; p++) {
		cut = (size_t)(p - text);
		lines++;
	}
	if (lines >= 2 || lines == 0)
		return lines >= 2 ? cut : 0;
	/* One line fits: the first item up to the last sentence end in room. */
	for (i = cut + 1; i + 1 < n && i < room && text[i] != '\n'; i++)
		if (text[i] == '.' && text[i + 1] == ' ')
			sentence = i + 1;
	return sentence > cut + 60 ? sentence : 0;
}

/* The diagnosis in room: whole, or its heading and as many whole findings
 * as fit, or the first finding up to a sentence end, or cut at room (at a
 * word's end, else a UTF-8 boundary): it is what the reader acts on. */
static size_t
fit_lead(const char *text, size_t room)
{
	size_t n = fit_lines(text, room), w;

	if (n > 0)
		return n;
	n = strlen(text) < room ? strlen(text) : room;
	while (n > 0 && (text[n] & 0xc0) == 0x80)
		n--;
	/* At a word's end if one is in the second half. */
	for (w = n; w > n / 2; w--)
		if (text[w] == ' ')
			return w;
	return n;
}

/* The diagnosis within room, leaving a third of it to the rest when more
 * than its first finding is said: the first finding whole where it fits,
 * the next ones only as far as two thirds of room allow. */
static size_t
fit_lead_share(const char *text, size_t room)
{
	const char *nl = strchr(text, '\n');
	size_t first = nl ? (size_t)(strchr(nl + 1, '\n') ? strchr(nl + 1, '\n') - text :
	    (ptrdiff_t)strlen(text)) : strlen(text), n;

	n = fit_lines(text, room * 2 / 3);
	if (n >= first)
		return n;
	return fit_lead(text, first < room ? first : room);
}

/* The text within max (0: no limit), the newline that ends it counted:
 * sections get room by priority (0 first), whole or as many whole lines as
 * fit, and keep their reading order; priority-0 sections always stay, and
 * if they alone are too long the text is cut at a line end (else a UTF-8
 * boundary) as a last resort. */
char *
kf_fb_render(const struct kf_fb *fb, size_t max)
{
	size_t *order = fill_order(fb), *len = xcalloc(fb->n + 1, sizeof *len);
	size_t i, total = 0, used = 0;
	struct buf b = {0};
	int lead = 0;

	for (i = 0; i < fb->n; i++)
		lead |= fb->sec[i].prio < 0;
	for (i = 0; i < fb->n; i++) {
		size_t k = order[i], sep = used ? 2 : 0, room;

		if (max == 0) {
			len[k] = strlen(fb->sec[k].text);
			continue;
		}
		room = max > total + sep + 1 ? max - total - sep - 1 : 0;
		if (fb->sec[k].prio < 0)
			len[k] = fit_lead_share(fb->sec[k].text, room);
		else if (fb->sec[k].prio == 0 && !lead)
			len[k] = strlen(fb->sec[k].text);	/* stays; cut below */
		else
			len[k] = fit_lines(fb->sec[k].text, room);
		if (len[k]) {
			total += sep + len[k];
			used++;
		}
	}
	for (i = 0; i < fb->n; i++) {
		if (len[i] == 0)
			continue;
		if (b.len)
			buf_puts(&b, "\n\n");
		buf_add(&b, fb->sec[i].text, len[i]);
	}
	free(order);
	free(len);
	if (max && b.len + 1 > max) {
		/* Cut at the last line end that fits, else at a UTF-8 boundary. */
		size_t cut = max - 1;
		char *nl;

		while (cut > 0 && (b.s[cut] & 0xc0) == 0x80)
			cut--;
		b.s[cut] = '\0';
		nl = strrchr(b.s, '\n');
		if (nl && nl > b.s + max / 2)
			*nl = '\0';
		b.len = strlen(b.s);
	}
	if (b.len)
		buf_putc(&b, '\n');
	return buf_take(&b);
}

void
kf_fb_kernel(struct buf *b, const char *shown, double share_pct)
{
	buf_printf(b, "Kernel: %s", shown);
	if (isfinite(share_pct))
		buf_printf(b, " (%.1f%% of the GPU time here)", share_pct);
}

void
kf_fmt_ns(struct buf *b, double ns)
{
	if (ns < 1e3)
		buf_printf(b, "%.0f ns", ns);
	else if (ns < 1e6)
		buf_printf(b, "%.1f \xc2\xb5s", ns / 1e3);
	else if (ns < 1e9)
		buf_printf(b, "%.2f ms", ns / 1e6);
	else
		buf_printf(b, "%.2f s", ns / 1e9);
}

void
kf_fmt_pct(struct buf *b, double pct)
{
	/* One decimal, everywhere kf states a share: a share that is not 0
	 * but would read as 0.0% says how small it is instead. */
	if (pct != 0 && fabs(pct) < 0.05)
		buf_printf(b, "%s0.05%%", pct < 0 ? "> -" : "< ");
	else
		buf_printf(b, "%.1f%%", pct);
}

void
kf_fmt_count(struct buf *b, double v)
{
	if (v >= 1e9)
		buf_printf(b, "%.1f G", v / 1e9);
	else if (v >= 1e6)
		buf_printf(b, "%.1f M", v / 1e6);
	else if (v >= 1e4)
		buf_printf(b, "%.1f K", v / 1e3);
	else
		buf_printf(b, "%.0f", v);
}

void
kf_fb_say_run(struct kf_fb *fb, const cJSON *rec)
{
	const cJSON *p, *passes = kf_arr(rec, "passes");
	const cJSON *run = kf_obj(rec, "run");
	const char *pass = NULL;
	char *why = NULL;
	cJSON *o;

	cJSON_ArrayForEach(p, passes) {
		if ((why = kf_run_stopped(kf_obj(p, "run"))) != NULL) {
			run = kf_obj(p, "run");
			pass = cJSON_GetArraySize(passes) > 1 ? kf_str(p, "pass") : NULL;
			break;
		}
	}
	if (why == NULL && passes == NULL)
		why = kf_run_stopped(run);
	if (why == NULL)
		return;
	kf_fb_add(fb, FB_HEAD, "Warning: the run%s%s did not finish: %s. The numbers below "
	    "cover only the kernels that ran before it was stopped.", pass ? " of pass " : "",
	    pass ? pass : "", why);
	o = cJSON_AddObjectToObject(fb->analysis, "run_end");
	cJSON_AddBoolToObject(o, "stopped", 1);
	cJSON_AddItemToObject(o, "ended_by", cJSON_Duplicate(
	    cJSON_GetObjectItemCaseSensitive(run, "ended_by"), 1));
	if (cJSON_GetObjectItemCaseSensitive(run, "limit_s"))
		cJSON_AddItemToObject(o, "limit_s", cJSON_Duplicate(
		    cJSON_GetObjectItemCaseSensitive(run, "limit_s"), 1));
	cJSON_AddStringToObject(o, "why", why);
	if (pass)
		cJSON_AddStringToObject(o, "pass", pass);
	free(why);
}
