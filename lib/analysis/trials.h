/* kf: an autotuner's timed trials among one process's launches (trials.c):
 * candidates run one by one, each waited for by the host, the kernels
 * changing from one to the next. cuDNN's benchmark mode
 * (torch.backends.cudnn.benchmark) runs each candidate algorithm of a
 * convolution twice, a warm-up and a timed run, each followed by the
 * host's wait (cudaDeviceSynchronize, cudaEventSynchronize), the first
 * time the program meets its shape, then the fastest, between its own
 * work. A timing source that records the host's waits (kf's tracer) feeds
 * each launch of a process in order; what it finds are the launches of
 * KF_TRIALS_MIN or more such blocks in a row, each of at most
 * KF_TRIALS_RUN launches, in which the kernels run change: only those, not
 * what comes between them. A block whose tail is the next block is that
 * candidate's warm-up after launches of the program's own, which stay
 * out. Timed runs that never change kernels (a benchmark's loop, PyTorch's
 * TunableOp, whose candidates launch one kernel in one configuration) are
 * not trials. Memory grows with the runs of trials found, not with the
 * launches. A kf_trials owns everything in it. */
#ifndef KF_TRIALS_H
#define KF_TRIALS_H

#include <stddef.h>

#define KF_TRIALS_RUN 8		/* launches in one timed run of a candidate, at most */
#define KF_TRIALS_MIN 4		/* timed runs in a row, of two candidates or more */
/* The set-aside entry of their launches, in a ranking (man/kf.7), and the
 * words that say what they were. */
#define KF_TRIALS_NAME "Timed trials: candidates run one by one, each waited for by the host"
#define KF_TRIALS_WORDS "in runs of blocks of a few launches, each waited for by the host, " \
	"their kernels changing from block to block: an autotuner's candidates (cuDNN's " \
	"benchmark mode times each algorithm of a convolution so)"

struct kf_trials;

struct kf_trials *kf_trials_new(void);
/* Each launch of the process in order (from position 0): launch, its
 * kernel and launch configuration (any hash, equal for equal ones); waited,
 * the host waited for the GPU after it started and before the process's
 * next launch. */
void kf_trials_see(struct kf_trials *t, unsigned long launch, int waited);
/* After the last launch. */
void kf_trials_end(struct kf_trials *t);
/* Whether the launch at position pos was one of them (after
 * kf_trials_end); how many runs of them there were; the position of the
 * last launch of the last run, or -1. */
int kf_trials_has(const struct kf_trials *t, long pos);
size_t kf_trials_runs(const struct kf_trials *t);
long kf_trials_last(const struct kf_trials *t);
/* A hash for kf_trials_see: h (start with KF_TRIALS_HASH0) mixed with s. */
#define KF_TRIALS_HASH0 14695981039346656037ul
unsigned long kf_trials_mix(unsigned long h, const char *s);
void kf_trials_free(struct kf_trials *t);

#endif
