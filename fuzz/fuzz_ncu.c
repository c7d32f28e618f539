/* libFuzzer target: Nsight Compute's CSV (ncu_report.csv) through ncu_read,
 * then kf-collate's and kf-feedback's code on the record it writes. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	fz_init("kf-read");
	fz_put("ncu_report.csv", d, n);
	fz_read("ncu", 1, (int)(n & 1));
	return 0;
}
