/* The steady state of a timing run: the launches the detailed run will
 * repeat, which are those to rank and choose from. A program's launches
 * before it are not its work, and a run that follows them is not sure to
 * make them again:
 *
 * - Outside the program's own profiler range (cudaProfilerStart/Stop: kf's
 *   tracer marks each launch in or out, KF_RANGE_COL): ncu's run with
 *   --profile-from-start off never sees them.
 * - Up to the last launch of XLA's autotuner in the process (machinery.tsv's
 *   XLA rows): its timed runs of candidates, of any length (a cuDNN FFT
 *   convolution candidate of the Flax CNN on the H200 ran more than 8
 *   launches between the autotuner's own), and everything before. A
 *   detailed run that loads the autotuning results runs none of them.
 * - Up to the last change of candidate in timed runs between cache flushes:
 *   benchmarks empty the L2 cache before each timed run by filling a
 *   scratch buffer larger than it (triton.testing.do_bench: cache.zero_(),
 *   a FillFunctor kernel of 256 MB), so a run of such fills, each followed
 *   by a few launches, is a benchmark; when the launches between them change
 *   (Triton's autotuner, PyTorch's TunableOp, cuDNN's or cuBLAS's trials
 *   timed so), the candidates are being tried, and the steady state begins
 *   with the last candidate's runs. The fills themselves are set aside.
 * - Timed runs of candidates, each waited for by the host (KF_WAIT_COL,
 *   kf's tracer's synchronisations), their kernels changing: cuDNN's
 *   benchmark mode's trials (trials.h). Only those launches are set aside,
 *   not what came before them: the program's first step holds its own
 *   work between one convolution's trials and the next's.
 *
 * When nothing is left after the autotuning, every launch is the steady
 * state. Memory grows with the processes and their runs of flushes and of
 * timed candidates, not with the launches. */
#include <stdlib.h>
#include <string.h>

#include "machinery.h"
#include "map.h"
#include "mem.h"
#include "ncu_top.h"
#include "record.h"
#include "trials.h"

#define RUN_GAP 8		/* launches after a flush that belong to its run */
#define MIN_FLUSHES 3		/* flushes, each within RUN_GAP of the last: a benchmark */
#define FLUSH_BLOCKS 16384	/* a fill of at least this many blocks: 32 MB and up */

struct region {
	long first, last;	/* its first and last flush (launch) */
};

struct phase {			/* one process */
	long pos, pos2;		/* its launches so far, in each pass */
	long xla_last;		/* the position of its last XLA autotuner launch, or -1 */
	long last_flush;	/* of the last flush, or -1 */
	long region_first;
	int region_flushes;
	int run_open, run_len, prev_len;
	unsigned long run_sig[RUN_GAP];	/* after each of its launches */
	struct { unsigned long sig; long at; } pend[MIN_FLUSHES];
	int npend;
	int have_sig, changed;
	unsigned long cur_sig;
	long streak_at;		/* the flush before the runs of the last candidate */
	struct region *r;
	size_t nr, capr;
	long steady_from;
	const char *entry;	/* what the launches before steady_from are */
	struct kf_trials *t;	/* its timed trials (trials.h) */
};

struct ncu_steady {
	struct kf_map procs;	/* process ID: struct phase */
	int ranges;		/* the timing run said which launches are in the range */
};

struct ncu_steady *
ncu_steady_new(void)
{
	return xcalloc(1, sizeof(struct ncu_steady));
}

static struct phase *
phase_of(struct ncu_steady *s, const char *pid)
{
	int created;
	struct kf_map_ent *e = kf_map_slot(&s->procs, pid, &created);
	struct phase *p;

	if (e->val == NULL) {
		e->val = p = xcalloc(1, sizeof *p);
		p->xla_last = p->last_flush = -1;
		p->t = kf_trials_new();
	}
	return e->val;
}

/* A fill of a scratch buffer that empties the L2 cache: PyTorch's fill_ or
 * zero_ (FillFunctor) over a grid of FLUSH_BLOCKS blocks or more. */
static int
is_flush(const struct trow *r)
{
	long g[3] = { 1, 1, 1 };
	const char *p = r->grid;
	int i;

	if (strstr(r->name, "FillFunctor") == NULL)
		return 0;
	for (i = 0; i < 3 && p && *p; i++) {
		while (*p && (*p < '0' || *p > '9'))
			p++;
		if (*p == '\0')
			break;
		g[i] = strtol(p, (char **)&p, 10);
	}
	return g[0] * g[1] * g[2] >= FLUSH_BLOCKS;
}

/* A timed run of a qualifying region: its signature against the last. */
static void
stream_note(struct phase *p, unsigned long sig, long at)
{
	if (!p->have_sig) {
		p->have_sig = 1;
		p->cur_sig = sig;
		p->streak_at = at;
	} else if (sig != p->cur_sig) {
		p->changed = 1;
		p->cur_sig = sig;
		p->streak_at = at;
	}
}

/* The run since the last flush ends: at the next flush, or (trailing)
 * where no flush came: then it is as long as the run before it, the
 * launches after that the program's own. */
static void
run_close(struct phase *p, int trailing)
{
	unsigned long sig;
	int len = p->run_len;

	if (!p->run_open)
		return;
	p->run_open = 0;
	if (trailing && p->prev_len > 0 && p->prev_len < len)
		len = p->prev_len;
	if (len == 0)
		return;
	sig = p->run_sig[len - 1];
	p->prev_len = len;
	if (p->region_flushes >= MIN_FLUSHES) {
		stream_note(p, sig, p->last_flush);
	} else if (p->npend < MIN_FLUSHES) {
		p->pend[p->npend].sig = sig;
		p->pend[p->npend++].at = p->last_flush;
	}
}

static void
region_end(struct phase *p)
{
	run_close(p, 1);
	if (p->region_flushes >= MIN_FLUSHES) {
		KF_GROW(p->r, p->nr, p->capr, 4);
		p->r[p->nr].first = p->region_first;
		p->r[p->nr++].last = p->last_flush;
	}
	p->region_flushes = 0;
	p->npend = 0;
	p->prev_len = 0;
}

void
ncu_steady_see(struct ncu_steady *s, const struct trow *r)
{
	struct phase *p = phase_of(s, r->pid);
	long pos = p->pos++;
	int i;

	if (r->range && *r->range)
		s->ranges = 1;
	kf_trials_see(p->t, kf_trials_mix(kf_trials_mix(kf_trials_mix(KF_TRIALS_HASH0, r->name),
	    r->block), r->grid), r->waited);
	if (kf_machinery_xla(r->name))
		p->xla_last = pos;
	if (is_flush(r)) {
		if (p->last_flush >= 0 && p->region_flushes > 0 && pos - p->last_flush <= RUN_GAP + 1) {
			run_close(p, 0);
			if (++p->region_flushes == MIN_FLUSHES)
				for (i = 0; i < p->npend; i++)
					stream_note(p, p->pend[i].sig, p->pend[i].at);
		} else {
			region_end(p);
			p->region_first = pos;
			p->region_flushes = 1;
		}
		p->last_flush = pos;
		p->run_len = 0;
		p->run_open = 1;
	} else if (p->run_open) {
		if (pos - p->last_flush <= RUN_GAP) {
			p->run_sig[p->run_len] = kf_trials_mix(kf_trials_mix(kf_trials_mix(p->run_len ?
			    p->run_sig[p->run_len - 1] : KF_TRIALS_HASH0, r->name), r->block), r->grid);
			p->run_len++;
		} else {
			region_end(p);
		}
	}
}

void
ncu_steady_end(struct ncu_steady *s)
{
	size_t i;

	for (i = 0; i < s->procs.cap; i++) {
		struct phase *p = s->procs.ent[i].key ? s->procs.ent[i].val : NULL;

		if (p == NULL)
			continue;
		region_end(p);
		kf_trials_end(p->t);
		p->steady_from = 0;
		p->entry = NULL;
		if (p->xla_last >= 0) {
			p->steady_from = p->xla_last + 1;
			p->entry = TUNE_NAME;
		}
		if (p->changed && p->streak_at > p->steady_from) {
			p->steady_from = p->streak_at;
			p->entry = BENCH_NAME;
		}
		/* nothing after it: every launch is the steady state */
		if (p->steady_from >= p->pos) {
			p->steady_from = 0;
			p->entry = NULL;
		}
	}
}

static int
in_region(const struct phase *p, long pos)
{
	size_t i;

	for (i = 0; i < p->nr; i++)
		if (pos >= p->r[i].first && pos <= p->r[i].last)
			return 1;
	return 0;
}

const char *
ncu_steady_entry(struct ncu_steady *s, const struct trow *r)
{
	struct phase *p = phase_of(s, r->pid);
	long pos = p->pos2++;

	if (r->range && strcmp(r->range, "out") == 0)
		return OUTSIDE_NAME;
	if (p->nr > 0 && is_flush(r) && in_region(p, pos))
		return FLUSH_NAME;
	if (pos < p->steady_from)
		return p->entry;
	if (kf_trials_has(p->t, pos))
		return TRIAL_NAME;
	return NULL;
}

void
ncu_steady_rewind(struct ncu_steady *s)
{
	size_t i;

	for (i = 0; i < s->procs.cap; i++)
		if (s->procs.ent[i].key)
			((struct phase *)s->procs.ent[i].val)->pos2 = 0;
}

const char *
ncu_steady_from(const struct ncu_steady *s)
{
	size_t i;
	const char *why = NULL;

	for (i = 0; i < s->procs.cap; i++) {
		const struct phase *p = s->procs.ent[i].key ? s->procs.ent[i].val : NULL;

		/* timed trials count where some lie in the steady state (not
		 * inside XLA's autotuning, its own entry) */
		if (p && ((p->entry && strcmp(p->entry, BENCH_NAME) == 0) ||
		    kf_trials_last(p->t) >= p->steady_from))
			why = "autotuning";
		else if (p && p->entry && strcmp(p->entry, TUNE_NAME) == 0 && why == NULL)
			why = "xla_autotuning";
	}
	return why ? why : s->ranges ? "profiler_range" : "all";
}

int
ncu_steady_ranges(const struct ncu_steady *s)
{
	return s->ranges;
}

void
ncu_steady_free(struct ncu_steady *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->procs.cap; i++)
		if (s->procs.ent[i].key) {
			struct phase *p = s->procs.ent[i].val;

			free(p->r);
			kf_trials_free(p->t);
			free(p);
		}
	kf_map_free(&s->procs);
	free(s);
}
