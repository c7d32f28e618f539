/* libFuzzer target: ncu's source page (ncu_source.csv) beside a fixed details page,
 * through ncu_read, then kf-collate's and kf-feedback's code on the record
 * it writes. */
#include <string.h>

#include "fuzz.h"
#include "ncu_details.h"

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	fz_init("kf-read");
	fz_put("ncu_report.csv", (const uint8_t *)fz_ncu_details, strlen(fz_ncu_details));
	fz_put("ncu_source.csv", d, n);
	fz_read("ncu", 1, (int)(n & 1));
	return 0;
}
