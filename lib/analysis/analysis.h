/* kf: the profiler-neutral core of analysis (man/kf.7, "The analysis
 * core"): the fields every profiler's feedback fills the same way, so that
 * --baseline, kf-report and the sweep summary read them and know no
 * profiler's shape.
 *
 *   focus      the kernel the text is about: name, short_name, total_ns,
 *              launches, share_pct (from the ranking), reason, why; time_ns
 *              and time_label (its time per launch as the profiler measures
 *              it: what --baseline compares); limiter; roof where one exists
 *   kernels[]  name, short_name, bound where a verdict exists, time_ns
 *   ranking    kf_rank_json (rank.h)
 *   advice[]   the profiler's own advice for the focus kernel, in its order:
 *              {source, kind, name, type, speedup_pct, speedup_type, text}
 *   diagnosis  diagnosis.h
 *   <profiler> that profiler's extras, under its own name (analysis.ncu)
 *
 * Every function here writes into objects the caller (fb->analysis) owns;
 * strings are copied. */
#ifndef KF_ANALYSIS_H
#define KF_ANALYSIS_H

#include <cJSON.h>

#include "feedback.h"

/* analysis.focus, made empty when absent. */
cJSON *kf_core_focus(struct kf_fb *fb);

/* o.time_ns (null when ns is NAN) and o.time_label ("duration", "median
 * time", "average time"): one launch's time as the profiler measures it. */
void kf_core_time(cJSON *o, double ns, const char *label);

/* o.limiter: what limits the kernel. bound is the neutral word ("compute",
 * "memory", "latency", "balanced"; NULL: no verdict); unit the pipe or
 * memory level (the diagnosis's words where they fit: "dram", "l2", "l1",
 * "tensor", "fma", "alu", "lsu", ...; NULL: none named); pct its use as a
 * share of its peak (NAN: not known); verdict the profiler's own word
 * ("memory_latency"; NULL: the same as bound); metric where pct came from. */
void kf_core_limiter(cJSON *o, const char *bound, const char *unit, double pct,
    const char *verdict, const char *metric);
/* o.limiter.tie, after kf_core_limiter: a unit of the other side (a
 * memory level against a pipe, or the reverse) at pct of its peak, within
 * `within` points of the busiest of the limiter's side, so the verdict
 * could be either; metric where it came from. */
void kf_core_limiter_tie(cJSON *o, const char *unit, double pct, double within,
    const char *metric);

/* One item of analysis.advice: source is the profiler ("ncu"), kind what
 * the profiler calls its advice ("rule", "recommendation"), name the rule
 * or recommendation, type the profiler's class of it ("OPT"; NULL: none),
 * speedup_pct its estimate (NAN: none) with speedup_type ("global",
 * "local"; NULL: none), text what it says, section the part of the
 * profiler's collection that made it (ncu's section identifier; NULL:
 * none): a comparison claims the advice gone or new only where both runs
 * collected its section (analysis.sections). */
void kf_core_advice(struct kf_fb *fb, const char *source, const char *kind,
    const char *name, const char *type, double speedup_pct, const char *speedup_type,
    const char *text, const char *section);
/* "Rules ncu reported, by estimated speedup:" style heading word for the
 * advice's kind, plural ("rules", "recommendations"), or "advice". */
const char *kf_core_advice_word(const cJSON *advice);

/* analysis.<profiler>: the profiler's own extras, made empty when absent. */
cJSON *kf_core_extras(struct kf_fb *fb);

/* A roof, neutral: o (the focus's or a kernel's "roof") gets x_unit
 * ("FLOP/byte", "inst/byte"), y_unit ("FLOP/s", "inst/s"), memory_peak
 * (bytes/s: the memory roof's slope), memory_name (the level it is
 * measured at: "DRAM", "GPU memory"), compute_peaks [] and points []. Its
 * "bound" (memory, compute, balanced: which side of the ridge) the caller
 * sets. */
void kf_roof_init(cJSON *o, const char *x_unit, const char *y_unit, double memory_peak,
    const char *memory_name);
/* A compute roof of peak y_unit; ridge NAN: peak / memory_peak. */
void kf_roof_peak(cJSON *o, const char *name, double peak, double ridge);
/* A point of the kernel: label ("" or the ALU), intensity x in x_unit,
 * performance y in y_unit, the memory traffic behind it in bytes/s, and
 * pct_of_roof (each NAN: not known). The focus's first point is the one
 * its text places on the roofline. */
void kf_roof_point(cJSON *o, const char *label, double x, double y, double bytes_per_s,
    double pct);

/* After the profiler's feedback: the focus's share_pct, total_ns, launches
 * and short_name from the ranking where the profiler left them out, and
 * null for the core's fields it did not fill. */
void kf_core_finish(struct kf_fb *fb);

#endif
