/* kf: the Intel VTune path's functions (the descriptor kf_vtune is in
 * vtune_desc.c). */
#ifndef KF_VTUNE_H
#define KF_VTUNE_H

#include "profiler.h"

kf_wrap_fn vtune_wrap;			/* vtune.c */
kf_read_fn vtune_read;			/* vtune.c */
kf_collate_fn vtune_collate;		/* vtune.c */
kf_feedback_fn vtune_feedback;		/* vtune_feedback.c */

#endif
