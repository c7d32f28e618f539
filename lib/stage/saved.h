/* kf: saved profiles, read again: a run directory of kf-mcp's profile
 * (RUN/kf.json, the final record, beside the job folder RUN/ID), a job
 * folder (kf's kf-out/ID, holding pass folders PROFILER.NNN), or one pass
 * folder (ncu.000), turned into the records kf-read re-reads them from
 * (DESIGN.md: a record with id, profiler, pass and output_dir).
 *
 * Ownership: *id and what is added to recs and err are the caller's. */
#ifndef KF_SAVED_H
#define KF_SAVED_H

#include <cJSON.h>

#include "buf.h"

/* The final record's name in a run directory. */
#define KF_SAVED_RECORD "kf.json"

/* kf-read's records for the saved profile at dir, one a line appended to
 * recs: id, profiler, pass, output_dir (absolute where dir is) and worker.
 * *id NULL: set to the saved record's id, else the job folder's name;
 * worker NULL: the saved record's, if any. 0, or -1 with the reason in
 * err. */
int kf_saved_replay(const char *dir, char **id, const cJSON *worker,
    struct buf *recs, struct buf *err);

#endif
