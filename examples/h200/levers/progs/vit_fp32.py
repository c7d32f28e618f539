# timm's ViT-Small built from its config (random weights), FP32, batch 16.
import torch, timm
def build():
    m = timm.create_model("vit_small_patch16_224", pretrained=False).cuda().eval()
    x = torch.randn(16, 3, 224, 224).cuda()
    return lambda: m(x)
