/* The Nsight Compute path: reading ncu's CSV (kf-read; the wrapped
 * command is in ncu_wrap.c).
 *
 * ncu_read streams OUTPUT_DIR/ncu_report.csv: it holds the kernel launch in
 * progress and writes each one as soon as the next begins, so memory grows
 * with the size of one launch, not of the file. Columns are found by their
 * header names. Everything it allocates is freed before it returns. */
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
#include "path.h"

#define NCU_REPORT "ncu_report.csv"
/* A quoted field spanning more lines than this is taken for a stray quote. */
#define MAX_ROW_LINES 64
#define MAX_MESSAGES 100

enum col {
	C_ID, C_PID, C_PNAME, C_HOST, C_NAME, C_TIME, C_CONTEXT, C_STREAM,
	C_BLOCK, C_GRID, C_DEVICE, C_CC, C_SECTION, C_METRIC, C_UNIT, C_VALUE,
	C_RULE, C_RTYPE, C_RDESC, C_STYPE, C_SPEEDUP, NCOL
};

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

/* The raw page names metrics, not sections: the ones the details page
 * shows under these names are filed there too, so that both pages read
 * the same way. (From ncu's section files.) */
static const struct { const char *raw, *section, *name; } rawmap[] = {
	{ "gpu__time_duration.sum", NCU_SOL, "Duration" },
	{ "sm__throughput.avg.pct_of_peak_sustained_elapsed", NCU_SOL,
	  "Compute (SM) Throughput" },
	{ "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
	  NCU_SOL, "Memory Throughput" },
	{ "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", NCU_SOL,
	  "DRAM Throughput" },
	{ "dram__throughput.avg.pct_of_peak_sustained_elapsed", NCU_SOL,
	  "DRAM Throughput" },
	{ "l1tex__throughput.avg.pct_of_peak_sustained_active", NCU_SOL,
	  "L1/TEX Cache Throughput" },
	{ "lts__throughput.avg.pct_of_peak_sustained_elapsed", NCU_SOL,
	  "L2 Cache Throughput" },
	{ "gpc__cycles_elapsed.max", NCU_SOL, "Elapsed Cycles" },
	{ "sm__cycles_active.avg", NCU_SOL, "SM Active Cycles" },
	{ "dram__cycles_elapsed.avg.per_second", NCU_SOL, "DRAM Frequency" },
	{ "gpc__cycles_elapsed.avg.per_second", NCU_SOL, "SM Frequency" },
	{ "launch__registers_per_thread", "Launch Statistics", "Registers Per Thread" },
	{ "launch__shared_mem_per_block_static", "Launch Statistics",
	  "Static Shared Memory Per Block" },
	{ "launch__shared_mem_per_block_dynamic", "Launch Statistics",
	  "Dynamic Shared Memory Per Block" },
	{ "sm__maximum_warps_per_active_cycle_pct", "Occupancy", "Theoretical Occupancy" },
	{ "sm__warps_active.avg.pct_of_peak_sustained_active", "Occupancy",
	  "Achieved Occupancy" },
};

struct hdr {
	long col[NCOL];		/* index of each known column, or -1 */
	char **name;		/* every column's name */
	char **unit;		/* raw page: the units row */
	size_t n;
	int raw;		/* no "Metric Name": the raw page */
};

/* A launch's metrics, sections in the order they first come, each metric
 * once (the last value wins) in the order it first comes: ncu's rows
 * without a cJSON node per value. text holds every name (raw bytes to
 * compare, and quoted) and every value's JSON; a reused arena. */
struct lsec {
	size_t raw, rlen, q, qlen;	/* offsets in text */
	long first, last;		/* its metrics, a list through met */
};
struct lmet {
	size_t sec, raw, rlen, q, qlen, val, vlen;
	long next;
};
struct ncu_launch_metrics {
	struct buf text, rules, out;
	struct lsec *sec;
	struct lmet *met;
	size_t nsec, seccap, nmet, metcap;
	size_t *slot, nslot;		/* hash of (section, name): met index + 1 */
	int nrules;
};

struct ncu_reader {
	cJSON *rec;
	const char *path;
	struct kf_lines l;
	struct kf_csvrow row;
	struct hdr h;
	int have_hdr, want_units;
	long hdr_line;

	/* The launch in progress: its identity as a tree (small), its
	 * metrics and rules as JSON text, written out whole at its end. */
	cJSON *cur;
	struct ncu_launch_metrics lx;
	struct buf key, cur_key;	/* "ID\tPROCESS ID" of this row, of cur */
	size_t idlen, cur_idlen;	/* their IDs' lengths */
	long cur_line;		/* where it starts */
	/* Metric sections of the first launch, in order, to tell a launch
	 * cut at a line end: its sections are a strict prefix of these. */
	char **ref;
	size_t nref;
	int ref_done;
	char *last_sec;
	size_t nsec;
	int prefix_ok;

	int emitting;
	long kernels, bad_rows;
	long first_bad_line;
	int truncated;
	struct kf_map msgidx;
	cJSON *msgs, *notes;
	char *format;
	struct ncu_raw *raw;	/* the raw and source pages, if there */
	struct ncu_src *src;
	const char *dir;
	struct ncu_timing *timing;	/* --top's timing run, or NULL */
};

/* Messages: ncu's ==ERROR== and ==WARNING== lines, each once with a count. */

static void
add_message(struct ncu_reader *r, const char *line, const char *source)
{
	const char *level, *text;
	struct kf_map_ent *e;
	char *key, *t;
	int created;

	if (kf_startswith(line, "==ERROR=="))
		level = "error", text = line + 9;
	else if (kf_startswith(line, "==WARNING=="))
		level = "warning", text = line + 11;
	else
		return;
	t = kf_trim(xstrdup(text));
	key = xasprintf("%s %s", level, t);
	/* Past MAX_MESSAGES distinct ones, only those seen are counted. */
	if (r->msgidx.n >= MAX_MESSAGES && kf_map_get(&r->msgidx, key) == NULL) {
		free(key);
		free(t);
		return;
	}
	e = kf_map_slot(&r->msgidx, key, &created);
	free(key);
	if (!created) {
		cJSON *m = cJSON_GetArrayItem(r->msgs, (int)((size_t)e->val - 1));

		kf_set_num(m, "count", kf_num(m, "count", 1) + 1);
	} else {
		cJSON *m = cJSON_CreateObject();

		cJSON_AddStringToObject(m, "level", level);
		cJSON_AddStringToObject(m, "text", t);
		cJSON_AddStringToObject(m, "source", source);
		cJSON_AddNumberToObject(m, "count", 1);
		cJSON_AddItemToArray(r->msgs, m);
		e->val = (void *)(size_t)cJSON_GetArraySize(r->msgs);
	}
	free(t);
}

/* The run's stdout and stderr tails carry ncu's messages when it wrote no
 * log file (the program was not found, say). */
static void
run_messages(struct ncu_reader *r)
{
	static const char *const streams[] = { "stdout", "stderr" };
	const cJSON *run = kf_obj(r->rec, "run");
	size_t i;

	for (i = 0; run && i < 2; i++) {
		const char *s = kf_str(run, streams[i]);

		while (s && *s) {
			size_t n = strcspn(s, "\n");
			char *line = xstrndup(s, n);

			line[strcspn(line, "\r")] = '\0';
			add_message(r, line, streams[i]);
			free(line);
			s += n + (s[n] != '\0');
		}
	}
}

static const char *
find_message(const struct ncu_reader *r, const char *level, const char *needle)
{
	const cJSON *m;

	cJSON_ArrayForEach(m, r->msgs) {
		const char *t = kf_str(m, "text");

		if (t && (level == NULL || strcmp(kf_str(m, "level"), level) == 0) &&
		    strstr(t, needle))
			return t;
	}
	return NULL;
}

static void
note(struct ncu_reader *r, const char *fmt, ...)
{
	struct buf b = {0};
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	cJSON_AddItemToArray(r->notes, cJSON_CreateString(b.s));
	buf_free(&b);
}

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

static size_t
text_add(struct buf *b, const char *s, size_t n)
{
	size_t at = b->len;

	buf_add(b, s, n);
	return at;
}

static unsigned long
met_hash(size_t sec, const char *s, size_t n)
{
	unsigned long h = 2166136261u ^ sec;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

static size_t
find_sec(struct ncu_launch_metrics *x, const char *s, size_t n)
{
	size_t i;

	for (i = x->nsec; i-- > 0;)
		if (x->sec[i].rlen == n && memcmp(x->text.s + x->sec[i].raw, s, n) == 0)
			return i;
	KF_GROW(x->sec, x->nsec, x->seccap, 16);
	x->sec[x->nsec].raw = text_add(&x->text, s, n);
	x->sec[x->nsec].rlen = n;
	x->sec[x->nsec].q = x->text.len;
	kf_json_quote(&x->text, s, n);
	x->sec[x->nsec].qlen = x->text.len - x->sec[x->nsec].q;
	x->sec[x->nsec].first = x->sec[x->nsec].last = -1;
	return x->nsec++;
}

static void
slots_grow(struct ncu_launch_metrics *x)
{
	size_t i, j;

	x->nslot = x->nslot ? 2 * x->nslot : 512;
	free(x->slot);
	x->slot = xcalloc(x->nslot, sizeof *x->slot);
	for (i = 0; i < x->nmet; i++) {
		const struct lmet *m = &x->met[i];

		for (j = met_hash(m->sec, x->text.s + m->raw, m->rlen) & (x->nslot - 1);
		    x->slot[j]; j = (j + 1) & (x->nslot - 1))
			;
		x->slot[j] = i + 1;
	}
}

/* The slot of metric name in section sec: holding its index + 1, or 0. */
static size_t *
met_slot(struct ncu_launch_metrics *x, size_t sec, const char *name, size_t n)
{
	size_t j;

	if (2 * (x->nmet + 1) > x->nslot)
		slots_grow(x);
	for (j = met_hash(sec, name, n) & (x->nslot - 1); x->slot[j];
	    j = (j + 1) & (x->nslot - 1)) {
		const struct lmet *m = &x->met[x->slot[j] - 1];

		if (m->sec == sec && m->rlen == n && memcmp(x->text.s + m->raw, name, n) == 0)
			break;
	}
	return &x->slot[j];
}

/* {"unit":U,"value":V}: V a number when it is one ("1,056", "81.32"),
 * else the text ("CachePreferNone", "nan"), null when empty. */
static void
put_value_text(struct buf *b, const char *unit, size_t ulen, const char *v, size_t vlen)
{
	cJSON num = { 0 };

	buf_add(b, "{\"unit\":", 8);
	kf_json_quote(b, unit, ulen);
	buf_add(b, ",\"value\":", 9);
	num.type = cJSON_Number;
	if (vlen == 0)
		buf_add(b, "null", 4);
	else if (kf_json_number_written(v, vlen))
		buf_add(b, v, vlen);
	else if (kf_parse_number_n(v, vlen, &num.valuedouble))
		kf_json_buf(b, &num);
	else
		kf_json_quote(b, v, vlen);
	buf_putc(b, '}');
}

/* A name seen twice in one section: the last value wins, in the first
 * one's place. only_new: keep the value there is. */
static void
put_metric(struct ncu_launch_metrics *x, const char *section, size_t slen, const char *name,
    size_t nlen, const char *unit, size_t ulen, const char *val, size_t vlen,
    int only_new)
{
	size_t sec = find_sec(x, section, slen), *slot = met_slot(x, sec, name, nlen), at;
	int again = *slot != 0;
	struct lmet *m;

	if (again) {
		if (only_new)
			return;
		m = &x->met[*slot - 1];
	} else {
		KF_GROW(x->met, x->nmet, x->metcap, 256);
		m = &x->met[x->nmet];
		*slot = ++x->nmet;
		m->sec = sec;
		m->raw = text_add(&x->text, name, nlen);
		m->rlen = nlen;
		m->q = x->text.len;
		kf_json_quote(&x->text, name, nlen);
		m->qlen = x->text.len - m->q;
		m->next = -1;
		if (x->sec[sec].last >= 0)
			x->met[x->sec[sec].last].next = (long)(x->nmet - 1);
		else
			x->sec[sec].first = (long)(x->nmet - 1);
		x->sec[sec].last = (long)(x->nmet - 1);
	}
	at = x->text.len;
	put_value_text(&x->text, unit, ulen, val, vlen);
	if (again && x->text.len - at <= m->vlen) {
		/* A value again: in the old one's room, so that repeats of one
		 * name do not grow the launch. */
		m->vlen = x->text.len - at;
		memcpy(x->text.s + m->val, x->text.s + at, m->vlen);
		x->text.len = at;
		return;
	}
	m->val = at;
	m->vlen = x->text.len - at;
}

/* The known --metrics NAME rows, filed under their display names too. */
static void
put_rawmap(struct ncu_launch_metrics *x, const char *name, size_t nlen, const char *unit,
    size_t ulen, const char *val, size_t vlen)
{
	size_t i;

	/* Raw names are lower case with "__"; the details page's, words. */
	if (nlen == 0 || name[0] < 'a' || name[0] > 'z' || memmem(name, nlen, "__", 2) == NULL)
		return;
	for (i = 0; i < sizeof rawmap / sizeof rawmap[0]; i++)
		if (strlen(rawmap[i].raw) == nlen && memcmp(rawmap[i].raw, name, nlen) == 0)
			put_metric(x, rawmap[i].section, strlen(rawmap[i].section),
			    rawmap[i].name, strlen(rawmap[i].name), unit, ulen, val, vlen, 1);
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
	put_metric(&r->lx, sec, slen, name, nlen, unit, ulen, val, vlen, 0);
	put_rawmap(&r->lx, name, nlen, unit, ulen, val, vlen);
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
		put_metric(&r->lx, "raw", 3, name, strlen(name), unit, strlen(unit), f, len, 0);
		put_rawmap(&r->lx, name, strlen(name), unit, strlen(unit), f, len);
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

/* Forget the launch's metrics; keep the memory for the next one. */
static void
launch_reset(struct ncu_launch_metrics *x)
{
	if (x->nslot > 0)
		memset(x->slot, 0, x->nslot * sizeof *x->slot);
	x->nsec = x->nmet = 0;
	x->nrules = 0;
	/* Past a huge launch, give its memory back. */
	if (x->text.cap > 1 << 20 || x->rules.cap > 1 << 20 || x->out.cap > 1 << 20) {
		buf_free(&x->text);
		buf_free(&x->rules);
		buf_free(&x->out);
	}
	buf_reset(&x->text);
	buf_reset(&x->rules);
	buf_reset(&x->out);
}

static void
launch_free(struct ncu_launch_metrics *x)
{
	buf_free(&x->text);
	buf_free(&x->rules);
	buf_free(&x->out);
	free(x->sec);
	free(x->met);
	free(x->slot);
	memset(x, 0, sizeof *x);
}

/* The launch as kf_json_write would write its tree: the identity's
 * members, "metrics" and "rules". */
static void
launch_write(struct ncu_reader *r)
{
	struct ncu_launch_metrics *x = &r->lx;
	struct buf *o = &x->out;
	size_t i;
	long k;

	kf_json_buf(o, r->cur);
	o->len--;	/* its '}' */
	if (o->len > 1)
		buf_putc(o, ',');
	buf_puts(o, "\"metrics\":{");
	for (i = 0; i < x->nsec; i++) {
		if (i > 0)
			buf_putc(o, ',');
		buf_add(o, x->text.s + x->sec[i].q, x->sec[i].qlen);
		buf_add(o, ":{", 2);
		for (k = x->sec[i].first; k >= 0; k = x->met[k].next) {
			if (k != x->sec[i].first)
				buf_putc(o, ',');
			buf_add(o, x->text.s + x->met[k].q, x->met[k].qlen);
			buf_putc(o, ':');
			buf_add(o, x->text.s + x->met[k].val, x->met[k].vlen);
		}
		buf_putc(o, '}');
	}
	buf_puts(o, "},\"rules\":[");
	buf_add(o, x->rules.s ? x->rules.s : "", x->rules.len);
	buf_putc(o, ']');
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
	launch_reset(&r->lx);
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

	add_message(r, *line, "log");
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
		note(r, "the last kernel launch (line %ld) stops after section \"%s\" "
		    "where the others go on to \"%s\": the report was cut off",
		    r->cur_line, r->last_sec ? r->last_sec : "", r->ref[r->nsec]);
		r->truncated = 1;
	}
	if (r->truncated) {
		const char *name = kf_str(r->cur, "name");

		note(r, "the report is truncated: the kernel launch at line %ld (%s) "
		    "is incomplete and left out", r->cur_line, name ? name : "unnamed");
		kernel_drop(r);
	} else {
		kernel_done(r);
	}
}

/* The program's own exit status, when ncu reports it. */
static int
app_error(const struct ncu_reader *r, long *code)
{
	const char *t = find_message(r, "error", "The application returned an error code (");

	if (t == NULL)
		return 0;
	*code = strtol(strchr(t, '(') + 1, NULL, 10);
	return 1;
}

static void
emit_end(struct ncu_reader *r)
{
	cJSON *timing;
	long code;

	if (r->bad_rows)
		note(r, "%ld CSV row%s not from ncu's table skipped (the first at line %ld)",
		    r->bad_rows, r->bad_rows == 1 ? "" : "s", r->first_bad_line);
	if (r->l.nuls)
		note(r, "%ld NUL byte%s dropped", r->l.nuls, r->l.nuls == 1 ? "" : "s");
	printf("],\"kernel_count\":%ld", r->kernels);
	/* With a timing run (kf-wrap --top) the program's status is that run's,
	 * kf-ncu's own (run.exit_code): ncu's word on a detailed run, or on an
	 * attempt of it that failed, is the profiler's. */
	if (r->timing == NULL && app_error(r, &code)) {
		printf(",\"app_exit_code\":%ld", code);
		note(r, "the profiled program exited with status %ld (ncu: \"The "
		    "application returned an error code\"), yet the %ld kernel launch%s "
		    "profiled before that are complete", code, r->kernels,
		    r->kernels == 1 ? "" : "es");
	}
	fputs(",\"messages\":", stdout);
	kf_json_write(stdout, r->msgs);
	printf(",\"truncated\":%s,\"notes\":", r->truncated ? "true" : "false");
	kf_json_write(stdout, r->notes);
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

/* Failures */

static void
run_status(struct ncu_reader *r, struct buf *b)
{
	const cJSON *run = kf_obj(r->rec, "run");
	const char *by = kf_str(run, "ended_by");
	double code = kf_num(run, "exit_code", -1);

	if (by && strcmp(by, "exit") != 0)
		buf_printf(b, " (the run was ended by %s)", by);
	else if (code >= 0)
		buf_printf(b, " (ncu exited with status %.0f)", code);
}

static int
fail_known(struct ncu_reader *r, const char *what)
{
	const cJSON *run = kf_obj(r->rec, "run");
	struct buf b = {0};
	const char *t;

	if ((t = find_message(r, NULL, "ERR_NVGPUCTRPERM")) != NULL) {
		kf_fail(r->rec, "no_permission", "%s: ncu may not read the GPU performance "
		    "counters: ==ERROR== %s", what, t);
		kf_fail_hint(r->rec, "run ncu as root (under sudo -E), or let every user "
		    "profile: add 'options nvidia NVreg_RestrictProfilingToAdminUsers=0' to a "
		    "file in /etc/modprobe.d/, then reload the nvidia kernel module (or reboot); "
		    "see https://developer.nvidia.com/ERR_NVGPUCTRPERM");
	} else if ((t = find_message(r, "error", "does not exist or is not an executable")) != NULL) {
		kf_fail(r->rec, "program_not_found", "%s: ncu could not start the program: "
		    "==ERROR== %s", what, t);
		kf_fail_hint(r->rec, "check the command: its program must exist and be "
		    "executable; give ncu an absolute path, or ./NAME for a program in the "
		    "working directory");
	} else if (run && kf_num(run, "exit_code", -1) == 127 &&
	    find_message(r, "error", "") == NULL) {
		kf_fail(r->rec, "profiler_not_found", "%s: ncu itself was not found (exit "
		    "status 127)", what);
		kf_fail_hint(r->rec, "install NVIDIA Nsight Compute, or add the folder that "
		    "holds ncu to PATH");
	} else if ((t = find_message(r, "warning", "No kernels were profiled")) != NULL) {
		const char *child = find_message(r, "warning", "--target-processes all");

		kf_fail(r->rec, "no_kernels", "%s: ncu profiled no kernel: ==WARNING== %s%s%s",
		    what, t, child ? " ==WARNING== " : "", child ? child : "");
		kf_fail_hint(r->rec, "check that the program launches CUDA kernels on an "
		    "NVIDIA GPU; if they run in a child process (python, sh -c, mpirun), add "
		    "--target-processes all; check kernel filters (--kernel-name, --kernel-id) "
		    "and --launch-skip/--launch-count");
	} else if ((t = find_message(r, "error", "")) != NULL) {
		buf_printf(&b, "%s: ncu reported: ==ERROR== %s", what, t);
		run_status(r, &b);
		kf_fail(r->rec, "profiler_error", "%s", b.s);
		kf_fail_hint(r->rec, "read ncu's message above; the run's stdout and stderr "
		    "in \"run\" have the rest");
	} else {
		return 0;
	}
	buf_free(&b);
	return 1;
}

/* A --top run whose detailed run left no launch: the failure becomes the
 * detailed run's (data.timing.detailed_run.error) and the timing run's
 * ranking still flows, as data with no launch. */
static void
timing_rescue(struct ncu_reader *r)
{
	cJSON *e, *data, *timing, *dr;

	if (r->timing == NULL || (e = cJSON_DetachItemFromObjectCaseSensitive(r->rec,
	    "error")) == NULL)
		return;
	data = cJSON_CreateObject();
	cJSON_AddStringToObject(data, "format", "details");
	cJSON_AddStringToObject(data, "report", NCU_REPORT);
	cJSON_AddArrayToObject(data, "kernels");
	cJSON_AddNumberToObject(data, "kernel_count", 0);
	cJSON_AddItemToObject(data, "messages", cJSON_Duplicate(r->msgs, 1));
	cJSON_AddBoolToObject(data, "truncated", 0);
	cJSON_AddItemToObject(data, "notes", cJSON_Duplicate(r->notes, 1));
	timing = ncu_timing_data(r->timing, 0, r->msgs);
	dr = cJSON_GetObjectItemCaseSensitive(timing, "detailed_run");
	cJSON_AddItemToObject(dr, "error", e);
	if (!kf_str(dr, "status"))
		kf_set_str(dr, "status", "failed");
	cJSON_AddItemToObject(data, "timing", timing);
	kf_set(r->rec, "data", data);
}

static void
fail_no_report(struct ncu_reader *r, const char *dir)
{
	struct buf b = {0};
	char *what = xasprintf("no %s in %s", NCU_REPORT, dir);

	run_messages(r);
	if (!fail_known(r, what) && !kf_fail_if_stopped(r->rec, "ncu", what)) {
		buf_puts(&b, what);
		run_status(r, &b);
		kf_fail(r->rec, "no_report", "%s", b.s);
		/* A record that was run needs no advice to run it. */
		if (kf_obj(r->rec, "run"))
			kf_fail_hint(r->rec, "ncu ran but wrote no %s: the run's own output "
			    "(run.stdout, run.stderr) says why", NCU_REPORT);
		else
			kf_fail_hint(r->rec, "profile with kf-wrap ncu and kf-run first (ncu "
			    "writes its report there with --log-file), or point output_dir at a "
			    "directory that holds %s", NCU_REPORT);
	}
	buf_free(&b);
	free(what);
}

static void
fail_no_kernel(struct ncu_reader *r)
{
	char *what;

	run_messages(r);
	if (!r->have_hdr) {
		what = xasprintf("%s holds no ncu CSV table", r->path);
		if (!fail_known(r, what) && !kf_fail_if_stopped(r->rec, "ncu", what)) {
			kf_fail(r->rec, "no_csv", "%s (no header line starting "
			    "\"ID\",\"Process ID\")%s", what, r->l.no > 0 && !r->l.complete ?
			    "; it ends mid-line, so it may have been cut off" : "");
			kf_fail_hint(r->rec, "run ncu with --csv (kf-wrap does), or export a saved "
			    "report with: ncu -i REPORT.ncu-rep --csv --page details");
		}
	} else if (r->truncated) {
		what = xasprintf("%s is cut off before its first kernel launch is complete "
		    "(header at line %ld)", r->path, r->hdr_line);
		if (kf_fail_if_stopped(r->rec, "ncu", what))
			goto out;
		kf_fail(r->rec, "truncated", "%s is cut off before its first kernel launch "
		    "is complete (header at line %ld)", r->path, r->hdr_line);
		kf_fail_hint(r->rec, "the profiler or the program was probably stopped (a "
		    "timeout?) or the disk filled up; profile again, with more time");
	} else {
		what = xasprintf("%s has a CSV header but no kernel rows", r->path);
		if (!fail_known(r, what) && !kf_fail_if_stopped(r->rec, "ncu", what)) {
			kf_fail(r->rec, "no_kernels", "%s", what);
			kf_fail_hint(r->rec, "check that the program launches CUDA kernels, "
			    "and ncu's kernel filters (--kernel-name, --launch-skip)");
		}
	}
out:
	free(what);
	timing_rescue(r);
	kf_emit(r->rec);
}

static void
rd_free(struct ncu_reader *r)
{
	size_t i;

	kf_lines_close(&r->l);
	kf_csvrow_free(&r->row);
	hdr_free(&r->h);
	kernel_drop(r);
	launch_free(&r->lx);
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
	if (kf_lines_open(&r.l, path) < 0) {
		if (errno == ENOENT) {
			fail_no_report(&r, dir);
			timing_rescue(&r);
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
		note(&r, "reading stopped at line %ld: %s", r.l.no, strerror(errno));
		r.truncated = 1;
	}
	last_kernel(&r);
	if (!r.emitting) {
		fail_no_kernel(&r);
		goto out;
	}
	run_messages(&r);
	ncu_raw_close(r.raw, r.notes);
	ncu_src_close(r.src, r.notes);
	r.raw = NULL;
	r.src = NULL;
	emit_end(&r);
out:
	rd_free(&r);
	free(path);
}
