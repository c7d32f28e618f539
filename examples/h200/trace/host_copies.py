# Copy-bound: pageable host tensors copied to the GPU and back, little compute.
import torch

torch.manual_seed(0)
h = torch.randn(64 << 20)           # 256 MiB, pageable
for _ in range(6):
    d = h.cuda()
    d.mul_(2)
    h2 = d.cpu()
torch.cuda.synchronize()
print("copied", float(h2[0]))
