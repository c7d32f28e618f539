# PyTorch's profiler as the oracle of a program's steady state, for
# cudnn_bench.py and tunableop.py: steps() runs their steps, and with
# ORACLE=1 the first step and the others each under torch.profiler, the 8
# kernels with the most CUDA time of each printed as
# "oracle first|rest<TAB>launches<TAB>us<TAB>share<TAB>name".
import os
import torch
from torch.profiler import profile, ProfilerActivity


def top(prof, what):
    ev = [e for e in prof.key_averages() if e.device_type == torch.autograd.DeviceType.CUDA]
    ev.sort(key=lambda e: -e.self_device_time_total)
    tot = sum(e.self_device_time_total for e in ev)
    print("oracle %s: %d kernels, %.1f us" % (what, len(ev), tot))
    for e in ev[:8]:
        print("oracle %s\t%d\t%.1f\t%.1f%%\t%s" % (what, e.count, e.self_device_time_total,
                                                 100.0 * e.self_device_time_total / tot, e.key[:150]))


def steps(step):
    """step() STEPS (4) times, under the profiler with ORACLE=1; the last loss."""
    n = int(os.environ.get("STEPS", "4"))
    if not os.environ.get("ORACLE"):
        for _ in range(n):
            loss = step()
        return loss
    with profile(activities=[ProfilerActivity.CUDA]) as p1:
        loss = step()
        torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as p2:
        for _ in range(n - 1):
            loss = step()
        torch.cuda.synchronize()
    top(p1, "first")
    top(p2, "rest")
    return loss
