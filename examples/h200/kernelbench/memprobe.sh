#!/bin/bash
# examples/h200/kernelbench/memprobe.sh OUT: what one profiled launch of a
# KernelBench level-1 problem costs ncu, and whether the GPU memory other
# processes hold changes it (issue 46). A level-1 sweep's detailed runs
# took 4-13 s for one launch of a kernel over gigabytes, where the same
# kernel runs in milliseconds; ncu saves the memory a kernel can reach
# before its first pass and restores what it wrote before each other pass,
# on the GPU while the GPU has room and in host memory when it has not, and
# a -j3 sweep holds up to four such programs' inputs at once.
# Run in the tree's root, in at most BUDGET (540) seconds. For each
# problem of PROBS (softmax, attention, max pooling), with ncu
# --profile-from-start off --clock-control none, each run's range seconds
# (kb.py's own line: the range's one forward pass with ncu's replays):
#   one    one metric (one pass)
#   kf     kf's sections and metrics (share/kf), nothing else on the GPU
#   leftN  the same beside a process that holds all of the GPU's memory
#          but N GiB (left48: room for ncu's copy of what the program
#          holds; left20: not for the softmax's)
#   nosrc  kf's without SourceCounters (its passes patch the kernel's code)
#   sass   only kf's metrics that ncu collects by patching the kernel's code
#   src    SourceCounters alone
#   roof   SpeedOfLight_RooflineChart alone (its FLOP counts are patched)
#   hw     kf's without those two sections and the patched metrics
#   nocache  kf's with --cache-control none
#   smallN kf's with the problem's batch_size N (kb.py --batch)
# CASES (default "one kf left48 left20 nosrc") picks and orders them. Each
# run's line also has the GPU's memory in use, sampled every 0.2 s, its
# peak within the run (nvidia-smi). Leaves OUT/run.log and OUT/table.tsv.
set -u
export LC_ALL=C
T0=$(date +%s)
BUDGET=${BUDGET:-540}
out=${1:?usage: memprobe.sh OUT}
mkdir -p "$out"
out=$(cd "$out" && pwd)
top=$(pwd)
exec > >(tee "$out/run.log") 2>&1
export PATH=$PATH:/usr/local/cuda/bin
. examples/h200/top44/common.sh
kb=$top/examples/h200/kernelbench
PROBS=${PROBS:-"23_Softmax 97_ScaledDotProductAttention 42_Max_Pooling_2D"}
CASES=${CASES:-"one kf left48 left20 nosrc"}

nvidia-smi --query-gpu=name,memory.total,memory.used --format=csv
ncu --version | tail -1
echo "== ncu --help, replay and memory"
ncu --help | grep -i -E -B1 -A3 'replay|restore|save|memory' | head -80

S=()
for s in $(grep -v '^#' share/kf/ncu_sections.txt | grep .); do S+=(--section "$s"); done
NOSRC=()
for s in $(grep -v '^#' share/kf/ncu_sections.txt | grep . | grep -v '^SourceCounters$'); do NOSRC+=(--section "$s"); done
M=$(grep -v '^#' share/kf/ncu_metrics.txt | grep . | paste -sd,)
# the metrics ncu collects by patching the kernel's code, and the rest
HW=()
for s in $(grep -v '^#' share/kf/ncu_sections.txt | grep . | grep -v -x -e SourceCounters -e SpeedOfLight_RooflineChart); do HW+=(--section "$s"); done
SASS=$(grep -v '^#' share/kf/ncu_metrics.txt | grep -E '^(smsp__sass_|sass__)' | paste -sd,)
HWM=$(grep -v '^#' share/kf/ncu_metrics.txt | grep . | grep -v -E '^(smsp__sass_|sass__)' | paste -sd,)

printf 'problem\tcase\trc\twall_s\trange_s\tpeak_used_mib\tbefore_mib\n' >"$out/table.tsv"
used() { nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits | head -1; }

# probe PROBLEM CASE NCU-ARGS...: one ncu run of kb.py PROBLEM
probe() {
	local p=$1 c=$2 s e rc before peak mon
	shift 2
	before=$(used)
	nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 200 >"$out/$p.$c.mem" 2>/dev/null &
	mon=$!
	s=$(date +%s.%N)
	timeout -k 5 150 ncu --profile-from-start off --clock-control none "$@" -f -o "$out/rep" \
		python3 "$kb/kb.py" "$kb/level1/$p.py" ${KB_ARGS:-} >"$out/$p.$c.log" 2>&1
	rc=$?
	e=$(date +%s.%N)
	kill "$mon" 2>/dev/null
	wait "$mon" 2>/dev/null
	peak=$(sort -n "$out/$p.$c.mem" | tail -1)
	awk -v p="$p" -v c="$c" -v rc="$rc" -v s="$s" -v e="$e" -v pk="${peak:--}" -v b="$before" \
		-v r="$(sed -n 's/.*range \([0-9.]*\) s.*/\1/p' "$out/$p.$c.log" | tail -1)" \
		'BEGIN { printf "%s\t%s\t%d\t%.2f\t%s\t%s\t%s\n", p, c, rc, e - s, (r == "" ? "-" : r), pk, b }' |
		tee -a "$out/table.tsv"
	grep -E 'passes|taking more time|WARNING|ERROR' "$out/$p.$c.log" | cut -c1-160 | head -4
}

# hog N: a process holding all of the GPU's free memory but N GiB until
# killed; its pid in HOG
hog() {
	local free
	free=$(nvidia-smi --query-gpu=memory.free --format=csv,noheader,nounits | head -1)
	rm -f "$out/hog.ready"
	python3 -c 'import sys, time, torch
x = torch.empty(int(float(sys.argv[1]) * 2**30), dtype=torch.uint8, device="cuda")
x.fill_(1)
torch.cuda.synchronize()
open(sys.argv[2], "w").close()
time.sleep(900)' "$(awk -v f="$free" -v n="$1" 'BEGIN { g = f / 1024 - n - 1; print (g > 0 ? g : 0) }')" "$out/hog.ready" &
	HOG=$!
	for _ in $(seq 100); do [ -f "$out/hog.ready" ] && break; sleep 0.2; done
}

python3 -c 'import torch; torch.zeros(1).cuda(); print("warm")'
for p in $PROBS; do
	for c in $CASES; do
		step "$p $c" 45 || break
		case $c in
		one) probe "$p" one --metrics gpu__time_duration.sum ;;
		kf) probe "$p" kf "${S[@]}" --metrics "$M" ;;
		left*)
			hog "${c#left}"
			probe "$p" "$c" "${S[@]}" --metrics "$M"
			kill "$HOG" 2>/dev/null
			wait "$HOG" 2>/dev/null
			;;
		nosrc) probe "$p" nosrc "${NOSRC[@]}" --metrics "$M" ;;
		sass) probe "$p" sass --metrics "$SASS" ;;
		src) probe "$p" src --section SourceCounters ;;
		roof) probe "$p" roof --section SpeedOfLight_RooflineChart ;;
		hw) probe "$p" hw "${HW[@]}" --metrics "$HWM" ;;
		nocache) probe "$p" nocache "${S[@]}" --metrics "$M" --cache-control none ;;
		small*) KB_ARGS="--batch ${c#small}" probe "$p" "$c" "${S[@]}" --metrics "$M" ;;
		*) echo "memprobe.sh: no case $c" ;;
		esac
	done
done
rm -f "$out/rep.ncu-rep"
echo "== table"
cat "$out/table.tsv"
