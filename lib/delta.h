/* kf: before and after. kf-feedback --baseline FILE compares each record's
 * analysis with the analysis of the baseline record of the same id: total
 * GPU time and its verdict against measurement noise, the focus kernel, the
 * kernels matched by name (by time when a rewrite renamed them), the
 * focus's throughputs or stalls, rules, roofline and hot source lines.
 *
 * Ownership: kf_baseline_load() returns a baseline the caller frees with
 * kf_baseline_free(); kf_delta() adds sections and "analysis.delta" to fb,
 * which owns them. */
#ifndef KF_DELTA_H
#define KF_DELTA_H

#include <cJSON.h>

#include "feedback.h"

/* The noise threshold on total GPU time, in percent (kf-feedback(1) says
 * how it was measured). */
#define KF_NOISE_PCT_DEFAULT 2.0
/* A share of peak that moves by less than this many points is not said to
 * have moved. */
#define KF_MOVE_PTS 2.0

struct kf_baseline;

/* Read the final records in path (kf-feedback's JSON lines). Never NULL: a
 * file that is missing or not JSON gives a baseline that says so (warned
 * here, once) for every record compared with it. */
struct kf_baseline *kf_baseline_load(const char *path, double noise_pct);
void kf_baseline_free(struct kf_baseline *b);

/* Compare rec's analysis (fb->analysis, status ok) with the baseline
 * record of the same id; add "delta" to the analysis and a short section at
 * the top of the text. Without a usable baseline record, "delta" holds
 * status "no_baseline" and a message, and the feedback is otherwise
 * unchanged. */
void kf_delta(const struct kf_baseline *b, const cJSON *rec, struct kf_fb *fb);

#endif
