/* kf: the Intel VTune path's functions (the descriptor kf_vtune is in
 * vtune_desc.c). */
#ifndef KF_VTUNE_H
#define KF_VTUNE_H

#include "profiler.h"

/* The files in a pass's output_dir: the collection, and the report read. */
#define VTUNE_REPORT_FILE "vtune_hotspots_pass0.tsv"
#define VTUNE_RESULT_DIR "vtune_result"

kf_wrap_fn vtune_wrap;			/* vtune_wrap.c */
kf_read_fn vtune_read;			/* vtune_read.c */
kf_collate_fn vtune_collate;		/* vtune_collate.c */
kf_feedback_fn vtune_feedback;		/* vtune_feedback.c */

#endif
