"""What ncu's pages would hold for a collection by --metrics alone (no
section, so no rule), made from pages of kf's collection: the details page's
rows become one "Command line profiler metrics" row per launch and metric of
the raw page that is in LIST, as ncu writes the metrics asked for by name;
the raw page keeps only LIST's columns. For norules.sh -m.
Usage: metrics_only.py DETAILS RAW LIST  (rewrites DETAILS and RAW)"""
import csv
import sys

details, raw, keep = sys.argv[1], sys.argv[2], set(open(sys.argv[3]).read().split())


def split(path):
    with open(path, newline="") as f:
        lines = f.read().splitlines(True)
    # ncu's own lines (==PROF==, ==WARNING==) stay as they were, first
    return [l for l in lines if not l.startswith('"')], list(csv.reader(l for l in lines if l.startswith('"')))


dpre, drows = split(details)
rpre, rrows = split(raw)
head = drows[0]
launch = {}
for r in drows[1:]:
    launch.setdefault(r[0], r[:11])  # ID .. CC: the launch's own columns
rhead = rrows[0]
units = rrows[1] if len(rrows) > 1 and rrows[1][0] == "" else None
cols = [j for j, c in enumerate(rhead) if "__" not in c or c in keep]
with open(details, "w", newline="") as f:
    f.write("".join(dpre))
    w = csv.writer(f, quoting=csv.QUOTE_ALL, lineterminator="\n")
    w.writerow(head)
    for r in rrows[2 if units else 1:]:
        if r[0] not in launch:
            continue
        for j, c in enumerate(rhead):
            if "__" in c and c in keep and j < len(r):
                row = launch[r[0]] + ["Command line profiler metrics", c, units[j] if units else "", r[j]]
                w.writerow((row + [""] * len(head))[:len(head)])
with open(raw, "w", newline="") as f:
    f.write("".join(rpre))
    w = csv.writer(f, quoting=csv.QUOTE_ALL, lineterminator="\n")
    for r in rrows:
        w.writerow([r[j] for j in cols if j < len(r)])
