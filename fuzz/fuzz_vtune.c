/* libFuzzer target: VTune's hotspots report (vtune_hotspots_pass0.tsv)
 * through vtune_read, then kf-collate's and kf-feedback's code. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	fz_init("kf-read");
	fz_put("vtune_hotspots_pass0.tsv", d, n);
	fz_read("vtune", 1, (int)(n & 1));
	return 0;
}
