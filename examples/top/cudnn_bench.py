# ResNet-18 training with torch.backends.cudnn.benchmark = True: cuDNN times
# its candidate algorithms (each run twice, a warm-up and a timed run) for
# each convolution shape the first time it meets it, inside the first step,
# then runs the fastest. torchvision's resnet18() (random weights), SGD,
# STEPS (4) steps of a batch of BATCH (32) random 3x224x224 fp32 images.
# ORACLE=1: the first step and the others each under torch.profiler, and
# the 8 kernels with the most CUDA time of each printed (the steady state's
# ranking, and what the first step's trials add).
import os, torch, torchvision
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


def top(prof, what):
    ev = [e for e in prof.key_averages() if e.device_type == torch.autograd.DeviceType.CUDA]
    ev.sort(key=lambda e: -e.self_device_time_total)
    tot = sum(e.self_device_time_total for e in ev)
    print("oracle %s: %d kernels, %.1f us" % (what, len(ev), tot))
    for e in ev[:8]:
        print("oracle %s\t%d\t%.1f\t%.1f%%\t%s" % (what, e.count, e.self_device_time_total,
                                                 100.0 * e.self_device_time_total / tot, e.key[:150]))


steps = int(os.environ.get("STEPS", "4"))
if os.environ.get("ORACLE"):
    from torch.profiler import profile, ProfilerActivity
    with profile(activities=[ProfilerActivity.CUDA]) as p1:
        loss = step()
        torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as p2:
        for _ in range(steps - 1):
            loss = step()
        torch.cuda.synchronize()
    top(p1, "first")
    top(p2, "rest")
else:
    for _ in range(steps):
        loss = step()
torch.cuda.synchronize()
print("resnet18, cudnn.benchmark: loss %.3f" % loss.item())
