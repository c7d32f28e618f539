# A model no one here wrote, built from its library's config (random
# weights, nothing downloaded): timm's MODEL (default convnext_tiny) where
# timm is installed, else torchvision's (default efficientnet_b0), STEPS (3)
# training steps of a batch of BATCH (16) random 3x160x160 images under
# torch.autocast(bfloat16).
import os, torch
torch.manual_seed(0)
try:
    import timm
    name = os.environ.get("MODEL", "convnext_tiny")
    m = timm.create_model(name, pretrained=False, num_classes=1000)
    lib = "timm"
except ImportError:
    import torchvision
    name = os.environ.get("MODEL", "efficientnet_b0")
    m = torchvision.models.get_model(name, weights=None)
    lib = "torchvision"
m = m.cuda().train()
opt = torch.optim.SGD(m.parameters(), lr=0.01)
b = int(os.environ.get("BATCH", "16"))
x = torch.randn(b, 3, 160, 160, device="cuda")
y = torch.randint(0, 1000, (b,), device="cuda")
for _ in range(int(os.environ.get("STEPS", "3"))):
    opt.zero_grad(set_to_none=True)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = torch.nn.functional.cross_entropy(m(x), y)
    loss.backward()
    opt.step()
torch.cuda.synchronize()
print("%s %s: loss %.3f" % (lib, name, loss.item()))
