/* kf: reading unitrace's Chrome trace (the timeline), event by event.
 *
 * The trace can be cut off by a crash (no closing "]}"), can hold NUL bytes
 * and unescaped quotes in names: each event is parsed on its own, and an
 * event cJSON cannot parse is salvaged field by field. Only what kf needs is
 * kept. Ownership: the returned tree belongs to the caller. */
#ifndef KF_CHROME_H
#define KF_CHROME_H

#include <cJSON.h>

#include "buf.h"

/* The prefix of the ITT tasks that mark a benchmark's timed loop. */
#define KF_ITT_RUN_LOOP "ittapi::model run loop"

/* Pick the timeline among the *.json files of dir as the reference does: a
 * "*python*.json" first, else one that mentions "model run loop", else any
 * (each time the first in name order). NULL when there is none. *others
 * gets how many JSON files were passed over. */
char *kf_chrome_pick(const char *dir, int *others);

/* Parse path into
 *   {"file", "truncated": bool, "nul_bytes", "events_read", "salvaged",
 *    "devices": [names],
 *    "kernels": [{"id", "name", "ts", "dur"}],      device kernel events
 *    "itt": [{"name", "label", "ts", "dur"}]}         model run loop tasks
 * ts and dur in microseconds as written. NULL and errno, msg left as it
 * is, when the file cannot be opened; NULL with a message added to msg when
 * it cannot be read through or is not a Chrome trace at all. */
cJSON *kf_chrome_read(const char *path, struct buf *msg);

#endif
