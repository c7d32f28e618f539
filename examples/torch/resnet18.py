# A real PyTorch workload: ResNet-18 inference, batch 16, inside an NVTX range
# named like the reference's benchmark loop. Profile with
#   ncu --set full --launch-skip 60 --launch-count 120 ...
import torch
import torchvision

torch.manual_seed(0)
model = torchvision.models.resnet18(weights=None).cuda().eval()
x = torch.randn(16, 3, 224, 224, device="cuda")
with torch.no_grad():
    model(x)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push("model run loop")
    y = model(x)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()
print("resnet18: done", tuple(y.shape), flush=True)
