// kf-mcp's H200 check: one copy, written two ways. "naive" reads its input
// transposed (each warp's 32 loads touch 32 rows: uncoalesced), "coalesced"
// reads it in order; both move the same bytes.
// usage: copy naive|coalesced
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

__global__ void copy_naive(const float *in, float *out, size_t rows, size_t cols)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;

	if (i < rows * cols)
		out[i] = in[(i % rows) * cols + i / rows];
}

__global__ void copy_coalesced(const float *in, float *out, size_t rows, size_t cols)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;

	if (i < rows * cols)
		out[i] = in[i];
}

int main(int argc, char **argv)
{
	const size_t rows = 4096, cols = 4096, n = rows * cols;
	int naive = argc > 1 && strcmp(argv[1], "naive") == 0;
	float *in, *out;

	if (argc != 2 || (!naive && strcmp(argv[1], "coalesced") != 0)) {
		fprintf(stderr, "usage: copy naive|coalesced\n");
		return 2;
	}
	if (cudaMalloc(&in, n * sizeof *in) != cudaSuccess ||
	    cudaMalloc(&out, n * sizeof *out) != cudaSuccess) {
		fprintf(stderr, "copy: cudaMalloc failed\n");
		return 1;
	}
	cudaMemset(in, 0, n * sizeof *in);
	for (int r = 0; r < 3; r++) {
		if (naive)
			copy_naive<<<(n + 255) / 256, 256>>>(in, out, rows, cols);
		else
			copy_coalesced<<<(n + 255) / 256, 256>>>(in, out, rows, cols);
	}
	if (cudaDeviceSynchronize() != cudaSuccess) {
		fprintf(stderr, "copy: %s\n", cudaGetErrorString(cudaGetLastError()));
		return 1;
	}
	printf("copy %s: %zu floats, 3 times\n", argv[1], n);
	return 0;
}
