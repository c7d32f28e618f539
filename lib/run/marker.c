/* End markers over output that arrives in pieces: the pytest summary line,
 * or a literal string. */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "marker.h"
#include "record.h"

#define LINE_CAP 1024		/* longest line looked at for a pytest summary */
#define TEXT_CAP 200		/* of what was seen, kept for the message */

static int
pytest_word(const char *w, size_t n)
{
	static const char *const words[] = {
		"passed", "failed", "error", "errors", "skipped", "deselected",
		"xfailed", "xpassed", "warning", "warnings", "rerun", "reruns",
	};
	size_t i;

	for (i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strlen(words[i]) == n && memcmp(words[i], w, n) == 0)
			return 1;
	return 0;
}

/* "N word, N word" or "no tests ran", then " in " and a duration. */
static int
pytest_counts(const char *s, const char *end)
{
	const char *in = NULL, *p;

	for (p = s; p + 4 <= end; p++)
		if (memcmp(p, " in ", 4) == 0)
			in = p;
	if (in == NULL || in + 4 >= end || in[4] < '0' || in[4] > '9')
		return 0;
	if (in - s == 12 && memcmp(s, "no tests ran", 12) == 0)
		return 1;
	for (p = s; p < in; ) {
		const char *w;

		if (*p < '0' || *p > '9')
			return 0;
		while (p < in && *p >= '0' && *p <= '9')
			p++;
		if (p >= in || *p++ != ' ')
			return 0;
		for (w = p; p < in && *p >= 'a' && *p <= 'z'; p++)
			;
		if (!pytest_word(w, (size_t)(p - w)))
			return 0;
		if (p < in && (p + 2 > in || p[0] != ',' || p[1] != ' '))
			return 0;
		if (p < in)
			p += 2;
	}
	return 1;
}

/* The pytest summary: "=== 3 passed, 1 failed in 2.1s ===", its variants,
 * and the bare form of -q. Terminal colours are looked through. */
static int
pytest_summary(const char *line, size_t n)
{
	char s[LINE_CAP];
	size_t i, k = 0, a, b;

	for (i = 0; i < n && k < sizeof s; i++) {
		if (line[i] == '\033') {
			if (i + 1 < n && line[i + 1] == '[')
				for (i += 2; i < n && !(line[i] >= '@' && line[i] <= '~'); i++)
					;
			continue;
		}
		if (line[i] != '\r')
			s[k++] = line[i];
	}
	for (a = 0; a < k && s[a] == ' '; a++)
		;
	for (b = k; b > a && s[b - 1] == ' '; b--)
		;
	if (a < b && s[a] == '=') {
		while (a < b && s[a] == '=')
			a++;
		if (b == a || s[b - 1] != '=')
			return 0;
		while (b > a && s[b - 1] == '=')
			b--;
		if (b - a < 2 || s[a] != ' ' || s[b - 1] != ' ')
			return 0;
		a++;
		b--;
	}
	return a < b && pytest_counts(s + a, s + b);
}

static void
seen(struct kf_marker *m, const char *text, size_t n)
{
	m->text = kf_bytes_dup(text, n > TEXT_CAP ? TEXT_CAP : n);
}

/* Whole lines only: the summary is a line of its own. */
static void
scan_pytest(struct kf_marker *m, const char *p, size_t n)
{
	const char *end = p + n, *nl;

	while (p < end && !m->text) {
		size_t len;

		nl = memchr(p, '\n', (size_t)(end - p));
		len = (size_t)((nl ? nl : end) - p);
		if (m->line.len + len < LINE_CAP)
			buf_add(&m->line, p, len);
		else
			m->overlong = 1;
		if (nl == NULL)
			break;
		if (!m->overlong && pytest_summary(m->line.s ? m->line.s : "", m->line.len))
			seen(m, m->line.s, m->line.len);
		buf_reset(&m->line);
		m->overlong = 0;
		p = nl + 1;
	}
}

static void
scan_literal(struct kf_marker *m, const char *p, size_t n)
{
	size_t len = strlen(m->want), keep = len - 1, take;

	/* A marker may straddle two pieces: look at their seam first. */
	take = n < keep ? n : keep;
	buf_add(&m->carry, p, take);
	if ((m->carry.len && memmem(m->carry.s, m->carry.len, m->want, len)) ||
	    memmem(p, n, m->want, len)) {
		seen(m, m->want, len);
		return;
	}
	if (n >= keep) {
		buf_reset(&m->carry);
		buf_add(&m->carry, p + n - keep, keep);
	} else if (m->carry.len > keep) {
		memmove(m->carry.s, m->carry.s + m->carry.len - keep, keep);
		m->carry.len = keep;
	}
}

void
kf_marker_init(struct kf_marker *m, const char *marker)
{
	memset(m, 0, sizeof *m);
	if (marker && strcmp(marker, "pytest") == 0)
		m->pytest = 1;
	else if (marker && *marker)
		m->want = marker;
}

int
kf_marker_feed(struct kf_marker *m, const char *p, size_t n)
{
	if (m->text == NULL && m->pytest)
		scan_pytest(m, p, n);
	else if (m->text == NULL && m->want)
		scan_literal(m, p, n);
	return m->text != NULL;
}

const char *
kf_marker_text(const struct kf_marker *m)
{
	return m->text;
}

int
kf_marker_all_passed(const struct kf_marker *m)
{
	/* The reference's test for its "all tests passed" wording. */
	return m->pytest && m->text && strstr(m->text, " passed") &&
	    !strstr(m->text, " failed") && !strstr(m->text, " error");
}

void
kf_marker_free(struct kf_marker *m)
{
	buf_free(&m->line);
	buf_free(&m->carry);
	free(m->text);
	m->text = NULL;
}
