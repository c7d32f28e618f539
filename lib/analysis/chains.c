/* kf: runs of fusible launches in launch order, and how often each repeats. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "chains.h"
#include "kclass.h"
#include "machinery.h"
#include "map.h"
#include "mem.h"
#include "record.h"

#define MAX_RUNS 4096		/* distinct runs kept; more are counted */

enum { PASS_OVER, BREAKS, JOINS, FUSES };	/* what a launch does to a run */

struct kname {
	char *name;
	int role;
};

struct stream {
	long after;		/* the launch before the run: a name's index, or -1 */
	size_t k[KF_CHAINS_LEN];
	double ns[KF_CHAINS_LEN];
	size_t n;
	int fuses;		/* the run holds an elementwise or reduction launch */
};

struct run {
	long after, before;
	size_t *k;
	double *ns;
	size_t n;
	long count;
	double total;
};

struct kf_chains {
	struct kf_map names, streams, runs;
	struct kname *nm;
	size_t nnm, capnm;
	struct run *r;
	size_t nr, capr;
	long launches, lost;	/* lost: runs past MAX_RUNS */
	int truncated;
};

struct kf_chains *
kf_chains_new(void)
{
	return xcalloc(1, sizeof(struct kf_chains));
}

static int
role_of(const char *name)
{
	struct kf_kclass_of k;

	if (kf_machinery_find(name))
		return PASS_OVER;
	k = kf_kclass_of(name);
	return k.cls == KF_KC_ELEMENTWISE || k.cls == KF_KC_REDUCTION ? FUSES :
	    k.cls == KF_KC_LAYOUT ? JOINS : BREAKS;
}

static size_t
name_index(struct kf_chains *c, const char *name)
{
	int created;
	struct kf_map_ent *e = kf_map_slot(&c->names, name, &created);

	if (created) {
		KF_GROW(c->nm, c->nnm, c->capnm, 64);
		c->nm[c->nnm].name = xstrdup(name);
		c->nm[c->nnm].role = role_of(name);
		e->val = (void *)(c->nnm + 1);
		c->nnm++;
	}
	return (size_t)e->val - 1;
}

/* The run of s ends, before launch before (a name's index, or -1 at the
 * stream's end): counted with the same runs before it. */
static void
end_run(struct kf_chains *c, struct stream *s, long before)
{
	struct buf sig = {0};
	struct kf_map_ent *e;
	struct run *r;
	int created;
	size_t i;

	/* Layout launches that end a run feed the next producer (its input's
	 * conversion), not this chain. */
	while (s->n > 0 && c->nm[s->k[s->n - 1]].role == JOINS)
		s->n--;
	if (s->n > 0 && s->fuses) {
		buf_printf(&sig, "%ld/%ld", s->after, before);
		for (i = 0; i < s->n; i++)
			buf_printf(&sig, ",%zu", s->k[i]);
		e = kf_map_slot(&c->runs, sig.s, &created);
		if (created && c->nr >= MAX_RUNS) {
			kf_map_del(&c->runs, sig.s);
			c->lost++;
			c->truncated = 1;
		} else {
			if (created) {
				KF_GROW(c->r, c->nr, c->capr, 16);
				r = &c->r[c->nr];
				memset(r, 0, sizeof *r);
				r->after = s->after;
				r->before = before;
				r->n = s->n;
				r->k = xmalloc(s->n * sizeof *r->k);
				r->ns = xcalloc(s->n, sizeof *r->ns);
				memcpy(r->k, s->k, s->n * sizeof *r->k);
				e->val = (void *)(c->nr + 1);
				c->nr++;
			}
			r = &c->r[(size_t)e->val - 1];
			r->count++;
			for (i = 0; i < s->n; i++) {
				r->ns[i] += s->ns[i];
				r->total += s->ns[i];
			}
		}
		buf_free(&sig);
	}
	s->n = 0;
	s->fuses = 0;
}

void
kf_chains_launch(struct kf_chains *c, const char *stream, const char *name, double ns)
{
	size_t k = name_index(c, name);
	int created, role = c->nm[k].role;
	struct kf_map_ent *e;
	struct stream *s;

	if (role == PASS_OVER)
		return;
	c->launches++;
	e = kf_map_slot(&c->streams, stream ? stream : "", &created);
	if (created) {
		s = e->val = xcalloc(1, sizeof *s);
		s->after = -1;
	}
	s = e->val;
	if (role == BREAKS) {
		end_run(c, s, (long)k);
		s->after = (long)k;
		return;
	}
	if (s->n == KF_CHAINS_LEN) {
		end_run(c, s, -1);
		s->after = -1;
		c->truncated = 1;
	}
	s->k[s->n] = k;
	s->ns[s->n++] = ns > 0 ? ns : 0;
	s->fuses |= role == FUSES;
}

static int
by_total(const void *a, const void *b)
{
	const struct run *x = a, *y = b;

	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return (x->count < y->count) - (x->count > y->count);
}

cJSON *
kf_chains_json(struct kf_chains *c, const char *source)
{
	cJSON *o = cJSON_CreateObject(), *runs;
	struct kf_map_ent **all;
	size_t n, i, j;

	all = kf_map_list(&c->streams, &n);
	for (i = 0; i < n; i++)
		end_run(c, all[i]->val, -1);
	free(all);
	/* The index of runs no longer follows them once sorted: no run is
	 * added after this. */
	if (c->nr > 1)
		kf_sort(c->r, c->nr, sizeof *c->r, by_total);
	kf_map_free(&c->runs);
	memset(&c->runs, 0, sizeof c->runs);
	kf_set_str(o, "source", source);
	kf_set_num(o, "launches", (double)c->launches);
	kf_set_num(o, "runs_total", (double)(c->nr + (size_t)c->lost));
	runs = cJSON_AddArrayToObject(o, "runs");
	for (i = 0; i < c->nr && i < KF_CHAINS_MAX; i++) {
		const struct run *r = &c->r[i];
		cJSON *ro = cJSON_CreateObject(), *ks = cJSON_CreateArray();

		kf_set(ro, "after", r->after >= 0 ? cJSON_CreateString(c->nm[r->after].name) :
		    cJSON_CreateNull());
		kf_set(ro, "before", r->before >= 0 ? cJSON_CreateString(c->nm[r->before].name) :
		    cJSON_CreateNull());
		for (j = 0; j < r->n; j++) {
			cJSON *k = cJSON_CreateObject();

			kf_set_str(k, "name", c->nm[r->k[j]].name);
			kf_set_num(k, "ns", r->ns[j]);
			cJSON_AddItemToArray(ks, k);
		}
		kf_set(ro, "kernels", ks);
		kf_set_num(ro, "count", (double)r->count);
		kf_set_num(ro, "ns", r->total);
		cJSON_AddItemToArray(runs, ro);
	}
	cJSON_AddBoolToObject(o, "truncated", c->truncated || c->nr > KF_CHAINS_MAX);
	return o;
}

void
kf_chains_free(struct kf_chains *c)
{
	struct kf_map_ent **all;
	size_t n, i;

	if (c == NULL)
		return;
	all = kf_map_list(&c->streams, &n);
	for (i = 0; i < n; i++)
		free(all[i]->val);
	free(all);
	kf_map_free(&c->streams);
	kf_map_free(&c->names);
	kf_map_free(&c->runs);
	for (i = 0; i < c->nnm; i++)
		free(c->nm[i].name);
	free(c->nm);
	for (i = 0; i < c->nr; i++) {
		free(c->r[i].k);
		free(c->r[i].ns);
	}
	free(c->r);
	free(c);
}
