# Conv2d, ReLU, bias add (as KernelBench level 2 writes it), FP32.
import torch, torch.nn as nn
def build():
    conv = nn.Conv2d(64, 128, 3).cuda()
    bias = torch.randn(128, 1, 1).cuda()
    x = torch.randn(128, 64, 64, 64).cuda()
    return lambda: torch.relu(conv(x)) + bias
