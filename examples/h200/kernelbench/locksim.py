#!/usr/bin/env python3
"""A sweep's wall from its jobs' phases, as the GPU's lock orders them.

usage: locksim.py TIMES.TSV [J ...]

TIMES.TSV is `make times` of a sweep under the range gate (every launch of
each program's range detailed, no timing run: pipelines/kf-sweep-times).
Each job is modelled as its own phases, in order: its start-up before its
first CUDA call (startup_s, no lock), its GPU work outside its range
(gpu_shared_s, the lock shared), its range (gpu_held_s, the lock alone),
its exports (exports_s, no lock). J jobs run at once, taken in the table's
order as make takes them. A job asking for the lock alone waits for every
job holding it shared; one asking for it shared waits while a job holds it
alone and, with the turnstile (kf's), while a job waits for it alone.
Prints, for each J (default 3 4 5) and each policy (turnstile: kf's;
shared first: no turnstile), the modelled wall and the seconds the lock was
held alone and only shared. A model: it leaves out what the jobs' phases do
to each other's CPUs (five jobs at once on 16 cores slow each one's
start-up), so a J other than the sweep's own is a bound, not a forecast.
"""
import csv
import sys

DT = 0.01


def num(s):
    return float(s) if s not in ("", "-") else 0.0


def jobs_of(path):
    need = ("id", "startup_s", "gpu_shared_s", "gpu_held_s", "exports_s")
    try:
        f = open(path)
    except OSError as e:
        sys.exit(f"locksim.py: {path}: {e.strerror}")
    with f:
        rd = csv.DictReader(f, delimiter="\t")
        missing = [c for c in need if c not in (rd.fieldnames or [])]
        if missing:
            sys.exit(f"locksim.py: {path}: not make times' table (no column {', '.join(missing)})")
        rows = [r for r in rd if r["id"] != "all" and r["gpu_held_s"] not in ("", "-")]
    return [(r["id"], num(r["startup_s"]), num(r["gpu_shared_s"]), num(r["gpu_held_s"]),
             num(r["exports_s"])) for r in rows]


def sweep(jobs, j, turnstile):
    todo = list(jobs)
    active, want_sh, want_ex, shared = [], [], [], set()
    alone = None
    t = busy_alone = busy_shared = 0.0

    def start(job):
        active.append({"id": job[0], "phase": "startup", "left": job[1], "s": job[2],
                       "x": job[3], "e": job[4]})

    while todo and len(active) < j:
        start(todo.pop(0))
    while active:
        if alone is None:
            if want_ex and not shared:
                a = want_ex.pop(0)
                alone, a["phase"], a["left"] = a, "alone", a["x"]
            if alone is None and want_sh and not (turnstile and want_ex):
                for a in want_sh:
                    a["phase"], a["left"] = "shared", a["s"]
                    shared.add(a["id"])
                want_sh.clear()
        for a in list(active):
            if a["phase"] not in ("startup", "shared", "alone", "exports"):
                continue
            a["left"] -= DT
            if a["left"] > 0:
                continue
            if a["phase"] == "startup":
                a["phase"] = "wait shared"
                want_sh.append(a)
            elif a["phase"] == "shared":
                shared.discard(a["id"])
                a["phase"] = "wait alone"
                want_ex.append(a)
            elif a["phase"] == "alone":
                alone = None
                a["phase"], a["left"] = "exports", a["e"]
            else:
                active.remove(a)
                if todo:
                    start(todo.pop(0))
        if alone is not None:
            busy_alone += DT
        elif shared:
            busy_shared += DT
        t += DT
    return t, busy_alone, busy_shared


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__.strip().splitlines()[2])
    jobs = jobs_of(sys.argv[1])
    if not jobs:
        sys.exit(f"locksim.py: {sys.argv[1]}: no job with gpu_held_s")
    js = [int(a) for a in sys.argv[2:]] or [3, 4, 5]
    print("jobs\tpolicy\twall_s\tlock_alone_s\tlock_only_shared_s")
    for j in js:
        for name, turn in (("turnstile", True), ("shared first", False)):
            w, a, s = sweep(jobs, j, turn)
            print(f"-j{j}\t{name}\t{w:.1f}\t{a:.1f}\t{s:.1f}")


if __name__ == "__main__":
    main()
