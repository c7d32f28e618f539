/* The Nsight Compute path: reading ncu's CSV (kf-read; the wrapped
 * command is in ncu_wrap.c).
 *
 * ncu_read streams OUTPUT_DIR/ncu_report.csv: it holds the kernel launch in
 * progress and writes each one as soon as the next begins, so memory grows
 * with the size of one launch, not of the file. Columns are found by their
 * header names (one launch's metrics: ncu_launch.c; ncu's messages and
 * what failed: ncu_msgs.c). Everything it allocates is freed before it
 * returns. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csvrow.h"
#include "map.h"
#include "feedback.h"
#include "ncu.h"
#include "ncu_pages.h"
#include "profiler.h"
#include "record.h"
#include "buf.h"
#include "err.h"
#include "lines.h"
#include "mem.h"
#include "num.h"
#include "ncu_reader.h"
#include "path.h"

/* A quoted field spanning more lines than this is taken for a stray quote. */
#define MAX_ROW_LINES 64

static const char *const colname[NCOL] = {
	"ID", "Process ID", "Process Name", "Host Name", "Kernel Name",
	"Kernel Time", "Context", "Stream", "Block Size", "Grid Size", "Device",
	"CC", "Section Name", "Metric Name", "Metric Unit", "Metric Value",
	"Rule Name", "Rule Type", "Rule Description", "Estimated Speedup Type",
	"Estimated Speedup",
};

/* The identity of a launch: column, key in the record, how to read it. */
enum kind { K_STR, K_NUM, K_DIM };
static const struct { enum col c; const char *key; enum kind k; } ident[] = {
	{ C_ID, "id", K_NUM }, { C_PID, "process_id", K_NUM },
	{ C_PNAME, "process_name", K_STR }, { C_HOST, "host", K_STR },
	{ C_NAME, "name", K_STR }, { C_TIME, "time", K_STR },
	{ C_CONTEXT, "context", K_NUM }, { C_STREAM, "stream", K_NUM },
	{ C_BLOCK, "block", K_DIM }, { C_GRID, "grid", K_DIM },
	{ C_DEVICE, "device", K_NUM }, { C_CC, "cc", K_STR },
};

/* The header */

static void
hdr_free(struct hdr *h)
{
	size_t i;

	for (i = 0; i < h->n; i++) {
		free(h->name[i]);
		if (h->unit)
			free(h->unit[i]);
	}
	free(h->name);
	free(h->unit);
	memset(h, 0, sizeof *h);
}

static void
hdr_read(struct ncu_reader *r)
{
	struct hdr *h = &r->h;
	size_t i;
	int c;

	hdr_free(h);
	for (c = 0; c < NCOL; c++)
		h->col[c] = -1;
	h->n = r->row.n;
	h->name = xcalloc(h->n + 1, sizeof *h->name);
	for (i = 0; i < h->n; i++) {
		size_t len;
		const char *f = kf_csvrow_field(&r->row, i, &len);

		h->name[i] = kf_bytes_dup(f, len);
		for (c = 0; c < NCOL; c++)
			if (h->col[c] < 0 && strcmp(h->name[i], colname[c]) == 0)
				h->col[c] = (long)i;
	}
	h->raw = h->col[C_METRIC] < 0;
	/* The columns before the first that changes from row to row hold the
	 * launch: its rows repeat them, byte for byte. */
	for (i = 0, c = C_SECTION; !h->raw && c < NCOL; c++)
		if (h->col[c] >= 0 && (i == 0 || (size_t)h->col[c] < i))
			i = (size_t)h->col[c];
	kf_csvrow_reuse(&r->row, h->raw ? 0 : i);
	r->have_hdr = 1;
	r->want_units = h->raw;
	r->hdr_line = r->l.no;
	free(r->format);
	r->format = xstrdup(h->raw ? "raw" : "details");
}

static int
is_nvtx(const char *name)
{
	return strcasestr(name, "nvtx") || strstr(name, "Domain") || strstr(name, "_Range");
}

static int
known_col(const struct hdr *h, size_t i)
{
	int c;

	for (c = 0; c < NCOL; c++)
		if (h->col[c] == (long)i)
			return 1;
	return 0;
}

/* Fields and values */

static const char *
field(const struct ncu_reader *r, enum col c, size_t *len)
{
	if (r->h.col[c] < 0) {
		if (len)
			*len = 0;
		return NULL;
	}
	return kf_csvrow_field(&r->row, (size_t)r->h.col[c], len);
}

static cJSON *
str_value(const char *s, size_t len)
{
	char *d = kf_bytes_dup(s, len);
	cJSON *v = cJSON_CreateString(d);

	free(d);
	return v;
}

/* A metric value: a number when it is one ("1,056", "81.32"), else the
 * text ("CachePreferNone", "nan"), null when empty. */
static cJSON *
metric_value(const char *s, size_t len)
{
	double d;

	if (len == 0)
		return cJSON_CreateNull();
	if (kf_parse_number_n(s, len, &d))
		return cJSON_CreateNumber(d);
	return str_value(s, len);
}

/* "(256, 1, 1)" as [256, 1, 1]; anything else as it is. */
static cJSON *
dim_value(const char *s, size_t len)
{
	cJSON *a;
	char *t, *p, *tok, *save;
	double d;

	if (len < 2 || s[0] != '(' || s[len - 1] != ')')
		return metric_value(s, len);
	t = xstrndup(s + 1, len - 2);
	a = cJSON_CreateArray();
	for (p = t; (tok = strtok_r(p, ",", &save)) != NULL; p = NULL) {
		if (!kf_parse_number(tok, &d)) {
			cJSON_Delete(a);
			free(t);
			return str_value(s, len);
		}
		cJSON_AddItemToArray(a, cJSON_CreateNumber(d));
	}
	free(t);
	return a;
}

/* One launch */

/* The row's launch, "ID\tPROCESS ID", into r->key. 1: the launch in
 * progress, 2: another one, 0: the row has no ID (a number). */
static int
row_key(struct ncu_reader *r)
{
	const char *id = field(r, C_ID, NULL), *pid = field(r, C_PID, NULL);
	size_t idlen;
	double d;

	if (id == NULL)
		return 0;
	r->idlen = idlen = strlen(id);
	buf_reset(&r->key);
	buf_add(&r->key, id, idlen);
	buf_putc(&r->key, '\t');
	buf_puts(&r->key, pid ? pid : "");
	/* The in-progress launch's ID, the same bytes, was a number. */
	if (r->cur && idlen == r->cur_idlen && r->key.len == r->cur_key.len &&
	    memcmp(r->key.s, r->cur_key.s, r->key.len) == 0)
		return 1;
	return kf_parse_number(id, &d) ? 2 : 0;
}

/* One NVTX range, "DOMAIN:NAME:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg":
 * the last six fields are fixed, so a NAME may hold colons. */
static cJSON *
nvtx_range(const char *s, size_t n, const char *kind)
{
	size_t end = n, colons = 0;
	const char *sep;
	cJSON *o;
	char *t;

	while (end > 0 && colons < 6)
		if (s[--end] == ':')
			colons++;
	if (colons < 6 || (sep = memchr(s, ':', end)) == NULL)
		return NULL;
	o = cJSON_CreateObject();
	t = kf_bytes_dup(s, (size_t)(sep - s));
	cJSON_AddStringToObject(o, "domain", t);
	free(t);
	t = kf_bytes_dup(sep + 1, end - (size_t)(sep - s) - 1);
	cJSON_AddStringToObject(o, "name", t);
	free(t);
	cJSON_AddStringToObject(o, "kind", kind);
	return o;
}

/* The ranges open at the launch, outermost first, from ncu's NVTX columns:
 * "477  \"<default domain>:outer:none:...\"  \"...:inner:...\" ". */
static cJSON *
nvtx_ranges(const cJSON *nvtx)
{
	cJSON *a = NULL;
	const cJSON *c;

	cJSON_ArrayForEach(c, nvtx) {
		const char *kind = strstr(c->string, "Push/Pop") ? "push_pop" :
		    strstr(c->string, "Start/Stop") ? "start_end" : "range";
		const char *p = cJSON_IsString(c) ? c->valuestring : "", *q;

		while ((p = strchr(p, '"')) != NULL && (q = strchr(p + 1, '"')) != NULL) {
			cJSON *o = nvtx_range(p + 1, (size_t)(q - p - 1), kind);

			if (o) {
				if (a == NULL)
					a = cJSON_CreateArray();
				cJSON_AddItemToArray(a, o);
			}
			p = q + 1;
		}
	}
	return a;
}

static cJSON *
kernel_new(struct ncu_reader *r)
{
	cJSON *k = cJSON_CreateObject(), *nvtx = NULL, *extra = NULL;
	size_t i, j, len;

	for (j = 0; j < sizeof ident / sizeof ident[0]; j++) {
		const char *f = field(r, ident[j].c, &len);
		cJSON *v;

		if (f == NULL)
			continue;
		if (ident[j].k == K_DIM)
			v = dim_value(f, len);
		else if (ident[j].k == K_NUM)
			v = metric_value(f, len);
		else
			v = str_value(f, len);
		cJSON_AddItemToObject(k, ident[j].key, v);
	}
	for (i = 0; i < r->h.n; i++) {
		const char *f;
		cJSON **o;

		if (known_col(&r->h, i) || (r->h.raw && !is_nvtx(r->h.name[i])))
			continue;
		o = is_nvtx(r->h.name[i]) ? &nvtx : &extra;
		if (*o == NULL)
			*o = cJSON_CreateObject();
		f = kf_csvrow_field(&r->row, i, &len);
		cJSON_AddItemToObject(*o, r->h.name[i], str_value(f, len));
	}
	if (nvtx) {
		cJSON *ranges = nvtx_ranges(nvtx);

		if (ranges)
			cJSON_AddItemToObject(nvtx, "ranges", ranges);
		cJSON_AddItemToObject(k, "nvtx", nvtx);
	}
	if (extra)
		cJSON_AddItemToObject(k, "extra", extra);
	return k;
}



static void
track_section(struct ncu_reader *r, const char *sec, size_t slen)
{
	if (r->last_sec && strlen(r->last_sec) == slen && memcmp(r->last_sec, sec, slen) == 0)
		return;
	free(r->last_sec);
	r->last_sec = kf_bytes_dup(sec, slen);
	if (!r->ref_done) {
		r->ref = xrealloc(r->ref, (r->nref + 1) * sizeof *r->ref);
		r->ref[r->nref++] = xstrdup(r->last_sec);
	} else if (r->nsec >= r->nref || strcmp(r->ref[r->nsec], r->last_sec) != 0) {
		r->prefix_ok = 0;
	}
	r->nsec++;
}

static void
add_metric_row(struct ncu_reader *r)
{
	size_t slen, nlen, ulen, vlen;
	const char *sec = field(r, C_SECTION, &slen), *name = field(r, C_METRIC, &nlen);
	const char *unit = field(r, C_UNIT, &ulen), *val = field(r, C_VALUE, &vlen);

	sec = sec ? sec : "";
	unit = unit ? unit : "";
	val = val ? val : "";
	track_section(r, sec, slen);
	ncu_lx_put(&r->lx, sec, slen, name, nlen, unit, ulen, val, vlen, 0);
	ncu_lx_put_raw(&r->lx, name, nlen, unit, ulen, val, vlen);
}

static void
add_rule_row(struct ncu_reader *r)
{
	static const struct { enum col c; const char *key; } rf[] = {
		{ C_SECTION, "{\"section\":" }, { C_RULE, ",\"name\":" },
		{ C_RTYPE, ",\"type\":" }, { C_RDESC, ",\"description\":" },
		{ C_STYPE, ",\"speedup_type\":" },
	};
	struct buf *b = &r->lx.rules;
	cJSON num = { 0 };
	size_t i, len;
	const char *f;

	/* As text, the way kf_json_buf writes such an object (a rule a row:
	 * half of a report's rows). */
	if (r->lx.nrules++ > 0)
		buf_putc(b, ',');
	for (i = 0; i < sizeof rf / sizeof rf[0]; i++) {
		buf_puts(b, rf[i].key);
		f = field(r, rf[i].c, &len);
		if (f && len)
			kf_json_quote(b, f, len);
		else
			buf_add(b, "null", 4);
	}
	buf_puts(b, ",\"speedup\":");
	f = field(r, C_SPEEDUP, &len);
	num.type = cJSON_Number;
	if (f && kf_json_number_written(f, len))
		buf_add(b, f, len);
	else if (f && kf_parse_number_n(f, len, &num.valuedouble))
		kf_json_buf(b, &num);
	else
		buf_add(b, "null", 4);
	buf_putc(b, '}');
}

static void
add_raw_metrics(struct ncu_reader *r)
{
	size_t i, len;

	for (i = 0; i < r->h.n; i++) {
		const char *f, *name = r->h.name[i], *unit = r->h.unit ? r->h.unit[i] : "";

		if (known_col(&r->h, i) || is_nvtx(name))
			continue;
		f = kf_csvrow_field(&r->row, i, &len);
		ncu_lx_put(&r->lx, "raw", 3, name, strlen(name), unit, strlen(unit), f, len, 0);
		ncu_lx_put_raw(&r->lx, name, strlen(name), unit, strlen(unit), f, len);
	}
}

/* Output */

static void
emit_start(struct ncu_reader *r)
{
	struct buf b = {0};

	kf_emit_begin(r->rec, "data");
	buf_puts(&b, "{\"format\":");
	kf_json_quote(&b, r->format, strlen(r->format));
	buf_puts(&b, ",\"report\":\"" NCU_REPORT "\"");
	if (r->raw)
		buf_puts(&b, ",\"raw_page\":\"" NCU_RAW_PAGE "\"");
	if (r->src)
		buf_puts(&b, ",\"source_page\":\"" NCU_SOURCE_PAGE "\"");
	buf_puts(&b, ",\"kernels\":[");
	fwrite(b.s, 1, b.len, stdout);
	buf_free(&b);
	r->emitting = 1;
}


/* The launch as kf_json_write would write its tree: the identity's
 * members, "metrics" and "rules". */
static void
launch_write(struct ncu_reader *r)
{
	struct buf *o = &r->lx.out;

	kf_json_buf(o, r->cur);
	o->len--;	/* its '}' */
	if (o->len > 1)
		buf_putc(o, ',');
	ncu_lx_write(&r->lx, o);
	ncu_raw_put(r->raw, kf_num(r->cur, "id", -1), o);
	/* the source page names the kernel as the detailed report does */
	ncu_src_put(r->src, kf_str(r->cur, "name_in_details") ?
	    kf_str(r->cur, "name_in_details") : kf_str(r->cur, "name"), o);
	buf_putc(o, '}');
	fwrite_unlocked(o->s, 1, o->len, stdout);
}


static void
kernel_drop(struct ncu_reader *r)
{
	cJSON_Delete(r->cur);
	r->cur = NULL;
	buf_reset(&r->cur_key);
	ncu_lx_reset(&r->lx);
}

static void
kernel_done(struct ncu_reader *r)
{
	if (r->cur == NULL)
		return;
	if (!r->emitting)
		emit_start(r);
	else
		putchar(',');
	ncu_timing_ident(r->timing, r->cur);
	launch_write(r);
	r->kernels++;
	kernel_drop(r);
	free(r->last_sec);
	r->last_sec = NULL;
	if (r->nref > 0)
		r->ref_done = 1;
	r->nsec = 0;
	r->prefix_ok = 1;
}


static void
bad_row(struct ncu_reader *r)
{
	if (r->bad_rows++ == 0)
		r->first_bad_line = r->l.no;
}

/* A complete CSV row. cut: it is the file's last line and has no line
 * end, so it may be cut off. */
static void
row_done(struct ncu_reader *r, int cut)
{
	const char *first = kf_csvrow_field(&r->row, 0, NULL);
	int same;

	if (strcmp(first, "ID") == 0 && r->row.n > 1 &&
	    strcmp(kf_csvrow_field(&r->row, 1, NULL), "Process ID") == 0) {
		if (cut)
			return;
		kernel_done(r);
		hdr_read(r);
		return;
	}
	if (!r->have_hdr)
		return;
	if (r->want_units) {
		size_t i;

		r->want_units = 0;
		if (first[0] == '\0') {
			r->h.unit = xcalloc(r->h.n + 1, sizeof *r->h.unit);
			for (i = 0; i < r->h.n; i++) {
				size_t len;
				const char *f = kf_csvrow_field(&r->row, i, &len);

				r->h.unit[i] = kf_bytes_dup(f, len);
			}
			return;
		}
	}
	if (cut) {
		r->truncated = 1;
		return;
	}
	if ((same = row_key(r)) == 0) {
		bad_row(r);
		return;
	}
	if (r->h.raw) {
		if (r->row.n < r->h.n) {
			bad_row(r);
			return;
		}
		kernel_done(r);
		r->cur = kernel_new(r);
		add_raw_metrics(r);
		kernel_done(r);
		return;
	}
	if (same != 1) {
		kernel_done(r);
		r->cur = kernel_new(r);
		buf_reset(&r->cur_key);
		buf_add(&r->cur_key, r->key.s, r->key.len);
		r->cur_idlen = r->idlen;
		r->cur_line = r->l.no;
	}
	if (field(r, C_METRIC, NULL)[0] != '\0')
		add_metric_row(r);
	else if (field(r, C_RULE, NULL) && field(r, C_RULE, NULL)[0] != '\0')
		add_rule_row(r);
	else
		bad_row(r);
}

/* A line that does not start with a quote is ncu's or the program's own
 * text; a header may still follow text that had no line end. */
static void
text_line(struct ncu_reader *r, char **line, size_t *len)
{
	static const char hdr[] = "\"ID\",\"Process ID\",";
	char *h;

	ncu_rd_message(r, *line, "log");
	if ((h = strstr(*line, hdr)) != NULL) {
		*len -= (size_t)(h - *line);
		*line = h;
	} else {
		*len = 0;
	}
}

/* A line that begins an ncu row: "ID", a launch ID, or one of its messages. */
static int
starts_row(const char *s)
{
	const char *p = s + 1;

	if (kf_startswith(s, "==") || kf_startswith(s, "\"ID\",\"Process ID\","))
		return 1;
	if (s[0] != '"' || !isdigit((unsigned char)*p))
		return 0;
	while (isdigit((unsigned char)*p))
		p++;
	return kf_startswith(p, "\",\"");
}

/* 0, or -1 with errno on a read error. */
static int
read_lines(struct ncu_reader *r)
{
	int got;

	while ((got = kf_lines_next(&r->l)) > 0) {
		char *s = r->l.s;
		size_t n = r->l.len;
		int done;

		if (kf_csvrow_pending(&r->row)) {
			/* A quote left open (program output, say): give up on
			 * that row at the next line that starts a row of ncu's,
			 * or after too many lines. */
			if (starts_row(s) || r->row.nlines >= MAX_ROW_LINES) {
				kf_csvrow_drop(&r->row);
				bad_row(r);
			}
		}
		if (!kf_csvrow_pending(&r->row) && s[0] != '"') {
			text_line(r, &s, &n);
			if (n == 0)
				continue;
		}
		if ((done = kf_csvrow_feed(&r->row, s, n)) < 0) {
			errno = ENOMEM;
			return -1;
		}
		if (done && r->row.n > 0)
			row_done(r, !r->l.complete);
		else if (!done && !r->l.complete)
			r->truncated = 1;
	}
	if (kf_csvrow_pending(&r->row)) {
		r->truncated = 1;
		kf_csvrow_drop(&r->row);
	}
	return got;
}

/* At the end of the file: is the launch in progress whole? */
static void
last_kernel(struct ncu_reader *r)
{
	if (r->cur == NULL)
		return;
	if (!r->truncated && r->ref_done && r->prefix_ok && r->nsec < r->nref) {
		ncu_rd_note(r, "the last kernel launch (line %ld) stops after section \"%s\" "
		    "where the others go on to \"%s\": the report was cut off",
		    r->cur_line, r->last_sec ? r->last_sec : "", r->ref[r->nsec]);
		r->truncated = 1;
	}
	if (r->truncated) {
		const char *name = kf_str(r->cur, "name");

		ncu_rd_note(r, "the report is truncated: the kernel launch at line %ld (%s) "
		    "is incomplete and left out", r->cur_line, name ? name : "unnamed");
		kernel_drop(r);
	} else {
		kernel_done(r);
	}
}



static void
emit_end(struct ncu_reader *r)
{
	cJSON *timing;
	long code;

	if (r->bad_rows)
		ncu_rd_note(r, "%ld CSV row%s not from ncu's table skipped (the first at line %ld)",
		    r->bad_rows, r->bad_rows == 1 ? "" : "s", r->first_bad_line);
	if (r->l.nuls)
		ncu_rd_note(r, "%ld NUL byte%s dropped", r->l.nuls, r->l.nuls == 1 ? "" : "s");
	printf("],\"kernel_count\":%ld", r->kernels);
	/* With a timing run (kf-wrap --top) the program's status is that run's,
	 * kf-ncu's own (run.exit_code): ncu's word on a detailed run, or on an
	 * attempt of it that failed, is the profiler's. */
	if (r->timing == NULL && ncu_rd_app_error(r, &code)) {
		printf(",\"app_exit_code\":%ld", code);
		ncu_rd_note(r, "the profiled program exited with status %ld (ncu: \"The "
		    "application returned an error code\"), yet the %ld kernel launch%s "
		    "profiled before that are complete", code, r->kernels,
		    r->kernels == 1 ? "" : "es");
	}
	fputs(",\"messages\":", stdout);
	kf_json_write(stdout, r->msgs);
	printf(",\"truncated\":%s,\"notes\":", r->truncated ? "true" : "false");
	kf_json_write(stdout, r->notes);
	if (r->timings) {
		fputs(",\"timings\":", stdout);
		kf_json_write(stdout, r->timings);
	}
	if (r->timing && (timing = ncu_timing_data(r->timing, r->kernels, r->msgs)) != NULL) {
		fputs(",\"timing\":", stdout);
		kf_json_write(stdout, timing);
		cJSON_Delete(timing);
	}
	putchar('}');
	kf_emit_end();
	if (r->truncated)
		kf_warn("%s%s%s is truncated: %ld complete kernel launch%s kept", kf_where(),
		    kf_where()[0] ? ": " : "", r->path, r->kernels, r->kernels == 1 ? "" : "es");
}


static void
rd_free(struct ncu_reader *r)
{
	size_t i;

	kf_lines_close(&r->l);
	kf_csvrow_free(&r->row);
	hdr_free(&r->h);
	kernel_drop(r);
	ncu_lx_free(&r->lx);
	buf_free(&r->key);
	buf_free(&r->cur_key);
	for (i = 0; i < r->nref; i++)
		free(r->ref[i]);
	free(r->ref);
	free(r->last_sec);
	kf_map_free(&r->msgidx);
	ncu_raw_close(r->raw, r->notes);
	ncu_src_close(r->src, r->notes);
	ncu_timing_close(r->timing);
	cJSON_Delete(r->timings);
	cJSON_Delete(r->msgs);
	cJSON_Delete(r->notes);
	free(r->format);
}

void
ncu_read(cJSON *rec, const char *dir)
{
	char *path = kf_path_join(dir, NCU_REPORT);
	struct ncu_reader r;
	int err;

	memset(&r, 0, sizeof r);
	r.rec = rec;
	r.path = path;
	r.dir = dir;
	r.msgs = cJSON_CreateArray();
	r.notes = cJSON_CreateArray();
	r.prefix_ok = 1;
	kf_csvrow_init(&r.row, ',');
	r.timing = ncu_timing_open(dir);
	r.timings = ncu_timings_load(dir);
	if (kf_lines_open(&r.l, path) < 0) {
		if (errno == ENOENT) {
			ncu_rd_fail_no_report(&r, dir);
			ncu_rd_timing_rescue(&r);
		} else {
			kf_fail(rec, "read_error", "cannot open %s: %s", path, strerror(errno));
			kf_fail_hint(rec, "check the file's permissions");
		}
		kf_emit(rec);
		goto out;
	}
	r.raw = ncu_raw_open(dir);
	r.src = ncu_src_open(dir);
	err = read_lines(&r);
	if (err < 0) {
		ncu_rd_note(&r, "reading stopped at line %ld: %s", r.l.no, strerror(errno));
		r.truncated = 1;
	}
	last_kernel(&r);
	if (!r.emitting) {
		ncu_rd_fail_no_kernel(&r);
		goto out;
	}
	ncu_rd_run_messages(&r);
	ncu_raw_close(r.raw, r.notes);
	ncu_src_close(r.src, r.notes);
	r.raw = NULL;
	r.src = NULL;
	emit_end(&r);
out:
	rd_free(&r);
	free(path);
}

