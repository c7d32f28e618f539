# An MLP block (Linear, GELU, Linear, residual, LayerNorm) through torch.compile, bf16.
import torch, torch.nn as nn
class B(nn.Module):
    def __init__(s):
        super().__init__()
        s.a = nn.Linear(1024, 4096); s.b = nn.Linear(4096, 1024); s.n = nn.LayerNorm(1024)
    def forward(s, x):
        return s.n(x + s.b(torch.nn.functional.gelu(s.a(x))))
def build():
    m = torch.compile(B().cuda().bfloat16())
    x = torch.randn(4096, 1024, device="cuda", dtype=torch.bfloat16)
    return lambda: m(x)
