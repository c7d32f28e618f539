/* A stand-in for CUDA's runtime, shared (tests/progs/rangeprog.c): the
 * profiler range's calls and the device's wait, each a success. */
int cudaProfilerStart(void);
int cudaProfilerStop(void);
int cudaDeviceSynchronize(void);

int
cudaProfilerStart(void)
{
	return 0;
}

int
cudaProfilerStop(void)
{
	return 0;
}

int
cudaDeviceSynchronize(void)
{
	return 0;
}
