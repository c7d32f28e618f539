#!/bin/bash
# examples/h200/kernelbench/passprobe.sh OUT: when each share of one
# launch's replay passes ends (stamp.py: ncu's progress marks, on a
# terminal, each with the seconds since ncu's start), for KernelBench
# level-1 problems under kf's collection (kf), without SourceCounters, the
# roofline chart and the patched metrics (hw) and with SourceCounters alone
# (src) (issue 46: memprobe.sh found one launch of the max pooling took
# 7.5 s under kf's 23 passes, 7.0 s under hw's 21 and 6.8 s under src's 5,
# 0.7 s under 3).
# RUNS: "PROBLEM:CASE ..." (default below). Leaves OUT/PROBLEM.CASE.stamped.
set -u
out=${1:?usage: passprobe.sh OUT}
mkdir -p "$out"
export PATH=$PATH:/usr/local/cuda/bin
kb=$PWD/examples/h200/kernelbench
RUNS=${RUNS:-"42_Max_Pooling_2D:kf 42_Max_Pooling_2D:hw 42_Max_Pooling_2D:src 97_ScaledDotProductAttention:kf 23_Softmax:kf"}
S=()
for s in $(grep -v '^#' share/kf/ncu_sections.txt | grep .); do S+=(--section "$s"); done
HW=()
for s in $(grep -v '^#' share/kf/ncu_sections.txt | grep . | grep -v -x -e SourceCounters -e SpeedOfLight_RooflineChart); do HW+=(--section "$s"); done
M=$(grep -v '^#' share/kf/ncu_metrics.txt | grep . | paste -sd,)
HWM=$(grep -v '^#' share/kf/ncu_metrics.txt | grep . | grep -v -E '^(smsp__sass_|sass__)' | paste -sd,)
python3 -c 'import torch; torch.zeros(1).cuda(); print("warm")'
for r in $RUNS; do
	p=${r%%:*} c=${r#*:}
	case $c in
	kf) a=("${S[@]}" --metrics "$M") ;;
	hw) a=("${HW[@]}" --metrics "$HWM") ;;
	src) a=(--section SourceCounters --metrics gpu__time_duration.sum) ;;
	*) echo "passprobe.sh: no case $c"; continue ;;
	esac
	timeout -k 5 120 python3 "$kb/stamp.py" ncu --profile-from-start off --clock-control none "${a[@]}" \
		-f -o "$out/rep" python3 "$kb/kb.py" "$kb/level1/$p.py" >"$out/$p.$c.stamped" 2>&1
	echo "== $p $c (status $?)"
	grep -E '%|passes|kb.py|WARNING' "$out/$p.$c.stamped" | grep -v 'unmodified GPU clocks' | cut -c1-120
	ncu -i "$out/rep.ncu-rep" --page raw --csv --metrics gpu__time_duration.sum 2>/dev/null | tail -1 | cut -c1-200
done
rm -f "$out/rep.ncu-rep"
