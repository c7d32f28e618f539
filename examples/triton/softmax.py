# A Triton kernel: fused row softmax over a 16384 x 1024 fp32 matrix,
# checked against torch.softmax.
import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    x = tl.load(x_ptr + row * cols + offs, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    tl.store(y_ptr + row * cols + offs, e / tl.sum(e, axis=0), mask=mask)


torch.manual_seed(0)
x = torch.randn(16384, 1024, device="cuda")
y = torch.empty_like(x)
for _ in range(3):
    softmax_kernel[(x.shape[0],)](x, y, x.shape[1], BLOCK=1024)
torch.cuda.synchronize()
err = (y - torch.softmax(x, dim=1)).norm() / torch.softmax(x, dim=1).norm()
assert err < 1e-5, err
print("triton softmax: done, relative error %.2e" % err, flush=True)
