/* A library that starts and stops the profiler range through CUDA's
 * runtime, loaded by tests/progs/rangeprog.c with RTLD_LOCAL as Python
 * loads an extension (PyTorch's, CuPy's): the runtime is then in no
 * global scope, where RTLD_NEXT would find it. */
int cudaProfilerStart(void);
int cudaProfilerStop(void);
int range_start(void);
int range_stop(void);

int
range_start(void)
{
	return cudaProfilerStart();
}

int
range_stop(void)
{
	return cudaProfilerStop();
}
