# One program of issue 43's set, run as kf and PyTorch's profiler both see it:
# the model built on the CPU and moved to the GPU (no initialisation kernels),
# WARM steps, then STEPS steps inside cudaProfilerStart/Stop (the range ncu's
# --profile-from-start off keeps), or with --oracle under PyTorch's own
# profiler, whose kernel table is written as JSON:
#   {"kernels": {name: [total ns, launches]}, "launches": N, "total_ns": T}
# usage: harness.py PROG.py [--oracle OUT.json] [--steps N] [--warm N]
import argparse, json, runpy, sys, tempfile
import torch

ap = argparse.ArgumentParser()
ap.add_argument("prog")
ap.add_argument("--oracle")
ap.add_argument("--steps", type=int, default=10)
ap.add_argument("--warm", type=int, default=3)
a = ap.parse_args()
step = runpy.run_path(a.prog)["build"]()
with torch.no_grad():
    for _ in range(a.warm):
        step()
    torch.cuda.synchronize()
    if a.oracle:
        from torch.profiler import profile, ProfilerActivity
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(a.steps):
                step()
            torch.cuda.synchronize()
        with tempfile.NamedTemporaryFile(suffix=".json") as t:
            prof.export_chrome_trace(t.name)
            ev = json.load(open(t.name))["traceEvents"]
        k = {}
        for e in ev:
            if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset") and "dur" in e:
                v = k.setdefault(e["name"], [0, 0])
                v[0] += round(float(e["dur"]) * 1000)
                v[1] += 1
        tot = sum(v[0] for v in k.values())
        json.dump({"kernels": k, "launches": sum(v[1] for v in k.values()), "total_ns": tot},
                  open(a.oracle, "w"), indent=0)
        for n, v in sorted(k.items(), key=lambda x: -x[1][0])[:8]:
            print(f"ORACLE {100 * v[0] / tot:5.1f}% {v[1]:6d} {n[:110]}")
    else:
        torch.cuda.profiler.start()
        for _ in range(a.steps):
            step()
        torch.cuda.synchronize()
        torch.cuda.profiler.stop()
print("done", a.prog, flush=True)
