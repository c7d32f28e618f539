# torchvision's ResNet-18 built from its definition (random weights), FP32, batch 32.
import torch, torchvision
def build():
    m = torchvision.models.resnet18().cuda().eval()
    x = torch.randn(32, 3, 224, 224).cuda()
    return lambda: m(x)
