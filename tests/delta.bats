#!/usr/bin/env bats
# kf-feedback --baseline: before and after, from real H200 captures
# (examples/h200: sgemm_naive and sgemm_tiled, one job in two versions) and
# the Intel fixtures; bad baselines never cost a record its feedback.

load helper

EX="$TOP/examples/h200"
UT="$FIX/unitrace"
B580='{"gpu_name":"Intel(R) Arc(TM) B580 Graphics"}'

setup() {
	T="$BATS_TEST_TMPDIR"
}

# ncu ID EXAMPLE: the collated record of a saved capture, under job id ID.
ncu() {
	replay "$1" ncu "$EX/$2/ncu.000" | kf-read | kf-collate
}

# cap ID FILE: the collated record of a capture in tests/fixtures/ncu-h200-delta.
cap() {
	mkdir -p "$T/cap-$2"
	cp "$FIX/ncu-h200-delta/$2" "$T/cap-$2/ncu_report.csv"
	replay "$1" ncu "$T/cap-$2" | kf-read | kf-collate
}

# final ID EXAMPLE: kf-feedback's record (what a baseline file holds).
final() {
	ncu "$1" "$2" | kf-feedback
}

# unitrace ID SCENARIO: the collated record of a unitrace fixture.
ut() {
	ut_replay "$1" "$UT/$2" "$B580" | kf-read | kf-collate
}

vt() {
	replay "$1" vtune "$FIX/vtune/$2" vtune.000 | kf-read | kf-collate
}

@test "sgemm naive -> tiled: total and focus time, speedup, verdict faster, as data" {
	final sgemm sgemm_naive > "$T/base.json"
	ncu sgemm sgemm_tiled | kf-feedback --baseline "$T/base.json" > "$T/out.json"
	run jq -c '.analysis.delta | [.status, .total_gpu_time_ns, .focus_duration_ns,
		(.speedup * 10000 | round), .verdict, .noise_pct]' "$T/out.json"
	assert_output '["ok",{"before":3128992,"after":2380960},{"before":3128992,"after":2380960},13142,"faster",4]'
}

@test "sgemm naive -> tiled: the text opens with the verdict, then what moved" {
	final sgemm sgemm_naive > "$T/base.json"
	ncu sgemm sgemm_tiled | kf-feedback --text --baseline "$T/base.json" > "$T/out.txt"
	# after the diagnosis (its heading, one finding and a blank line)
	run sed -n 5p "$T/out.txt"
	assert_output "Compared with the baseline ($T/base.json): 1.31x faster in total GPU time (3.13 ms -> 2.38 ms)."
	run cat "$T/out.txt"
	assert_line "- Focus kernel sgemm_tiled_k(const float *, const float *, float *, int) (names differ: the baseline's focus was sgemm_naive_k(const float *, const float *, float *, int); compared as the kernels the feedback focuses on), duration: 1.31x faster (3.13 ms -> 2.38 ms)."
	assert_line "- Its metrics that moved: Compute (SM) 65.7% -> 91.9%, Memory 98.6% -> 92.4%, L1/TEX 99.5% -> 94.3%, L2 19.1% -> 7.2%, registers per thread 32 -> 29."
	assert_line "- Unchanged (the same, or shares of peak within 3 points): DRAM, achieved occupancy."
	assert_line "- Rules whose type changed: HighPipeUtilization INF -> OPT (estimated local speedup 88.2%)."
	# the usual feedback follows, whole
	assert_line 'Kernel: sgemm_tiled_k(const float *, const float *, float *, int)'
	assert_line '  - Compute (SM) Throughput: 91.9%'
}

@test "a renamed focus kernel is matched by time, and the delta says so" {
	final sgemm sgemm_naive > "$T/base.json"
	ncu sgemm sgemm_tiled | kf-feedback --baseline "$T/base.json" > "$T/out.json"
	run jq -c '.analysis.delta | [.focus.matched_by, .focus.baseline_name, .focus.throughput.compute_sm_pct,
		.focus.throughput.dram_pct, .kernels[0].matched_by, .advice.changed[0]]' "$T/out.json"
	assert_output '["time","sgemm_naive_k(const float *, const float *, float *, int)",{"before":65.73,"after":91.88},{"before":0.31,"after":0.4},"time",{"name":"HighPipeUtilization","type":{"before":"INF","after":"OPT"}}]'
}

@test "tiled -> naive is slower by the inverse ratio" {
	final sgemm sgemm_tiled > "$T/base.json"
	ncu sgemm sgemm_naive | kf-feedback --baseline "$T/base.json" > "$T/out.json"
	run jq -r '.analysis.delta | "\(.verdict) \(.speedup * 10000 | round)"' "$T/out.json"
	assert_output 'slower 7609'
	run jq -r '.feedback | split("\n")[3]' "$T/out.json"
	assert_output "Compared with the baseline ($T/base.json): 1.31x slower in total GPU time (2.38 ms -> 3.13 ms)."
}

@test "a record against itself: unchanged, speedup 1, nothing claimed" {
	final sgemm sgemm_tiled > "$T/base.json"
	kf-feedback --baseline "$T/base.json" < "$T/base.json" > "$T/out.json"
	run jq -c '.analysis.delta | [.verdict, .speedup, .focus.verdict, .kernels[0].verdict]' "$T/out.json"
	assert_output '["unchanged",1,"unchanged","unchanged"]'
	run jq -r .feedback "$T/out.json"
	assert_line "Compared with the baseline ($T/base.json): unchanged in total GPU time within the 4% noise (2.38 ms -> 2.38 ms)."
	refute_output --partial 'faster'
	refute_output --partial 'slower'
	assert_line '- The same 2 rules as in the baseline.'
}

@test "--noise: a 1.31x change within a 40% noise is unchanged; bad values are usage errors" {
	final sgemm sgemm_naive > "$T/base.json"
	ncu sgemm sgemm_tiled | kf-feedback --noise 40 --baseline "$T/base.json" > "$T/out.json"
	run jq -c '.analysis.delta | [.verdict, .noise_pct, .focus.verdict]' "$T/out.json"
	assert_output '["unchanged",40,"unchanged"]'
	for bad in abc -1 100 5x ''; do
		run kf-feedback --noise "$bad" --baseline "$T/base.json" < /dev/null
		[ "$status" -eq 2 ]
		assert_output --partial "--noise: expected a percentage from 0 up to 100: '$bad'"
	done
}

@test "several kernels: matched by name, the rest gone, times within noise unchanged" {
	final x multi-nvtx > "$T/base.json"
	ncu x copy | kf-feedback --baseline "$T/base.json" > "$T/out.json"
	run jq -c '.analysis.delta.kernels | map([(.name | split("(")[0]), .matched_by, .verdict,
		(.total_ns // .before_ns)])' "$T/out.json"
	assert_output '[["copy_k","name","unchanged",{"before":263872,"after":262848}],["sgemm_tiled_k",null,"gone",2380288],["transpose_naive_k",null,"gone",995520],["fma_k",null,"gone",218432],["softmax_k",null,"gone",37888]]'
	run jq -r .feedback "$T/out.json"
	assert_line '  - copy_k(const float4 *, float4 *, unsigned long): unchanged within the 4% noise (263.9 µs -> 262.8 µs)'
	assert_line '  - sgemm_tiled_k(const float *, const float *, float *, int): gone, it took 2.38 ms'
}

@test "transpose naive -> tiled, a real rewrite: 6.80x faster, uncoalesced access resolved" {
	final t transpose_naive > "$T/base.json"
	cap t detailed-transpose_tiled.csv | kf-feedback --baseline "$T/base.json" > "$T/out.json"
	run jq -c '.analysis.delta | [.verdict, .total_gpu_time_ns, (.speedup * 100 | round),
		.focus.throughput.dram_pct, .focus.occupancy.achieved_pct, .advice.resolved, .advice.changed[0].type]' "$T/out.json"
	assert_output '["faster",{"before":992512,"after":146016},680,{"before":11.81,"after":73.4},{"before":74.69,"after":93.51},["UncoalescedGlobalAccess","AchievedOccupancy"],{"before":"OPT","after":"INF"}]'
	run jq -r .feedback "$T/out.json"
	assert_line "Compared with the baseline ($T/base.json): 6.80x faster in total GPU time (992.5 µs -> 146.0 µs)."
	assert_line '- Rules resolved (no longer reported): UncoalescedGlobalAccess [OPT, estimated global speedup 77.8%], AchievedOccupancy [OPT, estimated local speedup 25.3%].'
	assert_line '- Unchanged (the same, or shares of peak within 3 points): L2.'
}

# noise_pairs KERNEL [kf-feedback options]: the verdicts (total, focus) of
# every ordered pair of the five runs of KERNEL, counted.
noise_pairs() {
	local k=$1 i j
	shift
	for i in 1 2 3 4 5; do
		cap x "$k.timing$i.csv" | kf-feedback > "$T/n$i.json"
	done
	for i in 1 2 3 4 5; do
		for j in 1 2 3 4 5; do
			[ "$i" = "$j" ] && continue
			cap x "$k.timing$j.csv" | kf-feedback "$@" --baseline "$T/n$i.json" |
				jq -r '"\(.analysis.delta.verdict) \(.analysis.delta.focus.verdict)"'
		done
	done | sort | uniq -c | awk '{ print $1, $2, $3 }' | paste -sd,
}

@test "the same program run five times: none of the 40 pairs is called faster or slower" {
	run noise_pairs sgemm_tiled
	assert_output '20 unchanged unchanged'
	run noise_pairs copy
	assert_output '20 unchanged unchanged'
	# the threshold is what keeps it so: at 0.5% copy's 0.72% spread shows
	run noise_pairs copy --noise 0.5
	assert_output '1 faster unchanged,1 slower unchanged,18 unchanged unchanged'
}

@test "ResNet-18 run twice: unchanged in total and in each of its 20 kernels" {
	cap r resnet18.timing1.csv | kf-feedback --ranking 100 > "$T/base.json"
	cap r resnet18.timing3.csv | kf-feedback --ranking 100 --baseline "$T/base.json" > "$T/out.json"
	run jq -c '.analysis.delta | [.verdict, .total_gpu_time_ns, .focus.verdict,
		(.kernels | map(.matched_by + " " + .verdict) | group_by(.) | map([.[0], length]))]' "$T/out.json"
	assert_output '["unchanged",{"before":2475584,"after":2474144},"unchanged",[["name unchanged",20]]]'
}

@test "ResNet-18 fp32 -> channels_last + bf16: 1.24x faster, renamed top kernels matched by time" {
	cap r resnet18.timing1.csv | kf-feedback > "$T/base.json"
	cap r resnet18-cl-bf16.timing1.csv | kf-feedback --baseline "$T/base.json" > "$T/out.json"
	run jq -c '.analysis.delta | [.verdict, .total_gpu_time_ns, (.speedup * 100 | round),
		(.kernels | map(.verdict) | group_by(.) | map([.[0], length]))]' "$T/out.json"
	assert_output '["faster",{"before":2475584,"after":2002496},124,[["entered_top",4],["faster",1],["left_top",4]]]'
	run jq -r .feedback "$T/out.json"
	assert_line "  - at::batch_norm_transform_input_channels_last_kernel<BFloat16, float, BFloat16, 4>(...) (was cudnn::bn_fw_inf_1C11_kernel_NCHW<float, float, 1, 1>(...): names differ, matched by GPU time): 1.08x faster (360.0 µs -> 333.3 µs)"
	assert_line '  - engines_precompiled::nchwToNhwcKernel<float, float, float, 0, 1, 0>(nchw2nhwc_params_t<T3>, const T1 *, T2 *): left the top 5, it took 290.3 µs'
	refute_output --partial 'gone'
}

@test "unitrace: median time, roofline verdict and stalls, in its own terms" {
	ut j bmg-stream-slm | kf-feedback > "$T/base.json"
	ut j bmg-gemm-xmx | kf-feedback --baseline "$T/base.json" > "$T/out.json"
	run jq -c '.analysis.delta | [.verdict, .total_gpu_time_ns, .focus_duration_ns, .focus.bound,
		.focus.bound_alu, .focus.ve_stall_pct, .kernels[0].time_ns]' "$T/out.json"
	assert_output '["slower",{"before":14982011,"after":20820450},{"before":1485269,"after":1905069},{"before":"memory","after":"compute"},{"before":"ALU0","after":"ALU2"},{"before":54.809429,"after":21.470675},{"before":1485269,"after":1905069}]'
	run jq -r .feedback "$T/out.json"
	assert_line --partial 'median time: 1.28x slower (1.49 ms -> 1.91 ms).'
	assert_line --partial 'roofline verdict memory -> compute, busiest ALU ALU0 -> ALU2, global memory bandwidth 80.6% -> 37.0%'
	assert_line --partial 'vector engine stalls 54.8% -> 21.5%'
}

@test "vtune: average time, bound verdict, stall reasons and recommendations" {
	vt v sycl-latency | kf-feedback > "$T/base.json"
	vt v sycl-gemm-xmx | kf-feedback --baseline "$T/base.json" > "$T/out.json"
	run jq -c '.analysis.delta | [.verdict, .focus_duration_ns, .focus.bound, .focus.stall_send_pct,
		.advice, (.kernels | map(.verdict))]' "$T/out.json"
	assert_output '["slower",{"before":1864000,"after":2062000},{"before":"memory_latency","after":"compute_xmx"},{"before":35.2,"after":4.1},{"resolved":["memory_latency","l3_thrashing"],"new":["compute_xmx"],"changed":[],"not_compared":[]},["slower","slower","gone"]]'
	run jq -r .feedback "$T/out.json"
	assert_line --partial 'bound verdict memory_latency -> compute_xmx'
	assert_line --partial 'send stalls 35.2% -> 4.1%'
	assert_line '- Recommendations resolved (no longer reported): memory_latency, l3_thrashing.'
}

# Bad baselines: a message, status 1, and the record's usual feedback.
bad_baseline() {
	ncu sgemm sgemm_tiled > "$T/rec.json"
	kf-feedback < "$T/rec.json" | jq -r .feedback > "$T/plain.txt"
	run kf-feedback --baseline "$1" "$T/rec.json"
	[ "$status" -eq 1 ]
	assert_line --partial "$2"
	grep '^{' <<<"$output" > "$T/out.json"
	[ "$(jq -r .analysis.delta.status "$T/out.json")" = no_baseline ]
	[ "$(jq -r .analysis.status "$T/out.json")" = ok ]
	# the usual feedback, after one line that says why there is no comparison
	[ "$(jq -r .feedback "$T/out.json" | sed '/^No comparison with the baseline: /,/^$/d')" = "$(cat "$T/plain.txt")" ]
	jq -r .feedback "$T/out.json" | grep -qF "No comparison with the baseline: $2"
}

@test "bad baseline: missing file (a path with spaces and quotes)" {
	bad_baseline "$T/no such 'file\".json" "cannot open $T/no such 'file\".json: No such file or directory"
}

@test "bad baseline: not JSON, a directory, an empty file" {
	printf 'Kernel: copy_k\nnot json\n' > "$T/b.txt"
	bad_baseline "$T/b.txt" "$T/b.txt holds no kf-feedback record (line 1 is not one: a JSON object with \"id\" and \"analysis\")"
	bad_baseline "$T" "$T is a directory, not a file of records"
	: > "$T/empty.json"
	bad_baseline "$T/empty.json" "$T/empty.json is empty: no kf-feedback record"
	ncu sgemm sgemm_naive > "$T/collated.json"
	bad_baseline "$T/collated.json" "$T/collated.json holds no kf-feedback record (line 1 is not one"
}

@test "bad baseline: no record with the id, another profiler, a failed run" {
	final other sgemm_naive > "$T/b1.json"
	bad_baseline "$T/b1.json" "$T/b1.json has no record with id \"sgemm\""
	vt sgemm sycl-latency | kf-feedback > "$T/b2.json"
	bad_baseline "$T/b2.json" "the baseline record \"sgemm\" in $T/b2.json is from vtune, this one from ncu: they cannot be compared"
	replay sgemm ncu "$T/nothing" | kf-read 2>/dev/null | kf-collate | kf-feedback > "$T/b3.json" || true
	bad_baseline "$T/b3.json" "the baseline record \"sgemm\" in $T/b3.json has no numbers (its profiling failed: "
}

@test "a baseline with broken lines (truncated, NUL bytes, huge) still serves its good records" {
	final sgemm sgemm_naive > "$T/good.json"
	{
		head -c 2000 "$T/good.json"; echo
		head -c 3000000 /dev/zero | tr '\0' 'a'; echo
		cat "$T/good.json"
		printf '{"id":"sgemm",\0"x":1}\n'
		echo '[1,2]'
	} > "$T/base.json"
	ncu sgemm sgemm_tiled > "$T/rec.json"
	run kf-feedback --baseline "$T/base.json" "$T/rec.json"
	[ "$status" -eq 0 ]
	assert_line "kf-feedback: --baseline: $T/base.json: 4 lines are not kf-feedback records (the first: line 1), left out"
	[ "$(grep '^{' <<<"$output" | jq -c '.analysis.delta | [.verdict, .total_gpu_time_ns.before]')" = '["faster",3128992]' ]
}

@test "the last baseline record of an id wins; records without a baseline still flow" {
	{ final sgemm sgemm_tiled; final sgemm sgemm_naive; } > "$T/base.json"
	{ ncu sgemm sgemm_tiled; ncu copy copy; echo 'not json'; } > "$T/in.json"
	run kf-feedback --baseline "$T/base.json" "$T/in.json"
	[ "$status" -eq 1 ]
	assert_line "kf-feedback: $T/in.json: line 2: --baseline: $T/base.json has no record with id \"copy\""
	run jq -sc 'map([.id, .analysis.delta.status, .analysis.delta.verdict, .error.kind])' <<<"$(grep '^{' <<<"$output")"
	assert_output '[["sgemm","ok","faster",null],["copy","no_baseline",null,null],[null,null,null,"bad_json"]]'
}

@test "--max-chars keeps the comparison's verdict line" {
	final sgemm sgemm_naive > "$T/base.json"
	ncu sgemm sgemm_tiled | kf-feedback --max-chars 500 --baseline "$T/base.json" > "$T/out.json"
	run jq -r .feedback "$T/out.json"
	assert_line "Compared with the baseline ($T/base.json): 1.31x faster in total GPU time (3.13 ms -> 2.38 ms)."
	[ "$(jq -r .feedback "$T/out.json" | wc -c)" -le 500 ]
}

@test "roof and source_lines only in the baseline are skipped, the rest compared" {
	final sgemm sgemm_naive | jq -c '.analysis.focus += {roof: {bound: "memory", arithmetic_intensity: 0.25},
		source_lines: [{file: "bench.cu", line: 40}]}' > "$T/base.json"
	ncu sgemm sgemm_tiled > "$T/rec.json"
	run kf-feedback --baseline "$T/base.json" "$T/rec.json"
	[ "$status" -eq 0 ]
	[ "$(jq -c '.analysis.delta | [has("roof"), has("source_lines"), .verdict]' <<<"$output")" = '[false,false,"faster"]' ]
}

@test "a baseline analysis with fields missing or of the wrong type: no verdict, no crash" {
	ncu sgemm sgemm_tiled > "$T/rec.json"
	for a in '{"status":"ok","profiler":"ncu"}' \
		'{"status":"ok","profiler":"ncu","ranking":{"total_ns":"3 ms","kernels":{"a":1}},"focus":[],"rules":7}' \
		'{"status":"ok","profiler":"ncu","ranking":{"total_ns":-5,"kernels":[{"name":7},{"total_ns":1}]},"focus":{"name":"x","duration_ns":null,"throughput":"high"}}'; do
		jq -cn --argjson a "$a" '{id: "sgemm", profiler: "ncu", analysis: $a}' > "$T/base.json"
		run kf-feedback --baseline "$T/base.json" "$T/rec.json"
		[ "$status" -eq 0 ]
		[ "$(jq -c '.analysis.delta | [.status, .verdict, .speedup]' <<<"$output")" = '["ok",null,null]' ]
		[ "$(jq -r '.analysis.focus.name' <<<"$output")" = 'sgemm_tiled_k(const float *, const float *, float *, int)' ]
	done
	run jq -r '.feedback | split("\n")[3]' <<<"$(kf-feedback --baseline "$T/base.json" "$T/rec.json")"
	assert_output "Compared with the baseline ($T/base.json): not comparable in total GPU time (-5 ns -> 2.38 ms)."
}
