#!/usr/bin/env bats
# Kernels with one known defect each and their fixes (examples/cuda/defects.cu),
# and cuBLAS GEMMs through PyTorch (examples/torch/gemm.py), profiled on an
# H200 through the whole chain (examples/h200-defects/run.sh): each defect is
# the first finding, on its line; each fix makes that finding go away; the
# GEMMs sit on the roof of their precision.
load helper

DFIX="$FIX/ncu-h200-defects"

# replay_job JOB: the recorded pages through kf-read | kf-collate | kf-feedback.
replay_job() {
	replay_pages "$1" "$DFIX/$1"
}

first() {
	replay_job "$1"
	jq -c '.analysis.diagnosis[0] | [.kind, .unit, .line]' "$BATS_TEST_TMPDIR/$1.json"
}

kinds() {
	replay_job "$1"
	jq -c '[.analysis.diagnosis[].kind]' "$BATS_TEST_TMPDIR/$1.json"
}

@test "defects: each is the first finding, with its line" {
	run first local;   assert_output '["local_memory","l1",33]'
	run first fp64;    assert_output '["fp64_math","xu",62]'
	run first barrier; assert_output '["barrier_stall",null,95]'
	run first bank;    assert_output '["shared_bank_conflict","shared",143]'
	run first strided; assert_output '["uncoalesced_global","l2",175]'
	run first atomic;  assert_output '["atomic_contention","l2",194]'
	run first diverge; assert_output '["branch_divergence",null,221]'
	run first small;   assert_output '["small_grid",null,null]'
}

@test "defects: each fix makes its finding go away" {
	run kinds local_fix;   refute_output --partial local_memory
	run kinds fp64_fix;    refute_output --partial fp64_math
	run kinds barrier_fix; refute_output --partial barrier_stall
	run kinds bank_fix;    refute_output --partial shared_bank_conflict
	run kinds strided_fix; refute_output --partial uncoalesced_global
	run kinds atomic_fix;  refute_output --partial atomic_contention
	run kinds diverge_fix; refute_output --partial branch_divergence
	run kinds small_fix;   refute_output --partial small_grid
}

@test "defects: the evidence is the counters': 30-way conflicts, 16 of 32 threads, 16 blocks for 132 SMs" {
	replay_job bank
	# 285,736,960 shared wavefronts for 9,437,184 ideal: 30.3-way.
	run jq -c '.analysis.diagnosis[0] | [(.impact_pct | round), [.evidence[0:2][] | .value]]' "$BATS_TEST_TMPDIR/bank.json"
	assert_output '[95,[285736960,9437184]]'
	replay_job diverge
	run jq -r '.feedback' "$BATS_TEST_TMPDIR/diverge.json"
	assert_output --partial '1. Divergence: the line runs with 16 of 32 threads a warp'
	replay_job small
	run jq -r '.analysis.diagnosis[0].what' "$BATS_TEST_TMPDIR/small.json"
	assert_output 'Small grid: 16 blocks for 132 SMs, so 116 SMs idle (launch__grid_size)'
	# The fp64 recurrence: XU (F2F conversions) at 93.7 % is the limit, never
	# "nothing runs near its peak".
	replay_job fp64
	run jq -r '.feedback' "$BATS_TEST_TMPDIR/fp64.json"
	refute_output --partial 'latency-bound'
	assert_output --partial 'Verdict: compute-bound on the XU pipe (conversions, transcendentals), at 93.7% of its peak.'
}

@test "GEMMs: bf16 8192^3 compute-bound on the tensor pipe at 2*M*N*K over its duration (within 15%)" {
	replay_job gemm-bf16
	# 2 x 8192^3 = 1.0995e12 FLOP in 1.403424 ms = 783 TFLOP/s; ncu counted
	# 1.1167e12 tensor operations (tiles of 320 rows pad 8192 to 8320).
	run jq -c '.analysis.focus.roof | [.bound, .limiter, .precision, ((.achieved_flops / (2 * 8192 * 8192 * 8192 / 0.001403424) - 1 | fabs) < 0.15), (.peak_flops / 1e12), .tensor_counted]' "$BATS_TEST_TMPDIR/gemm-bf16.json"
	assert_output '["compute","tensor","bf16",true,989.5,true]'
	run jq -c '.analysis.diagnosis[0] | [.kind, .unit]' "$BATS_TEST_TMPDIR/gemm-bf16.json"
	assert_output '["compute_bound","tensor"]'
	run jq -r '.feedback' "$BATS_TEST_TMPDIR/gemm-bf16.json"
	assert_output --partial '1. Compute-bound on the tensor pipe: 96.9% of its peak; 796 TFLOP/s bf16 of 990 peak (80%)'
	refute_output --partial 'zero arithmetic intensity'
}

@test "GEMMs: fp8 and tf32 on their own peaks, fp32 on the FMA pipe, the decode shape on DRAM" {
	replay_job gemm-fp8
	run jq -c '.analysis.focus.roof | [.bound, .limiter, .precision, (.achieved_flops / 1e12 | round), (.peak_flops / 1e12)]' "$BATS_TEST_TMPDIR/gemm-fp8.json"
	assert_output '["compute","tensor","fp8",1471,1979]'
	replay_job gemm-tf32
	run jq -c '.analysis.focus.roof | [.bound, .limiter, .precision, (.achieved_flops / 1e12 | round)]' "$BATS_TEST_TMPDIR/gemm-tf32.json"
	assert_output '["compute","tensor","tf32",407]'
	replay_job gemm-fp32
	run jq -c '.analysis.focus.roof | [.bound, .limiter, .precision]' "$BATS_TEST_TMPDIR/gemm-fp32.json"
	assert_output '["compute","fma","fp32"]'
	# 16 x 28672 x 8192 bf16: the 470 MB weight streamed once in 108.4 us.
	replay_job gemm-decode
	run jq -c '[.analysis.focus.roof.bound, .analysis.focus.roof.limiter, .analysis.diagnosis[0].kind, .analysis.diagnosis[0].unit, (.analysis.focus.roof.dram_bytes_per_s / .analysis.focus.roof.peak_dram_bytes_per_s > 0.8)]' "$BATS_TEST_TMPDIR/gemm-decode.json"
	assert_output '["memory","dram","memory_bound","dram",true]'
}

@test "fixes: a verdict agrees with ncu's Speed Of Light: SM Throughput at 76.1% of issue slots is compute-bound on instruction issue, and at 78.7% over L1/TEX's 64.8% too" {
	replay_job barrier_fix
	run jq -c '[.analysis.focus.limiter.bound, .analysis.focus.limiter.unit, (.analysis.focus.limiter.pct * 10 | round / 10)]' "$BATS_TEST_TMPDIR/barrier_fix.json"
	assert_output '["compute","issue",76.1]'
	run jq -r .feedback "$BATS_TEST_TMPDIR/barrier_fix.json"
	assert_line '  - Compute (SM) Throughput: 76.1%'
	assert_line "Verdict: compute-bound on the SM's instruction issue (its issue slots, over all pipes), at 76.1% of its peak."
	refute_output --partial 'latency-bound'
	# L1/TEX is near its peak (64.8%), but the issue slots are busier
	# (78.7%), as ncu's Compute (SM) Throughput over its Memory Throughput
	# (62.9%) says: issue limits, not the busiest memory level
	replay_job bank_fix
	run jq -c '[.analysis.focus.limiter.bound, .analysis.focus.limiter.unit, (.analysis.focus.limiter.pct * 10 | round / 10)]' "$BATS_TEST_TMPDIR/bank_fix.json"
	assert_output '["compute","issue",78.7]'
	run jq -r .feedback "$BATS_TEST_TMPDIR/bank_fix.json"
	assert_line '  - Compute (SM) Throughput: 78.7%'
	assert_line '  - Memory Throughput: 62.9%'
	assert_line --partial 'Units by share of their peak (pipes while the SM was active): l1 64.8%, lsu 63.1%, alu 62.0%, shared 56.7%,'
	assert_line "Verdict: compute-bound on the SM's instruction issue (its issue slots, over all pipes), at 78.7% of its peak."
	refute_output --partial 'latency-bound'
}

@test "fixes: a unit over 60% that neither Speed Of Light figure reaches: the verdict names it and says where it parts from ncu's rule" {
	replay_job strided_fix
	run jq -r .feedback "$BATS_TEST_TMPDIR/strided_fix.json"
	assert_line '  - Compute (SM) Throughput: 40.5%'
	assert_line '  - Memory Throughput: 47.7%'
	assert_line --partial 'below 60.0% of peak typically indicate latency issues'
	assert_line "Verdict: memory-bound on L2, at 64.0% of its peak. ncu's Compute (SM) Throughput (40.5%) and Memory Throughput (47.7%) are both under 60%; the verdict names L2 at 64.0% (lts__throughput.avg.pct_of_peak_sustained_elapsed), which neither reaches."
	# the raw page's own number
	run bash -c 'gzip -dc "$1" | awk -F"\",\"" "NR == 1 { for (i = 1; i <= NF; i++) if (\$i == \"lts__throughput.avg.pct_of_peak_sustained_elapsed\") c = i } NR == 3 { printf \"%.1f\\n\", \$c }"' _ "$DFIX/strided_fix/ncu_raw.csv.gz"
	assert_output 64.0
	# a verdict that agrees with the rule says nothing more: DRAM at its
	# roof (81.2%) under L2's 95.8%, where ncu's rule says to start
	replay_job strided
	run jq -r .feedback "$BATS_TEST_TMPDIR/strided.json"
	assert_line --partial 'Start by analyzing DRAM in the Memory Workload Analysis section.'
	assert_line 'Verdict: memory-bound on DRAM, at 81.2% of its peak.'
}

@test "fixes: a Speed Of Light figure over 60% that no pipe or level reaches: the verdict says the two disagree" {
	# barrier_fix's raw page with its issue slots at 50% (ncu's SOL still
	# says 76.1%): no unit at 60%, so latency-bound beside a SOL of 76.1%
	local d="$BATS_TEST_TMPDIR/split" f
	mkdir -p "$d"
	for f in "$DFIX/barrier_fix"/*.csv.gz; do
		gzip -dc "$f" >"$d/$(basename "$f" .gz)"
	done
	awk -F'","' -v OFS='","' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "sm__issue_active.avg.pct_of_peak_sustained_elapsed") c = i }
		NR >= 3 && c { $c = "50" } { print }' "$d/ncu_raw.csv" >"$d/raw" && mv "$d/raw" "$d/ncu_raw.csv"
	replay split ncu "$d" | kf-read | kf-collate | kf-feedback >"$BATS_TEST_TMPDIR/split.json"
	run jq -r .feedback "$BATS_TEST_TMPDIR/split.json"
	assert_line '  - Compute (SM) Throughput: 76.1%'
	assert_line "Verdict: no unit runs near its peak (the busiest is the FMA (FP32) pipe at 58.8%, under 60%): the kernel is latency-bound (the diagnosis above says on what its warps wait). ncu's Compute (SM) Throughput (76.1%) is at or over 60% while no pipe or level above is: the two disagree, and the profile cannot say which unit limits."
}

# unpack JOB NAME: JOB's pages into $BATS_TEST_TMPDIR/NAME, to change.
unpack() {
	unpack_pages "$DFIX/$1" "$2"
}

# set_raw NAME METRIC VALUE: METRIC's value on NAME's raw page (every launch).
set_raw() {
	local d="$BATS_TEST_TMPDIR/$1"
	awk -F'","' -v OFS='","' -v m="$2" -v v="$3" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == m) c = i }
		NR >= 3 && c { $c = v } { print }' "$d/ncu_raw.csv" >"$d/raw" && mv "$d/raw" "$d/ncu_raw.csv"
}

# raw JOB METRIC: the value of METRIC on JOB's raw page.
raw() {
	gzip -dc "$DFIX/$1/ncu_raw.csv.gz" | awk -F'","' -v m="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == m) c = i }
		NR == 3 { print $c }'
}

feedback_of() {
	replay "$1" ncu "$BATS_TEST_TMPDIR/$1" | kf-read | kf-collate | kf-feedback >"$BATS_TEST_TMPDIR/$1.json"
}

@test "impact: the FP32 GEMM at the FMA pipe's roof gains most on the tensor cores: 1 - its FLOP/s over TF32's peak, before 13% of bank conflicts" {
	replay_job gemm-fp32
	# 51.1 TFLOP/s of FP32 FMA against the H200's TENSOR_TF32_TFLOPS
	run jq -c '.analysis | [.diagnosis[0].kind, .diagnosis[0].unit, .diagnosis[0].impact_pct == ((1 - .focus.roof.achieved_flops / 494.5e12) * 1000 | round / 10), .diagnosis[0].impact_pct]' "$BATS_TEST_TMPDIR/gemm-fp32.json"
	assert_output '["compute_bound","fma",true,89.7]'
	run jq -r '.analysis.diagnosis[0].evidence[] | select(.metric | startswith("kernel_impact_pct")) | .metric' "$BATS_TEST_TMPDIR/gemm-fp32.json"
	assert_output "kernel_impact_pct: 100 x (1 - achieved FLOP/s / NVIDIA H200 141GB's TENSOR_TF32_TFLOPS, 494.5 TFLOP/s in share/kf/gpus.json): the same FLOPs at the tensor cores' TF32 peak"
	run jq -r .feedback "$BATS_TEST_TMPDIR/gemm-fp32.json"
	assert_line --index 1 --partial "1. Compute-bound on the FMA (FP32) pipe: 78.9% of its peak; on the tensor cores (TF32, 494.5 TFLOP/s peak, share/kf/gpus.json) its 51.1 TFLOP/s of FP32 matrix math would take 10% of this time (about 90% of the program's GPU time at stake)."
	# the same launch with 30% more shared wavefronts than ideal: the
	# conflicts waste (w - ideal) / w of shared memory's 58.6% busy share
	unpack gemm-fp32 conflicts
	ideal=$(raw gemm-fp32 memory_l1_wavefronts_shared_ideal)
	sh=$(raw gemm-fp32 l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed)
	w=$(awk -v i="$ideal" 'BEGIN { printf "%.0f", i * 1.3 }')
	set_raw conflicts memory_l1_wavefronts_shared "$w"
	feedback_of conflicts
	want=$(awk -v w="$w" -v i="$ideal" -v s="$sh" 'BEGIN { printf "%.1f", (w - i) / w * s }')
	run jq -c '[.analysis.diagnosis[] | [.kind, .impact_pct]]' "$BATS_TEST_TMPDIR/conflicts.json"
	assert_output "[[\"compute_bound\",89.7],[\"shared_bank_conflict\",$want]]"
	[ "$want" = 13.5 ]
}

@test "impact: the decode GEMM memory-bound on DRAM (100 - 90.8 at stake) leads a small grid of 128 blocks for 132 SMs (3.0)" {
	replay_job gemm-decode
	run jq -c '.analysis.diagnosis[0] | [.kind, .unit, .impact_pct, (.evidence[] | select(.metric | startswith("kernel_impact_pct")) | .metric)]' "$BATS_TEST_TMPDIR/gemm-decode.json"
	assert_output "[\"memory_bound\",\"dram\",9.2,\"kernel_impact_pct: 100 - dram__bytes.sum.per_second / dram__bytes.sum.peak_sustained (headroom to the unit's roof)\"]"
	unpack gemm-decode small-decode
	set_raw small-decode launch__grid_size 128
	feedback_of small-decode
	run jq -c '[.analysis.diagnosis[] | [.kind, .impact_pct]]' "$BATS_TEST_TMPDIR/small-decode.json"
	# 1 - 128 / 132 = 3.03%
	assert_output '[["memory_bound",9.2],["small_grid",3]]'
	run jq -r .feedback "$BATS_TEST_TMPDIR/small-decode.json"
	assert_line --index 1 --partial "1. Memory-bound on DRAM: 90.8% of its peak; 4.37 TB/s of 4.81; at its roof: only fewer bytes gain more than its headroom (about 9% of the program's GPU time at stake)."
	assert_line --index 2 --partial '2. Small grid: 128 blocks for 132 SMs, so 4 SMs idle'
}

@test "impact: atomics lead the latency they cause; the limiter keeps the stall no cause explains" {
	replay_job atomic
	# drain 491337 and the atomic's line are the atomics'; short scoreboard,
	# 226169 of 930675 samples, is the limiter's own
	run jq -c '[.analysis.diagnosis[] | [.kind, .impact_pct]]' "$BATS_TEST_TMPDIR/atomic.json"
	assert_output '[["atomic_contention",75.3],["latency_bound",24.3]]'
	run jq -r '.analysis.diagnosis[1] | (.evidence[] | select(.metric | startswith("kernel_impact_pct")) | .metric), .fix' "$BATS_TEST_TMPDIR/atomic.json"
	assert_output 'kernel_impact_pct: smsp__pcsamp_warps_issue_stalled_short_scoreboard / smsp__pcsamp_sample_count (the samples that wait on the top stall reason that no other finding explains)
fewer shared-memory round trips and transcendentals per result'
	# without the source page (PyTorch's index_add_, cuBLAS: no line
	# information), atomics that are half the global memory instructions
	# are still the first finding, by the samples that wait on them
	unpack atomic atomic-nolines
	rm "$BATS_TEST_TMPDIR/atomic-nolines/ncu_source.csv"
	feedback_of atomic-nolines
	run jq -c '[.analysis.diagnosis[] | [.kind, .impact_pct]]' "$BATS_TEST_TMPDIR/atomic-nolines.json"
	# (491337 drain + 1876 lg_throttle + 0 membar) / 930675
	assert_output '[["atomic_contention",53],["latency_bound",24.3]]'
	run jq -r '.analysis.diagnosis[0].what' "$BATS_TEST_TMPDIR/atomic-nolines.json"
	assert_output 'Atomics: 50% of the global memory instructions are atomics (smsp__inst_executed_op_global_red, generic_atom), and 53% of the warp samples wait on the memory queue or at exit for them to drain'
}

@test "impact: at the tensor cores' roof the gain is small and named; every kernel-level finding has one or says why not" {
	replay_job gemm-bf16
	# the tensor pipe at 96.9% while its SMs were active, 93.2% over all
	# SMs and the whole run (sm__pipe_tensor_cycles_active's
	# .pct_of_peak_sustained_elapsed, 93.236%): the headroom is 6.8%
	run jq -c '.analysis.diagnosis[0] | [.kind, .impact_pct]' "$BATS_TEST_TMPDIR/gemm-bf16.json"
	assert_output '["compute_bound",6.8]'
	run jq -r '.analysis.diagnosis[0].what' "$BATS_TEST_TMPDIR/gemm-bf16.json"
	assert_output --partial '96.9% of its peak; 796 TFLOP/s bf16 of 990 peak (80%); 93.2% over all SMs and the whole run, so 6.8% headroom (SMs idle, or starting and finishing apart), and no quicker unit at this precision'
	run jq -r '.analysis.diagnosis[0].fix' "$BATS_TEST_TMPDIR/gemm-bf16.json"
	assert_output --partial "it runs at the tensor cores' roof"
	for j in local fp64 barrier bank strided atomic diverge small local_fix fp64_fix barrier_fix bank_fix strided_fix atomic_fix diverge_fix small_fix gemm-fp8 gemm-tf32; do
		replay_job "$j"
		run jq -r '.analysis.diagnosis[] | select(.kernel != null) | select(.impact_pct == null and ([.evidence[].metric | startswith("impact_pct: not estimated")] | any | not)) | "\(.kind) has no impact_pct"' "$BATS_TEST_TMPDIR/$j.json"
		assert_output ''
		# sorted by impact, largest first
		run jq -c '[.analysis.diagnosis[].impact_pct | select(. != null)] | . == (sort | reverse)' "$BATS_TEST_TMPDIR/$j.json"
		assert_output true
	done
}
