# Single-op PyTorch problems, one per run, for a sweep that checks kf's
# verdict against what each op must be limited by (expected.tsv):
#
#   python3 examples/h200/ops/ops.py OP      run OP once under the profiler
#   python3 examples/h200/ops/ops.py --list  the ops, one a line
#
# Each op builds its inputs, runs once as a warm-up (cuBLAS and cuDNN pick
# their kernels, caches fill), then once more between cudaProfilerStart and
# cudaProfilerStop: `ncu --profile-from-start off` profiles that call only.
# Afterwards it prints the op, its shapes and the time of ten calls by CUDA
# events, measured outside the profiled range.
import sys

import torch
import torch.nn.functional as F

dev = "cuda"
N_ELEM = 1 << 26          # 64 Mi elements: 256 MB of fp32, far past the 50 MB L2
ROWS, COLS = 8192, 8192   # rows for the row-wise ops


def rand(*shape, dtype=torch.float32):
    return torch.randn(*shape, device=dev, dtype=dtype)


def gemm(m, n, k, dtype, tf32=False):
    torch.backends.cuda.matmul.allow_tf32 = tf32
    a, b = rand(m, k, dtype=dtype), rand(k, n, dtype=dtype)
    return lambda: a @ b, f"{m}x{k} @ {k}x{n} {dtype}"


def conv(dtype, tf32=False):
    torch.backends.cudnn.allow_tf32 = tf32
    torch.backends.cudnn.benchmark = True
    x = rand(32, 256, 56, 56, dtype=dtype).to(memory_format=torch.channels_last)
    w = rand(256, 256, 3, 3, dtype=dtype).to(memory_format=torch.channels_last)
    return lambda: F.conv2d(x, w, padding=1), f"conv2d 32x256x56x56, 256 3x3 filters, {dtype}"


def elementwise(fn, dtype=torch.float32, n=N_ELEM):
    x = rand(n, dtype=dtype)
    return lambda: fn(x), f"{n} {dtype}"


def rows(fn, dtype=torch.float32):
    x = rand(ROWS, COLS, dtype=dtype)
    return lambda: fn(x), f"{ROWS}x{COLS} {dtype}"


def add():
    a, b = rand(N_ELEM), rand(N_ELEM)
    return lambda: a + b, f"{N_ELEM} + {N_ELEM} fp32"


def layernorm(dtype):
    x = rand(ROWS, COLS, dtype=dtype)
    w, b = rand(COLS, dtype=dtype), rand(COLS, dtype=dtype)
    return lambda: F.layer_norm(x, (COLS,), w, b), f"layer_norm {ROWS}x{COLS} {dtype}"


def rmsnorm(dtype):
    x, w = rand(ROWS, COLS, dtype=dtype), rand(COLS, dtype=dtype)
    return lambda: F.rms_norm(x, (COLS,), w), f"rms_norm {ROWS}x{COLS} {dtype}"


def batchnorm():
    x = rand(32, 256, 56, 56)
    mean, var = rand(256), rand(256).abs() + 1
    w, b = rand(256), rand(256)
    return (lambda: F.batch_norm(x, mean, var, w, b, training=False),
            "batch_norm inference 32x256x56x56 fp32")


def gemv(dtype):
    a, v = rand(16384, 16384, dtype=dtype), rand(16384, dtype=dtype)
    return lambda: a @ v, f"16384x16384 @ 16384 {dtype}"


def decode():
    x, w = rand(16, 8192, dtype=torch.bfloat16), rand(28672, 8192, dtype=torch.bfloat16)
    return lambda: F.linear(x, w), "16x8192 @ (28672x8192)^T bf16"


def sdpa():
    q, k, v = (rand(8, 16, 4096, 128, dtype=torch.bfloat16) for _ in range(3))
    return (lambda: F.scaled_dot_product_attention(q, k, v, is_causal=False),
            "sdpa 8x16x4096x128 bf16")


def index_add(one_row):
    n, d = 1 << 20, 64
    src = rand(n, d)
    if one_row:
        idx = torch.zeros(n, dtype=torch.long, device=dev)
        out = torch.zeros(1, d, device=dev)
    else:
        idx = torch.randint(0, n, (n,), device=dev)
        out = torch.zeros(n, d, device=dev)
    return (lambda: out.index_add_(0, idx, src),
            f"index_add_ {n}x{d} fp32 into {out.shape[0]} row{'s' if out.shape[0] > 1 else ''}")


def transpose():
    x = rand(ROWS, COLS)
    return lambda: x.t().contiguous(), f"transpose {ROWS}x{COLS} fp32"


def maxpool():
    x = rand(32, 256, 112, 112)
    return lambda: F.max_pool2d(x, 3, stride=2, padding=1), "max_pool2d 3x3/2 32x256x112x112 fp32"


# op name -> what builds it. The names say the op and its precision; the
# expected limiter of each is in expected.tsv.
OPS = {
    "gelu_fp32": lambda: elementwise(F.gelu),
    "relu_bf16": lambda: elementwise(F.relu, torch.bfloat16),
    "exp_fp32": lambda: elementwise(torch.exp),
    "add_fp32": add,
    "gelu_small_fp32": lambda: elementwise(F.gelu, n=4096),
    "softmax_fp32": lambda: rows(lambda x: torch.softmax(x, dim=-1)),
    "layernorm_fp32": lambda: layernorm(torch.float32),
    "layernorm_bf16": lambda: layernorm(torch.bfloat16),
    "rmsnorm_bf16": lambda: rmsnorm(torch.bfloat16),
    "batchnorm_fp32": batchnorm,
    "sum_fp32": lambda: elementwise(torch.sum),
    "mean_rows_fp32": lambda: rows(lambda x: x.mean(dim=1)),
    "gemm_fp32": lambda: gemm(4096, 4096, 4096, torch.float32),
    "gemm_tf32": lambda: gemm(8192, 8192, 8192, torch.float32, tf32=True),
    "gemm_bf16": lambda: gemm(8192, 8192, 8192, torch.bfloat16),
    "gemm_fp16": lambda: gemm(8192, 8192, 8192, torch.float16),
    "gemm_fp64": lambda: gemm(4096, 4096, 4096, torch.float64),
    "gemv_fp32": lambda: gemv(torch.float32),
    "gemv_bf16": lambda: gemv(torch.bfloat16),
    "decode_gemm_bf16": decode,
    "conv2d_fp32": lambda: conv(torch.float32),
    "conv2d_bf16": lambda: conv(torch.bfloat16),
    "sdpa_bf16": sdpa,
    "index_add_one_row_fp32": lambda: index_add(True),
    "index_add_spread_fp32": lambda: index_add(False),
    "transpose_fp32": transpose,
    "maxpool2d_fp32": maxpool,
}


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: ops.py OP | --list")
    if sys.argv[1] == "--list":
        print("\n".join(OPS))
        return
    if sys.argv[1] not in OPS:
        sys.exit(f"ops.py: no op {sys.argv[1]!r}; --list names them")
    torch.manual_seed(0)
    op, what = OPS[sys.argv[1]]()
    op()
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStart()
    op()
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStop()
    t0, t1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    t0.record()
    for _ in range(10):
        op()
    t1.record()
    torch.cuda.synchronize()
    print(f"ops {sys.argv[1]}: {what}; events_ms={t0.elapsed_time(t1) / 10:.4f}", flush=True)


if __name__ == "__main__":
    main()
