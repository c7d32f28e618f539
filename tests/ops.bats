#!/usr/bin/env bats
# The single-op PyTorch sweep (examples/h200/ops): its program, jobs and
# expected verdicts name the same ops, and check.sh judges kf's verdicts
# against expected.tsv, here on records made from recorded H200 profiles
# (tests/fixtures/ncu-h200-defects) under the names of the ops they match.
load helper

OPS="$TOP/examples/h200/ops"
DFIX="$FIX/ncu-h200-defects"

# record JOB OP: the final record of defect fixture JOB as $T/recs/OP.json
# (-n: without its source page, as cuBLAS and PyTorch kernels have none).
record() {
	local nolines=
	[ "$1" = -n ] && { nolines=1; shift; }
	local d="$BATS_TEST_TMPDIR/pages/$2" f
	mkdir -p "$d" "$BATS_TEST_TMPDIR/recs"
	for f in "$DFIX/$1"/*.csv.gz; do
		gzip -dc "$f" >"$d/$(basename "$f" .gz)"
	done
	[ -z "$nolines" ] || rm -f "$d/ncu_source.csv"
	replay "$2" ncu "$d" | kf-read | kf-collate | kf-feedback >"$BATS_TEST_TMPDIR/recs/$2.json"
}

@test "ops: ops.py, jobs.jsonl and expected.tsv name the same ops, each job one op profiled alone" {
	local a b c
	a=$(grep -o '^    "[a-z0-9_]*":' "$OPS/ops.py" | tr -d ' ":')
	b=$(jq -r .id "$OPS/jobs.jsonl")
	c=$(grep -v '^#' "$OPS/expected.tsv" | cut -f1)
	[ "$a" = "$b" ] || fail "ops.py and jobs.jsonl differ: $(diff <(echo "$a") <(echo "$b"))"
	[ "$a" = "$c" ] || fail "ops.py and expected.tsv differ: $(diff <(echo "$a") <(echo "$c"))"
	[ "$(echo "$a" | wc -l)" -ge 20 ]
	run jq -r 'select(.cmd != ["python3", "examples/h200/ops/ops.py", .id] or
		(.profiler_args | index("--profile-from-start")) == null or .language != "pytorch") | .id' "$OPS/jobs.jsonl"
	assert_output ''
	run awk -F'\t' '!/^#/ && NF != 5 { print NR": "NF" fields" }' "$OPS/expected.tsv"
	assert_output ''
}

@test "ops: check.sh says ok where kf's first kernel-level finding is the expected one, and why not where it is not" {
	record gemm-fp32 gemm_fp32
	record gemm-bf16 gemm_bf16
	record gemm-decode decode_gemm_bf16
	record -n atomic index_add_one_row_fp32
	# the bf16 GEMM's record under the name of the FP32 one: on the tensor pipe
	cp "$BATS_TEST_TMPDIR/recs/gemm_bf16.json" "$BATS_TEST_TMPDIR/recs/gemm_fp16.json"
	record gemm-bf16 conv2d_fp32
	run sh "$OPS/check.sh" "$BATS_TEST_TMPDIR/recs"
	assert_failure 1
	assert_line "$(printf 'gemm_fp32\tcompute_bound/fma\tcompute_bound/fma\tok')"
	assert_line "$(printf 'gemm_bf16\tcompute_bound/tensor\tcompute_bound/tensor\tok')"
	assert_line "$(printf 'gemm_fp16\tcompute_bound/tensor\tcompute_bound/tensor\tok')"
	assert_line "$(printf 'decode_gemm_bf16\tmemory_bound/dram\tmemory_bound/dram\tok')"
	assert_line "$(printf 'index_add_one_row_fp32\tatomic_contention/l2\tatomic_contention/l2\tok')"
	assert_line "$(printf 'conv2d_fp32\tcompute_bound|memory_bound/fma|l2|dram\tcompute_bound/tensor\twrong: the unit is not fma|l2|dram')"
	assert_line --partial "$(printf 'gelu_fp32\tmemory_bound/dram\t-\tmissing: no ')"
	assert_line --index -1 "5 of $(grep -vc '^#' "$OPS/expected.tsv") ops as expected"
	# a fix that does not say what expected.tsv asks
	jq -c '.analysis.diagnosis[0].fix = "fewer instructions"' "$BATS_TEST_TMPDIR/recs/gemm_fp32.json" >"$BATS_TEST_TMPDIR/f.json"
	mv "$BATS_TEST_TMPDIR/f.json" "$BATS_TEST_TMPDIR/recs/gemm_fp32.json"
	run sh "$OPS/check.sh" "$BATS_TEST_TMPDIR/recs"
	assert_line "$(printf 'gemm_fp32\tcompute_bound/fma\tcompute_bound/fma\twrong: the fix does not say "tensor cores"')"
}

@test "ops: check.sh passes when every op is as expected, and says how it was called wrong" {
	mkdir -p "$BATS_TEST_TMPDIR/one"
	record gemm-decode decode_gemm_bf16
	printf 'decode_gemm_bf16\tmemory_bound\tdram\t-\tstreams the weight\n' >"$BATS_TEST_TMPDIR/one.tsv"
	run sh "$OPS/check.sh" "$BATS_TEST_TMPDIR/recs" "$BATS_TEST_TMPDIR/one.tsv"
	assert_success
	assert_output "$(printf 'decode_gemm_bf16\tmemory_bound/dram\tmemory_bound/dram\tok\n1 of 1 ops as expected')"
	run sh "$OPS/check.sh"
	assert_failure 2
	assert_output 'usage: check.sh DIR [EXPECTED]'
	run sh "$OPS/check.sh" "$BATS_TEST_TMPDIR/none"
	assert_failure 2
	assert_output "check.sh: $BATS_TEST_TMPDIR/none: no such directory"
}

# h200op OP: the final record of the single op OP from its pages recorded
# on the H200 (examples/h200/ops/runs), as $BATS_TEST_TMPDIR/OP.json.
h200op() {
	replay "$1" ncu "$OPS/runs/$1/$1/ncu.000" | kf-read | kf-collate | kf-feedback \
		>"$BATS_TEST_TMPDIR/$1.json"
}

# kinds OP: [kind, unit, impact_pct] of each kernel-level finding.
kinds() {
	jq -c '[.analysis.diagnosis[] | select(.kernel != null) | [.kind, .unit, .impact_pct]]' \
		"$BATS_TEST_TMPDIR/$1.json"
}

@test "ops on the H200: no unit near its peak, under the memory roof: memory-bound below it, not latency-bound" {
	# softmax: 4.37 FLOP/byte against a ridge of 13.9, DRAM at 39.03%,
	# L2 at 47.6% (within 10 points: DRAM), ALU at 28.1%, 8192 blocks
	h200op softmax_fp32
	run kinds softmax_fp32
	assert_output '[["memory_bound","dram",61],["barrier_stall",null,13.1]]'
	run jq -c '.analysis.focus.roof | [.bound, .limiter, .below_roof, .latency_bound]' "$BATS_TEST_TMPDIR/softmax_fp32.json"
	assert_output '["memory","dram",true,false]'
	run jq -r '.analysis.diagnosis[0].what' "$BATS_TEST_TMPDIR/softmax_fp32.json"
	assert_output --partial 'Memory-bound on DRAM: 39.0% of its peak; 1.88 TB/s of 4.81; below its roof: its FLOPs per byte are under the ridge'
	assert_output --partial 'warps wait on long scoreboard (global/local memory) 18%'
	run jq -r '.feedback' "$BATS_TEST_TMPDIR/softmax_fp32.json"
	assert_output --partial 'Verdict: memory-bound on DRAM, at 39.0% of its peak: below its roof. Its 4.37 FLOP/byte are under the ridge of 13.9'
	refute_output --partial 'latency-bound'
	# index_add_ spread over a million rows: 0.09 FLOP/byte, DRAM 29.7%
	h200op index_add_spread_fp32
	run kinds index_add_spread_fp32
	assert_output '[["memory_bound","dram",70.3]]'
	# 4096 elements in 4 blocks: the grid, not the roof (no below_roof)
	h200op gelu_small_fp32
	run jq -c '[.analysis.diagnosis[0].kind, .analysis.focus.roof.below_roof]' "$BATS_TEST_TMPDIR/gelu_small_fp32.json"
	assert_output '["small_grid",false]'
}

@test "ops on the H200: atomics on one row serialize in one L2 slice: atomic contention leads, the slice is the L2 unit" {
	# lts__d_atomic_input_cycles_active 99.293561% in the busiest slice,
	# 1.056314% on average: 1 - 1.056/99.29 = 98.9%, held to 100 less the
	# SM's issue (4.2%); lts__throughput 99.29% max, 2.89% average
	h200op index_add_one_row_fp32
	run kinds index_add_one_row_fp32
	assert_output '[["atomic_contention","l2",95.8],["memory_bound","l2",0.7]]'
	run jq -c '.analysis.focus.roof | [.limiter, .limiter_pct, .l2_slices_avg_pct]' "$BATS_TEST_TMPDIR/index_add_one_row_fp32.json"
	assert_output '["l2",99.293561,2.893956]'
	run jq -r '.analysis.diagnosis[0] | .what, (.evidence[] | select(.metric | startswith("kernel_impact_pct")) | .metric)' "$BATS_TEST_TMPDIR/index_add_one_row_fp32.json"
	assert_line --index 0 --partial 'Atomic contention: the atomic unit of one L2 slice was busy 99.3% of the time, 1.1% on average over the slices'
	assert_line --index 1 --partial '98.9%, held to 100 - sm__issue_active.avg.pct_of_peak_sustained_elapsed'
	run jq -r '.feedback' "$BATS_TEST_TMPDIR/index_add_one_row_fp32.json"
	assert_output --partial 'l2 99.3% (its busiest slice; 2.9% over all slices)'
}

@test "ops on the H200: a cause's gain ends at the roof of what its fix leaves; a pipe's headroom counts idle SMs" {
	# layer norm: 2.2x the ideal L2 sectors (45.3% wasted x L2's use) held
	# to 100 - DRAM's 76.1%: level with the DRAM limiter, which leads
	h200op layernorm_fp32
	run kinds layernorm_fp32
	assert_output '[["memory_bound","dram",23.9],["uncoalesced_global","l2",23.9]]'
	run jq -r '.analysis.diagnosis[1].evidence[] | select(.metric | startswith("kernel_impact_pct")) | .metric' "$BATS_TEST_TMPDIR/layernorm_fp32.json"
	assert_output --partial '45.3%, held to 100 - dram__bytes.sum.per_second / dram__bytes.sum.peak_sustained'
	# the strided copy: DRAM moved no more than the ideal sectors hold, so
	# the 75.2% stays (under 100 - DRAM's 23.5%) and leads the L2 limiter
	h200op transpose_fp32
	run kinds transpose_fp32
	assert_output '[["uncoalesced_global","l2",75.2],["memory_bound","l2",3.4]]'
	# bf16 convolution, 120 blocks on 132 SMs: the tensor pipe 93.6% while
	# active, 79.158968% elapsed: 20.8% at stake, the idle SMs' 9.1% after
	h200op conv2d_bf16
	run kinds conv2d_bf16
	assert_output '[["compute_bound","tensor",20.8],["small_grid",null,9.1]]'
	run jq -r '.analysis.diagnosis[0].what' "$BATS_TEST_TMPDIR/conv2d_bf16.json"
	assert_output --partial '79.2% over all SMs and the whole run, so 20.8% headroom (SMs idle, or starting and finishing apart)'
}

@test "a sweep's small flash attention on the H200: no unit near its peak, over the ridge: compute-bound on the tensor pipe, below its roof" {
	replay sdpa ncu "$FIX/ncu-h200-sweep/sdpa" | kf-read | kf-collate | kf-feedback >"$BATS_TEST_TMPDIR/sdpa.json"
	# the tensor pipe 40.4% while active, 34.7% over all SMs and the whole
	# run: 65.3% at stake, ahead of ncu's occupancy estimate (81.2%, held
	# to 100 less the busiest unit, XU at 42.1%)
	run kinds sdpa
	assert_output '[["compute_bound","tensor",65.3],["low_occupancy",null,57.9],["barrier_stall",null,23.1]]'
	run jq -c '.analysis.focus.roof | [.bound, .limiter, .below_roof, .latency_bound]' "$BATS_TEST_TMPDIR/sdpa.json"
	assert_output '["compute","tensor",true,false]'
	run jq -r '.analysis.diagnosis[0].what' "$BATS_TEST_TMPDIR/sdpa.json"
	assert_output --partial 'below its roof: its FLOPs per byte are over the ridge, so the peak of the tensor pipe is the roof it can reach'
	assert_output --partial '; 34.7% over all SMs and the whole run'
	run jq -r '.feedback' "$BATS_TEST_TMPDIR/sdpa.json"
	assert_output --partial 'Verdict: compute-bound on the tensor pipe, at 40.4% of its peak: below its roof. Its 331 FLOP/byte are over the ridge of 206'
}

@test "the flash attention without ncu's rules (a collection by --metrics): the occupancy stake is kf's own, ncu's formula, and the diagnosis the same" {
	# ncu's TheoreticalOccupancy rule estimated 81.25: 100 less the
	# theoretical occupancy (18.75%, sm__maximum_warps_per_active_cycle_pct
	# of the raw page). Without the rules' rows kf computes it so.
	local d=$BATS_TEST_TMPDIR/norules
	mkdir -p "$d"
	cp "$FIX/ncu-h200-sweep/sdpa"/* "$d/"
	awk -F'","' '/^"ID"/ { for (i = 1; i <= NF; i++) if ($i == "Rule Name") c = i }
		!c || !/^"[0-9]/ || $c == ""' "$FIX/ncu-h200-sweep/sdpa/ncu_report.csv" >"$d/ncu_report.csv"
	run grep -c -e '"TheoreticalOccupancy"' -e '"AchievedOccupancy"' "$d/ncu_report.csv"
	assert_output 0
	replay sdpa ncu "$d" | kf-read | kf-collate | kf-feedback >"$BATS_TEST_TMPDIR/sdpa.json"
	run kinds sdpa
	assert_output '[["compute_bound","tensor",65.3],["low_occupancy",null,57.9],["barrier_stall",null,23.1]]'
	run jq -r '.analysis.diagnosis[] | select(.kind == "low_occupancy") | .evidence[] | select(.metric // "" | startswith("kernel_impact_pct")) | .metric' "$BATS_TEST_TMPDIR/sdpa.json"
	assert_output --partial 'kernel_impact_pct: 100 - sm__maximum_warps_per_active_cycle_pct (the theoretical occupancy'"'"'s shortfall, as ncu'"'"'s TheoreticalOccupancy rule estimates it; ncu gave no occupancy rule), 81.2%, held to 100 - sm__inst_executed_pipe_xu'
}

@test "the flash attention without ncu's rules, its theoretical occupancy made 100%: the stake is the achieved occupancy's shortfall, ncu's AchievedOccupancy formula" {
	# The same page with the theoretical occupancy set to 100% (details
	# and raw page): the achieved 14.098765% falls 85.9% short of it, held
	# to 100 less the XU pipe as before.
	local d=$BATS_TEST_TMPDIR/norules
	mkdir -p "$d"
	cp "$FIX/ncu-h200-sweep/sdpa"/* "$d/"
	awk -F'","' '/^"ID"/ { for (i = 1; i <= NF; i++) if ($i == "Rule Name") c = i }
		!c || !/^"[0-9]/ || $c == ""' "$FIX/ncu-h200-sweep/sdpa/ncu_report.csv" |
		sed 's/"Theoretical Occupancy","%","18.75"/"Theoretical Occupancy","%","100"/' >"$d/ncu_report.csv"
	awk -F'","' -v OFS='","' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "sm__maximum_warps_per_active_cycle_pct") c = i }
		NR > 2 && c { $c = "100" } { print }' "$FIX/ncu-h200-sweep/sdpa/ncu_raw.csv" >"$d/ncu_raw.csv"
	run grep -c '"Theoretical Occupancy","%","100"' "$d/ncu_report.csv"
	assert_output 1
	replay sdpa ncu "$d" | kf-read | kf-collate | kf-feedback >"$BATS_TEST_TMPDIR/sdpa.json"
	run jq -c '.analysis.focus.occupancy' "$BATS_TEST_TMPDIR/sdpa.json"
	assert_output '{"theoretical_pct":100,"achieved_pct":14.1}'
	run kinds sdpa
	assert_output '[["compute_bound","tensor",65.3],["low_occupancy",null,57.9],["barrier_stall",null,23.1]]'
	run jq -r '.analysis.diagnosis[] | select(.kind == "low_occupancy") | .evidence[] | select(.metric // "" | startswith("kernel_impact_pct")) | .metric' "$BATS_TEST_TMPDIR/sdpa.json"
	assert_output --partial 'kernel_impact_pct: (sm__maximum_warps_per_active_cycle_pct - sm__warps_active.avg.pct_of_peak_sustained_active) / sm__maximum_warps_per_active_cycle_pct (the achieved occupancy'"'"'s shortfall, as ncu'"'"'s AchievedOccupancy rule estimates it; ncu gave no occupancy rule), 85.9%, held to 100 - sm__inst_executed_pipe_xu'
}

# twice PATH OUT: the records PATH-1 and PATH-2 of ncu-h200-sweep through
# kf-feedback, into OUT1.json and OUT2.json.
twice() {
	local i
	for i in 1 2; do
		gzip -dc "$FIX/ncu-h200-sweep/$1-$i.json.gz" | kf-feedback >"$BATS_TEST_TMPDIR/$2$i.json"
	done
}

@test "a sweep's layer norm on the H200, twice: L1/TEX at 60.1% and 58.3% of its peak under the issue slots' 63.6% and 62.5%, one verdict both times" {
	# Two sweeps of 2026-12-05 (examples/h200/top44/sweep46.sh), the
	# same kernel: L1/TEX crosses 60% from one to the other while issue,
	# busier both times, stays over it (ncu's Compute (SM) Throughput over
	# its Memory Throughput). The verdict must not turn on that noise.
	twice layernorm/sweep ln
	run jq -c '[.analysis.focus.limiter.bound, .analysis.focus.limiter.unit,
		(.analysis.focus.limiter.pct * 10 | round / 10),
		(.analysis.focus.roof.units[] | select(.unit == "l1") | .pct * 10 | round / 10),
		.analysis.focus.throughput.compute_sm_pct, .analysis.focus.throughput.memory_pct,
		.analysis.diagnosis[0].kind]' "$BATS_TEST_TMPDIR/ln1.json" "$BATS_TEST_TMPDIR/ln2.json"
	assert_line -n 0 '["compute","issue",63.6,60.1,63.58,55.25,"compute_bound"]'
	assert_line -n 1 '["compute","issue",62.5,58.3,62.53,54.35,"compute_bound"]'
	run jq -r .feedback "$BATS_TEST_TMPDIR/ln1.json"
	assert_line "Verdict: compute-bound on the SM's instruction issue (its issue slots, over all pipes), at 63.6% of its peak."
}

@test "a sweep's softmax on an H100, twice: the issue slots and L2 within 1.4 points, the verdict on either side, and both runs say the kernel is at both limits" {
	# Two sweeps of 2026-12-05 (examples/h200/top44/sweep46.sh, one H100),
	# the same kernel: L2 67.3% over issue 65.9% in one, issue 66.5% over
	# L2 65.8% in the other. Which leads is noise; each run says so.
	twice softmax/h100 sm
	run jq -c '[.analysis.focus.limiter.bound, .analysis.focus.limiter.unit,
		(.analysis.focus.limiter.pct * 10 | round / 10),
		(.analysis.focus.roof.limiter_tie | .unit, (.pct * 10 | round / 10), .of, .within_points),
		.analysis.diagnosis[0].kind, (.analysis.diagnosis[0].evidence[1] | .metric, (.value * 10 | round / 10))]' \
		"$BATS_TEST_TMPDIR/sm1.json" "$BATS_TEST_TMPDIR/sm2.json"
	assert_line -n 0 '["memory","dram",61.5,"issue",65.9,"l2",1.4,"memory_bound","sm__issue_active.avg.pct_of_peak_sustained_elapsed",65.9]'
	assert_line -n 1 '["compute","issue",66.5,"l2",65.8,"issue",0.7,"compute_bound","lts__throughput.avg.pct_of_peak_sustained_elapsed",65.8]'
	run jq -r .feedback "$BATS_TEST_TMPDIR/sm1.json"
	assert_line "Verdict: memory-bound on DRAM, at 61.5% of its peak. The SM's instruction issue (its issue slots, over all pipes) is at 65.9%, within 1.4 points of L2 (67.3%): the kernel is at both limits, and which one leads can change from run to run."
	assert_line --regexp '^1\. Memory-bound on DRAM: 61\.5% of its peak; 2\.06 TB/s of 3\.35; the SM.s instruction issue \(its issue slots, over all pipes\) at 65\.9%, within 1\.4 points of L2 \(67\.3%\): it is at both limits'
	run jq -r .feedback "$BATS_TEST_TMPDIR/sm2.json"
	assert_line "Verdict: compute-bound on the SM's instruction issue (its issue slots, over all pipes), at 66.5% of its peak. L2 is at 65.8%, within 0.7 points of it: the kernel is at both limits, and which one leads can change from run to run."
	# the analysis core's limiter and the report say the same
	run jq -c '.analysis.focus.limiter | [.bound, .unit, .tie.unit, (.tie.pct * 10 | round / 10), .tie.within_points]' "$BATS_TEST_TMPDIR/sm2.json"
	assert_output '["compute","issue","l2",65.8,0.7]'
	kf-report <"$BATS_TEST_TMPDIR/sm2.json" >"$BATS_TEST_TMPDIR/sm2.html"
	grep -qF 'issue at 66.5% of its peak; L2 at 65.8%, within 0.7 points: at both limits</dd>' "$BATS_TEST_TMPDIR/sm2.html"
	# one against the other: the limiter's change is said to be a tie's
	kf-feedback <"$BATS_TEST_TMPDIR/sm2.json" --baseline "$BATS_TEST_TMPDIR/sm1.json" >"$BATS_TEST_TMPDIR/sm21.json"
	run jq -c '.analysis.delta.roof | [.limiter, .limiter_tie.before, .limiter_tie.after]' "$BATS_TEST_TMPDIR/sm21.json"
	assert_output '[["dram","issue"],true,true]'
	run jq -r .feedback "$BATS_TEST_TMPDIR/sm21.json"
	assert_line --partial 'closest to its peak: DRAM 61.5% -> issue 66.5% (both runs had a unit of the other side within a few points (limiter.tie): the kernel is at both limits, and which one leads can change from run to run).'
	# the layer norm's issue slots, 3.5 points over L1/TEX: no tie
	gzip -dc "$FIX/ncu-h200-sweep/layernorm/sweep-1.json.gz" | kf-feedback >"$BATS_TEST_TMPDIR/ln.json"
	run jq -c '.analysis.focus.roof | has("limiter_tie")' "$BATS_TEST_TMPDIR/ln.json"
	assert_output false
	run jq -r .feedback "$BATS_TEST_TMPDIR/ln.json"
	refute_output --partial "at both limits"
}

@test "the issue slots against the memory levels: issue wins over a busier-than-60% memory level it beats, not over a tensor pipe that level feeds, nor over a busier level" {
	# the layer norm's record, its units moved: L1/TEX 70%, issue 75%
	lim() {
		gzip -dc "$FIX/ncu-h200-sweep/layernorm/sweep-1.json.gz" |
			jq -c --argjson l1 "$1" --argjson issue "$2" --argjson tensor "$3" '
				.collated.kernels[0].roofline_inputs |= (
				  ."l1tex__throughput.avg.pct_of_peak_sustained_active" = $l1
				| ."sm__issue_active.avg.pct_of_peak_sustained_elapsed" = $issue
				| ."sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active" = $tensor)' |
			kf-feedback | jq -c '[.analysis.focus.limiter.bound, .analysis.focus.limiter.unit, .analysis.focus.limiter.pct]'
	}
	run lim 70 75 2
	assert_output '["compute","issue",75]'
	# a tensor pipe near its peak within 10 points of L1/TEX names the cause
	run lim 70 75 65
	assert_output '["compute","tensor",65]'
	# L1/TEX busier than issue: memory-bound, as before
	run lim 80 75 2
	assert_output '["memory","l1",80]'
	# nothing at 60% but issue: issue, as before
	run lim 50 61 2
	assert_output '["compute","issue",61]'
}
