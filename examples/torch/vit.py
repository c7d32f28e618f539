# ViT-Small/16 inference (timm, random weights), batch 8: warm-up, then one forward in NVTX range "timed" between cudaProfilerStart/Stop.
import torch
import timm

torch.manual_seed(0)
model = timm.create_model("vit_small_patch16_224", pretrained=False).cuda().eval()
x = torch.randn(8, 3, 224, 224, device="cuda")
with torch.no_grad():
    for _ in range(2):
        model(x)
    torch.cuda.synchronize()
    torch.cuda.profiler.start()
    with torch.cuda.nvtx.range("timed"):
        y = model(x)
        torch.cuda.synchronize()
    torch.cuda.profiler.stop()
print("vit: done", tuple(y.shape), flush=True)
