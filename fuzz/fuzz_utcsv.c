/* libFuzzer target: a unitrace metrics file through unitrace_csv_read alone (the
 * table reader, faster than the whole directory in fuzz_unitrace). */
#include <stdlib.h>

#include "fuzz.h"
#include "mem.h"
#include "record.h"
#include "unitrace.h"

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	cJSON *sections = cJSON_CreateArray(), *warnings = cJSON_CreateArray(), *s;
	struct unitrace_csv_info info;
	char *path;

	fz_init("kf-read");
	fz_put("trace.metrics.1", d, n);
	path = xasprintf("%s/trace.metrics.1", fz_dir());
	if (unitrace_csv_read(path, sections, warnings, &info) != 0)
		abort();
	/* Every row as long as its header. */
	cJSON_ArrayForEach(s, sections) {
		int ncol = cJSON_GetArraySize(kf_arr(s, "columns"));
		const cJSON *row;

		cJSON_ArrayForEach(row, kf_arr(s, "rows"))
			if (cJSON_GetArraySize(row) != ncol)
				abort();
		(void)unitrace_group_of(kf_arr(s, "columns"));
	}
	kf_emit(sections);
	kf_emit(warnings);
	cJSON_Delete(sections);
	cJSON_Delete(warnings);
	free(path);
	return 0;
}
