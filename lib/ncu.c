/* STUB: replaced by the real implementation. */
#include "profiler.h"
#include "record.h"

int ncu_wrap(cJSON *rec, char *const *cmd, int ncmd, const struct kf_wrap_opts *o) { (void)cmd; (void)ncmd; (void)o; kf_fail(rec, "unsupported", "ncu_wrap: not built yet"); return -1; }
void ncu_read(cJSON *rec, const char *dir) { (void)dir; kf_fail(rec, "unsupported", "ncu_read: not built yet"); kf_emit(rec); }
