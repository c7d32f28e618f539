# A program's kernels as PyTorch's own profiler (Kineto, CUPTI's activity
# API) times them: a third timing beside ncu's timing run and kf's tracer.
# usage: kineto_kernels.py OUT_JSON SCRIPT [ARG ...]
#   runs SCRIPT (as __main__) under torch.profiler and writes
#   {"kernels": {demangled name: [total ns, launches]}, "launches": N}
import json, runpy, sys, tempfile
import torch
from torch.profiler import profile, ProfilerActivity

out, script = sys.argv[1], sys.argv[2]
sys.argv = sys.argv[2:]
with profile(activities=[ProfilerActivity.CUDA]) as prof:
    runpy.run_path(script, run_name="__main__")
with tempfile.NamedTemporaryFile(suffix=".json") as t:
    prof.export_chrome_trace(t.name)
    events = json.load(open(t.name))["traceEvents"]
k = {}
for e in events:
    if e.get("cat") == "kernel" and "dur" in e:
        v = k.setdefault(e["name"], [0, 0])
        v[0] += round(float(e["dur"]) * 1000)
        v[1] += 1
json.dump({"kernels": k, "launches": sum(v[1] for v in k.values())}, open(out, "w"))
print("kineto:", len(k), "kernels,", sum(v[1] for v in k.values()), "launches")
