"""ncu's occupancy rules' estimated speedups against two formulas, over
every recorded details page in the tree: TheoreticalOccupancy's against
100 - the theoretical occupancy, AchievedOccupancy's against (theoretical -
achieved) / theoretical * 100. What kf would compute itself for a
low_occupancy stake where a collection by --metrics runs no rule (issue
46). Prints each rule and type with how many match (within 0.05), and the
rest. Runs here, no GPU. Usage: python3 occupancy_rules.py [TOP]"""
import collections
import csv
import gzip
import os
import sys

top = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../../..")
count = collections.Counter()
for root in ("tests/fixtures", "examples"):
    for d, _, files in os.walk(os.path.join(top, root)):
        for f in files:
            if f not in ("ncu_report.csv", "ncu_report.csv.gz"):
                continue
            p = os.path.join(d, f)
            with (gzip.open(p, "rt") if f.endswith(".gz") else open(p)) as fh:
                rows = list(csv.reader(l for l in fh if l.startswith('"')))
            if not rows or "Rule Name" not in rows[0]:
                continue
            h = rows[0]
            iid, im, iv = h.index("ID"), h.index("Metric Name"), h.index("Metric Value")
            ir, it, isp = h.index("Rule Name"), h.index("Estimated Speedup Type"), h.index("Estimated Speedup")
            m = collections.defaultdict(dict)
            for r in rows[1:]:
                if len(r) > iv and r[im]:
                    m[r[iid]][r[im]] = r[iv]
            for r in rows[1:]:
                if len(r) <= isp or r[ir] not in ("AchievedOccupancy", "TheoreticalOccupancy"):
                    continue
                try:
                    t = float(m[r[iid]]["Theoretical Occupancy"])
                    a = float(m[r[iid]]["Achieved Occupancy"])
                    s = float(r[isp])
                except (KeyError, ValueError):
                    count[(r[ir], r[it], "no numbers")] += 1
                    continue
                e = 100 - t if r[ir] == "TheoreticalOccupancy" else (t - a) / t * 100
                count[(r[ir], r[it], "matches" if abs(e - s) <= 0.05 else "does not")] += 1
for k in sorted(count):
    print(*k, count[k], sep="\t")
