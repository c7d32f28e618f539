#!/bin/bash
# examples/h200/top44/probe46.sh OUT: the second H200 call of 2026-12-05,
# after sweep46.sh, in at most BUDGET (540) seconds. Run in the tree's
# root with .dev/ carried. Each step skipped (and said) when the budget left
# is too short:
#   1. build kf and install it into OUT/kf
#   2. issue 44, a failed program (kf-ncu's KF_SELECT_NONE path, never run
#      on a GPU before): `kf --json ncu --top 3` of a Python program that
#      fails on an import (no CUDA), one that fails after its first CUDA
#      call with no kernel, one that fails after its kernels; each timed,
#      its exit status, kf-ncu's words and the record's error kept
#   3. where ncu's fixed cost goes, on one launch (ops.py softmax, its call
#      inside cudaProfilerStart/Stop, --profile-from-start off): the
#      program alone, then ncu with one metric, with SpeedOfLight, with
#      kf's sections and metrics, the same without SourceCounters, the
#      same with --apply-rules no; twice each, every line of ncu's output
#      stamped with the seconds since the run's start (ncu's start, its
#      connection, the range, the launch profiled, the end)
#   4. the fused problems and the single ops at -j5 (default and RANGE=1),
#      beside sweep46.sh's -j3 runs
# Leaves OUT/run.log, OUT/table.txt and OUT/probe.tar.gz.
set -u
export LC_ALL=C
T0=$(date +%s)
BUDGET=${BUDGET:-540}
out=${1:?usage: probe46.sh OUT}
mkdir -p "$out"
out=$(cd "$out" && pwd)
top=$(pwd)
exec > >(tee "$out/run.log") 2>&1
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
. examples/h200/top44/common.sh
# wall NAME CMD...: CMD's output in OUT/NAME.out, "NAME STATUS WALL" in table
wall() {
	local name=$1 s e rc
	shift
	s=$(date +%s.%N)
	timeout -k 5 120 "$@" >"$out/$name.out" 2>&1
	rc=$?
	e=$(date +%s.%N)
	awk -v n="$name" -v s="$s" -v e="$e" -v rc="$rc" \
		'BEGIN { printf "%s\t%d\t%.2f\n", n, rc, e - s }' | tee -a "$out/table.txt"
}

s=$(date +%s)
bash examples/h200/fail/build.sh "$out/kf" || { echo "build failed"; exit 1; }
echo "build $(($(date +%s) - s)) s"
export PATH=$out/kf/bin:$PATH:/usr/local/cuda/bin
sw=$top/examples/h200/sweep/ops.py
lv=$top/examples/h200/levers
: >"$out/table.txt"
python3 -c 'import torch; torch.zeros(1).cuda(); print("warm")'

# 2. failed programs
if step failed 60; then
	echo "# issue 44: a failed program (name status wall)" >>"$out/table.txt"
	cat >"$out/fail_import.py" <<'EOF'
import no_such_module_kf
EOF
	cat >"$out/fail_nokernel.py" <<'EOF'
import torch
torch.cuda.init()
x = torch.empty(4, device="cuda")
raise SystemExit(3)
EOF
	cat >"$out/fail_after.py" <<'EOF'
import torch
x = torch.randn(1 << 20, device="cuda")
for _ in range(5):
    x = torch.nn.functional.gelu(x)
torch.cuda.synchronize()
raise SystemExit(4)
EOF
	for p in fail_import fail_nokernel fail_after; do
		wall "${p}_plain" python3 "$out/$p.py"
		wall "${p}_kf" kf --json ncu --top 3 -a --clock-control -a none -o "$out/$p" -- python3 "$out/$p.py"
		grep -h '^kf-ncu\|kf-ncu:' "$out/${p}_kf.out" | cut -c1-300
		grep '^{' "$out/${p}_kf.out" | jq -c '{exit_code: .passes[0].run.exit_code, message: .passes[0].run.message, status: .status, error: (.error // .passes[0].error // null | tostring | .[0:200]),
			launches: .collated.timings.launches_profiled, timing_run_s: .collated.timings.timing_run_s,
			total_s: .collated.timings.total_s}' 2>/dev/null | head -3
	done
fi

# 3. ncu's fixed cost on one launch
S=()
for s in $(grep -v '^#' "$out/kf/share/kf/ncu_sections.txt" | grep .); do S+=(--section "$s"); done
NOSRC=()
for s in $(grep -v '^#' "$out/kf/share/kf/ncu_sections.txt" | grep . | grep -v '^SourceCounters$'); do NOSRC+=(--section "$s"); done
M=$(grep -v '^#' "$out/kf/share/kf/ncu_metrics.txt" | grep . | paste -sd,)
# stamped NAME ARGS...: ncu ARGS... on softmax, each output line stamped
stamped() {
	local name=$1 t0
	shift
	t0=$(date +%s.%N)
	timeout -k 5 60 ncu --clock-control none --profile-from-start off "$@" -f -o "$out/rep_$name" \
		python3 "$sw" softmax 2>&1 | python3 -u -c 'import sys, time
t0 = float(sys.argv[1])
for l in sys.stdin:
    print("%.2f %s" % (time.time() - t0, l), end="", flush=True)' "$t0" >"$out/$name.stamped"
	awk -v n="$name" -v s="$t0" -v e="$(date +%s.%N)" 'BEGIN { printf "%s\tend %.2f\t", n, e - s }' |
		tee -a "$out/table.txt"
	grep -E 'Connected|STAMP|passes|Disconnected|Report:' "$out/$name.stamped" | cut -c1-90 | paste -sd'|' | tee -a "$out/table.txt"
}
if step fixed 120; then
	echo "# ncu's fixed cost, one launch of softmax (name, seconds since start of: lines)" >>"$out/table.txt"
	for i in 1 2; do
		wall "plain_$i" python3 "$sw" softmax
		stamped "one_metric_$i" --metrics gpu__time_duration.sum
		stamped "sol_$i" --section SpeedOfLight
		stamped "kf_$i" "${S[@]}" --metrics "$M"
		stamped "kf_nosrc_$i" "${NOSRC[@]}" --metrics "$M"
		stamped "kf_norules_$i" "${S[@]}" --metrics "$M" --apply-rules no
		[ "$(left)" -gt 200 ] || break
	done
	for f in "$out"/rep_kf_1.ncu-rep; do
		[ -f "$f" ] || continue
		for pg in details raw source; do
			a=(); [ "$pg" = source ] && a=(--print-source cuda,sass)
			wall "export_$pg" ncu -i "$f" --page "$pg" --csv "${a[@]}"
		done
		wall export_source_sass ncu -i "$f" --page source --csv --print-source sass
	done
fi

# 4. -j5 sweeps
ops_jobs "$out/ops.jsonl"
fused_jobs "$out/fused.jsonl"
PLAN="fused_range_j5 fused_default_j5 ops_default_j5"
: >"$out/walls.tsv"
echo "# sweeps at -j5 (name, range and gate, j, problems, wall, a problem; then make times' all line)" >>"$out/table.txt"
for x in "fused_range_j5 fused 6 1 60" "fused_default_j5 fused 6 0 60" "ops_default_j5 ops 20 0 85"; do
	set -- $x
	sweep "$1" "$out/$2.jsonl" "$3" "$4" 5 "$5"
	[ -f "$out/$1/times.tsv" ] || continue
	{ tail -n 1 "$out/walls.tsv"; tail -n 1 "$out/$1/times.tsv"; cut -f1,3,5,6 "$out/$1/summary.tsv" | cut -c1-160; } >>"$out/table.txt"
done

pack probe
cat "$out/table.txt"
echo "probe46.sh: $(($(date +%s) - T0)) s"
