/* kf: the values the shell completes (PROG --complete, core/opt.h), from
 * the tables the programs check values against: the profilers, the
 * languages, the architectures, the GPUs of share/kf/gpus.json. */
#ifndef KF_COMPLETE_H
#define KF_COMPLETE_H

#include "opt.h"

void kf_say_profilers(kf_say_fn *say);
void kf_say_languages(kf_say_fn *say);
void kf_say_archs(kf_say_fn *say);
/* Each GPU's one-word names and aliases ("H200"), or its name when it has
 * none. */
void kf_say_gpus(kf_say_fn *say);
/* After PROFILER (kf-wrap, kf): each profiler's own kf-wrap options and
 * the options of the profiler program with the values it takes, as lines
 * of WHERE the profiler's name. */
void kf_complete_profilers(void);

#endif
