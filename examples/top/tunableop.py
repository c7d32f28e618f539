# An MLP of bf16 GEMMs under PyTorch's TunableOp (PYTORCH_TUNABLEOP_ENABLED=1,
# tuning on): the first time it meets a GEMM shape PyTorch times each
# candidate solution (cuBLAS's and cuBLASLt's), then runs the fastest.
# STEPS (4) training steps of three Linear layers (4096 wide) on a batch of
# BATCH (4096) rows. The results file goes to TUNABLEOP_DIR (a fresh
# temporary folder by default), so every run tunes. ORACLE=1: the first
# step and the others each under torch.profiler, as cudnn_bench.py.
import os, tempfile
d = os.environ.get("TUNABLEOP_DIR") or tempfile.mkdtemp(prefix="tunableop")
os.environ.setdefault("PYTORCH_TUNABLEOP_ENABLED", "1")
os.environ.setdefault("PYTORCH_TUNABLEOP_TUNING", "1")
os.environ.setdefault("PYTORCH_TUNABLEOP_FILENAME", os.path.join(d, "tunableop_results.csv"))
import torch
torch.manual_seed(0)
w = int(os.environ.get("WIDTH", "4096"))
m = torch.nn.Sequential(torch.nn.Linear(w, w), torch.nn.GELU(), torch.nn.Linear(w, w), torch.nn.GELU(),
                        torch.nn.Linear(w, w)).cuda().to(torch.bfloat16)
opt = torch.optim.SGD(m.parameters(), lr=0.01)
x = torch.randn(int(os.environ.get("BATCH", "4096")), w, device="cuda", dtype=torch.bfloat16)


def step():
    opt.zero_grad(set_to_none=True)
    loss = m(x).float().pow(2).mean()
    loss.backward()
    opt.step()
    return loss


steps = int(os.environ.get("STEPS", "4"))
if os.environ.get("ORACLE"):
    from torch.profiler import profile, ProfilerActivity

    def top(prof, what):
        ev = [e for e in prof.key_averages() if e.device_type == torch.autograd.DeviceType.CUDA]
        ev.sort(key=lambda e: -e.self_device_time_total)
        tot = sum(e.self_device_time_total for e in ev)
        print("oracle %s: %d kernels, %.1f us" % (what, len(ev), tot))
        for e in ev[:8]:
            print("oracle %s\t%d\t%.1f\t%.1f%%\t%s" % (what, e.count, e.self_device_time_total,
                                                     100.0 * e.self_device_time_total / tot, e.key[:150]))
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
print("tunableop MLP: loss %.4f, results in %s" % (loss.item(), d))
