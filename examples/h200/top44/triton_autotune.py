# A Triton kernel tuned by triton.autotune: a row softmax over a 8192 x
# N (4096) matrix, four configurations tried by Triton's autotuner (which
# times each between flushes of the L2 cache, triton.testing.do_bench), then
# ITERS (50) calls of the winner. Prints the winner, so that the detailed
# run's launch configuration can be checked against it.
import os, torch, triton, triton.language as tl

@triton.autotune(
    configs=[triton.Config({"BLOCK": b}, num_warps=w) for b, w in
             ((1024, 4), (2048, 8), (4096, 8), (4096, 16))],
    key=["n"])
@triton.jit
def softmax_k(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mx = tl.full([BLOCK], -float("inf"), tl.float32)
    for s in range(0, n, BLOCK):
        v = tl.load(x_ptr + row * n + s + cols, mask=s + cols < n, other=-float("inf"))
        mx = tl.maximum(mx, v)
    m = tl.max(mx, 0)
    acc = tl.zeros([BLOCK], tl.float32)
    for s in range(0, n, BLOCK):
        v = tl.load(x_ptr + row * n + s + cols, mask=s + cols < n, other=-float("inf"))
        acc += tl.exp(v - m)
    d = tl.sum(acc, 0)
    for s in range(0, n, BLOCK):
        v = tl.load(x_ptr + row * n + s + cols, mask=s + cols < n, other=-float("inf"))
        tl.store(y_ptr + row * n + s + cols, tl.exp(v - m) / d, mask=s + cols < n)

torch.manual_seed(0)
n = int(os.environ.get("N", "4096"))
x = torch.randn(8192, n, device="cuda")
y = torch.empty_like(x)
for _ in range(int(os.environ.get("ITERS", "50"))):
    softmax_k[(x.shape[0],)](x, y, n)
torch.cuda.synchronize()
print("triton softmax: best config", softmax_k.best_config, "max err",
      float((y - torch.softmax(x, 1)).abs().max()))
