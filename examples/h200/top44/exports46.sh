#!/bin/bash
# examples/h200/top44/exports46.sh OUT: what each of kf's exports of an ncu
# report costs, and what else ncu offers, in at most BUDGET (150) seconds.
# Run in the tree's root after sweep46.sh OUT (it uses OUT/kf, else builds
# it). kf profiles two short programs whose one call is inside its profiler
# range (examples/h200/sweep/ops.py softmax and gemm_bf16) with `kf --json
# ncu --top 3`; then each page kf exports from that report, and the
# variants of the source page, is timed three times (wall seconds, ncu's
# own start-up apart: `ncu --version`), one export at a time. Appends to
# OUT/exports.tsv: the report's op, page and its arguments, run, status, wall s,
# bytes written.
set -u
export LC_ALL=C
T0=$(date +%s)
BUDGET=${BUDGET:-150}
out=${1:?usage: exports46.sh OUT}
mkdir -p "$out"
out=$(cd "$out" && pwd)
top=$(pwd)
. examples/h200/top44/common.sh
[ -x "$out/kf/bin/kf" ] || bash examples/h200/fail/build.sh "$out/kf" || { echo "build failed"; exit 1; }
export PATH=$out/kf/bin:$PATH:/usr/local/cuda/bin
ncu --help | grep -n -i -A3 -e '--print-source' -e '--import-source' -e '--page ' | head -40
t=$out/exports.tsv
[ -s "$t" ] || printf 'report\texport\trun\tstatus\twall_s\tbytes\n' >"$t"

# one NAME REPORT ARGS...: `ncu -i REPORT ARGS` three times, each line of t
# (the report named by its op, $op)
one() {
	local name=$1 rep=$2 i s e rc
	shift 2
	for i in 1 2 3; do
		s=$(date +%s.%N)
		ncu -i "$rep" "$@" >"$out/x.out" 2>"$out/x.err"
		rc=$?
		e=$(date +%s.%N)
		awk -v r="$op" -v n="$name" -v i="$i" -v rc="$rc" -v s="$s" -v e="$e" \
			-v b="$(stat -c %s "$out/x.out")" \
			'BEGIN { printf "%s\t%s\t%d\t%d\t%.3f\t%d\n", r, n, i, rc, e - s, b }' >>"$t"
	done
	[ "$rc" = 0 ] || head -3 "$out/x.err"
}

for op in softmax gemm_bf16; do
	step "kf $op" 40 || break
	d=$out/exp_$op
	mkdir -p "$d"
	(cd "$d" && timeout 120 kf --json ncu --top 3 -a --clock-control -a none \
		python3 "$top/examples/h200/sweep/ops.py" "$op" >record.json 2>kf.err)
	rep=$(find "$d" -name '*.ncu-rep' ! -name 'timing*' | head -1)
	[ -n "$rep" ] || { echo "no report for $op"; tail -5 "$d/kf.err"; continue; }
	find "$d" -name ncu_timings.json -exec cat {} + | head -c 1500; echo
	step "exports $op" 40 || break
	for i in 1 2 3; do
		s=$(date +%s.%N); ncu --version >/dev/null; e=$(date +%s.%N)
		awk -v i="$i" -v s="$s" -v e="$e" 'BEGIN { printf "-\tncu --version\t%d\t0\t%.3f\t0\n", i, e - s }' >>"$t"
	done
	one details "$rep" --page details --csv
	one details_mangled "$rep" --page details --csv --print-kernel-base mangled
	one raw "$rep" --page raw --csv --print-units base
	one source_cuda_sass "$rep" --page source --csv --print-source cuda,sass
	one source_sass "$rep" --page source --csv --print-source sass
	one source_cuda "$rep" --page source --csv --print-source cuda
	one source_cuda_sass_l1 "$rep" --page source --csv --print-source cuda,sass --launch-count 1
	one session "$rep" --page session --csv
done
cat "$t"
echo "exports46.sh: $(($(date +%s) - T0)) s"
