# F.scaled_dot_product_attention, bf16, batch 8, 16 heads, seq 1024, head dim 64: warm-up, then one call in NVTX range "timed" between cudaProfilerStart/Stop.
import torch
import torch.nn.functional as F

torch.manual_seed(0)
q, k, v = (torch.randn(8, 16, 1024, 64, device="cuda", dtype=torch.bfloat16) for _ in range(3))
for _ in range(2):
    F.scaled_dot_product_attention(q, k, v, is_causal=True)
torch.cuda.synchronize()
torch.cuda.profiler.start()
with torch.cuda.nvtx.range("timed"):
    y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    torch.cuda.synchronize()
torch.cuda.profiler.stop()
print("sdpa: done", tuple(y.shape), flush=True)
