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

/* Measurement noise: a time changed only when it moved by more than
 * KF_NOISE_PCT_DEFAULT percent (or --noise) and by more than
 * KF_NOISE_FLOOR_NS; a share of peak only when it moved by KF_MOVE_PTS
 * points or more. kf-feedback(1) says how they were measured on an H200. */
#define KF_NOISE_PCT_DEFAULT 4.0
#define KF_NOISE_FLOOR_NS 1500.0
#define KF_MOVE_PTS 3.0

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
