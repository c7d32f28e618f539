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

/* The length of a diagnosis's header line and first finding. */
static size_t
first_finding(const char *text)
{
	const char *nl = strchr(text, '\n'), *nl2 = nl ? strchr(nl + 1, '\n') : NULL;

	return nl2 ? (size_t)(nl2 - text) : strlen(text);
}

/* The diagnosis within room, leaving a third of it to the rest when more
 * than its first finding is said: the first finding whole where it fits,
 * the next ones only as far as two thirds of room allow. */
static size_t
fit_lead_share(const char *text, size_t room)
{
	size_t first = first_finding(text), n;

	n = fit_lines(text, room * 2 / 3);
	if (n >= first)
		return n;
	return fit_lead(text, first < room ? first : room);
}

/* How much of each section goes into a text of at most max characters
 * (0: no limit), into len[]: sections get room by priority (0 first),
 * whole or as many whole lines as fit, and keep their reading order;
 * priority-0 sections always stay. */
static void
layout(const struct kf_fb *fb, size_t max, size_t *len)
{
	size_t *order = fill_order(fb);
	size_t i, total = 0, used = 0;
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
	free(order);
}

/* A section's name, for the note of what was cut: its first line up to a
 * colon or a parenthesis ("Kernels by total GPU time"), at most 60 bytes,
 * cut at a word. */
static void
put_name(struct buf *b, const char *text)
{
	size_t n = strcspn(text, ":(\n"), w;

	while (n > 0 && text[n - 1] == ' ')
		n--;
	if (n > 60) {
		for (w = 60; w > 20 && text[w] != ' '; w--)
			;
		n = w;
		buf_printf(b, "\"%.*s...\"", (int)n, text);
		return;
	}
	buf_printf(b, "\"%.*s\"", (int)n, text);
}

/* Lines of s (n bytes); with whole, only those shown to their end. */
static size_t
count_lines(const char *s, size_t n, int whole)
{
	size_t k = 0, i;

	for (i = 0; i < n; i++)
		k += s[i] == '\n';
	if (n > 0 && s[n - 1] != '\n' && (!whole || s[n] == '\0' || s[n] == '\n'))
		k++;
	return k;
}

/* What len[] leaves out, one item a part, in reading order: a section
 * left out whole by its name, one cut short as "the end of NAME (N of its
 * M lines)"; hard: the text itself was cut. Returns how many. */
static size_t
cut_items(const struct kf_fb *fb, const size_t *len, int hard, char ***items)
{
	size_t i, all, kept, n = 0;
	struct buf b = {0};

	*items = xcalloc(fb->n + 2, sizeof **items);
	for (i = 0; i < fb->n; i++) {
		const char *t = fb->sec[i].text;

		all = strlen(t);
		if (len[i] >= all)
			continue;
		if (len[i] > 0) {
			kept = count_lines(t, len[i], 1);
			all = count_lines(t, all, 0);
			buf_puts(&b, "the end of ");
			put_name(&b, t);
			buf_printf(&b, " (%zu of its %zu lines)", all - kept, all);
		} else {
			put_name(&b, t);
		}
		(*items)[n++] = buf_take(&b);
	}
	if (hard)
		(*items)[n++] = xstrdup("the end of the text");
	return n;
}

/* The note of what was cut, within room bytes if it can be: every item;
 * else the first ones and how many more; else only how many. */
static void
cut_note(size_t max, char **items, size_t n, size_t room, struct buf *b)
{
	size_t k, i;

	for (k = items ? n : 0; ; k--) {
		buf_reset(b);
		if (k == 0) {
			buf_printf(b, "(Cut to fit %zu characters: %zu part%s left out.)", max, n,
			    n == 1 ? "" : "s");
			return;
		}
		buf_printf(b, "(Cut to fit %zu characters, the least useful left out: ", max);
		for (i = 0; i < k; i++)
			buf_printf(b, "%s%s", i ? "; " : "", items[i]);
		if (k < n)
			buf_printf(b, "; and %zu more", n - k);
		buf_puts(b, ".)");
		if (b->len <= room)
			return;
	}
}

/* The sections as len[] keeps them, joined by blank lines. */
static void
join(const struct kf_fb *fb, const size_t *len, struct buf *b)
{
	size_t i;

	for (i = 0; i < fb->n; i++) {
		if (len[i] == 0)
			continue;
		if (b->len)
			buf_puts(b, "\n\n");
		buf_add(b, fb->sec[i].text, len[i]);
	}
}

/* The sections as len[] keeps them, within room: as a last resort cut at
 * the last line end that fits, else at a UTF-8 boundary (1 then). */
static int
fit_text(const struct kf_fb *fb, const size_t *len, size_t room, struct buf *b)
{
	size_t cut;
	char *nl;

	buf_reset(b);
	join(fb, len, b);
	if (room == 0 || b->len + 1 <= room)
		return 0;
	cut = room - 1;
	while (cut > 0 && (b->s[cut] & 0xc0) == 0x80)
		cut--;
	b->s[cut] = '\0';
	nl = strrchr(b->s, '\n');
	if (nl && nl > b->s + room / 2)
		*nl = '\0';
	b->len = strlen(b->s);
	return 1;
}

static void
free_items(char **items, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(items[i]);
	free(items);
}

/* A layout of the sections within room, its text in b, what it leaves out
 * in items. */
struct fit {
	size_t *len, n;
	struct buf b;
	char **items;
};

static void
fit_in(const struct kf_fb *fb, size_t room, size_t max, struct fit *f)
{
	int hard;

	f->b = (struct buf){0};
	f->len = xcalloc(fb->n + 1, sizeof *f->len);
	layout(fb, room, f->len);
	hard = fit_text(fb, f->len, room, &f->b);
	f->items = NULL;
	f->n = max ? cut_items(fb, f->len, hard, &f->items) : 0;
}

static void
fit_free(struct fit *f)
{
	free_items(f->items, f->n);
	free(f->len);
	buf_free(&f->b);
}

/* Whether g keeps every section of priority below prio as f does. With
 * some, for the note's shortest form: a priority-0 section may lose some
 * of its lines, all of them only when it was cut already; the diagnosis
 * never (its first finding is worth more than the note). */
static int
keeps(const struct kf_fb *fb, const struct fit *f, const struct fit *g, int prio, int some)
{
	size_t i;

	for (i = 0; i < fb->n; i++) {
		int p = fb->sec[i].prio;

		if (p >= prio || g->len[i] == f->len[i])
			continue;
		if (some && p == 0 && f->len[i] > 0 && (g->len[i] > 0 ||
		    f->len[i] < strlen(fb->sec[i].text)))
			continue;
		return 0;
	}
	return 1;
}

/* The text within max (0: no limit), the newline that ends it counted:
 * the sections as layout() fits them and, when anything was left out, a
 * last line that says what. The note's shortest form ("N parts left out")
 * gets its room from the last sections that fit; more of it, the parts by
 * name, what the rest leave, and what the ranking and the details would
 * give up. At a budget the diagnosis alone overflows, the note is said
 * only where it fits. If priority-0 sections alone are too long the text
 * is cut at a line end (else a UTF-8 boundary) as a last resort. */
char *
kf_fb_render(const struct kf_fb *fb, size_t max)
{
	struct fit f, g, h;
	struct buf note = {0}, shortest = {0};
	size_t left;

	fit_in(fb, max, max, &f);
	if (f.n > 0) {
		/* The count at its longest: every section, and the text cut. */
		cut_note(max, NULL, fb->n + 1, 0, &shortest);
		if (max > shortest.len + 2) {
			fit_in(fb, max - shortest.len - 2, max, &g);
			if (keeps(fb, &f, &g, FB_KEY, 1)) {
				fit_free(&f);
				f = g;
			} else {
				fit_free(&g);
			}
		}
		left = max > f.b.len + 3 ? max - f.b.len - 3 : 0;
		cut_note(max, f.items, f.n, left, &note);
		/* The parts by name, from the ranking and the details. */
		cut_note(max, f.items, f.n, max / 10 > left ? max / 10 : left, &shortest);
		if (shortest.len > note.len && max > shortest.len + 2) {
			fit_in(fb, max - shortest.len - 2, max, &h);
			if (keeps(fb, &f, &h, FB_RANK, 0)) {
				fit_free(&f);
				f = h;
				left = max > f.b.len + 3 ? max - f.b.len - 3 : 0;
				cut_note(max, f.items, f.n, left, &note);
			} else {
				fit_free(&h);
			}
		}
		if (f.b.len + 2 + note.len + 1 <= max) {
			buf_puts(&f.b, f.b.len ? "\n\n" : "");
			buf_add(&f.b, note.s, note.len);
		}
	}
	buf_free(&note);
	buf_free(&shortest);
	if (f.b.len)
		buf_putc(&f.b, '\n');
	note = f.b;
	f.b = (struct buf){0};
	fit_free(&f);
	return buf_take(&note);
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
