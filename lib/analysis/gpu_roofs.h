/* kf: hardware roofs (peak bandwidths and instruction rates) as data.
 *
 * The GPUs come from share/kf/gpus.json (kf_data_file) and from an extra
 * file given with kf-feedback --gpus-file, whose GPUs are checked first.
 * Ownership: the database is loaded once per process and owned here; the
 * cJSON objects returned point into it and must not be freed. */
#ifndef KF_GPU_ROOFS_H
#define KF_GPU_ROOFS_H

#include <cJSON.h>

#include "buf.h"

/* The GPU called name (exact name or alias, else a "match" substring;
 * case and runs of blanks ignored), or NULL with why added to msg (when not
 * NULL): an unknown name with the known ones, or a file that cannot be
 * read. A NULL or empty name finds no GPU and adds nothing when the table
 * can be read. */
const cJSON *kf_gpu_roofs_find(const char *name, const char *gpus_file, struct buf *msg);

/* The GPU for a record: --gpu NAME when given, else worker.cpu_info, else
 * worker.gpu_name, else (only when the worker names no GPU) the device names
 * the profiler saw (devices, a JSON array of strings, may be NULL). *via
 * says which ("--gpu", "cpu_info", "gpu_name", "device"); on NULL, msg gets
 * why as from kf_gpu_roofs_find, for the first name tried. */
const cJSON *kf_gpu_roofs_for(const cJSON *rec, const cJSON *devices, const char *opt_gpu,
    const char *gpus_file, const char **via, const char **name, struct buf *msg);

/* The first GPU whose "arch" matches a compute capability ("9.0") and SM
 * count, for profilers that report those and not the GPU's name; NULL
 * when none does. */
const cJSON *kf_gpu_roofs_find_arch(const char *cc, double sm_count, const char *gpus_file);
/* Every GPU known (gpus_file's first), a JSON array owned here; NULL when
 * the table cannot be read. */
const cJSON *kf_gpu_roofs_all(const char *gpus_file);

/* A roof's value (NAN when the GPU has none) and its source. */
double kf_gpu_roof(const cJSON *gpu, const char *metric);
const char *kf_gpu_roof_source(const cJSON *gpu, const char *metric);

#endif
