# A torch.compile'd MLP block (Linear-GELU-Linear + residual + LayerNorm, bf16, 4096x1024): warm-up, then one call in NVTX range "timed" between cudaProfilerStart/Stop.
import torch

torch.manual_seed(0)


class Block(torch.nn.Module):
    def __init__(self, d=1024, h=4096):
        super().__init__()
        self.fc1, self.fc2 = torch.nn.Linear(d, h), torch.nn.Linear(h, d)
        self.norm = torch.nn.LayerNorm(d)

    def forward(self, x):
        return self.norm(x + self.fc2(torch.nn.functional.gelu(self.fc1(x))))


model = torch.compile(Block().cuda().to(torch.bfloat16).eval())
x = torch.randn(4096, 1024, device="cuda", dtype=torch.bfloat16)
with torch.no_grad():
    for _ in range(3):
        model(x)
    torch.cuda.synchronize()
    torch.cuda.profiler.start()
    with torch.cuda.nvtx.range("timed"):
        y = model(x)
        torch.cuda.synchronize()
    torch.cuda.profiler.stop()
print("compile_mlp: done", tuple(y.shape), flush=True)
