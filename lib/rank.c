/* Kernels ranked by their share of GPU time. */
#include <stdlib.h>
#include <string.h>

#include "feedback.h"
#include "map.h"

void
kf_rank_add(struct kf_rank *r, const char *name, double ns, long launches)
{
	struct kf_map *idx = r->index;
	struct kf_map_ent *e;
	int created;
	size_t k;

	if (idx == NULL)
		idx = r->index = xcalloc(1, sizeof *idx);
	e = kf_map_slot(idx, name, &created);
	if (created) {
		KF_GROW(r->v, r->n, r->cap, 16);
		memset(&r->v[r->n], 0, sizeof r->v[r->n]);
		r->v[r->n].name = xstrdup(name);
		e->val = (void *)(r->n + 1);
		r->n++;
	}
	k = (size_t)e->val - 1;
	r->v[k].total_ns += ns;
	r->v[k].launches += launches;
	r->total_ns += ns;
}

static int
by_time(const void *a, const void *b)
{
	const struct kf_rank_ent *x = a, *y = b;

	if (x->total_ns != y->total_ns)
		return x->total_ns < y->total_ns ? 1 : -1;
	return strcmp(x->name, y->name);
}

void
kf_rank_sort(struct kf_rank *r)
{
	size_t i;

	if (r->index) {
		kf_map_free(r->index);
		free(r->index);
		r->index = NULL;
	}
	if (r->n > 1)
		qsort(r->v, r->n, sizeof *r->v, by_time);
	for (i = 0; i < r->n; i++)
		r->v[i].share = r->total_ns > 0 ? 100 * r->v[i].total_ns / r->total_ns : 0;
}

void
kf_rank_text(const struct kf_rank *r, struct buf *b, int top)
{
	size_t i, shown = top > 0 && (size_t)top < r->n ? (size_t)top : r->n;
	long launches = 0;
	double rest = 0;

	for (i = 0; i < r->n; i++)
		launches += r->v[i].launches;
	buf_printf(b, "Kernels by total GPU time (%zu kernel%s, %ld launch%s, ",
	    r->n, r->n == 1 ? "" : "s", launches, launches == 1 ? "" : "es");
	kf_fmt_ns(b, r->total_ns);
	buf_puts(b, " in all):");
	for (i = 0; i < shown; i++) {
		char *s = kf_kernel_short(r->v[i].name, 60);

		buf_printf(b, "\n%zu. %s: ", i + 1, s);
		kf_fmt_pct(b, r->v[i].share);
		buf_puts(b, ", ");
		kf_fmt_ns(b, r->v[i].total_ns);
		buf_printf(b, " over %ld launch%s", r->v[i].launches,
		    r->v[i].launches == 1 ? "" : "es");
		free(s);
	}
	if (shown < r->n) {
		long l = 0;

		for (i = shown; i < r->n; i++) {
			rest += r->v[i].total_ns;
			l += r->v[i].launches;
		}
		buf_printf(b, "\n   %zu other kernel%s: ", r->n - shown,
		    r->n - shown == 1 ? "" : "s");
		kf_fmt_pct(b, r->total_ns > 0 ? 100 * rest / r->total_ns : 0);
		buf_puts(b, ", ");
		kf_fmt_ns(b, rest);
		buf_printf(b, " over %ld launch%s", l, l == 1 ? "" : "es");
	}
}

cJSON *
kf_rank_json(const struct kf_rank *r, int top)
{
	cJSON *o = cJSON_CreateObject(), *a = cJSON_AddArrayToObject(o, "kernels");
	size_t i, shown = top > 0 && (size_t)top < r->n ? (size_t)top : r->n;
	double rest = 0;
	long l = 0;

	cJSON_AddNumberToObject(o, "total_ns", r->total_ns);
	cJSON_AddNumberToObject(o, "kernel_count", (double)r->n);
	for (i = 0; i < r->n; i++) {
		if (i < shown) {
			cJSON *k = cJSON_CreateObject();

			cJSON_AddStringToObject(k, "name", r->v[i].name);
			cJSON_AddNumberToObject(k, "total_ns", r->v[i].total_ns);
			cJSON_AddNumberToObject(k, "launches", (double)r->v[i].launches);
			cJSON_AddNumberToObject(k, "share_pct", r->v[i].share);
			cJSON_AddItemToArray(a, k);
		} else {
			rest += r->v[i].total_ns;
			l += r->v[i].launches;
		}
	}
	if (shown < r->n) {
		cJSON *o2 = cJSON_AddObjectToObject(o, "others");

		cJSON_AddNumberToObject(o2, "kernel_count", (double)(r->n - shown));
		cJSON_AddNumberToObject(o2, "total_ns", rest);
		cJSON_AddNumberToObject(o2, "launches", (double)l);
		cJSON_AddNumberToObject(o2, "share_pct",
		    r->total_ns > 0 ? 100 * rest / r->total_ns : 0);
	}
	return o;
}

void
kf_rank_free(struct kf_rank *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		free(r->v[i].name);
	free(r->v);
	if (r->index) {
		kf_map_free(r->index);
		free(r->index);
	}
	memset(r, 0, sizeof *r);
}
