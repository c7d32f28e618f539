/* Records from lines that hold any sequence of JSON values separated by
 * white space, as jq reads them: one object a line (kf's own output), an
 * object over many lines (jq's pretty output), several on one line.
 *
 * A line that holds one whole value, the common case, is parsed as it is,
 * with no scan: reading one object a line costs what it did. Anything else
 * is scanned for where its value ends (brackets counted outside strings),
 * kept in one buffer and parsed once, so a value over many lines costs
 * linear time.
 *
 * Resynchronising after a value that is not JSON: the rest of its line and
 * the lines after it are skipped up to the next line that begins with '{'
 * at column 1, where jq begins every record it writes (and never a member
 * inside one). Such a line also ends a value still open: a record cut off
 * mid-way costs that record only, and the reader waits no longer than the
 * next record for its verdict. */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "mem.h"
#include "record.h"

#define SNIP 200

struct done {
	cJSON *rec;
	long line;
};

struct kf_seq {
	const char *file;	/* NULL: standard input */
	long line;		/* lines fed so far from file */
	const char *const *keep;
	struct done *q;		/* records complete, not yet taken: [qh, qn) */
	size_t qh, qn, qcap;
	/* A value still open: its text from its first byte, lines joined
	 * with '\n', scanned up to scan. */
	int open;
	struct buf acc;
	long line0, col0;
	size_t scan, lbeg;	/* lbeg: where acc's last line begins */
	int depth, in_str, esc;
	char kind;		/* '{' a container, '"' a string, 'a' else */
	/* Skipping after a bad value: its error, said when the skip ends. */
	int skipping;
	long bad_from, bad_line, bad_col, skip_to;
	char *bad_why, *bad_text;
	size_t bad_len;
};

struct kf_seq *
kf_seq_new(void)
{
	return xcalloc(1, sizeof(struct kf_seq));
}

void
kf_seq_keep(struct kf_seq *q, const char *const *paths)
{
	q->keep = paths;
}

static void
push(struct kf_seq *q, cJSON *rec, long line)
{
	if (q->qh == q->qn)
		q->qh = q->qn = 0;
	if (q->qn == q->qcap) {
		q->qcap = q->qcap ? q->qcap * 2 : 4;
		q->q = xrealloc(q->q, q->qcap * sizeof *q->q);
	}
	q->q[q->qn].rec = rec;
	q->q[q->qn++].line = line;
}

/* An error record for text that is not a JSON object at line:col. */
static cJSON *
bad(struct kf_seq *q, long line, long col, const char *why, const char *s,
    size_t n)
{
	cJSON *rec = cJSON_CreateObject(), *e;
	char *snip = kf_bytes_dup(s, n > SNIP ? SNIP : n);

	kf_set_where(q->file, line);
	kf_fail(rec, "bad_json", "%s:%ld: %s%s", kf_where(), col, why,
	    n > SNIP ? " (the input below is cut at 200 bytes)" : "");
	e = cJSON_GetObjectItemCaseSensitive(rec, "error");
	cJSON_AddNumberToObject(e, "line", (double)line);
	cJSON_AddNumberToObject(e, "column", (double)col);
	if (q->file)
		cJSON_AddStringToObject(e, "file", q->file);
	cJSON_AddStringToObject(e, "input", snip);
	free(snip);
	return rec;
}

/* Saved output of a profiler given where records are expected: said once,
 * with what to run instead, not once a line. NULL when it looks like none. */
static const char *
looks_like(const char *s, size_t n)
{
	static const char ncu[] = "this is Nsight Compute's output (its CSV "
	    "pages or its log), not records: for a report FILE.ncu-rep run kf ncu "
	    "--import FILE.ncu-rep; for a folder of exported pages, give kf-read a "
	    "record that names it (kf-read(1))";
	static const struct {
		const char *start, *what;
	} known[] = {
		{ "\"ID\",\"Process ID\",", ncu },
		{ "==PROF==", ncu },
		{ "==ERROR==", ncu },
		{ "==WARNING==", ncu },
		{ "Computing Task\t", "this is VTune's hotspots report (vtune -report), "
		  "not records: give kf-read a record that names its folder (kf-read(1))" },
	};
	size_t i, k;

	for (i = 0; i < sizeof known / sizeof known[0]; i++) {
		k = strlen(known[i].start);
		if (n >= k && memcmp(s, known[i].start, k) == 0)
			return known[i].what;
	}
	return NULL;
}

/* Begin skipping at the value that began at line:col and is not JSON at
 * eline:ecol, s its text: its error waits for the skip's end, which its
 * message names. */
static void
skip_from(struct kf_seq *q, long line, long col, long eline, long ecol,
    const char *why, const char *s, size_t n)
{
	q->skipping = 1;
	q->bad_from = q->skip_to = line;
	q->bad_line = eline;
	q->bad_col = ecol;
	q->bad_why = eline != line ? xasprintf("%s (in the value that begins at "
	    "line %ld:%ld)", why, line, col) : xstrdup(why);
	q->bad_len = n > SNIP + 1 ? SNIP + 1 : n;
	q->bad_text = xmalloc(q->bad_len + 1);
	memcpy(q->bad_text, s, q->bad_len);
}

static void
skip_end(struct kf_seq *q)
{
	struct buf why = {0};

	if (!q->skipping)
		return;
	buf_puts(&why, q->bad_why);
	if (q->skip_to > q->bad_from)
		buf_printf(&why, " (lines %ld-%ld skipped, to the next line that "
		    "begins with {)", q->bad_from, q->skip_to);
	push(q, bad(q, q->bad_line, q->bad_col, why.s, q->bad_text, q->bad_len),
	    q->bad_line);
	buf_free(&why);
	free(q->bad_why);
	free(q->bad_text);
	q->bad_why = q->bad_text = NULL;
	q->skipping = 0;
}

/* Scan acc on from scan: 1 when the value ends (at *end), 0 when it goes
 * on after this line, -1 when it cannot (a line ends inside a string). */
static int
scan(struct kf_seq *q, size_t *end)
{
	const char *s = q->acc.s;
	size_t i = q->scan, n = q->acc.len;

	if (q->kind == 'a') {
		while (i < n && !strchr(" \t{}[],:\"", s[i]))
			i++;
		*end = i > 0 ? i : 1;
		return 1;
	}
	for (; i < n; i++) {
		char c = s[i];

		if (q->in_str) {
			if (q->esc)
				q->esc = 0;
			else if (c == '\\')
				q->esc = 1;
			else if (c == '"' && (q->in_str = 0, q->depth == 0)) {
				*end = i + 1;
				return 1;
			}
		} else if (c == '"') {
			q->in_str = 1;
		} else if (c == '{' || c == '[') {
			q->depth++;
		} else if ((c == '}' || c == ']') && --q->depth == 0) {
			*end = i + 1;
			return 1;
		}
	}
	q->scan = n;
	return q->in_str ? -1 : 0;
}

/* Line and column of offset off in acc. */
static void
position(const struct kf_seq *q, size_t off, long *line, long *col)
{
	const char *s = q->acc.s, *nl;
	size_t bol = 0, i;

	*line = q->line0;
	for (i = 0; i < off && (nl = memchr(s + i, '\n', off - i)); i = bol) {
		bol = (size_t)(nl - s) + 1;
		++*line;
	}
	*col = bol == 0 ? q->col0 + (long)off : (long)(off - bol) + 1;
}

/* The value acc[0, end): a record, or an error record and a skip. */
static void
finish(struct kf_seq *q, size_t end)
{
	size_t stop;
	cJSON *v = kf_json_parse_stop(q->acc.s, end, q->keep, &stop);
	long l, c;

	q->open = 0;
	if (v && cJSON_IsObject(v)) {
		push(q, v, q->line0);
	} else if (v) {
		cJSON_Delete(v);
		push(q, bad(q, q->line0, q->col0, "not a JSON object", q->acc.s, end),
		    q->line0);
	} else {
		position(q, stop < end ? stop : end, &l, &c);
		skip_from(q, q->line0, q->col0, l, c, "not JSON", q->acc.s, q->acc.len);
	}
}

/* Values from s (n bytes of the current line, its first at column col);
 * one left open waits in acc for the next lines. */
static void
values(struct kf_seq *q, const char *s, size_t n, long col)
{
	size_t end;
	int r;

	for (;;) {
		while (n > 0 && (*s == ' ' || *s == '\t'))
			s++, n--, col++;
		if (n == 0)
			return;
		buf_reset(&q->acc);
		buf_add(&q->acc, s, n);
		q->open = 1;
		q->line0 = q->line;
		q->col0 = col;
		q->scan = q->lbeg = 0;
		q->depth = q->in_str = q->esc = 0;
		q->kind = *s == '{' || *s == '[' ? '{' : *s == '"' ? '"' : 'a';
		if (q->kind == '"')
			q->in_str = 1, q->scan = 1;
		if ((r = scan(q, &end)) == 0)
			return;
		if (r < 0)
			end = q->acc.len;
		finish(q, end);
		if (q->skipping)
			return;
		s += end, n -= end, col += (long)end;
	}
}

/* The next line of a value still open. */
static void
more(struct kf_seq *q, const char *s, size_t n)
{
	size_t end, rest;
	char *tail;
	int r;

	buf_putc(&q->acc, '\n');
	q->lbeg = q->acc.len;
	buf_add(&q->acc, s, n);
	if ((r = scan(q, &end)) == 0)
		return;
	if (r < 0)
		end = q->acc.len;
	finish(q, end);
	if (q->skipping || end >= q->acc.len)
		return;
	rest = q->acc.len - end;
	tail = xmalloc(rest);
	memcpy(tail, q->acc.s + end, rest);
	values(q, tail, rest, (long)(end - q->lbeg) + 1);
	free(tail);
}

/* A value open when a line begins a new one at column 1, or at the end. */
static void
cut_off(struct kf_seq *q, const char *why)
{
	q->open = 0;
	push(q, bad(q, q->line0, q->col0, why, q->acc.s, q->acc.len), q->line0);
}

/* The common case: the whole line one value. 1 when it was. */
static int
whole_line(struct kf_seq *q, const char *s, size_t n)
{
	size_t stop;
	cJSON *v = kf_json_parse_stop(s, n, q->keep, &stop);

	if (v == NULL)
		return 0;
	if (cJSON_IsObject(v)) {
		push(q, v, q->line);
	} else {
		cJSON_Delete(v);
		push(q, bad(q, q->line, (long)strspn(s, " \t") + 1,
		    "not a JSON object", s, n), q->line);
	}
	return 1;
}

void
kf_seq_line(struct kf_seq *q, const char *file, const char *s, size_t n)
{
	const char *nul, *why, *what;
	char cut[96];

	q->file = file;
	q->line++;
	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		n--;
	if (q->skipping) {
		if (n == 0 || *s != '{') {
			q->skip_to = q->line;
			return;
		}
		skip_end(q);
	}
	if (q->open && n > 0 && *s == '{') {
		snprintf(cut, sizeof cut, "not JSON: the value is not closed "
		    "before line %ld, which begins with {", q->line);
		cut_off(q, cut);
	}
	if ((nul = memchr(s, '\0', n)) != NULL) {
		why = "not JSON: the line holds a NUL byte";
		if (q->open) {
			q->open = 0;
			skip_from(q, q->line0, q->col0, q->line, (long)(nul - s) + 1,
			    why, q->acc.s, q->acc.len);
		} else {
			skip_from(q, q->line, 1, q->line, (long)(nul - s) + 1, why, s, n);
		}
		return;
	}
	if (q->line == 1 && !q->open && (what = looks_like(s, n)) != NULL) {
		skip_from(q, 1, 1, 1, 1, what, s, n);
		return;
	}
	if (q->open)
		more(q, s, n);
	else if (n > 0 && !whole_line(q, s, n))
		values(q, s, n, 1);
}

void
kf_seq_end(struct kf_seq *q)
{
	if (q->open)
		cut_off(q, "not JSON: the input ends inside the value");
	skip_end(q);
	q->line = 0;
	if (q->acc.len > (1 << 20))
		buf_free(&q->acc);
}

cJSON *
kf_seq_next(struct kf_seq *q, long *line)
{
	struct done d;

	if (q->qh == q->qn)
		return NULL;
	d = q->q[q->qh++];
	kf_set_where(q->file, d.line);
	if (line)
		*line = d.line;
	return d.rec;
}

void
kf_seq_free(struct kf_seq *q)
{
	if (q == NULL)
		return;
	while (q->qh < q->qn)
		cJSON_Delete(q->q[q->qh++].rec);
	free(q->q);
	buf_free(&q->acc);
	free(q->bad_why);
	free(q->bad_text);
	free(q);
}
