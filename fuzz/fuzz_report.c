/* libFuzzer target: record lines through kf-report's code (kf_parse_line,
 * kf_report_add, kf_report_write), and the page checked as a browser would
 * tokenise it: valid UTF-8 without control bytes; only the elements and
 * attributes kf-report writes, every attribute value quoted; no raw '>' in
 * text; every '&' an entity kf writes. A record that could add markup
 * aborts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "record.h"
#include "report.h"

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

static const char *const tags[] = {
	"!DOCTYPE", "html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "p",
	"table", "thead", "tbody", "tr", "th", "td", "a", "span", "dl", "dt", "dd", "code",
	"pre", "figure", "figcaption", "svg", "line", "rect", "text", "g", "circle", "ol",
	"li", "ul", "b", "br", "div", "section", "details", "summary", NULL,
};
static const char *const attrs[] = {
	"html", "lang", "charset", "http-equiv", "content", "name", "class", "id", "href",
	"title", "colspan", "xmlns", "viewBox", "role", "aria-label", "x", "y", "x1", "y1",
	"x2", "y2", "width", "height", "text-anchor", "transform", "cx", "cy", "r", NULL,
};

static int
listed(const char *const *l, const char *s, size_t n)
{
	for (; *l; l++)
		if (strlen(*l) == n && memcmp(*l, s, n) == 0)
			return 1;
	return 0;
}

static size_t
word(const char *s, const char *chars)
{
	size_t n = 0;

	while (s[n] && (('a' <= (s[n] | 32) && (s[n] | 32) <= 'z') || ('0' <= s[n] && s[n] <= '9') ||
	    strchr(chars, s[n])))
		n++;
	return n;
}

/* The tag at s ('<'); returns where it ends, past '>'. */
static const char *
tag(const char *s)
{
	size_t n;

	s += 1 + (s[1] == '/');
	n = word(s, "!");
	if (n == 0 || !listed(tags, s, n))
		abort();
	if (n == 5 && memcmp(s, "style", 5) == 0 && s[-1] != '/') {
		s = strstr(s, "</style>");	/* the page's own CSS, constant */
		if (s == NULL)
			abort();
		return s;
	}
	for (s += n; *s != '>'; ) {
		if (*s == ' ') {
			s++;
		} else if (s[0] == '/' && s[1] == '>') {
			s++;
		} else {
			n = word(s, "-");
			if (n == 0 || !listed(attrs, s, n))
				abort();
			s += n;
			if (s[0] != '=' || s[1] != '"')
				continue;	/* <!DOCTYPE html> */
			s = strchr(s + 2, '"');
			if (s == NULL)
				abort();
			s++;
		}
	}
	return s + 1;
}

static void
entity(const char *s)
{
	static const char *const ok[] = { "&amp;", "&lt;", "&gt;", "&quot;", "&#39;", NULL };
	const char *const *e;

	for (e = ok; *e; e++)
		if (strncmp(s, *e, strlen(*e)) == 0)
			return;
	abort();
}

static void
utf8(const unsigned char *s, size_t n)
{
	size_t i = 0, k;

	while (i < n) {
		unsigned c = s[i];

		if (c < 0x80) {
			if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F)
				abort();
			i++;
			continue;
		}
		k = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
		if (k == 0 || c > 0xF4 || i + k > n)
			abort();
		while (--k)
			if ((s[++i] & 0xC0) != 0x80)
				abort();
		i++;
	}
}

static void
check(const char *s, size_t n)
{
	utf8((const unsigned char *)s, n);
	if (strlen(s) != n)
		abort();
	while (*s) {
		if (*s == '<')
			s = tag(s);
		else if (*s == '>')
			abort();
		else if (*s == '&')
			entity(s++);
		else
			s++;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	const char *s = (const char *)d, *end = s + n, *nl;
	struct kf_report_opts o = { "fuzz <&>", 3, 2, 2, NULL };
	struct kf_report *r;
	long line = 0;
	char *page = NULL;
	size_t len = 0;
	FILE *f;

	fz_init("kf-report");
	o.top = 1 + (int)(n % 4);
	r = kf_report_new(&o);
	for (; s < end; s = nl + 1) {
		cJSON *rec;

		if ((nl = memchr(s, '\n', (size_t)(end - s))) == NULL)
			nl = end;
		rec = kf_parse_line(s, (size_t)(nl - s), NULL, ++line);
		if (rec == NULL)
			continue;
		kf_report_add(r, rec);
		cJSON_Delete(rec);
	}
	if ((f = open_memstream(&page, &len)) == NULL || kf_report_write(r, f) != 0 || fclose(f) != 0)
		abort();
	check(page, len);
	free(page);
	kf_report_free(r);
	return 0;
}
