/* libFuzzer target: a kf trace file (trace.<pid>.kft) through trace_read,
 * then kf-collate's and kf-feedback's code; odd inputs also as the second
 * of two processes beside a fixed whole one. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

static const char other[] = "#kftrace\t1\tpid=2\tppid=1\tcupti=130001\tt0=1000\tcmd=x\n"
    "N\t1\t_Z1fv\tf()\nK\t1\t10\t5\t0\t1\t7\t1\t1\t1\t32\t1\t1\t8\t0\t0\t0\t0\t1\n"
    "E\t100\tend=exit\tsignal=0\tkernels=1\n";

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	fz_init("kf-read");
	fz_put("trace.1.kft", d, n);
	if (n & 1)
		fz_put("trace.2.kft", (const uint8_t *)other, sizeof other - 1);
	else
		fz_rm("trace.2.kft");
	fz_read("trace", 1, (int)(n & 1));
	return 0;
}
