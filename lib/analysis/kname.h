/* kf: kernel names as a person reads them (kname.c). Every string returned
 * is new; the caller frees it. */
#ifndef KF_KNAME_H
#define KF_KNAME_H

#include <stddef.h>

/* A readable kernel name: no return type, no "(anonymous namespace)::",
 * no [SIMD...] launch suffix, template and parameter lists longer than
 * limit shortened to "<...>"/"(...)", still identifiable. */
char *kf_kernel_short(const char *name, size_t limit);
/* Shown names for n distinct kernel names: each kf_kernel_short(limit),
 * lengthened where two would look alike, so that no two are the same. */
char **kf_kernel_shorts(const char *const *names, size_t n, size_t limit);
/* The kernel name without a trailing unitrace "[SIMD.. {..} {..}]" suffix. */
char *kf_kernel_strip_suffix(const char *name);

#endif
