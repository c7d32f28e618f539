// kf examples: small CUDA kernels with different, known bottlenecks.
//
//   bench KERNEL      KERNEL: copy fma sgemm_naive sgemm_tiled transpose_naive
//                             transpose_tiled reduce_atomic softmax multi none
//   bench timed KERNEL  one warm-up launch, then the same launch again between
//                       cudaProfilerStart/Stop and inside an NVTX range "timed",
//                       for `ncu --profile-from-start off` or `--nvtx-include timed/`
//
// Each kernel runs a few times on random data (never zeros) and is checked
// against a CPU result where that is cheap, so a profile is of code that works.
// NVTX ranges name each phase, for `ncu --nvtx`.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
	fprintf(stderr, "bench: %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
	exit(3); } } while (0)
#define LAUNCHED() do { CK(cudaGetLastError()); CK(cudaDeviceSynchronize()); } while (0)

static int timed;	/* bench timed KERNEL */
// Launch once; in timed mode first a warm-up launch, then RESET (undo the warm-up's
// side effects) and the launch again between cudaProfilerStart/Stop in NVTX range "timed".
#define RUN(RESET, ...) do { \
	if (timed) { __VA_ARGS__; LAUNCHED(); RESET; CK(cudaDeviceSynchronize()); \
		CK(cudaProfilerStart()); nvtxRangePushA("timed"); } \
	__VA_ARGS__; LAUNCHED(); \
	if (timed) { nvtxRangePop(); CK(cudaProfilerStop()); } } while (0)

// Memory bound: one read and one write per element, 16-byte accesses.
__global__ void copy_k(const float4 *__restrict__ x, float4 *__restrict__ y, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		y[i] = x[i];
}

// Compute bound: four dependent FMA chains per thread, almost no memory.
__global__ void fma_k(float *y, int iters)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	float a = y[i], b = 1.0001f, c = 0.9999f, d = a * 0.5f;

	for (int k = 0; k < iters; k++) {
		a = fmaf(a, b, c); d = fmaf(d, c, b);
		b = fmaf(b, 0.5f, a); c = fmaf(c, 0.25f, d);
	}
	y[i] = a + b + c + d;
}

// Naive GEMM: every thread streams a row of A and a column of B from L1/L2.
__global__ void sgemm_naive_k(const float *A, const float *B, float *C, int n)
{
	int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
	float s = 0;

	if (r >= n || c >= n)
		return;
	for (int k = 0; k < n; k++)
		s += A[(size_t)r * n + k] * B[(size_t)k * n + c];
	C[(size_t)r * n + c] = s;
}

#define TILE 32
// Shared-memory tiled GEMM: reuse from shared memory, padded against bank conflicts.
__global__ void sgemm_tiled_k(const float *A, const float *B, float *C, int n)
{
	__shared__ float As[TILE][TILE + 1], Bs[TILE][TILE + 1];
	int r = blockIdx.y * TILE + threadIdx.y, c = blockIdx.x * TILE + threadIdx.x;
	float s = 0;

	for (int t = 0; t < n; t += TILE) {
		As[threadIdx.y][threadIdx.x] = A[(size_t)r * n + t + threadIdx.x];
		Bs[threadIdx.y][threadIdx.x] = B[(size_t)(t + threadIdx.y) * n + c];
		__syncthreads();
		for (int k = 0; k < TILE; k++)
			s += As[threadIdx.y][k] * Bs[k][threadIdx.x];
		__syncthreads();
	}
	C[(size_t)r * n + c] = s;
}

// Uncoalesced: reads rows, writes columns straight to global memory.
__global__ void transpose_naive_k(const float *in, float *out, int w)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;

	if (x < w && y < w)
		out[(size_t)x * w + y] = in[(size_t)y * w + x];
}

// Tiled transpose: a 32x33 shared-memory tile (padded against bank conflicts), so both
// the global loads and the global stores are coalesced; 32x8 threads, 4 rows each.
__global__ void transpose_tiled_k(const float *in, float *out, int w)
{
	__shared__ float tile[TILE][TILE + 1];
	int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;

	for (int j = 0; j < TILE; j += 8)
		if (x < w && y + j < w)
			tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * w + x];
	__syncthreads();
	x = blockIdx.y * TILE + threadIdx.x;
	y = blockIdx.x * TILE + threadIdx.y;
	for (int j = 0; j < TILE; j += 8)
		if (x < w && y + j < w)
			out[(size_t)(y + j) * w + x] = tile[threadIdx.x][threadIdx.y + j];
}

// Contended atomics: every thread adds into one of 8 counters.
__global__ void reduce_atomic_k(const float *x, float *acc, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;

	if (i < n)
		atomicAdd(&acc[i & 7], x[i]);
}

// Row softmax, one warp per row: latency bound for short rows.
__global__ void softmax_k(const float *x, float *y, int rows, int cols)
{
	int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
	const float *xr = x + (size_t)row * cols;
	float m = -INFINITY, s = 0;

	if (row >= rows)
		return;
	for (int c = lane; c < cols; c += 32)
		m = fmaxf(m, xr[c]);
	for (int o = 16; o > 0; o /= 2)
		m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, o));
	for (int c = lane; c < cols; c += 32)
		s += expf(xr[c] - m);
	for (int o = 16; o > 0; o /= 2)
		s += __shfl_xor_sync(0xffffffff, s, o);
	for (int c = lane; c < cols; c += 32)
		y[(size_t)row * cols + c] = expf(xr[c] - m) / s;
}

static float *dev_rand(size_t n, float **host)
{
	float *h = (float *)malloc(n * sizeof(float)), *d;

	for (size_t i = 0; i < n; i++)
		h[i] = (float)rand() / RAND_MAX - 0.5f;
	CK(cudaMalloc(&d, n * sizeof(float)));
	CK(cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice));
	if (host)
		*host = h;
	else
		free(h);
	return d;
}

static float *dev_poison(size_t n)
{
	float *d;

	CK(cudaMalloc(&d, n * sizeof(float)));
	CK(cudaMemset(d, 0xff, n * sizeof(float)));	/* NaN: unwritten shows */
	return d;
}

static void check(const char *what, double err)
{
	if (!(err < 1e-3)) {
		fprintf(stderr, "bench: %s: wrong result (relative error %g)\n", what, err);
		exit(4);
	}
}

static void copy(void)
{
	size_t n = 64u << 20;
	float *hx, *x = dev_rand(n, &hx), *y = dev_poison(n), *hy = (float *)malloc(n * 4);

	nvtxRangePushA("copy");
	for (int r = 0; r < 2; r++) {
		RUN((void)0, copy_k<<<132 * 8, 256>>>((const float4 *)x, (float4 *)y, n / 4));
	}
	nvtxRangePop();
	CK(cudaMemcpy(hy, y, n * 4, cudaMemcpyDeviceToHost));
	check("copy", memcmp(hx, hy, n * 4) ? 1.0 : 0.0);
	free(hx); free(hy); cudaFree(x); cudaFree(y);
}

static void fma(void)
{
	size_t n = 132 * 2048;
	float *y = dev_rand(n, NULL);

	nvtxRangePushA("fma");
	RUN((void)0, fma_k<<<n / 256, 256>>>(y, 4096));
	nvtxRangePop();
	cudaFree(y);
}

static void gemm(int tiled)
{
	int n = 2048;
	size_t nn = (size_t)n * n;
	float *hA, *hB, *A = dev_rand(nn, &hA), *B = dev_rand(nn, &hB), *C = dev_poison(nn);
	float *hC = (float *)malloc(nn * 4);
	double num = 0, den = 0;

	nvtxRangePushA(tiled ? "sgemm_tiled" : "sgemm_naive");
	if (tiled)
		RUN((void)0, sgemm_tiled_k<<<dim3(n / TILE, n / TILE), dim3(TILE, TILE)>>>(A, B, C, n));
	else
		RUN((void)0, sgemm_naive_k<<<dim3(n / 16, n / 16), dim3(16, 16)>>>(A, B, C, n));
	nvtxRangePop();
	CK(cudaMemcpy(hC, C, nn * 4, cudaMemcpyDeviceToHost));
	/* Check 64 sampled elements in double precision. */
	for (int t = 0; t < 64; t++) {
		int r = rand() % n, c = rand() % n;
		double s = 0;

		for (int k = 0; k < n; k++)
			s += (double)hA[(size_t)r * n + k] * hB[(size_t)k * n + c];
		num += (hC[(size_t)r * n + c] - s) * (hC[(size_t)r * n + c] - s);
		den += s * s;
	}
	check(tiled ? "sgemm_tiled" : "sgemm_naive", sqrt(num / den));
	free(hA); free(hB); free(hC); cudaFree(A); cudaFree(B); cudaFree(C);
}

static void transpose(int tiled)
{
	int w = 8192;
	size_t nn = (size_t)w * w;
	float *hx, *x = dev_rand(nn, &hx), *y = dev_poison(nn), *hy = (float *)malloc(nn * 4);
	int bad = 0;
	const char *name = tiled ? "transpose_tiled" : "transpose_naive";

	nvtxRangePushA(name);
	if (tiled)
		RUN((void)0, transpose_tiled_k<<<dim3(w / TILE, w / TILE), dim3(TILE, 8)>>>(x, y, w));
	else
		RUN((void)0, transpose_naive_k<<<dim3(w / 32, w / 8), dim3(32, 8)>>>(x, y, w));
	nvtxRangePop();
	CK(cudaMemcpy(hy, y, nn * 4, cudaMemcpyDeviceToHost));
	for (int t = 0; t < 4096; t++) {
		size_t r = rand() % w, c = rand() % w;

		bad += hy[c * w + r] != hx[r * w + c];
	}
	check(name, bad);
	free(hx); free(hy); cudaFree(x); cudaFree(y);
}

static void reduce(void)
{
	size_t n = 16u << 20;
	float *hx, *x = dev_rand(n, &hx), *acc, h[8];
	double want = 0, got = 0;

	CK(cudaMalloc(&acc, 8 * sizeof(float)));
	CK(cudaMemset(acc, 0, 8 * sizeof(float)));
	nvtxRangePushA("reduce_atomic");
	RUN(CK(cudaMemset(acc, 0, 8 * sizeof(float))),
	    reduce_atomic_k<<<(n + 255) / 256, 256>>>(x, acc, n));
	nvtxRangePop();
	CK(cudaMemcpy(h, acc, sizeof h, cudaMemcpyDeviceToHost));
	for (size_t i = 0; i < n; i++)
		want += hx[i];
	for (int i = 0; i < 8; i++)
		got += h[i];
	check("reduce_atomic", fabs(got - want) / (fabs(want) + n * 1e-3));
	free(hx); cudaFree(x); cudaFree(acc);
}

static void softmax(void)
{
	int rows = 65536, cols = 256;
	size_t nn = (size_t)rows * cols;
	float *hx, *x = dev_rand(nn, &hx), *y = dev_poison(nn), *hy = (float *)malloc(nn * 4);
	double s = 0;

	nvtxRangePushA("softmax");
	RUN((void)0, softmax_k<<<rows / 8, 256>>>(x, y, rows, cols));
	nvtxRangePop();
	CK(cudaMemcpy(hy, y, nn * 4, cudaMemcpyDeviceToHost));
	for (int c = 0; c < cols; c++)
		s += hy[c];
	check("softmax", fabs(s - 1.0));
	free(hx); free(hy); cudaFree(x); cudaFree(y);
}

int main(int argc, char **argv)
{
	const char *k = argc > 1 ? argv[1] : "";

	if (!strcmp(k, "timed")) {
		timed = 1;
		k = argc > 2 ? argv[2] : "";
	}
	srand(42);
	if (!strcmp(k, "copy")) copy();
	else if (!strcmp(k, "fma")) fma();
	else if (!strcmp(k, "sgemm_naive")) gemm(0);
	else if (!strcmp(k, "sgemm_tiled")) gemm(1);
	else if (!strcmp(k, "transpose_naive")) transpose(0);
	else if (!strcmp(k, "transpose_tiled")) transpose(1);
	else if (!strcmp(k, "reduce_atomic")) reduce();
	else if (!strcmp(k, "softmax")) softmax();
	else if (!strcmp(k, "multi")) { copy(); fma(); gemm(1); transpose(0); softmax(); }
	else if (!strcmp(k, "none")) { CK(cudaFree(0)); }
	else {
		fprintf(stderr, "usage: bench [timed] copy|fma|sgemm_naive|sgemm_tiled|transpose_naive|"
		    "transpose_tiled|reduce_atomic|softmax|multi|none\n");
		return 2;
	}
	printf("bench: %s done\n", k);
	return 0;
}
