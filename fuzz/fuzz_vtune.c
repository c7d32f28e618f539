/* libFuzzer target: VTune's hotspots report (vtune_hotspots_pass0.tsv)
 * through vtune_read, then kf-collate's and kf-feedback's code. */
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
	fz_put("vtune_hotspots_pass0.tsv", d, n);
	rec = fz_record("vtune");
	fz_begin();
	vtune_read(rec, fz_dir());
	out = fz_end(&len);
	if (len == 0 || out[len - 1] != '\n' || memchr(out, '\n', len) != out + len - 1)
		abort();
	fz_pipeline(out, len, 1, (int)(n & 1));
	free(out);
	cJSON_Delete(rec);
	return 0;
}
