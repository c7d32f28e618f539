# timm's EfficientNet-B0 from its config (random weights), FP32, batch 32.
import torch, timm
def build():
    m = timm.create_model("efficientnet_b0", pretrained=False).cuda().eval()
    x = torch.randn(32, 3, 224, 224).cuda()
    return lambda: m(x)
