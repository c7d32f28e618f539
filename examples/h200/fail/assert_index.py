# A device-side assert: an index past the end of a tensor on the GPU, after
# a few ordinary kernels (PyTorch's "index out of bounds" assert in
# IndexKernel.cu, then "device-side assert triggered" on the host).
import torch

x = torch.randn(1 << 20, device="cuda")
y = torch.relu(x) * 2
idx = torch.tensor([1 << 21], device="cuda")
print(float(y[idx].sum()))
