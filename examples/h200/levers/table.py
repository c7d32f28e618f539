#!/usr/bin/env python3
# Issue 43's table: for each program of tests/fixtures/programs-h200, kf's
# first finding from each recording (replay.sh) beside PyTorch's profiler
# on the same steps (oracle.json): the finding's stake, the oracle's share
# of the kernels it names, the oracle's three kernels with the most time.
#   table.py [NAME ...]
import gzip, json, os, subprocess, sys

here = os.path.dirname(os.path.abspath(__file__))
fx = os.path.join(here, "../../../tests/fixtures/programs-h200")
names = sys.argv[1:] or sorted(n for n in os.listdir(fx) if os.path.isdir(os.path.join(fx, n)))

def short(n, k=38):
    n = n.replace("void ", "").replace("at::native::", "").replace("(anonymous namespace)::", "")
    return n if len(n) <= k else n[:k - 3] + "..."

print("| program | recording | first finding | stake | oracle share of its kernels | "
      "ranking's top kernel: kf / oracle |")
print("| --- | --- | --- | --- | --- | --- |")
for name in names:
    o = json.load(gzip.open(os.path.join(fx, name, "oracle.json.gz")))
    tot = o["total_ns"]
    share = {k: 100 * v[0] / tot for k, v in o["kernels"].items()}
    for mode in ("trace", "top", "full"):
        if not os.path.isdir(os.path.join(fx, name, mode)):
            continue
        r = json.loads(subprocess.run([os.path.join(here, "replay.sh"), name, mode],
                                      capture_output=True, text=True, check=True).stdout)
        a = r["analysis"]
        f = a["diagnosis"][0]
        ks = f.get("kernels") or ([f["kernel"]] if f.get("kernel") else [])
        osh = sum(share.get(k, 0) for k in ks)
        top = a["ranking"]["kernels"][0]
        stake = "-" if f["impact_pct"] is None else "%.1f%% of the %s" % (
            f["impact_pct"], "traced window" if f["impact_basis"] == "traced_window"
            else "GPU time")
        print("| %s | %s | %s: %s | %s | %s | %s %.1f / %.1f |" % (
            name, mode, f["kind"], short(f["what"], 60), stake,
            "%.1f%%" % osh if ks and any(k in share for k in ks) else
            "(names differ)" if ks else "-", short(top["name"]), top["share_pct"],
            share.get(top["name"], 0)))
