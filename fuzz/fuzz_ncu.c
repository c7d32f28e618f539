/* libFuzzer target: Nsight Compute's CSV (ncu_report.csv) through ncu_read,
 * then kf-collate's and kf-feedback's code on the record it writes. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "profiler.h"
#include "record.h"

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	cJSON *rec;
	char *out;
	size_t len;

	fz_init("kf-read");
	fz_put("ncu_report.csv", d, n);
	rec = fz_record("ncu");
	fz_begin();
	ncu_read(rec, fz_dir());
	out = fz_end(&len);
	/* One record in, one record out, whole. */
	if (len == 0 || out[len - 1] != '\n' || memchr(out, '\n', len) != out + len - 1)
		abort();
	fz_pipeline(out, len, 1, (int)(n & 1));
	free(out);
	cJSON_Delete(rec);
	return 0;
}
