#!/bin/bash
# What a replay pass's cost follows (issue 46): a launch under kf's
# collection costs about 0.68 s in prog.cu (20 launches, cost.sh) but 1.0-1.7
# s in the fused PyTorch problems' processes. For the same elementwise kernel
# (y = a * x + y), 1 and 10 launches profiled, in: prog.cu; prog.cu beside
# 16 GB of other allocations; prog.cu over 2^20 floats, not 2^26; CuPy;
# PyTorch; PyTorch beside 16 GB; PyTorch without its caching allocator. Each
# with kf's sections and metrics and with one metric (one pass). A launch's
# cost is (t10 - t1) / 9; over the passes' count it is a pass's. The first
# run of a case can be seconds longer (the machine's first ncu run, its first
# PyTorch import), so OUT/vs_one.tsv also gives, by case, 10 launches under
# kf's collection less 10 under one metric, over 10 (both runs warm).
# Prints and writes OUT/where.tsv: case, collection, launches, passes, wall_ms.
# Before them, the passes of the three kernels of prog.cu (one launch
# each) under only what kf reads: the raw page's columns (of every recorded
# H200 raw page in the tree) that kf's code names, asked for by --metrics
# with no section (no rules: norules.sh measures what kf's diagnosis
# loses), with SourceCounters for the hot lines, with SourceCounters,
# SpeedOfLight, LaunchStats and Occupancy (their rules), and only the names
# kf's code spells whole (OUT/lean.tsv; the list, lean-metrics.sh's, in
# OUT/lean-metrics.txt).
# Usage: examples/h200/passes/where.sh OUT   (LEAN_ONLY=1: the passes alone;
# NO_LEAN=1: the costs alone; CASES="c torch ...": only these cases' costs)
set -u
out=${1:?usage: where.sh OUT}
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
export PATH=/usr/local/cuda/bin:$PATH
nvcc -O2 -arch=sm_90 -o /tmp/passprog "$here/prog.cu" -lcublas >"$out/log" 2>&1 || { cat "$out/log"; exit 1; }
. "$here/collection.sh"
ms() { echo $(( $(date +%s%N) / 1000000 )); }
printf 'case\tcollection\tlaunches\tpasses\twall_ms\n' >"$out/where.tsv"
# run CASE COLLECTION LAUNCHES ENV... -- NCU-FILTER... -- PROGRAM...
run() {
	local c=$1 coll=$2 k=$3 t0 e=() f=() p=(); shift 3
	case " ${CASES:-$c} " in *" $c "*) ;; *) return 0 ;; esac
	while [ "$1" != -- ]; do e+=("$1"); shift; done; shift
	while [ "$1" != -- ]; do f+=("$1"); shift; done; shift
	p=("$@")
	if [ "$coll" = kf ]; then f+=("${S[@]}" --metrics "$all"); else f+=(--metrics gpu__time_duration.sum); fi
	t0=$(ms)
	timeout 90 env "${e[@]}" ncu --clock-control none "${f[@]}" -o /tmp/whererep -f "${p[@]}" >/tmp/where.out 2>&1
	printf '%s\t%s\t%s\t%s\t%s\n' "$c" "$coll" "$k" \
		"$(grep -o '[0-9]* passes' /tmp/where.out | awk '{ s += $1 } END { print s + 0 }')" \
		"$(( $(ms) - t0 ))" | tee -a "$out/where.tsv"
	{ echo "== $c $coll $k"; grep -E 'PROF|ERR|WARN' /tmp/where.out | tail -4; } >>"$out/log"
}
# first (the shortest): the passes of only what kf reads (lean-metrics.sh),
# against those model.sh gives without a GPU
if [ -z "${NO_LEAN:-}" ]; then
bash "$here/lean-metrics.sh" >"$out/lean-metrics.txt"
lean=$(paste -sd, "$out/lean-metrics.txt")
# named: only the names kf's code spells whole (no column taken by a prefix)
named=$(bash "$here/lean-metrics.sh" -n | paste -sd,)
printf 'collection\tkernel\tpasses\n' >"$out/lean.tsv"
for k in 0 1 2; do
	for coll in kf lean lean+source lean+4 named; do
		case $coll in
		kf) a=("${S[@]}" --metrics "$all") ;;
		lean) a=(--metrics "$lean") ;;
		lean+source) a=(--section SourceCounters --metrics "$lean") ;;
		named) a=(--metrics "$named") ;;
		# the sections whose metrics the list holds anyway, for their rules
		lean+4) a=(--section SourceCounters --section SpeedOfLight --section LaunchStats
			--section Occupancy --metrics "$lean") ;;
		esac
		timeout 90 ncu --clock-control none --launch-skip "$k" --launch-count 1 "${a[@]}" -o /tmp/whererep -f \
			/tmp/passprog 1 >/tmp/where.out 2>&1
		printf '%s\t%s\t%s\n' "$coll" "$k" \
			"$(grep -o '[0-9]* passes' /tmp/where.out | awk '{ s += $1 } END { print s + 0 }')" | tee -a "$out/lean.tsv"
		{ echo "== lean $coll $k"; grep -E 'PROF|ERR|WARN' /tmp/where.out | tail -4; } >>"$out/log"
	done
done
fi
[ -z "${LEAN_ONLY:-}" ] || exit 0
for coll in kf one; do
	for k in 1 10; do
		run c "$coll" $k -- -k scale_add -c $k -- /tmp/passprog 20
		run c_16gb "$coll" $k -- -k scale_add -c $k -- /tmp/passprog 20 16
		run c_4mb "$coll" $k -- -k scale_add -c $k -- /tmp/passprog 20 0 20
		run cupy "$coll" $k -- --profile-from-start off -- python3 "$here/where.py" cupy $k
		run torch "$coll" $k -- --profile-from-start off -- python3 "$here/where.py" torch $k
		run torch_16gb "$coll" $k -- --profile-from-start off -- python3 "$here/where.py" torch $k 16
		run torch_nocache "$coll" $k PYTORCH_NO_CUDA_MEMORY_CACHING=1 -- --profile-from-start off -- \
			python3 "$here/where.py" torch $k
	done
done
# a launch's cost and a pass's, by case and collection
awk -F'\t' 'NR > 1 { w[$1 "\t" $2 "\t" $3] = $5; p[$1 "\t" $2 "\t" $3] = $4; c[$1 "\t" $2] = 1 }
	END { for (k in c) { d = (w[k "\t10"] - w[k "\t1"]) / 9; n = p[k "\t1"]
	                     printf "%s\t%.1f\t%d\t%.1f\n", k, d, n, n ? d / n : 0 } }' \
	"$out/where.tsv" | sort | { printf 'case\tcollection\tms_a_launch\tpasses_a_launch\tms_a_pass\n'; cat; } |
	tee "$out/cost.tsv"
# a launch under kf's collection, the one-metric run of the same case taken off
awk -F'\t' 'NR > 1 && $3 == 10 { w[$1 "\t" $2] = $5; c[$1] = 1 }
	END { for (k in c) if ((k "\tkf") in w && (k "\tone") in w)
	          printf "%s\t%d\t%d\t%.0f\n", k, w[k "\tkf"], w[k "\tone"], (w[k "\tkf"] - w[k "\tone"]) / 10 }' \
	"$out/where.tsv" | sort | { printf 'case\tkf_10_ms\tone_10_ms\tms_a_launch\n'; cat; } | tee "$out/vs_one.tsv"
