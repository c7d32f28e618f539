# A GRU over 512 steps, batch 2, hidden 128 (cuDNN).
import torch, torch.nn as nn
def build():
    m = nn.GRU(128, 128).cuda()
    x = torch.randn(512, 2, 128).cuda()
    return lambda: m(x)
