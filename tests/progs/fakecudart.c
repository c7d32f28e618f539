/* A stand-in for CUDA's runtime, shared (tests/progs/rangeprog.c): the
 * profiler range's calls and the device's wait, each a success that says
 * it ran ("cudart: NAME" on standard output). */
#include <stdio.h>

int cudaProfilerStart(void);
int cudaProfilerStop(void);
int cudaDeviceSynchronize(void);

static int
said(const char *name)
{
	printf("cudart: %s\n", name);
	fflush(stdout);
	return 0;
}

int
cudaProfilerStart(void)
{
	return said("cudaProfilerStart");
}

int
cudaProfilerStop(void)
{
	return said("cudaProfilerStop");
}

int
cudaDeviceSynchronize(void)
{
	return said("cudaDeviceSynchronize");
}
