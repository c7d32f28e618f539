#!/usr/bin/env python3
# summarize.py OUT: measure.sh's tables, from OUT/times.tsv and the records
# in OUT/runs. Each table says what its columns are.
import json, os, sys

out = sys.argv[1]
runs = os.path.join(out, "runs")
times, passes, skipped = {}, [], []
for line in open(os.path.join(out, "times.tsv")):
    f = line.split()
    if not f:
        continue
    if f[0] == "SKIP":
        skipped.append(f[1])
    elif f[0] == "PASSES":
        passes.append(f[1:])
    elif len(f) == 4:
        times[f[0]] = (f[1], int(f[2]), float(f[3]))


def record(name):
    try:
        for line in open(os.path.join(runs, name + ".out"), errors="replace"):
            if line.startswith("{"):
                return json.loads(line)
    except (OSError, ValueError):
        pass
    return None


def wall(name):
    t = times.get(name)
    return t[2] if t else None


def fmt(v, p=2):
    return "-" if v is None else ("%.*f" % (p, v) if isinstance(v, float) else str(v))


progs = ["graph_mlp", "op_range", "triton", "resnet50", "two_procs", "tv_model", "gpt2", "flax", "cudnn4", "cudnn1", "tunableop"]
print()
print("=== issue 44: kf --json ncu --top 3 -a --clock-control -a none against the plain run (wall s)")
print("plain: the program alone before and after; ratio: kf / their mean; chosen: kernels chosen;")
print("detailed: of them with ncu's details; spares: next kernels detailed in place of chosen ones that")
print("did not run; steady: where the ranked launches begin (profiler_range, xla_autotuning,")
print("autotuning, all); timed: trace (kf's tracer) or ncu; held: the detailed run attached to the program")
print("held beside the timing run (processes attached); st: the detailed run's status")
print("%-10s %13s %7s %6s %6s %8s %6s %-15s %-5s %-6s %s" % ("program", "plain", "top3", "ratio", "chosen",
      "detailed", "spares", "steady", "timed", "held", "st"))
rows = {}
for p in progs:
    pl = [w for w in (wall(p + "_plain_1"), wall(p + "_plain_2")) if w is not None]
    kw = wall(p + "_kf")
    r = record(p + "_kf")
    if kw is None and not pl:
        continue
    t = ((r or {}).get("collated") or {}).get("timing") or {}
    dr = t.get("detailed_run") or {}
    chosen = t.get("chosen") or []
    missing = t.get("missing") or []
    mean = sum(pl) / len(pl) if pl else None
    ratio = kw / mean if kw and mean else None
    rows[p] = (mean, kw, r)
    print("%-10s %13s %7s %6s %6s %8s %6s %-15s %-5s %-6s %s" % (
        p, "/".join(fmt(x, 1) for x in pl) or "-", fmt(kw, 1), fmt(ratio) + "x" if ratio else "-",
        len(chosen), len(chosen) - len(missing), len(t.get("spares_detailed") or []),
        t.get("steady_state", "-"), dr.get("timing", "-"),
        ("yes(%s)" % dr.get("attached_processes")) if dr.get("overlapped") else "no", dr.get("status", "-")))
    if r and r.get("error"):
        print("           error: %s" % json.dumps(r["error"])[:300])
print()
print("kernels chosen and detailed, and what was set aside before the steady state:")
for p in progs:
    r = (rows.get(p) or (None, None, None))[2]
    t = ((r or {}).get("collated") or {}).get("timing") or {}
    if not t:
        continue
    det = {k.get("name") for k in t.get("kernels", []) if k.get("detailed")}
    print("  %s: %d launches timed, %s" % (p, t.get("launches", 0), ", ".join(
        "%s (%s)" % (c[:60], "detailed" if c in det else "MISSING") for c in t.get("chosen", []))))
    for s in t.get("set_aside") or []:
        print("      set aside: %s: %d launches of %d kernels, %.3f ms" % (
            s.get("name", "")[:50], s.get("launches", 0), s.get("kernel_count", 0), s.get("total_ns", 0) / 1e6))
    for s in t.get("spares_detailed") or []:
        print("      spare detailed: %s" % s[:80])

print()
print("=== where --top 3's time goes (s; kf-ncu's ncu_timings.json, data.timings)")
print("timing: the timing run; choose: the choice; listen: after it, until the held program listened;")
print("connect: the attach (or ncu's run) until ncu's 'Connected'; to_first: then to the first")
print("launch profiled (its replay included); replays: to the last; after: to the program's end;")
print("detailed: the whole detailed run (attach to its end: report written); exports: the pages;")
print("kf-ncu: all of it; stages: kf's other stages (kf wall less kf-run's run of kf-ncu);")
print("fixed: kf wall less the plain mean; passes/launches: ncu's replay passes and profiled launches")
print("%-10s %6s %6s %6s %7s %8s %7s %6s %8s %7s %6s %6s %6s %s" % ("program", "timing", "choose", "listen",
      "connect", "to_first", "replays", "after", "detailed", "exports", "kf-ncu", "stages", "fixed", "passes/launches"))
for p in progs:
    mean, kw, r = rows.get(p) or (None, None, None)
    if not r:
        continue
    tm = (r.get("collated") or {}).get("timings") or {}
    run = ((r.get("passes") or [{}])[0]).get("run") or {}
    el = run.get("elapsed_s")
    print("%-10s %6s %6s %6s %7s %8s %7s %6s %8s %7s %6s %6s %6s %s/%s" % (
        p, fmt(tm.get("timing_run_s")), fmt(tm.get("choose_s")), fmt(tm.get("listen_wait_s")),
        fmt(tm.get("ncu_connect_s")), fmt(tm.get("to_first_profiled_s")), fmt(tm.get("profiling_s")),
        fmt(tm.get("after_last_profiled_s")), fmt(tm.get("detailed_s")), fmt(tm.get("exports_s")),
        fmt(tm.get("total_s")), fmt(kw - el if kw and el else None),
        fmt(kw - mean if kw and mean else None), fmt(tm.get("replay_passes")), fmt(tm.get("launches_profiled"))))

print()
print("=== the exports (s): the longest ncu -i of each page, side by side (exports: their wall)")
print("%-10s %7s %7s %7s %7s %7s %7s" % ("program", "timing", "details", "mangled", "raw", "source", "exports"))
for p in progs:
    mean, kw, r = rows.get(p) or (None, None, None)
    if not r:
        continue
    tm = (r.get("collated") or {}).get("timings") or {}
    print("%-10s %7s %7s %7s %7s %7s %7s" % (p, fmt(tm.get("export_timing_s")),
          fmt(tm.get("export_details_s")), fmt(tm.get("export_mangled_s")), fmt(tm.get("export_raw_s")),
          fmt(tm.get("export_source_s")), fmt(tm.get("exports_s"))))

print()
print("=== the manual way on GPT-2, side by side (wall s)")
mr, mn, me = wall("manual_rank"), wall("manual_ncu"), wall("manual_export")
names = []
try:
    names = [l.strip() for l in open(os.path.join(runs, "manual_names.txt")) if l.strip()]
except OSError:
    pass
if mr is not None:
    tot = sum(x for x in (mr, mn, me) if x is not None)
    print("PyTorch's profiler run %s + ncu -k regex:... -c 3 %s + its details export %s = %s;"
          " kf ncu --top 3: %s" % (fmt(mr), fmt(mn), fmt(me), fmt(tot), fmt(wall("gpt2_kf"))))
    print("the profiler's top 3: " + "; ".join(n[:60] for n in names))
    r = record("gpt2_kf")
    t = ((r or {}).get("collated") or {}).get("timing") or {}
    print("kf's chosen:          " + "; ".join(c[:60] for c in t.get("chosen", [])))

print()
print("=== the Triton kernel tuned by triton.autotune")
try:
    best = [l.strip() for l in open(os.path.join(runs, "triton_plain_1.out"), errors="replace") if "best config" in l]
    print("the program alone: " + (best[0] if best else "-"))
except OSError:
    pass
r = record("triton_kf")
if r:
    t = (r.get("collated") or {}).get("timing") or {}
    for k in (r.get("collated") or {}).get("kernels", [])[:4]:
        print("detailed launch: %s block %s grid %s" % (k.get("name", "")[:40], k.get("block"), k.get("grid")))
    dr = t.get("detailed_run") or {}
    print("steady state: %s; set aside: %s; triton_env_added: %s" % (t.get("steady_state"), ", ".join(
        "%s %d launches" % (s.get("name", "")[:30], s.get("launches", 0)) for s in t.get("set_aside") or []),
        dr.get("triton_env_added")))

for sweep, what in (("sweep", "GATE=0, kf's default"), ("sweep_gate", "GATE=1, the attach gated"),
                    ("sweep_range", "RANGE=1, the GPU alone from each range")):
    sw = wall(sweep)
    try:
        tt = [l.rstrip("\n").split("\t") for l in open(os.path.join(runs, sweep, "times.tsv"))]
    except OSError:
        tt = []
    if sw is None and not tt:
        continue
    n = max(len(tt) - 2, 0)
    print()
    print("=== issue 46: pipelines/sweep.mk -j3 GPUS=0 (%s), single-op problems (examples/h200/sweep/ops.py)" % what)
    if sw is not None:
        print("wall %.1f s for %d problems: %.2f s a problem" % (sw, n, sw / n if n else 0))
    print("per job (s; kf-sweep-times): run: kf-run's; startup: the held program to its first CUDA call;")
    print("gpu_wait: for the GPU's lock; detailed: ncu's attach to its end; program: of it, the program's")
    print("run under ncu (the GPU's part); exports; launches, replay passes; gpu_held: the GPU held alone (the sweep's pace)")
    for row in tt:
        print("  " + "  ".join("%-11s" % c for c in row))
    try:
        for line in open(os.path.join(runs, sweep, "summary.tsv")):
            print("  summary: " + "  ".join(line.rstrip("\n").split("\t")[:6]))
    except OSError:
        pass


def focus(path):
    try:
        r = json.load(open(path))
        f = r["analysis"]["focus"]
        return "%s %s ns, limiter %s" % (f.get("name", "")[:40], f.get("time_ns"),
                                         (f.get("limiter") or {}).get("unit"))
    except (OSError, ValueError, KeyError, TypeError):
        return "-"


print()
print("the same problem alone and in the sweeps (focus kernel, its time, the limiting unit):")
print("softmax alone:           " + focus(os.path.join(runs, "alone", "softmax.json")))
print("softmax in sweep:        " + focus(os.path.join(runs, "sweep", "softmax.json")))
print("softmax in sweep GATE=1: " + focus(os.path.join(runs, "sweep_gate", "softmax.json")))

if passes:
    print()
    print("=== ncu's replay passes of each of kf's sections alone, on ops.py gemm_bf16's kernel")
    print("(section, passes, wall s of that ncu run); METRICS: share/kf/ncu_metrics.txt alone")
    for p in passes:
        print("  " + "  ".join(p))
if skipped:
    print()
    print("skipped for the budget: " + " ".join(skipped))
