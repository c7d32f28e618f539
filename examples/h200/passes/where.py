"""The elementwise kernel of prog.cu (y = a * x + y over 2^LOG2N floats)
from a Python process, REPS launches inside the profiler range, for
where.sh: what a replay pass costs in a framework's process.
Usage: where.py torch|cupy REPS [EXTRA_GB] [LOG2N]"""
import sys

kind, reps = sys.argv[1], int(sys.argv[2])
extra = int(sys.argv[3]) if len(sys.argv) > 3 else 0
n = 1 << (int(sys.argv[4]) if len(sys.argv) > 4 else 26)
if kind == "torch":
    import torch
    big = torch.ones(extra << 28, device="cuda") if extra else None  # 4-byte floats
    x = torch.zeros(n, device="cuda")
    y = torch.zeros(n, device="cuda")
    torch.cuda.synchronize()
    torch.cuda.profiler.start()
    for _ in range(reps):
        y.add_(x, alpha=2.0)
    torch.cuda.synchronize()
    torch.cuda.profiler.stop()
else:
    import cupy
    big = cupy.ones(extra << 28, dtype=cupy.float32) if extra else None
    k = cupy.ElementwiseKernel("float32 x", "float32 y", "y = 2.0f * x + y", "scale_add")
    x = cupy.zeros(n, dtype=cupy.float32)
    y = cupy.zeros(n, dtype=cupy.float32)
    cupy.cuda.Device().synchronize()
    cupy.cuda.runtime.profilerStart()
    for _ in range(reps):
        k(x, y)
    cupy.cuda.Device().synchronize()
    cupy.cuda.runtime.profilerStop()
print("done", kind, reps, extra, n)
