/* kf: an autotuner's timed trials among one process's launches (trials.h).
 *
 * The launches come in blocks, each ended by a launch the host waited for.
 * A block of at most KF_TRIALS_RUN launches is a timed run; runs one after
 * the other make an open stretch, which a longer block ends. A stretch of
 * KF_TRIALS_MIN runs or more whose kernels changed from one run to the
 * next is kept. A run is known by the set of its kernels (with their
 * configurations), whatever their order and count. Where a run ends with
 * the launches of the run after it, the launches before those are the
 * program's: the stretch ends before the run, and a new one starts with
 * its tail (the next candidate's warm-up). A first run after a long block
 * may have its warm-up at that block's end. */
#include <stdlib.h>

#include "mem.h"
#include "trials.h"

#define RING (2 * KF_TRIALS_RUN)	/* the launches remembered: a run and the one before */

struct region {
	long first, last;
};

struct kf_trials {
	unsigned long ring[RING];	/* each launch's hash, by position % RING */
	long pos;		/* launches seen */
	long blk_start;		/* the block since the last wait */
	int blk_len;
	long first, last;	/* the open stretch, first < 0: none */
	int runs, changed;
	unsigned long sig;	/* its last run's kernels */
	long prev_start;	/* its last run */
	int prev_len, prev_changed;	/* prev_len 0: the block before was long */
	struct region *r;	/* those kept, in order */
	size_t nr, capr;
};

struct kf_trials *
kf_trials_new(void)
{
	struct kf_trials *t = xcalloc(1, sizeof *t);

	t->first = -1;
	return t;
}

unsigned long
kf_trials_mix(unsigned long h, const char *s)
{
	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ul;
	return (h ^ 0xff) * 1099511628211ul;
}

static int
cmp_ul(const void *x, const void *y)
{
	unsigned long a = *(const unsigned long *)x, b = *(const unsigned long *)y;

	return a < b ? -1 : a > b;
}

/* The kernels of the n launches from position at, as a set. */
static unsigned long
run_sig(const struct kf_trials *t, long at, int n)
{
	unsigned long v[KF_TRIALS_RUN], h = KF_TRIALS_HASH0;
	int i;

	for (i = 0; i < n; i++)
		v[i] = t->ring[(at + i) % RING];
	kf_sort(v, (size_t)n, sizeof *v, cmp_ul);
	for (i = 0; i < n; i++)
		if (i == 0 || v[i] != v[i - 1])
			h = (h ^ v[i]) * 1099511628211ul;
	return h;
}

/* The n launches from position a are those from b, one by one. */
static int
same_launches(const struct kf_trials *t, long a, long b, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (t->ring[(a + i) % RING] != t->ring[(b + i) % RING])
			return 0;
	return 1;
}

/* The open stretch ends at last, of runs runs: kept when it is trials. */
static void
stretch_close(struct kf_trials *t, long last, int runs, int changed)
{
	if (t->first >= 0 && last >= t->first && runs >= KF_TRIALS_MIN && changed) {
		KF_GROW(t->r, t->nr, t->capr, 4);
		t->r[t->nr].first = t->first;
		t->r[t->nr++].last = last;
	}
	t->first = -1;
}

/* A block of n launches from position at, waited for after its last. */
static void
run_add(struct kf_trials *t, long at, int n)
{
	unsigned long sig = run_sig(t, at, n);
	int changed = t->changed;

	if (t->first >= 0 && t->prev_len > n && same_launches(t, at - n, at, n)) {
		stretch_close(t, t->prev_start - 1, t->runs - 1, t->prev_changed);
		t->first = at - n;
		t->runs = 2;
		t->changed = 0;
	} else if (t->first >= 0) {
		t->runs++;
		t->changed |= sig != t->sig;
	} else {
		t->first = at;
		t->runs = 1;
		t->changed = 0;
		if (at >= n && t->prev_len == 0 && same_launches(t, at - n, at, n)) {
			t->first = at - n;
			t->runs = 2;
		}
	}
	t->prev_changed = changed;
	t->prev_start = at;
	t->prev_len = n;
	t->sig = sig;
	t->last = at + n - 1;
}

void
kf_trials_see(struct kf_trials *t, unsigned long launch, int waited)
{
	long pos = t->pos++;

	t->ring[pos % RING] = launch;
	if (t->blk_len == 0)
		t->blk_start = pos;
	if (++t->blk_len == KF_TRIALS_RUN + 1) {
		/* no timed run is this long: the open stretch ends */
		if (t->first >= 0)
			stretch_close(t, t->last, t->runs, t->changed);
		t->prev_len = 0;
	}
	if (waited) {
		if (t->blk_len <= KF_TRIALS_RUN)
			run_add(t, t->blk_start, t->blk_len);
		t->blk_len = 0;
	}
}

void
kf_trials_end(struct kf_trials *t)
{
	if (t->first >= 0)
		stretch_close(t, t->last, t->runs, t->changed);
}

int
kf_trials_has(const struct kf_trials *t, long pos)
{
	size_t lo = 0, hi = t->nr, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (t->r[mid].last < pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->nr && t->r[lo].first <= pos;
}

size_t
kf_trials_runs(const struct kf_trials *t)
{
	return t->nr;
}

long
kf_trials_last(const struct kf_trials *t)
{
	return t->nr > 0 ? t->r[t->nr - 1].last : -1;
}

void
kf_trials_free(struct kf_trials *t)
{
	if (t == NULL)
		return;
	free(t->r);
	free(t);
}
