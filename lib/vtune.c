/* STUB: replaced by the real implementation. */
#include "profiler.h"
#include "record.h"

int vtune_wrap(cJSON *rec, char *const *cmd, int ncmd, const struct kf_wrap_opts *o) { (void)cmd; (void)ncmd; (void)o; kf_fail(rec, "unsupported", "vtune_wrap: not built yet"); return -1; }
void vtune_read(cJSON *rec, const char *dir) { (void)dir; kf_fail(rec, "unsupported", "vtune_read: not built yet"); kf_emit(rec); }
cJSON *vtune_collate(cJSON *out, cJSON *const *passes, int n) { (void)passes; (void)n; kf_fail(out, "unsupported", "vtune_collate: not built yet"); return NULL; }
