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
#   sec_NAME  the section NAME alone (which of hw's sections has the slow
#          step of a launch's replay)
#   drop_A+B  kf's collection without the sections A and B (any number,
#          joined by +)
#   csec_NAME  one of the sections this script writes (OUT/sec) alone:
#          KfInst (the source page's instructions executed, which ncu
#          counts by patching every instruction), KfSampled (the source
#          page's warp stall samples only), KfMemTheo (the source page's
#          theoretical L2 sectors of global accesses, patched)
#   sampled  kf's collection with SourceCounters and MemoryWorkloadAnalysis
#          (whose sources carry patched per-instruction counts) replaced by
#          KfSampled
#   kffull, kfsampled  kf itself as kfleftN, nothing else on the GPU, with
#          kf's collection and with kf-wrap's --sampled-source
#   m_A+B  the metrics A and B (any number, joined by +) alone
#   hwm    kf's metrics that ncu does not collect by patching, alone
#   kfleftN  kf itself (kf --json ncu, built into KF_PREFIX, default
#          /tmp/kf-memprobe, by examples/h200/fail/build.sh) beside a process that leaves N GiB
#          free: the record's data.timings.replay_host_backups, and the
#          line kf --timings reread prints of it
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
kf=${KF_PREFIX:-/tmp/kf-memprobe}
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

# sections of this probe's own (ncu's section format), beside ncu's
mkdir -p "$out/sec"
cat >"$out/sec/KfInst.section" <<'SEC'
Identifier: "KfInst"
DisplayName: "kf probe: instructions executed per instruction"
SourceMetrics {
  Metrics {
    Label: "Instructions Executed"
    Name: "inst_executed"
  }
}
SEC
cat >"$out/sec/KfSampled.section" <<'SEC'
Identifier: "KfSampled"
DisplayName: "kf probe: warp stall samples per instruction"
SourceMetrics {
  Metrics {
    Label: "Warp Stall Sampling (All Samples)"
    Name: "group:smsp__pcsamp_warp_stall_reasons"
  }
  Metrics {
    Label: "Warp Stall Sampling (Not-issued Samples)"
    Name: "group:smsp__pcsamp_warp_stall_reasons_not_issued"
  }
  Metrics {
    Label: "# Samples"
    Name: "smsp__pcsamp_sample_count"
  }
}
SEC
cat >"$out/sec/KfMemTheo.section" <<'SEC'
Identifier: "KfMemTheo"
DisplayName: "kf probe: theoretical L2 sectors of global accesses"
SourceMetrics {
  Metrics {
    Label: "L2 Theoretical Sectors Global"
    Name: "memory_l2_theoretical_sectors_global"
  }
  Metrics {
    Label: "L2 Theoretical Sectors Global Ideal"
    Name: "memory_l2_theoretical_sectors_global_ideal"
  }
}
SEC
NCU_SEC=$(ls -d "$HOME/Documents/NVIDIA Nsight Compute"/*/Sections 2>/dev/null | tail -1)
[ -n "$NCU_SEC" ] || NCU_SEC=$(ls -d "$(dirname "$(readlink -f "$(command -v ncu)")")"/sections /opt/nvidia/nsight-compute/*/sections 2>/dev/null | tail -1)
echo "ncu's sections: $NCU_SEC"
FOLDERS=(--section-folder "$NCU_SEC" --section-folder "$out/sec")

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

# kfprobe PROBLEM CASE [KF-WRAP-OPTION...]: kf --json ncu of kb.py PROBLEM,
# its output folder in KF_PREFIX/out-CASE; prints the host backups kf
# counted and its timings text
kfprobe() {
	local p=$1 c=$2 s e rc
	shift 2
	rm -rf "$kf/out-$c"
	s=$(date +%s.%N)
	timeout -k 5 200 "$kf/bin/kf" --json ncu "$@" -a --profile-from-start -a off \
		-a --clock-control -a none -o "$kf/out-$c" -- \
		python3 "$kb/kb.py" "$kb/level1/$p.py" >"$out/$p.$c.json" 2>"$out/$p.$c.log"
	rc=$?
	e=$(date +%s.%N)
	awk -v p="$p" -v c="$c" -v rc="$rc" -v s="$s" -v e="$e" \
		'BEGIN { printf "%s\t%s\t%d\t%.2f\t-\t-\t-\n", p, c, rc, e - s }' | tee -a "$out/table.tsv"
	jq -c '{launches_profiled, replay_passes, replay_host_backups}' "$kf/out-$c"/*/ncu.*/ncu_timings.json 2>&1 | head -3
	"$kf/bin/kf" --timings reread "$kf/out-$c"/* 2>&1 | grep -E 'backed up|launch|sections|detailed run|replays' | head -8
	jq -c '[.analysis.diagnosis[]? | [.kind, .unit, .line, .impact_pct]]' "$out/$p.$c.json" 2>&1 | tail -1
	echo "kb.py's $(grep -o 'range [0-9.]* s' "$out/$p.$c.json" "$out/$p.$c.log" | tail -1)"
	tail -3 "$out/$p.$c.log" | cut -c1-200
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
		sec_*) probe "$p" "$c" --section "${c#sec_}" ;;
		hwm) probe "$p" hwm --metrics "$HWM" ;;
		drop_*)
			D=()
			for s in $(grep -v '^#' share/kf/ncu_sections.txt | grep .); do
				case "+${c#drop_}+" in *"+$s+"*) ;; *) D+=(--section "$s") ;; esac
			done
			probe "$p" "$c" "${D[@]}" --metrics "$M"
			;;
		csec_*) probe "$p" "$c" "${FOLDERS[@]}" --section "${c#csec_}" ;;
		sampled)
			D=()
			for s in $(grep -v '^#' share/kf/ncu_sections.txt | grep . |
				grep -v -x -e SourceCounters -e MemoryWorkloadAnalysis); do D+=(--section "$s"); done
			probe "$p" "$c" "${FOLDERS[@]}" "${D[@]}" --section KfSampled --metrics "$M"
			;;
		m_*) probe "$p" "$c" --metrics "$(echo "${c#m_}" | tr + ,)" ;;
		kfleft*)
			[ -x "$kf/bin/kf" ] || bash examples/h200/fail/build.sh "$kf" || continue
			hog "${c#kfleft}"
			kfprobe "$p" "$c"
			kill "$HOG" 2>/dev/null
			wait "$HOG" 2>/dev/null
			;;
		kffull | kfsampled)
			[ -x "$kf/bin/kf" ] || bash examples/h200/fail/build.sh "$kf" || continue
			if [ "$c" = kfsampled ]; then kfprobe "$p" "$c" --sampled-source; else kfprobe "$p" "$c"; fi
			;;
		small*) KB_ARGS="--batch ${c#small}" probe "$p" "$c" "${S[@]}" --metrics "$M" ;;
		*) echo "memprobe.sh: no case $c" ;;
		esac
	done
done
rm -f "$out/rep.ncu-rep"
echo "== table"
cat "$out/table.tsv"
