# A real PyTorch workload: ResNet-18 inference, batch 16, inside an NVTX range
# named like the reference's benchmark loop. Profile with
#   ncu --set full --launch-skip 60 --launch-count 120 ...
# --channels-last-bf16: the same model in bf16 and channels_last memory format
# (the "after" of a before/after pair; the default, fp32 NCHW, is the "before").
import sys

import torch
import torchvision

torch.manual_seed(0)
model = torchvision.models.resnet18(weights=None).cuda().eval()
x = torch.randn(16, 3, 224, 224, device="cuda")
if "--channels-last-bf16" in sys.argv[1:]:
    model = model.to(torch.bfloat16).to(memory_format=torch.channels_last)
    x = x.to(torch.bfloat16).contiguous(memory_format=torch.channels_last)
with torch.no_grad():
    model(x)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push("model run loop")
    y = model(x)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()
print("resnet18: done", tuple(y.shape), flush=True)
