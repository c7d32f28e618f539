#!/bin/bash
# ncu's replay passes, and what they cost, for kf's collection (issue 46):
# on the H200, for each kernel of prog.cu (a cuBLAS bf16 GEMM, an
# elementwise kernel, a block reduction), the passes of kf's sections and
# metrics together, of the sections alone, of each section left out, and
# of the sections plus each of share/kf/ncu_metrics.txt's metrics (its
# marginal passes); then the wall seconds of 20 launches profiled with
# the whole set and with the sections alone (what a pass costs).
# Writes OUT/passes.tsv (what, kernel, passes, wall_s) and OUT/log.
# Usage: examples/h200/passes/passes.sh OUT
set -u
out=${1:?usage: passes.sh OUT}
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
export PATH=/usr/local/cuda/bin:$PATH
nvcc -O2 -arch=sm_90 -o /tmp/passprog "$here/prog.cu" -lcublas >"$out/log" 2>&1 || { cat "$out/log"; exit 1; }
mapfile -t secs < <(grep -v '^#' "$top/share/kf/ncu_sections.txt" | grep .)
mapfile -t mets < <(grep -v '^#' "$top/share/kf/ncu_metrics.txt" | grep .)
all_mets=$(IFS=,; echo "${mets[*]}")
printf 'what\tkernel\tpasses\twall_s\n' >"$out/passes.tsv"
# one ncu run: NAME KERNEL_INDEX LAUNCHES ARGS...
one() {
	local name=$1 skip=$2 count=$3; shift 3
	local t0 p
	t0=$(date +%s%N)
	ncu --clock-control none --launch-skip "$skip" --launch-count "$count" "$@" \
		-o /tmp/passrep -f /tmp/passprog "$count" >/tmp/pass.out 2>&1
	p=$(grep -o '[0-9]* passes' /tmp/pass.out | awk '{ s += $1 } END { print s + 0 }')
	printf '%s\t%s\t%s\t%s\n' "$name" "$skip" "$p" "$(secs "$t0")" >>"$out/passes.tsv"
	echo "== $name $skip $count" >>"$out/log"; grep PROF /tmp/pass.out | tail -3 >>"$out/log"
}
# seconds since T0 (date +%s%N)
secs() { awk -v a="$1" -v b="$(date +%s%N)" 'BEGIN { printf "%.2f", (b - a) / 1e9 }'; }
secargs() { local s a=(); for s in "$@"; do a+=(--section "$s"); done; printf '%s\n' "${a[@]}"; }
for k in 0 1 2; do
	mapfile -t S < <(secargs "${secs[@]}")
	one full "$k" 1 "${S[@]}" --metrics "$all_mets"
	one sections "$k" 1 "${S[@]}"
	one metrics "$k" 1 --metrics "$all_mets"
	for s in "${secs[@]}"; do
		mapfile -t S2 < <(secargs $(printf '%s\n' "${secs[@]}" | grep -vx "$s"))
		one "full-less-$s" "$k" 1 "${S2[@]}" --metrics "$all_mets"
	done
	[ "$k" = 0 ] || continue
	for m in "${mets[@]}"; do
		one "sections+$m" "$k" 1 "${S[@]}" --metrics "$m"
	done
	for m in "${mets[@]}"; do
		rest=$(printf '%s\n' "${mets[@]}" | grep -vx "$m" | paste -sd,)
		one "full-less-$m" "$k" 1 "${S[@]}" --metrics "$rest"
	done
done
# what a pass costs
bash "$here/cost.sh" | tee -a "$out/log"
cat "$out/passes.tsv"
