"""One PyTorch op, profiled alone: python3 ops.py OP.

Builds the op's inputs on the GPU, runs it three times (warm-up: cuBLAS,
cuDNN and the caching allocator settle), then runs it once more between
cudaProfilerStart() and cudaProfilerStop(), so that ncu
--profile-from-start off profiles that call only. Prints STAMP lines
(imports done, inputs built, profiled call done: epoch seconds) for
run.sh's time breakdown.
"""
import sys
import time

t0 = time.time()
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

print(f"STAMP imported {time.time():.3f}", flush=True)
dev = "cuda"
f32, bf16 = torch.float32, torch.bfloat16


def r(*shape, dtype=f32):
    return torch.randn(*shape, device=dev, dtype=dtype)


def make(op):
    if op in ("gelu", "relu", "silu", "add", "mul"):
        a, b = r(1 << 24), r(1 << 24)
        return {"gelu": lambda: F.gelu(a), "relu": lambda: F.relu(a), "silu": lambda: F.silu(a),
                "add": lambda: a + b, "mul": lambda: a * b}[op]
    if op == "softmax":
        a = r(4096, 4096)
        return lambda: torch.softmax(a, dim=-1)
    if op == "layernorm":
        a, w, b = r(8192, 1024), r(1024), r(1024)
        return lambda: F.layer_norm(a, (1024,), w, b)
    if op == "rmsnorm":
        a, w = r(8192, 1024), r(1024)
        return lambda: F.rms_norm(a, (1024,), w)
    if op == "sum":
        a = r(1 << 26)
        return lambda: a.sum()
    if op == "sum_rows":
        a = r(8192, 4096)
        return lambda: a.sum(dim=1)
    if op == "gemm_fp32":
        a, b = r(2048, 2048), r(2048, 2048)
        return lambda: a @ b
    if op == "gemm_bf16":
        a, b = r(4096, 4096, dtype=bf16), r(4096, 4096, dtype=bf16)
        return lambda: a @ b
    if op == "matvec":
        a, x = r(8192, 8192), r(8192)
        return lambda: a @ x
    if op == "conv2d":
        x, w = r(16, 64, 56, 56), r(64, 64, 3, 3)
        return lambda: F.conv2d(x, w, padding=1)
    if op == "conv2d_bf16":
        x, w = r(16, 64, 56, 56, dtype=bf16), r(128, 64, 3, 3, dtype=bf16)
        return lambda: F.conv2d(x, w, padding=1)
    if op == "sdpa":
        q, k, v = (r(8, 16, 1024, 64, dtype=bf16) for _ in range(3))
        return lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True)
    if op == "index_add":
        a, src = r(65536, 128), r(1 << 20, 128)
        idx = torch.randint(0, 65536, (1 << 20,), device=dev)
        return lambda: a.index_add_(0, idx, src)
    if op == "transpose":
        a = r(8192, 8192)
        return lambda: a.t().contiguous()
    if op == "cumsum":
        a = r(4096, 4096)
        return lambda: torch.cumsum(a, dim=1)
    if op == "embedding":
        w = r(50000, 1024)
        idx = torch.randint(0, 50000, (32768,), device=dev)
        return lambda: F.embedding(idx, w)
    raise SystemExit(f"ops.py: unknown op {op}")


OPS = ["gelu", "relu", "silu", "add", "mul", "softmax", "layernorm", "rmsnorm", "sum", "sum_rows",
       "gemm_fp32", "gemm_bf16", "matvec", "conv2d", "conv2d_bf16", "sdpa", "index_add", "transpose",
       "cumsum", "embedding"]

if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: ops.py OP (" + " ".join(OPS) + ")")
    f = make(sys.argv[1])
    for _ in range(3):
        f()
    torch.cuda.synchronize()
    print(f"STAMP built {time.time():.3f}", flush=True)
    rt = torch.cuda.cudart()
    rt.cudaProfilerStart()
    f()
    torch.cuda.synchronize()
    rt.cudaProfilerStop()
    print(f"STAMP profiled {time.time():.3f}", flush=True)
