/* kf: what kf-run learns of the machine it runs on (the record's "worker").
 *
 * Ownership: kf_worker_info() returns a new cJSON object the caller owns. */
#ifndef KF_WORKER_H
#define KF_WORKER_H

#include <cJSON.h>

/* hostname, cpu_info ("model name" of /proc/cpuinfo), cpu_count,
 * memory_kb, gpu_name, gpus (every GPU's name; an Intel one without lspci:
 * its PCI device id), gpu_vendor, and
 * compute_capability (NVIDIA) or device_id (Intel, the PCI device id).
 * GPUs come from nvidia-smi (run without a shell, 10 s at most), else from
 * the DRM devices in sysfs with lspci for the name. What cannot be found is
 * null; nothing here is an error. Runs programs: call it before the loop
 * that reaps children, or between jobs. $KF_SYSFS replaces /sys (tests). */
cJSON *kf_worker_info(void);
/* A copy of worker for a job pinned to gpu (--gpus; NULL: none): its
 * "gpu_name" is that GPU's, where gpu is an index into "gpus". */
cJSON *kf_worker_for_gpu(const cJSON *worker, const char *gpu);

#endif
