# The manual way's first half: run PROGRAM [ARG ...] under PyTorch's
# profiler (CUPTI through Kineto) and write the names of its TOP (3) CUDA
# kernels by total GPU time, one a line, to MANUAL_OUT; the second half is
# ncu -k regex:... -c TOP on those names (measure.sh).
import os, runpy, sys, torch
from torch.profiler import profile, ProfilerActivity

prog = sys.argv[1]
sys.argv = sys.argv[1:]
with profile(activities=[ProfilerActivity.CUDA]) as p:
    runpy.run_path(prog, run_name="__main__")
rows = [e for e in p.key_averages() if e.device_type == torch.autograd.DeviceType.CUDA
        and not e.key.startswith(("Memcpy", "Memset"))]
attr = "self_device_time_total" if hasattr(rows[0], "self_device_time_total") else "self_cuda_time_total"
rows.sort(key=lambda e: getattr(e, attr), reverse=True)
with open(os.environ["MANUAL_OUT"], "w") as f:
    for e in rows[:int(os.environ.get("TOP", "3"))]:
        f.write(e.key + "\n")
