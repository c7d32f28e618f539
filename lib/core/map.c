/* Open addressing with linear probing; deletion by backward shift. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "map.h"
#include "mem.h"

static size_t order_next;

static uint64_t
hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

static void
rehash(struct kf_map *m)
{
	struct kf_map_ent *old = m->ent;
	size_t oldcap = m->cap, i;

	m->cap = oldcap ? oldcap * 2 : 16;
	m->ent = xcalloc(m->cap, sizeof *m->ent);
	for (i = 0; i < oldcap; i++) {
		size_t j;

		if (old[i].key == NULL)
			continue;
		for (j = hash(old[i].key) & (m->cap - 1); m->ent[j].key; j = (j + 1) & (m->cap - 1))
			;
		m->ent[j] = old[i];
	}
	free(old);
}

static size_t
find(const struct kf_map *m, const char *key)
{
	size_t j;

	for (j = hash(key) & (m->cap - 1); m->ent[j].key; j = (j + 1) & (m->cap - 1))
		if (strcmp(m->ent[j].key, key) == 0)
			return j;
	return j;
}

struct kf_map_ent *
kf_map_slot(struct kf_map *m, const char *key, int *created)
{
	size_t j;

	if ((m->n + 1) * 4 > m->cap * 3)
		rehash(m);
	j = find(m, key);
	if (created)
		*created = m->ent[j].key == NULL;
	if (m->ent[j].key == NULL) {
		m->ent[j].key = xstrdup(key);
		m->ent[j].val = NULL;
		m->ent[j].order = order_next++;
		m->n++;
	}
	return &m->ent[j];
}

void *
kf_map_get(const struct kf_map *m, const char *key)
{
	size_t j;

	if (m->cap == 0)
		return NULL;
	j = find(m, key);
	return m->ent[j].key ? m->ent[j].val : NULL;
}

void *
kf_map_del(struct kf_map *m, const char *key)
{
	size_t i, j, k;
	void *val;

	if (m->cap == 0)
		return NULL;
	i = find(m, key);
	if (m->ent[i].key == NULL)
		return NULL;
	val = m->ent[i].val;
	free(m->ent[i].key);
	m->ent[i].key = NULL;
	m->n--;
	for (j = (i + 1) & (m->cap - 1); m->ent[j].key; j = (j + 1) & (m->cap - 1)) {
		k = hash(m->ent[j].key) & (m->cap - 1);
		/* Move j back to i unless its home lies cyclically in (i, j]. */
		if ((j > i && (k <= i || k > j)) || (j < i && (k <= i && k > j))) {
			m->ent[i] = m->ent[j];
			m->ent[j].key = NULL;
			i = j;
		}
	}
	return val;
}

static int
by_order(const void *a, const void *b)
{
	const struct kf_map_ent *x = *(struct kf_map_ent *const *)a;
	const struct kf_map_ent *y = *(struct kf_map_ent *const *)b;

	return x->order < y->order ? -1 : x->order > y->order;
}

struct kf_map_ent **
kf_map_list(const struct kf_map *m, size_t *n)
{
	struct kf_map_ent **v = xcalloc(m->n + 1, sizeof *v);
	size_t i, k = 0;

	for (i = 0; i < m->cap; i++)
		if (m->ent[i].key)
			v[k++] = &m->ent[i];
	kf_sort(v, k, sizeof *v, by_order);
	*n = k;
	return v;
}

void
kf_map_free(struct kf_map *m)
{
	size_t i;

	for (i = 0; i < m->cap; i++)
		free(m->ent[i].key);
	free(m->ent);
	m->ent = NULL;
	m->cap = m->n = 0;
}
