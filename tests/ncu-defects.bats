#!/usr/bin/env bats
# Kernels with one known defect each and their fixes (examples/cuda/defects.cu),
# and cuBLAS GEMMs through PyTorch (examples/torch/gemm.py), profiled on an
# H200 through the whole chain (examples/h200-defects/run.sh): each defect is
# the first finding, on its line; each fix makes that finding go away; the
# GEMMs sit on the roof of their precision.
load helper

DFIX="$FIX/ncu-h200-defects"

# replay JOB: the recorded pages through kf-read | kf-collate | kf-feedback.
replay_job() {
	local d="$BATS_TEST_TMPDIR/$1" f
	mkdir -p "$d"
	for f in "$DFIX/$1"/*.csv.gz; do
		gzip -dc "$f" >"$d/$(basename "$f" .gz)"
	done
	replay "$1" ncu "$d" | kf-read | kf-collate | kf-feedback >"$BATS_TEST_TMPDIR/$1.json"
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

@test "fixes: a verdict agrees with ncu's Speed Of Light: SM Throughput at 76.1% of issue slots is compute-bound on instruction issue, L1/TEX at 64.8% memory-bound whatever shared memory's 56.7%" {
	replay_job barrier_fix
	run jq -c '[.analysis.focus.limiter.bound, .analysis.focus.limiter.unit, (.analysis.focus.limiter.pct * 10 | round / 10)]' "$BATS_TEST_TMPDIR/barrier_fix.json"
	assert_output '["compute","issue",76.1]'
	run jq -r .feedback "$BATS_TEST_TMPDIR/barrier_fix.json"
	assert_line '  - Compute (SM) Throughput: 76.1%'
	assert_line "Verdict: compute-bound on the SM's instruction issue (its issue slots, over all pipes), at 76.1% of its peak."
	refute_output --partial 'latency-bound'
	replay_job bank_fix
	run jq -c '[.analysis.focus.limiter.bound, .analysis.focus.limiter.unit, (.analysis.focus.limiter.pct * 10 | round / 10)]' "$BATS_TEST_TMPDIR/bank_fix.json"
	assert_output '["memory","l1",64.8]'
	run jq -r .feedback "$BATS_TEST_TMPDIR/bank_fix.json"
	assert_line --partial 'Units by share of their peak (pipes while the SM was active): l1 64.8%, lsu 63.1%, alu 62.0%, shared 56.7%,'
	assert_line 'Verdict: memory-bound on L1/TEX, at 64.8% of its peak.'
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
	# a verdict that agrees with the rule says nothing more
	replay_job strided
	run jq -r .feedback "$BATS_TEST_TMPDIR/strided.json"
	assert_line 'Verdict: memory-bound on L2, at 95.8% of its peak.'
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
