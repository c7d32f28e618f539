# Conv2d, bias add, scale, sigmoid, GroupNorm, FP32.
import torch, torch.nn as nn
def build():
    conv = nn.Conv2d(32, 64, 3).cuda()
    bias = torch.randn(64, 1, 1).cuda()
    scale = torch.randn(64, 1, 1).cuda()
    gn = nn.GroupNorm(8, 64).cuda()
    x = torch.randn(128, 32, 64, 64).cuda()
    return lambda: gn(torch.sigmoid((conv(x) + bias) * scale))
