#!/bin/bash
# examples/h200/top44/fused.sh OUT: issue 46's second kind of problem on one
# H200: an op followed by elementwise ops and normalisations (3-7 kernels,
# every kernel detailed), six of examples/h200/levers/ (one step inside
# cudaProfilerStart/Stop by harness.py, --profile-from-start off), swept with
# pipelines/sweep.mk -j3, then `make times`. Run in the tree's root with kf
# built and installed into OUT/kf first (measure.sh's step 1 does it:
# examples/h200/fail/build.sh OUT/kf). Then the same sweep with RANGE=1 (the
# GPU held shared until each program's range starts). Leaves OUT/fused and
# OUT/fused_range (the sweeps' outputs, times.tsv) and prints the wall
# times and the per-job tables.
set -u
out=${1:?usage: fused.sh OUT}
mkdir -p "$out"
out=$(cd "$out" && pwd)
top=$(pwd)
lv=$top/examples/h200/levers
[ -x "$out/kf/bin/kf" ] || bash examples/h200/fail/build.sh "$out/kf" >/dev/null || exit 1
export PATH=$out/kf/bin:$PATH:/usr/local/cuda/bin
for p in progs/conv_relu_bias progs/conv_inorm_div progs/conv_gn_chain progs/linear_tail_bf16 \
	heldout/convt_sum_gelu heldout/attn_naive_bf16; do
	jq -cn --arg id "${p##*/}" --arg h "$lv/harness.py" --arg p "$lv/$p.py" \
		'{id: $id, cmd: ["python3", $h, $p, "--steps", "1"], language: "cuda", arch: "H200",
		  profiler: "ncu", profiler_args: ["--profile-from-start", "off", "--clock-control", "none"]}'
done >"$out/fused.jsonl"
# warm: the imports and the GPU once, so no measured job pays a first start
python3 "$lv/harness.py" "$lv/progs/conv_relu_bias.py" --steps 1 >/dev/null 2>&1
mk=(make -s -f "$out/kf/share/kf/pipelines/sweep.mk" GPUS=0 LOCKDIR="$out/locks"
	KF="$out/kf/bin" RUN_FLAGS="--timeout 120")
for mode in fused fused_range; do
	range=0
	[ "$mode" = fused_range ] && range=1
	s=$(date +%s.%N)
	timeout 400 "${mk[@]}" JOBS="$out/fused.jsonl" OUT="$out/$mode" RANGE=$range -j3
	e=$(date +%s.%N)
	awk -v s="$s" -v e="$e" -v n=6 -v r=$range 'BEGIN { printf "fused sweep -j3 RANGE=%d: %.1f s for %d problems: %.2f s a problem\n", r, e - s, n, (e - s) / n }'
	"${mk[@]}" JOBS="$out/fused.jsonl" OUT="$out/$mode" RANGE=$range times >/dev/null 2>&1
	column -t "$out/$mode/times.tsv" 2>/dev/null || cat "$out/$mode/times.tsv"
	cut -f1-6 "$out/$mode/summary.tsv"
done
