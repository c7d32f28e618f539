/* Signalling process trees, escaped descendants included. */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "mem.h"
#include "ptree.h"

static int
by_pid(const void *a, const void *b)
{
	const struct kf_pinfo *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* For each process of t, the index of its parent in t, or SIZE_MAX. */
static size_t *
parents(struct kf_ptab *t)
{
	size_t *par = xcalloc(t->n + 1, sizeof *par), i;

	kf_sort(t->p, t->n, sizeof *t->p, by_pid);
	for (i = 0; i < t->n; i++) {
		struct kf_pinfo key = {0}, *q;

		key.pid = t->p[i].ppid;
		q = bsearch(&key, t->p, t->n, sizeof *t->p, by_pid);
		par[i] = q ? (size_t)(q - t->p) : SIZE_MAX;
	}
	return par;
}

/* Is process i a descendant of self? Only those are ever signalled: a pid
 * reused as an unrelated session id cannot be hit. memo: 0 unknown, 1 yes,
 * 2 no. */
static int
descends(const struct kf_ptab *t, const size_t *parent, char *memo, size_t i,
    pid_t self)
{
	size_t k = i, steps = 0;
	char r;

	while (memo[k] == 0 && t->p[k].ppid != self && parent[k] != SIZE_MAX &&
	    steps++ < t->n)
		k = parent[k];
	r = memo[k] ? memo[k] : t->p[k].ppid == self ? 1 : 2;
	for (k = i; memo[k] == 0; k = parent[k]) {
		memo[k] = r;
		if (t->p[k].ppid == self || parent[k] == SIZE_MAX)
			break;
	}
	return r == 1;
}

int
kf_ptree_signal(kf_ptree_pick *pick, void *arg, int sig)
{
	struct kf_ptab t = {0};
	pid_t self = getpid();
	size_t i, *parent;
	int changed, count = 0;
	char *mark, *memo;

	if (kf_ptab_read(&t) != 0)
		return 0;
	mark = xcalloc(t.n + 1, 1);
	memo = xcalloc(t.n + 1, 1);
	parent = parents(&t);
	for (i = 0; i < t.n; i++)
		mark[i] = t.p[i].pid != self &&
		    descends(&t, parent, memo, i, self) && pick(&t.p[i], arg);
	/* Descendants: one pass per generation. */
	do {
		changed = 0;
		for (i = 0; i < t.n; i++)
			if (!mark[i] && parent[i] != SIZE_MAX && mark[parent[i]] &&
			    t.p[i].pid != self) {
				mark[i] = 1;
				changed = 1;
			}
	} while (changed);
	free(parent);
	free(memo);
	for (i = 0; i < t.n; i++) {
		if (!mark[i] || t.p[i].state == 'Z' || t.p[i].state == 'X')
			continue;
		count++;
		if (sig) {
			kill(t.p[i].pid, sig);
			if (sig == SIGTERM)
				kill(t.p[i].pid, SIGCONT);
		}
	}
	free(mark);
	kf_ptab_free(&t);
	return count;
}
