# One KernelBench problem (level1/, level2/: copied from
# github.com/ScalingIntelligence/KernelBench at 423217d, MIT, see LICENSE),
# built as KernelBench's own harness builds it (src/kernelbench/eval.py and
# profile.py): seed 42, get_init_inputs() and Model(*init) moved to the GPU
# in FP32, get_inputs() moved to the GPU, WARM forward passes under no_grad
# (KernelBench times after 3), then STEPS forward passes inside
# cudaProfilerStart/Stop, the range ncu's --profile-from-start off keeps.
# Prints, on stderr, the seconds of its set-up (imports and inputs) and of
# its range, so a sweep can tell the program's own work from kf's.
# --batch N sets the problem's batch_size (a probe of size, not the suite's).
# usage: kb.py PROBLEM.py [--warm N] [--steps N] [--batch N]
import argparse, runpy, sys, time

t0 = time.time()
ap = argparse.ArgumentParser()
ap.add_argument("problem")
ap.add_argument("--warm", type=int, default=3)
ap.add_argument("--steps", type=int, default=1)
ap.add_argument("--batch", type=int)
a = ap.parse_args()

import torch


def seed(n=42):
    torch.manual_seed(n)
    torch.cuda.manual_seed(n)


def to_gpu(x):
    # KernelBench's _process_input_tensor: tensors cast to FP32, then moved
    if not isinstance(x, torch.Tensor):
        return x
    return x.to(dtype=torch.float32).to(device="cuda")


p = runpy.run_path(a.problem)
if a.batch is not None:
    # get_inputs reads batch_size from its own module's globals
    g = p["get_inputs"].__globals__
    if "batch_size" not in g:
        sys.exit(f"kb.py: {a.problem} has no batch_size")
    g["batch_size"] = a.batch
seed()
init = [to_gpu(x) for x in p["get_init_inputs"]()]
with torch.no_grad():
    seed()
    model = p["Model"](*init).to(device="cuda", dtype=torch.float32)
    seed()
    inputs = [to_gpu(x) for x in p["get_inputs"]()]
    for _ in range(a.warm):
        model(*inputs)
    torch.cuda.synchronize()
    t1 = time.time()
    torch.cuda.profiler.start()
    for _ in range(a.steps):
        model(*inputs)
    torch.cuda.synchronize()
    torch.cuda.profiler.stop()
t2 = time.time()
print(f"kb.py {a.problem}: set-up {t1 - t0:.2f} s, range {t2 - t1:.2f} s", file=sys.stderr, flush=True)
