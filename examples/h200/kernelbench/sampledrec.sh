#!/bin/bash
# examples/h200/kernelbench/sampledrec.sh OUT: the same jobs through kf's
# chain with kf's collection ("full") and with the collection of kf-wrap
# --sampled-source ("sampled": share/kf/ncu_source_sampled.section in place
# of SourceCounters and MemoryWorkloadAnalysis, asked for here by kf-wrap's
# -a options, so that a kf without the option records the same), on one
# machine: three defect kernels of examples/cuda/defects.cu (strided:
# uncoalesced loads; bank: shared-memory bank conflicts; diverge: half-warp
# branches) and KernelBench's 47_Sum_reduction_over_a_dimension. Each job's
# pages, record, text and wall seconds land in OUT/sampledrec.tgz
# (MODE-JOB/: ncu_report.csv.gz, ncu_raw.csv.gz, ncu_source.csv.gz,
# ncu_timings.json; MODE-JOB.json, MODE-JOB.txt; times.tsv). Run in the
# tree's root with .dev/ carried (examples/h200/fail/build.sh).
set -u
out=${1:?usage: sampledrec.sh OUT}
mkdir -p "$out"
out=$(cd "$out" && pwd)
top=$(pwd)
w=/tmp/sampledrec
rm -rf "$w"
mkdir -p "$w/pages"
exec > >(tee "$out/sampledrec.log") 2>&1
export PATH=$PATH:/usr/local/cuda/bin
bash examples/h200/fail/build.sh "$w/kf" >/dev/null || { echo "build failed"; exit 1; }
export PATH=$w/kf/bin:$PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
ncu --version | tail -1
nvcc -O3 -arch=sm_90 -lineinfo -o "$w/defects" examples/cuda/defects.cu || exit 1

sd=$w/sections
ncu --section-folder "$sd" --section-folder-restore >/dev/null
cp share/kf/ncu_source_sampled.section "$sd/KfSourceSampled.section"
FULL=()
SAMPLED=(-a --section-folder -a "$sd")
for s in $(grep -v '^#' share/kf/ncu_sections.txt | grep .); do
	case $s in SourceCounters | MemoryWorkloadAnalysis) ;; *) SAMPLED+=(-a --section -a "$s") ;; esac
done
SAMPLED+=(-a --section -a KfSourceSampled)

# job MODE ID KF-WRAP-ARGS... -- CMD...
job() {
	local mode=$1 id=$2 t0 t1 d
	shift 2
	local -n extra=$mode
	t0=$(date +%s.%N)
	kf-wrap ncu --id "$id" -o "$w/$mode" -a --clock-control -a none "${extra[@]}" "$@" |
		kf-run --timeout 150 --inactivity 140 | kf-read | kf-collate | kf-feedback >"$w/pages/$mode-$id.json"
	t1=$(date +%s.%N)
	kf-feedback --text <"$w/pages/$mode-$id.json" >"$w/pages/$mode-$id.txt"
	d=$w/pages/$mode-$id
	mkdir -p "$d"
	for f in ncu_report.csv ncu_raw.csv ncu_source.csv; do
		[ -f "$w/$mode/$id/ncu.000/$f" ] && gzip -c "$w/$mode/$id/ncu.000/$f" >"$d/$f.gz"
	done
	cp "$w/$mode/$id/ncu.000/ncu_timings.json" "$d/" 2>/dev/null
	awk -v m="$mode" -v i="$id" -v a="$t0" -v b="$t1" 'BEGIN { printf "%s\t%s\t%.2f\n", m, i, b - a }' |
		tee -a "$w/pages/times.tsv"
	head -c 300 "$w/pages/$mode-$id.txt" | tr '\n' ' '
	echo
}

for k in strided bank diverge; do
	for mode in FULL SAMPLED; do
		job "$mode" "$k" -- "$w/defects" "$k"
	done
done
kb=$top/examples/h200/kernelbench
for mode in SAMPLED FULL; do
	job "$mode" sum47 -a --profile-from-start -a off -- python3 "$kb/kb.py" "$kb/level1/47_Sum_reduction_over_a_dimension.py"
done
tar czf "$out/sampledrec.tgz" -C "$w" pages
ls -la "$out"
