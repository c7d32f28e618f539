/* One launch of ncu's details page, its metrics and rules kept as JSON
 * text in a reused arena (ncu_reader.h): sections in the order they first
 * come, each metric once (the last value wins) in the order it first
 * comes, without a cJSON node per value. */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "mem.h"
#include "ncu.h"
#include "ncu_reader.h"
#include "num.h"
#include "record.h"

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
	{ "launch__waves_per_multiprocessor", "Launch Statistics", "Waves Per SM" },
	{ "launch__shared_mem_per_block_static", "Launch Statistics",
	  "Static Shared Memory Per Block" },
	{ "launch__shared_mem_per_block_dynamic", "Launch Statistics",
	  "Dynamic Shared Memory Per Block" },
	{ "sm__maximum_warps_per_active_cycle_pct", "Occupancy", "Theoretical Occupancy" },
	{ "sm__warps_active.avg.pct_of_peak_sustained_active", "Occupancy",
	  "Achieved Occupancy" },
};

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
void
ncu_lx_put(struct ncu_launch_metrics *x, const char *section, size_t slen, const char *name,
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
void
ncu_lx_put_raw(struct ncu_launch_metrics *x, const char *name, size_t nlen, const char *unit,
    size_t ulen, const char *val, size_t vlen)
{
	size_t i;

	/* Raw names are lower case with "__"; the details page's, words. */
	if (nlen == 0 || name[0] < 'a' || name[0] > 'z' || memmem(name, nlen, "__", 2) == NULL)
		return;
	for (i = 0; i < sizeof rawmap / sizeof rawmap[0]; i++)
		if (strlen(rawmap[i].raw) == nlen && memcmp(rawmap[i].raw, name, nlen) == 0)
			ncu_lx_put(x, rawmap[i].section, strlen(rawmap[i].section),
			    rawmap[i].name, strlen(rawmap[i].name), unit, ulen, val, vlen, 1);
}

/* The launch's "metrics" and "rules" members, as kf_json_write would
 * write them, onto o. */
void
ncu_lx_write(const struct ncu_launch_metrics *x, struct buf *o)
{
	size_t i;
	long k;

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
}

/* Forget the launch's metrics; keep the memory for the next one. */
void
ncu_lx_reset(struct ncu_launch_metrics *x)
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

void
ncu_lx_free(struct ncu_launch_metrics *x)
{
	buf_free(&x->text);
	buf_free(&x->rules);
	buf_free(&x->out);
	free(x->sec);
	free(x->met);
	free(x->slot);
	memset(x, 0, sizeof *x);
}
