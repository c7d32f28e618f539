/* kf: how a run ended when it did not end by itself (runend.c), said the
 * same way by kf-read's errors and kf-feedback's text. */
#ifndef KF_RUNEND_H
#define KF_RUNEND_H

#include <cJSON.h>

/* How a run ended when it did not end by itself ("kf-run stopped it at its
 * inactivity limit of 600 s ... after 601 s"), from a "run" object; NULL
 * when it ended by itself. A new string. */
char *kf_run_stopped(const cJSON *run);
/* kf-read: when rec's run was stopped, fail rec (kind "stopped") naming
 * that as the cause of what is missing; 1 if it did. */
int kf_fail_if_stopped(cJSON *rec, const char *profiler, const char *what);

#endif
