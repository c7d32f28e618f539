/* kf: the chains a program's launch order shows (chains.c): runs of
 * consecutive elementwise, reduction and layout launches on one stream
 * (kernel classes, kclass.h), each with the launch that came before it
 * (its producer) and the one that ended it (its consumer), counted by how
 * often the same run repeats. A profiler's
 * reader feeds every launch in the order it ran; the program-level
 * findings (levers.h) fuse what the runs hold.
 *
 * The JSON (man/kf.7, "Chains"):
 *   {"source": how the order was known, "launches": N, "runs_total": R,
 *    "runs": [{"after": producer name or null, "kernels": [{"name", "ns"}],
 *              "count": C, "ns": T}], "truncated": bool}
 * runs: the most time first, at most KF_CHAINS_MAX; ns: all C repeats.
 * Memory grows with the distinct kernels and runs, not the launches.
 * A kf_chains owns everything in it; the JSON returned is the caller's. */
#ifndef KF_CHAINS_H
#define KF_CHAINS_H

#include <cJSON.h>

#define KF_CHAINS_MAX 12	/* runs listed */
#define KF_CHAINS_LEN 32	/* kernels of one run kept; a longer run is cut */

struct kf_chains;

struct kf_chains *kf_chains_new(void);
/* One launch of kernel name (ns: its duration), in launch order on its
 * stream: any key that tells streams (and processes) apart. Framework
 * machinery is passed over. */
void kf_chains_launch(struct kf_chains *c, const char *stream, const char *name, double ns);
/* The runs (open runs ended), with source: how the order was known ("kf
 * trace: start times on each stream"). Called once, after the last launch. */
cJSON *kf_chains_json(struct kf_chains *c, const char *source);
void kf_chains_free(struct kf_chains *c);

#endif
