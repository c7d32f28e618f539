#!/usr/bin/env python3
# The tracer's ranking against ncu's timing run: the top five kernels by
# total GPU time, matched by mangled name, and their shares.
# usage: compare.py NCU_MANGLED_CSV TRACE_DATA_JSON
#   NCU_MANGLED_CSV: ncu --metrics gpu__time_duration.sum --csv --print-units base
#                    --print-kernel-base mangled --log-file FILE CMD
#   TRACE_DATA_JSON: kf-read's record for the trace of the same program
import csv, json, sys

ncu = {}
with open(sys.argv[1]) as f:
    rows = csv.reader(l for l in f if l.startswith('"'))
    hdr = next(rows)
    ki, mi, vi = hdr.index("Kernel Name"), hdr.index("Metric Name"), hdr.index("Metric Value")
    for r in rows:
        if r[mi] == "gpu__time_duration.sum":
            e = ncu.setdefault(r[ki], [0.0, 0])
            e[0] += float(r[vi].replace(",", ""))
            e[1] += 1
rec = json.load(open(sys.argv[2]))
tr = {k["mangled"]: (k["total_ns"], k["launches"]) for k in rec["data"]["kernels"]}
nt, tt = sum(v[0] for v in ncu.values()), sum(v[0] for v in tr.values())
top_n = sorted(ncu, key=lambda k: -ncu[k][0])[:5]
top_t = sorted(tr, key=lambda k: -tr[k][0])[:5]
print(f"launches: ncu {sum(v[1] for v in ncu.values())}, trace {sum(v[1] for v in tr.values())}; "
      f"GPU time: ncu {nt/1e6:.2f} ms, trace {tt/1e6:.2f} ms")
worst = 0
for i, (a, b) in enumerate(zip(top_n, top_t)):
    sn, st = 100 * ncu[a][0] / nt, 100 * tr.get(a, (0, 0))[0] / tt
    worst = max(worst, abs(sn - st))
    print(f"{i+1}. {'same' if a == b else 'DIFFERENT'}  ncu {sn:5.1f}% ({ncu[a][1]} launches)  "
          f"trace {st:5.1f}% ({tr.get(a, (0, 0))[1]} launches)  {a[:70]}")
print("same order:", top_n == top_t, f"; largest share difference {worst:.2f} points")
