#!/usr/bin/env python3
# Three timings of one program's kernels side by side, the top five of each
# by total GPU time and their shares: kf's tracer (kf-read's record), ncu's
# timing run (its details CSV), PyTorch's profiler (kineto_kernels.py), the
# last left out when not given.
# usage: rank3.py TRACE_RECORD_JSON NCU_TIMING_CSV [KINETO_JSON]
# Kernels are matched as each can be: ncu's CSV (exported with
# --print-kernel-base mangled) by mangled name, through the trace's own
# mangled-to-demangled pairs; PyTorch's by the demangled name that CUPTI
# gives it and the trace alike.
import csv, gzip, json, sys

def opener(p):
    return gzip.open(p, "rt") if p.endswith(".gz") else open(p)

rec = json.load(opener(sys.argv[1]))
tr, dem = {}, {}
for k in rec["data"]["kernels"]:
    dem[k["mangled"]] = k["name"]
    v = tr.setdefault(k["name"], [0.0, 0])
    v[0] += k["total_ns"]
    v[1] += k["launches"]
ncu = {}
with opener(sys.argv[2]) as f:
    rows = csv.reader(l for l in f if l.startswith('"'))
    hdr = next(rows)
    ki, mi, vi = hdr.index("Kernel Name"), hdr.index("Metric Name"), hdr.index("Metric Value")
    for r in rows:
        if r[mi] == "gpu__time_duration.sum":
            v = ncu.setdefault(dem.get(r[ki], r[ki]), [0.0, 0])
            v[0] += float(r[vi].replace(",", ""))
            v[1] += 1
srcs = [("trace", tr), ("ncu", ncu)]
if len(sys.argv) > 3:
    srcs.append(("kineto", json.load(opener(sys.argv[3]))["kernels"]))
tops = {}
for name, d in srcs:
    tot = sum(v[0] for v in d.values())
    print(f"{name}: {sum(v[1] for v in d.values())} launches, {tot / 1e6:.2f} ms")
    tops[name] = sorted(d, key=lambda n: -d[n][0])[:5]
for i in range(5):
    row = []
    for name, d in srcs:
        tot = sum(v[0] for v in d.values())
        n = tops["trace"][i]
        row.append(f"{name} #{tops[name].index(n) + 1 if n in tops[name] else '-'} "
                   f"{100 * d.get(n, (0, 0))[0] / tot:5.2f}% ({d.get(n, (0, 0))[1]})")
    print(f"{i + 1}. " + "  ".join(row) + "  " + tops["trace"][i][:60])
for a, b in (("trace", "kineto"), ("trace", "ncu"), ("ncu", "kineto")):
    if a not in tops or b not in tops:
        continue
    da, db = dict(srcs)[a], dict(srcs)[b]
    ta, tb = sum(v[0] for v in da.values()), sum(v[0] for v in db.values())
    worst = max(abs(100 * da.get(n, (0, 0))[0] / ta - 100 * db.get(n, (0, 0))[0] / tb)
                for n in set(tops[a]) | set(tops[b]))
    print(f"{a} against {b}: same top five in order: {tops[a] == tops[b]}; "
          f"largest share difference {worst:.2f} points")
