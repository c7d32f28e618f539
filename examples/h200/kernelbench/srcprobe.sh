#!/bin/bash
# examples/h200/kernelbench/srcprobe.sh OUT: how a collection can leave out
# ncu's per-instruction execution counts (inst_executed, counted by patching
# every instruction: memprobe.sh's csec_KfInst) and keep the source page's
# warp stall samples. One KernelBench problem (PROB, default 23_Softmax at
# batch 1) under ncu, each way, and the columns of its source page:
#   restore  ncu --section-folder DIR --section-folder-restore: does ncu
#            write its stock sections into a folder of kf's choosing
#   metrics  the samples and the patched memory counts by --metrics
#   folder   the same by a section of kf's own (memprobe.sh's KfSampled),
#            in the restored folder beside ncu's stock sections
# Run in the tree's root. Leaves OUT/srcprobe.log.
set -u
out=${1:?usage: srcprobe.sh OUT}
mkdir -p "$out"
out=$(cd "$out" && pwd)
exec > >(tee "$out/srcprobe.log") 2>&1
export PATH=$PATH:/usr/local/cuda/bin
kb=$(pwd)/examples/h200/kernelbench
PROB=${PROB:-23_Softmax}
prog=(python3 "$kb/kb.py" "$kb/level1/$PROB.py" --batch 1)
base=(--profile-from-start off --clock-control none)

echo "== restore"
rm -rf "$out/sf"
time ncu --section-folder "$out/sf" --section-folder-restore
echo "rc=$?"
ls "$out/sf" | head -60
ls "$out/sf" | wc -l

cols() {
	echo "-- $1: source page columns"
	ncu -i "$out/$1.ncu-rep" --page source --csv --print-source sass 2>&1 | sed -n '1,4p' | cut -c1-1500
	echo "-- $1: details page, sections"
	ncu -i "$out/$1.ncu-rep" --page details --csv 2>&1 | cut -d, -f13-14 | sort -u | head -40
}

echo "== metrics"
M=group:smsp__pcsamp_warp_stall_reasons,group:smsp__pcsamp_warp_stall_reasons_not_issued,smsp__pcsamp_sample_count,memory_l2_theoretical_sectors_global,memory_l2_theoretical_sectors_global_ideal
ncu "${base[@]}" --section SpeedOfLight --metrics "$M" -f -o "$out/metrics" "${prog[@]}" 2>&1 | grep -E 'PROF|ERROR|WARN' | cut -c1-300
cols metrics

echo "== folder"
cat >"$out/sf/KfSampled.section" <<'SEC'
Identifier: "KfSampled"
DisplayName: "kf: warp stall samples per instruction"
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
ncu "${base[@]}" --section-folder "$out/sf" --section SpeedOfLight --section KfSampled -f -o "$out/folder" "${prog[@]}" 2>&1 | grep -E 'PROF|ERROR|WARN' | cut -c1-300
cols folder
rm -f "$out"/*.ncu-rep
