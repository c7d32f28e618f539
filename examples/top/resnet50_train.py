# ResNet-50 training steps in bf16: torchvision's resnet50() (random
# weights), SGD, STEPS (2) steps of a batch of BATCH (8) random 3x160x160
# images under torch.autocast(bfloat16).
import os, torch, torchvision
torch.manual_seed(0)
m = torchvision.models.resnet50().cuda().train()
opt = torch.optim.SGD(m.parameters(), lr=0.01)
b = int(os.environ.get("BATCH", "8"))
x = torch.randn(b, 3, 160, 160, device="cuda")
y = torch.randint(0, 1000, (b,), device="cuda")
for _ in range(int(os.environ.get("STEPS", "2"))):
    opt.zero_grad(set_to_none=True)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = torch.nn.functional.cross_entropy(m(x), y)
    loss.backward()
    opt.step()
torch.cuda.synchronize()
print("resnet50: loss %.3f" % loss.item())
