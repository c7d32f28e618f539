/* kf: feedback text built from sections with priorities, rendered within
 * a character budget, and the number formats every profiler's text uses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feedback.h"
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

char *
kf_fb_render(const struct kf_fb *fb, size_t max)
{
	char *keep = xcalloc(fb->n + 1, 1);
	size_t i, total = 0;
	struct buf b = {0};

	for (i = 0; i < fb->n; i++) {
		keep[i] = 1;
		total += strlen(fb->sec[i].text) + (i ? 2 : 0);
	}
	/* max counts the newline that ends the text. */
	while (max && total + 1 > max) {
		size_t worst = fb->n;

		for (i = 0; i < fb->n; i++)
			if (keep[i] && (worst == fb->n || fb->sec[i].prio >= fb->sec[worst].prio))
				worst = i;
		/* Never drop the last section standing; cut it below instead. */
		if (worst == fb->n || fb->sec[worst].prio == 0)
			break;
		keep[worst] = 0;
		total -= strlen(fb->sec[worst].text) + 2;
	}
	for (i = 0; i < fb->n; i++) {
		if (!keep[i])
			continue;
		if (b.len)
			buf_puts(&b, "\n\n");
		buf_puts(&b, fb->sec[i].text);
	}
	free(keep);
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
kf_fmt_ns(struct buf *b, double ns)
{
	if (ns < 1e3)
		buf_printf(b, "%.0f ns", ns);
	else if (ns < 1e6)
		buf_printf(b, "%.1f us", ns / 1e3);
	else if (ns < 1e9)
		buf_printf(b, "%.2f ms", ns / 1e6);
	else
		buf_printf(b, "%.2f s", ns / 1e9);
}

void
kf_fmt_pct(struct buf *b, double pct)
{
	buf_printf(b, "%.1f%%", pct);
}
