# An SSM-style block full of permutes: depthwise conv over the sequence,
# gating and a chunked scan written with transposes and contiguous copies.
import torch, torch.nn as nn
def build():
    B, L, D, N = 8, 1024, 512, 16
    inp = nn.Linear(D, 2 * D).cuda()
    conv = nn.Conv1d(D, D, 4, groups=D, padding=3).cuda()
    proj = nn.Linear(D, N).cuda()
    out = nn.Linear(D, D).cuda()
    A = -torch.rand(D, N).cuda()
    x = torch.randn(B, L, D).cuda()
    def step():
        h, g = inp(x).chunk(2, dim=-1)
        h = conv(h.transpose(1, 2).contiguous())[..., :L].transpose(1, 2).contiguous()
        h = torch.nn.functional.silu(h)
        bmat = proj(h)                                  # B L N
        dA = torch.exp(A.unsqueeze(0).unsqueeze(0) * 0.01).expand(B, L, D, N)
        s = (h.unsqueeze(-1) * bmat.unsqueeze(2)).permute(0, 2, 1, 3).contiguous()  # B D L N
        s = s.cumsum(dim=2).permute(0, 2, 1, 3).contiguous()
        y = (s * dA).sum(-1)
        return out(y * torch.nn.functional.silu(g))
    return step
