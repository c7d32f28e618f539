/* kf: a string-keyed hash map. Keys are copied; values belong to the caller. */
#ifndef KF_MAP_H
#define KF_MAP_H

#include <stddef.h>

struct kf_map_ent {
	char *key;
	void *val;
	size_t order;		/* insertion order, from 0 */
};
struct kf_map {
	struct kf_map_ent *ent;
	size_t cap, n;
};

/* The slot for key, created (val NULL) when absent; *created says which. */
struct kf_map_ent *kf_map_slot(struct kf_map *m, const char *key, int *created);
void *kf_map_get(const struct kf_map *m, const char *key);
/* Remove key; returns its value. */
void *kf_map_del(struct kf_map *m, const char *key);
/* The entries in insertion order (a new array of n pointers; free it). */
struct kf_map_ent **kf_map_list(const struct kf_map *m, size_t *n);
void kf_map_free(struct kf_map *m);

#endif
