# timm's ConvNeXt-Atto from its config (random weights), FP32, batch 32: depthwise
# convs, LayerNorms over permuted tensors, GELUs.
import torch, timm
def build():
    m = timm.create_model("convnext_atto", pretrained=False).cuda().eval()
    x = torch.randn(32, 3, 224, 224).cuda()
    return lambda: m(x)
