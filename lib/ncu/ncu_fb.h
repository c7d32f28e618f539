/* kf: kf-feedback's ncu parts, as ncu_feedback.c calls them: ncu's rules
 * (ncu_rules.c) and what the program as a whole needs of the report
 * (ncu_program.c). ncu_feedback.c writes the text around them: the head,
 * Speed Of Light, the launch, the other kernels. Not for use outside
 * lib/ncu. */
#ifndef KF_NCU_FB_H
#define KF_NCU_FB_H

#include <cJSON.h>

#include "feedback.h"

struct kf_rank;

/* A launch profiled in detail and its Duration (has_ns 0: none). */
struct ncu_timed {
	const cJSON *k;
	double ns;
	int has_ns;
};

/* ncu_rules.c: ncu's rules of launch k. */

/* Rule's text under title at priority prio, and focus[key] (null when the
 * launch has none; raw: the report is the raw page, which has no rule
 * texts, and the text says so). */
void ncu_rule_say(struct kf_fb *fb, int prio, const cJSON *k, int raw, const char *rule,
    const char *title, const char *key, cJSON *focus);
/* Every rule, ranked (those an author can act on first, by estimate) and
 * merged (one rule repeated per unit, one name once), as text and as
 * analysis.rules and the core's advice. */
void ncu_rules_say(struct kf_fb *fb, const cJSON *k, cJSON *analysis);
/* ncu's estimated speedup of rule name (its best row): 1 and *v, or 0
 * when ncu reported no estimate for it. */
int ncu_rule_speedup(const cJSON *k, const char *name, double *v);
/* The pipe ncu's HighPipeUtilization rule names, as ncu_roof.c's unit
 * (*unit NULL when it has none), its name in name and its share in *pct:
 * 1, or 0 when the rule names none. */
int ncu_rule_pipe(const cJSON *k, const char **unit, char *name, size_t nname, double *pct);
/* ncu's own estimate for a latency-bound launch: the best of its rules on
 * issue slots and stalls, *name the rule's; 0 when it gave none. */
int ncu_rule_latency(const cJSON *k, const char **name, double *v);

/* ncu_program.c: the program as a whole (levers.h). */

/* The GPU whose peaks the roofline uses: --gpu, the worker's, else the
 * one gpus.json lists for launch k's compute capability and SM count;
 * NULL: unknown. */
const cJSON *ncu_find_gpu(const cJSON *rec, const struct kf_fb *fb, const cJSON *k);
/* launch_bound and machinery from the timing run (timed) or the launches
 * profiled, then each ranked kernel as measured, the timeline and the
 * launch order's chains. */
void ncu_program(struct kf_fb *fb, const cJSON *rec, const cJSON *data,
    const struct kf_rank *rank, const struct ncu_timed *l, size_t nl, int timed);

#endif
