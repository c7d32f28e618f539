# ResNet-18 training with torch.backends.cudnn.benchmark = True: cuDNN times
# its candidate algorithms (each run twice, a warm-up and a timed run) for
# each convolution shape the first time it meets it, inside the first step,
# then runs the fastest. torchvision's resnet18() (random weights), SGD,
# STEPS (4) steps of a batch of BATCH (32) random 3x224x224 fp32 images.
# ORACLE=1: the first step and the others each under PyTorch's profiler
# (oracle.py): the steady state's ranking, and what the first step's trials
# add.
import os, torch, torchvision
import oracle
torch.backends.cudnn.benchmark = True
torch.manual_seed(0)
m = torchvision.models.resnet18().cuda().train()
opt = torch.optim.SGD(m.parameters(), lr=0.01)
b = int(os.environ.get("BATCH", "32"))
x = torch.randn(b, 3, 224, 224, device="cuda")
y = torch.randint(0, 1000, (b,), device="cuda")


def step():
    opt.zero_grad(set_to_none=True)
    loss = torch.nn.functional.cross_entropy(m(x), y)
    loss.backward()
    opt.step()
    return loss


loss = oracle.steps(step)
torch.cuda.synchronize()
print("resnet18, cudnn.benchmark: loss %.3f" % loss.item())
