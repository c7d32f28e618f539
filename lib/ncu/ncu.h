/* kf: the Nsight Compute path: names shared by its reader and feedback,
 * and its functions (the descriptor kf_ncu is in ncu_desc.c). */
#ifndef KF_NCU_H
#define KF_NCU_H

#include "profiler.h"

kf_wrap_fn ncu_wrap;		/* ncu.c */
kf_read_fn ncu_read;		/* ncu.c */
kf_feedback_fn ncu_feedback;	/* ncu_feedback.c */

/* Section display names, as metric rows carry them. */
#define NCU_SOL "GPU Speed Of Light Throughput"
#define NCU_LAUNCH "Launch Statistics"
#define NCU_OCCUPANCY "Occupancy"

#endif
