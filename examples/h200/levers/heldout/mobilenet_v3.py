# torchvision's MobileNetV3-Small from its definition, FP32, batch 64.
import torch, torchvision
def build():
    m = torchvision.models.mobilenet_v3_small().cuda().eval()
    x = torch.randn(64, 3, 224, 224).cuda()
    return lambda: m(x)
