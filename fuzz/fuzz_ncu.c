/* libFuzzer target: Nsight Compute's CSV (ncu_report.csv) through ncu_read,
 * then kf-collate's and kf-feedback's code on the record it writes. Every
 * other input is also the --top timing run's CSV (ncu_timing.csv), read into
 * data.timing and ranked by the feedback. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	fz_init("kf-read");
	fz_put("ncu_report.csv", d, n);
	if (n & 2)
		fz_put("ncu_timing.csv", d, n);
	else
		fz_rm("ncu_timing.csv");
	fz_read("ncu", 1, (int)(n & 1));
	return 0;
}
