# ResNet-50 training steps in bf16 autocast (torchvision, random weights and data).
import os, sys, time, torch, torchvision
# BENCH_STAMPS=1: when each phase ends (the GPU's work done), in wall
# seconds, on standard error; without it the program is as it was
def stamp(what):
    if os.environ.get("BENCH_STAMPS"):
        if torch.cuda.is_initialized():
            torch.cuda.synchronize()
        print(f"STAMP {what} {time.time():.3f}", file=sys.stderr, flush=True)
stamp("imported")

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 3
torch.manual_seed(0)
model = torchvision.models.resnet50().cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
x = torch.randn(32, 3, 224, 224, device="cuda")
y = torch.randint(0, 1000, (32,), device="cuda")
stamp("built")
for i in range(steps):
    torch.cuda.nvtx.range_push(f"step {i}")
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    torch.cuda.nvtx.range_pop()
    stamp(f"step{i}")
torch.cuda.synchronize()
print("loss", float(loss))
