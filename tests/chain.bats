#!/usr/bin/env bats
# What the real kf-ncu chain left on an H200 (examples/h200-chain):
# the report's three pages read, the roofline and the hot lines said, a real
# rewrite compared with --baseline, and --top 3's two runs on ResNet-18.
load helper

setup() {
	T="$BATS_TEST_TMPDIR"
	C="$TOP/examples/h200-chain"
}

final() {	# final ID DIR: the final record of a replay of DIR as job ID
	replay "$1" ncu "$C/$2/ncu.000" | kf-read | kf-collate | kf-feedback
}

@test "transpose_naive: the uncoalesced store line, its 58.7 M excessive sectors, and the L2 limit" {
	final t transpose_naive >"$T/n.json"
	run jq -c '.analysis.focus.source_lines[1] | [.line, .text, (.stall_pct * 10 | round / 10), .l2_excessive_sectors]' "$T/n.json"
	assert_output '[93,"out[(size_t)x * w + y] = in[(size_t)y * w + x];",33.9,58720256]'
	run jq -c '.analysis.focus.roof | [.bound, .limiter, (.pct_of_roof * 10 | round / 10), .achieved_flops]' "$T/n.json"
	assert_output '["memory","l2",11.5,0]'
	run jq -r .feedback "$T/n.json"
	assert_line --partial '2. bench.cu:93 `out[(size_t)x * w + y] = in[(size_t)y * w + x];`: 33.9% of stall samples; 97% of them long_sb'
	assert_line --partial 'all 58.7 M excessive L2 sectors, 78% of the line'"'"'s sectors: uncoalesced stores'
}

@test "naive -> tiled transpose with --baseline: 6.94x faster, the roofline moved, the hot lines changed" {
	final transpose transpose_naive >"$T/n.json"
	final transpose transpose_tiled | kf-feedback --baseline "$T/n.json" >"$T/t.json"
	run jq -c '.analysis.delta | [.verdict, .total_gpu_time_ns.before, .total_gpu_time_ns.after,
		.roof.bound, .source_lines.new, .source_lines.gone]' "$T/t.json"
	assert_output '["faster",1020000,147070,["memory","memory"],["bench.cu:105","bench.cu:110","bench.cu:111"],["bench.cu:94","bench.cu:93","bench.cu:90"]]'
	run jq -r .feedback "$T/t.json"
	assert_line 'Compared with the baseline ('"$T"'/n.json): 6.94x faster in total GPU time (1.02 ms -> 147.1 µs).'
	assert_line '- Roofline: memory-bound at 11.5% of its roof -> memory-bound at 72.9% of its roof; DRAM 552 GB/s -> 3.51 TB/s; closest to its peak: L2 82.9% -> L2 82.9%.'
	assert_line '- No longer among the hot lines: bench.cu:94 (was 50.5% of stall samples), bench.cu:93 (was 33.9% of stall samples, 58.7 M excessive L2 sectors), bench.cu:90 (was 14.8% of stall samples).'
	assert_line --partial '- Rules resolved (no longer reported): UncoalescedGlobalAccess'
}

@test "resnet18 --top 3: every launch ranked from the timing run, three detailed, the cuDNN focus without line info" {
	final r resnet18-top3 >"$T/r.json"
	run jq -c '[.collated.timing.launches, .collated.timing.kernel_count, .collated.kernel_count,
		.collated.timing.missing, .analysis.focus.reason, .analysis.focus.launches]' "$T/r.json"
	assert_output '[241,20,3,[],"most_time",40]'
	run jq -r .feedback "$T/r.json"
	assert_line 'A timing run measured all 241 kernel launches (2.49 ms of GPU time in 20 kernels); the details below come from a second run that profiled the 3 kernels with the most GPU time (3 launches).'
	assert_line --partial 'Source lines: the source page has no line information for this kernel (code built without -lineinfo'
	assert_line --partial 'DRAM moved 2.43 TB/s of 4.80 TB/s (50.5%)'
	# L2's busiest sub-unit over 60% while ncu's two Speed Of Light figures
	# (and so its SOLBottleneck rule) are under: the verdict says so
	assert_line --partial 'below 60.0% of peak typically indicate latency issues'
	assert_line "Verdict: memory-bound on L2, at 69.2% of its peak. ncu's Compute (SM) Throughput (21.8%) and Memory Throughput (50.5%) are both under 60%; the verdict names L2 at 69.2% (lts__throughput.avg.pct_of_peak_sustained_elapsed), which neither reaches."
}
