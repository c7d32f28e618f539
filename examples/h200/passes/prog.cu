// Three kernels for counting ncu's replay passes: a cuBLAS bf16 GEMM
// (tensor cores), an elementwise kernel and a block reduction, each
// launched REPS times (argv[1], default 1), in that order. argv[2], where
// given: GB of device memory to allocate and set beside them first (never
// read by the kernels); argv[3]: log2 of the elementwise kernel's floats
// (default 26). For where.sh: what a replay pass's cost follows.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cstdio>
#include <cstdlib>

__global__ void scale_add(float *y, const float *x, float a, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = a * x[i] + y[i];
}

__global__ void block_sum(const float *x, float *out, size_t n)
{
	__shared__ float s[256];
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	s[threadIdx.x] = i < n ? x[i] : 0.f;
	__syncthreads();
	for (int k = blockDim.x / 2; k > 0; k >>= 1) {
		if (threadIdx.x < k)
			s[threadIdx.x] += s[threadIdx.x + k];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		atomicAdd(out, s[0]);
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 1, m = 4096;
	size_t extra = argc > 2 ? (size_t)atol(argv[2]) << 30 : 0;
	size_t n = (size_t)1 << (argc > 3 ? atoi(argv[3]) : 26);
	void *big = NULL;
	__nv_bfloat16 *a, *b, *c;
	float *x, *y, *out, one = 1.f, zero = 0.f;
	cublasHandle_t h;

	if (extra && (cudaMalloc(&big, extra) != cudaSuccess || cudaMemset(big, 1, extra) != cudaSuccess))
		return fprintf(stderr, "cannot allocate %zu bytes\n", extra), 1;
	cudaMalloc(&a, (size_t)m * m * 2);
	cudaMalloc(&b, (size_t)m * m * 2);
	cudaMalloc(&c, (size_t)m * m * 2);
	cudaMalloc(&x, n * 4);
	cudaMalloc(&y, n * 4);
	cudaMalloc(&out, 4);
	cudaMemset(a, 0, (size_t)m * m * 2);
	cudaMemset(b, 0, (size_t)m * m * 2);
	cudaMemset(x, 0, n * 4);
	cudaMemset(y, 0, n * 4);
	cublasCreate(&h);
	for (int r = 0; r < reps; r++)
		cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, m, m, &one, a, CUDA_R_16BF, m,
		    b, CUDA_R_16BF, m, &zero, c, CUDA_R_16BF, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
	for (int r = 0; r < reps; r++)
		scale_add<<<(unsigned)((n + 255) / 256), 256>>>(y, x, 2.f, n);
	for (int r = 0; r < reps; r++)
		block_sum<<<(unsigned)((n + 255) / 256), 256>>>(x, out, n);
	cudaDeviceSynchronize();
	printf("done %s\n", cudaGetErrorString(cudaGetLastError()));
	return 0;
}
