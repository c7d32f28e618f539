#!/bin/bash
# examples/h200/top44/sweep46.sh OUT: issue 46 on one H200 in at most BUDGET
# (560) seconds: the default sweep against the range gate (RANGE=1), on the
# same problems, one after the other in one call. Run in the tree's root
# with .dev/ carried (examples/h200/fail/build.sh). In order, each step
# skipped (and said) when the budget left is too short:
#   1. build kf and install it into OUT/kf
#   2. warm: the imports, the GPU and ncu once
#   3. the 20 single-op problems of examples/h200/sweep/ops.py (each call
#      inside cudaProfilerStart/Stop, --profile-from-start off), sweep.mk
#      -j3: default, then RANGE=1
#   4. six fused problems of examples/h200/levers/ (an op and its
#      elementwise and normalisation tail, one step inside the range):
#      RANGE=1, then default
#   5. four problems alone (-j1, nothing beside them): softmax, conv2d,
#      conv_gn_chain, attn_naive_bf16, to compare their findings with the
#      sweeps'
#   6. the single ops again with RANGE=1 at -j5
#   0. (before 3, when PLAN names them) KernelBench's problems, which no one
#      here wrote (examples/h200/kernelbench: 20 of level 1, 14 of level 2):
#      kb1_plain and kb2_plain run them alone, 3 at a time, without kf or
#      ncu (the floor); kb1_auto_top1 and kb2_auto_top1 sweep them with
#      --top 1 and kf's defaults; kb1_range and kb2_range detail every
#      launch with the range gate (RANGE=1), kb1_default and kb2_default
#      without it; kb1_sampled_top1 gives level 1's jobs, by their own
#      profiler_args, kf's collection less ncu's per-instruction execution
#      counts (kernelbench/sampled_section.py, made before kf-wrap had
#      --sampled-source), kb1_ss_top1 and kb2_ss_top1 sweep with --top 1
#      --sampled-source itself; kb1_ss_range and kb2_ss_range detail every
#      launch of each program's range with --sampled-source and no timing
#      run (RANGE=1), kb1_ss_alone and kb2_ss_alone the same for six
#      problems of each level one at a time (-j1), whose findings the
#      sweeps' must repeat; kb1_plain_j5 and kb1_ss_range_j5 run level 1
#      five at a time
# A NAME with "_early" runs its jobs with KF_NCU_EARLY=1 (the held program of
# --top under the range gate attached at once by an ncu that profiles
# nothing, its work before its range beside the timing run's), one with
# "_noearly" with KF_NCU_EARLY=0 (the default: it waits at its first CUDA
# call for the choice); "_b" names a second sweep of the same kind, for an
# order ABBA against another. (On 2026-12-06 the early attach was the
# default while it was measured: then kb2_auto_top1 and kb2_auto_top1_b
# were the sweeps now named _early.)
# PLAN (names, run in the order above) picks the sweeps; ops_gate, ops_gate_j5
# and fused_gate sweep with GATE=1 instead; fused_top2, fused_top1 and
# alone_top2 (after fused_gate) sweep with --top 2 or 1 (each program timed
# by kf's tracer, then only its 2 or 1 kernels with the most time detailed:
# fewer detailed launches, the ranking and chains from the trace) (ncu's attach started beside
# another job's profiling, gated at its connection); fused_range_top1 and
# fused_range_top2 the same with RANGE=1, ops_range_top1 and ops_top1 the
# single ops so, fused_auto_top1 with RANGE unset (kf's default), (each run's work before its range
# beside other jobs' such work), fused_range_top1_j4, _j6 and
# fused_range_top2_j6 at -j4 and -j6, and fused_top1_j6 without RANGE=1; fused_lean and ops_lean
# (after the others) collect only what kf reads: each job's profiler_args
# add --section SourceCounters and --metrics of examples/h200/passes/
# lean-metrics.sh's list, which replace kf's sections and metrics (no other
# section, so none of ncu's rules but SourceCounters'): their passes, time
# and findings against fused_default's and ops_default's (issue 46).
# Each sweep: wall seconds, `make times` (times.tsv: per job start-up,
# wait, detailed run, gpu_held_s), summary.tsv (focus kernel, limiter),
# the ncu_range.log of each job. Prints a last table (table.txt) and leaves
# OUT/run.log, OUT/table.txt and OUT/sweeps.tar.gz (no .ncu-rep).
set -u
export LC_ALL=C
T0=$(date +%s)
BUDGET=${BUDGET:-560}
out=${1:?usage: sweep46.sh OUT}
mkdir -p "$out"
out=$(cd "$out" && pwd)
top=$(pwd)
exec > >(tee "$out/run.log") 2>&1
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
. examples/h200/top44/common.sh

s=$(date +%s)
[ -x "$out/kf/bin/kf" ] || bash examples/h200/fail/build.sh "$out/kf" || { echo "build failed"; exit 1; }
echo "build $(($(date +%s) - s)) s"
export PATH=$out/kf/bin:$PATH:/usr/local/cuda/bin
ncu --version | tail -1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
# machines of one kind differ in their CPUs: compare sweeps of one call only
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), $(nproc) cores"
python3 -c 'import torch; print("torch", torch.__version__)'

sw=$top/examples/h200/sweep/ops.py
lv=$top/examples/h200/levers
ops_jobs "$out/ops.jsonl"
fused_jobs "$out/fused.jsonl"
kb_jobs level1 "$out/kb1.jsonl"
kb_jobs level2 "$out/kb2.jsonl"
bash examples/h200/passes/lean-metrics.sh >"$out/lean-metrics.txt"
for j in ops fused; do
	jq -c --arg m "$(paste -sd, "$out/lean-metrics.txt")" \
		'.profiler_args += ["--section", "SourceCounters", "--metrics", $m]' "$out/$j.jsonl" >"$out/${j}_lean.jsonl"
done
# kb1_sampled: kf's collection less ncu's per-instruction execution counts
# (SourceCounters by a copy without them, examples/h200/kernelbench/
# sampled_section.py, in a folder of ncu's stock sections; MemoryWorkloadAnalysis
# by its header's metrics), for KernelBench's level 1
case " ${PLAN:-} " in *" kb1_sampled"*)
	sd=$out/sections
	ncu --section-folder "$sd" --section-folder-restore >/dev/null
	python3 examples/h200/kernelbench/sampled_section.py "$sd/SourceCounters.section" "$sd/KfSourceSampled.section"
	SAMPLED=(--section-folder "$sd")
	for s in $(grep -v '^#' share/kf/ncu_sections.txt | grep . | grep -v -x -e SourceCounters -e MemoryWorkloadAnalysis); do
		SAMPLED+=(--section "$s")
	done
	SAMPLED+=(--section KfSourceSampled --metrics "$(grep -v '^#' share/kf/ncu_metrics.txt | grep . | paste -sd,),dram__bytes.sum.per_second,gpu__compute_memory_access_throughput.avg.pct_of_peak_sustained_elapsed,gpu__compute_memory_request_throughput.avg.pct_of_peak_sustained_elapsed,sm__memory_throughput.avg.pct_of_peak_sustained_elapsed,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,launch__persisting_l2_cache_size,sass__inst_executed_register_spilling")
	jq -c --argjson a "$(printf '%s\n' "${SAMPLED[@]}" | jq -R . | jq -s .)" '.profiler_args += $a' \
		"$out/kb1.jsonl" >"$out/kb1_sampled.jsonl"
	head -c 600 "$out/kb1_sampled.jsonl"; echo
	;;
esac
jq -c 'select(.id == "softmax" or .id == "conv2d")' "$out/ops.jsonl" >"$out/alone.jsonl"
# six of each level, alone: the longest kernels (attention, max pooling),
# a reduction, a norm, a convolution, a matrix product
jq -c 'select(.id | test("^level1-(97|42|47|36|63|1)$"))' "$out/kb1.jsonl" >"$out/kb1_alone.jsonl"
jq -c 'select(.id | test("^level2-[0-9]+$"))' "$out/kb2.jsonl" | head -6 >"$out/kb2_alone.jsonl"
jq -c 'select(.id == "conv_gn_chain" or .id == "attn_naive_bf16")' "$out/fused.jsonl" >>"$out/alone.jsonl"

if step warm 30; then
	python3 "$lv/harness.py" "$lv/progs/conv_relu_bias.py" --steps 1 >/dev/null 2>&1
	timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum python3 "$sw" gelu 2>&1 | tail -1
fi

# the sweeps to run: those named in PLAN, in this script's order (a name with "gate"
# sweeps with GATE=1: ncu's attach started before the GPU is free)
PLAN=${PLAN:-ops_default ops_range fused_range fused_default alone ops_range_j5}
: >"$out/walls.tsv"
plain kb1_plain "$out/kb1.jsonl" 20 3 60
plain kb1_plain_j5 "$out/kb1.jsonl" 20 5 60
sweep kb1_ss_range_j5 "$out/kb1.jsonl" 20 1 5 100
sweep kb2_alone_top1_noearly "$out/kb2_alone.jsonl" 6 "" 1 60
sweep kb2_alone_top1_early "$out/kb2_alone.jsonl" 6 "" 1 60
sweep kb1_auto_top1_noearly "$out/kb1.jsonl" 20 "" 3 90
sweep kb1_auto_top1_early "$out/kb1.jsonl" 20 "" 3 90
sweep kb1_auto_top1 "$out/kb1.jsonl" 20 "" 3 90
plain kb2_plain "$out/kb2.jsonl" 14 3 50
sweep kb2_auto_top1_noearly "$out/kb2.jsonl" 14 "" 3 80
sweep kb2_auto_top1_early "$out/kb2.jsonl" 14 "" 3 80
sweep kb2_auto_top1_early_b "$out/kb2.jsonl" 14 "" 3 80
sweep kb2_auto_top1_noearly_b "$out/kb2.jsonl" 14 "" 3 80
sweep kb2_auto_top1 "$out/kb2.jsonl" 14 "" 3 80
sweep kb1_sampled_top1 "$out/kb1_sampled.jsonl" 20 "" 3 90
sweep kb1_ss_top1 "$out/kb1.jsonl" 20 "" 3 90
sweep kb2_ss_top1 "$out/kb2.jsonl" 14 "" 3 80
sweep kb1_ss_range "$out/kb1.jsonl" 20 1 3 100
sweep kb2_ss_range "$out/kb2.jsonl" 14 1 3 60
sweep kb1_ss_alone "$out/kb1_alone.jsonl" 6 1 1 100
sweep kb2_ss_alone "$out/kb2_alone.jsonl" 6 1 1 70
sweep kb1_range "$out/kb1.jsonl" 20 1 3 100
sweep kb2_range "$out/kb2.jsonl" 14 1 3 60
sweep kb1_default "$out/kb1.jsonl" 20 0 3 100
sweep kb2_default "$out/kb2.jsonl" 14 0 3 100
sweep ops_default "$out/ops.jsonl" 20 0 3 90
sweep ops_range "$out/ops.jsonl" 20 1 3 90
sweep fused_range "$out/fused.jsonl" 6 1 3 70
sweep fused_default "$out/fused.jsonl" 6 0 3 75
sweep alone "$out/alone.jsonl" 4 0 1 50
sweep ops_range_j5 "$out/ops.jsonl" 20 1 5 70
sweep ops_gate "$out/ops.jsonl" 20 0 3 90
sweep ops_gate_j5 "$out/ops.jsonl" 20 0 5 80
sweep fused_gate "$out/fused.jsonl" 6 0 3 70
sweep fused_top2 "$out/fused.jsonl" 6 0 3 70
sweep fused_top1 "$out/fused.jsonl" 6 0 3 70
sweep fused_range_top1 "$out/fused.jsonl" 6 1 3 70
sweep ops_range_top1 "$out/ops.jsonl" 20 1 3 90
sweep fused_auto_top1_early "$out/fused.jsonl" 6 "" 3 50
sweep fused_auto_top1 "$out/fused.jsonl" 6 "" 3 50
sweep ops_top1 "$out/ops.jsonl" 20 0 3 90
sweep fused_range_top2 "$out/fused.jsonl" 6 1 3 70
sweep fused_range_top1_j4 "$out/fused.jsonl" 6 1 4 60
sweep fused_range_top1_j6 "$out/fused.jsonl" 6 1 6 60
sweep fused_range_top2_j6 "$out/fused.jsonl" 6 1 6 60
sweep fused_top1_j6 "$out/fused.jsonl" 6 0 6 60
sweep alone_top2 "$out/alone.jsonl" 4 0 1 60
sweep fused_top1_j5 "$out/fused.jsonl" 6 0 5 60
sweep fused_top2_j5 "$out/fused.jsonl" 6 0 5 60
sweep fused_lean "$out/fused_lean.jsonl" 6 0 3 70
sweep ops_lean "$out/ops_lean.jsonl" 20 0 3 90

echo "== the walls"
cat "$out/walls.tsv"
{
	echo "# sweep46.sh $(date -u +%FT%TZ): wall seconds of each sweep"
	cat "$out/walls.tsv"
	for n in $PLAN; do
		[ -f "$out/$n/times.tsv" ] && { echo "# $n: make times"; cat "$out/$n/times.tsv"; }
		[ -f "$out/$n/summary.tsv" ] && { echo "# $n: summary (id status top_kernel verdict lever stake)"
			cut -f1,3,4,6,8,9 "$out/$n/summary.tsv"; }
	done
} >"$out/table.txt"
pack sweeps
ls -la "$out"
echo "sweep46.sh: $(($(date +%s) - T0)) s"
