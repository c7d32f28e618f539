# Matrix products through PyTorch (cuBLAS) for the tensor-core roofline:
#   python3 gemm.py bf16     8192x8192x8192 in bf16 (tensor cores, HGMMA)
#   python3 gemm.py fp8      the same in float8_e4m3fn, torch._scaled_mm (QGMMA)
#   python3 gemm.py tf32     fp32 inputs on the tensor cores as tf32
#   python3 gemm.py fp32     fp32 on the FMA pipes (tf32 off)
#   python3 gemm.py decode   16 rows times a 8192x28672 bf16 weight: the
#                            shape of one decoding step, memory-bound
# Profile with ncu --profile-from-start off: only the product between
# cudaProfilerStart and Stop (after a warm-up product) is profiled. It prints
# M N K, the FLOPs (2*M*N*K) and the time of ten products by CUDA events,
# measured outside the profiled range.
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "bf16"
torch.manual_seed(0)
dev = "cuda"
M = N = K = 8192
if mode == "decode":
    M, N, K = 16, 28672, 8192

if mode == "fp8":
    a = torch.randn(M, K, device=dev).to(torch.float8_e4m3fn)
    b = torch.randn(N, K, device=dev).to(torch.float8_e4m3fn).t()
    one = torch.tensor(1.0, device=dev)

    def op():
        return torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
elif mode in ("fp32", "tf32"):
    torch.backends.cuda.matmul.allow_tf32 = mode == "tf32"
    a = torch.randn(M, K, device=dev)
    b = torch.randn(K, N, device=dev)

    def op():
        return a @ b
else:
    a = torch.randn(M, K, device=dev, dtype=torch.bfloat16)
    w = torch.randn(N, K, device=dev, dtype=torch.bfloat16)

    def op():
        return torch.nn.functional.linear(a, w)

op()
torch.cuda.synchronize()
torch.cuda.profiler.start()
y = op()
torch.cuda.synchronize()
torch.cuda.profiler.stop()

t0, t1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
t0.record()
for _ in range(10):
    op()
t1.record()
torch.cuda.synchronize()
ms = t0.elapsed_time(t1) / 10
flops = 2.0 * M * N * K
print(f"gemm {mode}: M={M} N={N} K={K} flops={flops:.6g} events_ms={ms:.4f} "
      f"tflops={flops / ms / 1e9:.1f} out={tuple(y.shape)}", flush=True)
