// kf examples: kernels with one known defect each, and their fixes.
//
//   defects KERNEL     KERNEL: local local_fix fp64 fp64_fix barrier barrier_fix
//                              bank bank_fix strided strided_fix atomic atomic_fix
//                              diverge diverge_fix small small_fix
//
// Built with nvcc -O3 -arch=sm_90 -lineinfo, profiled through kf ncu; the
// tests (tests/ncu-defects.bats) check that each defect is kf's first finding,
// on its line, and that each fix makes that finding go away. Every kernel runs
// once on data that is not zeros, and its result is read back so the work is
// not optimised away.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
	fprintf(stderr, "defects: %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
	exit(3); } } while (0)

static const int N = 1 << 24;		// 16 Mi floats, 64 MiB: past the L2
static const int THREADS = 256;

// Defect: a per-thread array indexed by data lives in local memory (stack).
__global__ void local_k(const int *__restrict__ idx, float *__restrict__ y, int n)
{
	float buf[64];
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= n)
		return;
	for (int k = 0; k < 64; k++)
		buf[k] = (float)(i + k);
	float s = 0;
	for (int k = 0; k < 64; k++)
		s += buf[(idx[i] + k * 7) & 63];
	y[i] = s;
}

// Fix: the same sum without the array: its elements are computed in registers.
__global__ void local_fix_k(const int *__restrict__ idx, float *__restrict__ y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= n)
		return;
	float s = 0;
	int b = idx[i];
	for (int k = 0; k < 64; k++)
		s += (float)(i + ((b + k * 7) & 63));
	y[i] = s;
}

// Defect: a float recurrence with double constants: every step is fp64 math
// and F2F conversions.
__global__ void fp64_k(float *y, int iters)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float x = y[i];

	for (int k = 0; k < iters; k++)
		x = x * 0.999 + 0.5;
	y[i] = x;
}

// Fix: float literals keep it on the FP32 pipe.
__global__ void fp64_fix_k(float *y, int iters)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float x = y[i];

	for (int k = 0; k < iters; k++)
		x = x * 0.999f + 0.5f;
	y[i] = x;
}

// Defect: one warp of the block computes a value the others need; the other
// seven wait at __syncthreads for it, for every value.
__global__ void barrier_k(const float *__restrict__ x, float *__restrict__ y, int reps)
{
	__shared__ float s[2];
	int t = threadIdx.x;
	float acc = 0;

	for (int r = 0; r < reps; r++) {
		if (t < 32) {
			float v = x[(blockIdx.x * reps + r) * 32 + t];
			for (int k = 0; k < 64; k++)
				v = v * 0.999f + 0.001f;
			for (int o = 16; o > 0; o >>= 1)
				v += __shfl_down_sync(0xffffffffu, v, o);
			if (t == 0)
				s[r & 1] = v;
		}
		__syncthreads();
		acc += s[r & 1];
	}
	y[blockIdx.x * blockDim.x + t] = acc;
}

// Fix: the warps share the values out, each computing every eighth with
// warp shuffles into its own shared slot; one barrier for them all.
__global__ void barrier_fix_k(const float *__restrict__ x, float *__restrict__ y, int reps)
{
	__shared__ float s[64];
	int t = threadIdx.x, w = t >> 5;
	float acc = 0;

	for (int r = w; r < reps; r += THREADS / 32) {
		float v = x[(blockIdx.x * reps + r) * 32 + (t & 31)];
		for (int k = 0; k < 64; k++)
			v = v * 0.999f + 0.001f;
		for (int o = 16; o > 0; o >>= 1)
			v += __shfl_down_sync(0xffffffffu, v, o);
		if ((t & 31) == 0)
			s[r] = v;
	}
	__syncthreads();
	for (int r = 0; r < reps; r++)
		acc += s[r];
	y[blockIdx.x * blockDim.x + t] = acc;
}

#define TILE 32
// Defect: a transpose through a 32x32 shared tile read by column: 32-way
// bank conflicts. Repeated in the tile so that shared memory, not DRAM, is
// the cost.
__global__ void bank_k(const float *__restrict__ x, float *__restrict__ y, int n, int reps)
{
	__shared__ float tile[TILE][TILE];
	int bx = blockIdx.x * TILE, by = blockIdx.y * TILE;
	int tx = threadIdx.x, ty = threadIdx.y;
	float acc = 0;

	for (int j = 0; j < TILE; j += 8)
		tile[ty + j][tx] = x[(size_t)(by + ty + j) * n + bx + tx];
	__syncthreads();
	for (int r = 0; r < reps; r++)
		for (int j = 0; j < TILE; j += 8)
			acc += tile[tx][(ty + j + r) & (TILE - 1)];
	for (int j = 0; j < TILE; j += 8)
		y[(size_t)(bx + ty + j) * n + by + tx] = tile[tx][ty + j] + acc;
}

// Fix: one column of padding puts a column's elements in 32 different banks.
__global__ void bank_fix_k(const float *__restrict__ x, float *__restrict__ y, int n, int reps)
{
	__shared__ float tile[TILE][TILE + 1];
	int bx = blockIdx.x * TILE, by = blockIdx.y * TILE;
	int tx = threadIdx.x, ty = threadIdx.y;
	float acc = 0;

	for (int j = 0; j < TILE; j += 8)
		tile[ty + j][tx] = x[(size_t)(by + ty + j) * n + bx + tx];
	__syncthreads();
	for (int r = 0; r < reps; r++)
		for (int j = 0; j < TILE; j += 8)
			acc += tile[tx][(ty + j + r) & (TILE - 1)];
	for (int j = 0; j < TILE; j += 8)
		y[(size_t)(bx + ty + j) * n + by + tx] = tile[tx][ty + j] + acc;
}

// Defect: neighbouring threads read addresses 32 floats apart: each 4-byte
// load takes its own 32-byte sector.
__global__ void strided_k(const float *__restrict__ x, float *__restrict__ y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	int rows = n / 32;

	if (i >= n)
		return;
	y[i] = x[(size_t)(i % rows) * 32 + i / rows] * 2.0f;
}

// Fix: neighbouring threads read neighbouring floats.
__global__ void strided_fix_k(const float *__restrict__ x, float *__restrict__ y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= n)
		return;
	y[i] = x[i] * 2.0f;
}

// Defect: every thread adds into the same address.
__global__ void atomic_k(const float *__restrict__ x, float *sum, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		atomicAdd(sum, x[i]);
}

// Fix: reduce in the warp with shuffles, one atomic per warp.
__global__ void atomic_fix_k(const float *__restrict__ x, float *sum, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float v = i < n ? x[i] : 0;

	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, o);
	if ((threadIdx.x & 31) == 0)
		atomicAdd(sum, v);
}

// Defect: odd and even threads of a warp take different long paths, so the
// warp runs both, half its threads idle in each.
__global__ void diverge_k(float *y, int iters)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float a = y[i];

	if (threadIdx.x & 1) {
		for (int k = 0; k < iters; k++)
			a = a * 1.0001f + 0.0001f;
	} else {
		for (int k = 0; k < iters; k++)
			a = __sinf(a) * 0.5f + 0.5f;
	}
	y[i] = a;
}

// Fix: the same two paths chosen by warp, so every warp runs one.
__global__ void diverge_fix_k(float *y, int iters)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float a = y[i];

	if ((threadIdx.x >> 5) & 1) {
		for (int k = 0; k < iters; k++)
			a = a * 1.0001f + 0.0001f;
	} else {
		for (int k = 0; k < iters; k++)
			a = __sinf(a) * 0.5f + 0.5f;
	}
	y[i] = a;
}

// Defect: 16 blocks for a GPU of 132 multiprocessors: most of it idles.
// Fix: the same work (n elements, iters steps each) over enough blocks.
__global__ void small_k(float *y, int n, int iters)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
		float a = y[i];
		for (int k = 0; k < iters; k++)
			a = a * 0.9999f + 0.0001f;
		y[i] = a;
	}
}

static float *
dev_floats(size_t n)
{
	float *h = (float *)malloc(n * sizeof *h), *d;

	for (size_t i = 0; i < n; i++)
		h[i] = 0.5f + (float)(i % 1000) / 1000.0f;
	CK(cudaMalloc(&d, n * sizeof *d));
	CK(cudaMemcpy(d, h, n * sizeof *d, cudaMemcpyHostToDevice));
	free(h);
	return d;
}

static int *
dev_ints(size_t n)
{
	int *h = (int *)malloc(n * sizeof *h), *d;

	for (size_t i = 0; i < n; i++)
		h[i] = (int)((i * 2654435761u) >> 7);
	CK(cudaMalloc(&d, n * sizeof *d));
	CK(cudaMemcpy(d, h, n * sizeof *d, cudaMemcpyHostToDevice));
	free(h);
	return d;
}

// Read a few results back: the kernel ran and its work was used.
static void
done(const char *k, const float *d, size_t n)
{
	float h[4] = { 0 };

	CK(cudaGetLastError());
	CK(cudaDeviceSynchronize());
	CK(cudaMemcpy(h, d, (n < 4 ? n : 4) * sizeof *h, cudaMemcpyDeviceToHost));
	printf("defects: %s done (%g)\n", k, (double)h[0]);
}

int
main(int argc, char **argv)
{
	const char *k = argc > 1 ? argv[1] : "";
	int blocks = N / THREADS;

	if (!strcmp(k, "local") || !strcmp(k, "local_fix")) {
		int *idx = dev_ints(N);
		float *y = dev_floats(N);
		if (k[5])
			local_fix_k<<<blocks, THREADS>>>(idx, y, N);
		else
			local_k<<<blocks, THREADS>>>(idx, y, N);
		done(k, y, N);
	} else if (!strcmp(k, "fp64") || !strcmp(k, "fp64_fix")) {
		float *y = dev_floats(N / 4);
		if (k[4])
			fp64_fix_k<<<blocks / 4, THREADS>>>(y, 256);
		else
			fp64_k<<<blocks / 4, THREADS>>>(y, 256);
		done(k, y, N / 4);
	} else if (!strcmp(k, "barrier") || !strcmp(k, "barrier_fix")) {
		int reps = 64, nb = 4096;
		float *x = dev_floats((size_t)nb * reps * 32), *y = dev_floats((size_t)nb * THREADS);
		if (k[7])
			barrier_fix_k<<<nb, THREADS>>>(x, y, reps);
		else
			barrier_k<<<nb, THREADS>>>(x, y, reps);
		done(k, y, 1);
	} else if (!strcmp(k, "bank") || !strcmp(k, "bank_fix")) {
		int n = 4096;
		float *x = dev_floats((size_t)n * n), *y = dev_floats((size_t)n * n);
		dim3 g(n / TILE, n / TILE), b(TILE, 8);
		if (k[4])
			bank_fix_k<<<g, b>>>(x, y, n, 16);
		else
			bank_k<<<g, b>>>(x, y, n, 16);
		done(k, y, (size_t)n * n);
	} else if (!strcmp(k, "strided") || !strcmp(k, "strided_fix")) {
		float *x = dev_floats(N), *y = dev_floats(N);
		if (k[7])
			strided_fix_k<<<blocks, THREADS>>>(x, y, N);
		else
			strided_k<<<blocks, THREADS>>>(x, y, N);
		done(k, y, N);
	} else if (!strcmp(k, "atomic") || !strcmp(k, "atomic_fix")) {
		float *x = dev_floats(N / 4), *s = dev_floats(1);
		if (k[6])
			atomic_fix_k<<<blocks / 4, THREADS>>>(x, s, N / 4);
		else
			atomic_k<<<blocks / 4, THREADS>>>(x, s, N / 4);
		done(k, s, 1);
	} else if (!strcmp(k, "diverge") || !strcmp(k, "diverge_fix")) {
		float *y = dev_floats(N / 4);
		if (k[7])
			diverge_fix_k<<<blocks / 4, THREADS>>>(y, 256);
		else
			diverge_k<<<blocks / 4, THREADS>>>(y, 256);
		done(k, y, N / 4);
	} else if (!strcmp(k, "small") || !strcmp(k, "small_fix")) {
		int n = 1 << 20;
		float *y = dev_floats(n);
		if (k[5])
			small_k<<<n / THREADS, THREADS>>>(y, n, 2048);
		else
			small_k<<<16, THREADS>>>(y, n, 2048);
		done(k, y, n);
	} else {
		fprintf(stderr, "usage: defects KERNEL (local fp64 barrier bank strided atomic "
		    "diverge small, each also as KERNEL_fix)\n");
		return 2;
	}
	return 0;
}
