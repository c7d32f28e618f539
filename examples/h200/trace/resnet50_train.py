# ResNet-50 training steps in bf16 autocast (torchvision, random weights and data).
import sys, torch, torchvision

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 3
torch.manual_seed(0)
model = torchvision.models.resnet50().cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
x = torch.randn(32, 3, 224, 224, device="cuda")
y = torch.randint(0, 1000, (32,), device="cuda")
for i in range(steps):
    torch.cuda.nvtx.range_push(f"step {i}")
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    torch.cuda.nvtx.range_pop()
torch.cuda.synchronize()
print("loss", float(loss))
