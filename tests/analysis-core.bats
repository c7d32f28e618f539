#!/usr/bin/env bats
# The analysis core (kf(7), "The analysis core"): the fields every
# profiler's feedback fills the same way, each checked against the
# profiler's own field it comes from, on real captures of all three.

load helper

EX="$TOP/examples/h200"
B580='{"gpu_name":"Intel(R) Arc(TM) B580 Graphics"}'

setup() {
	T="$BATS_TEST_TMPDIR"
}

ncu_fb() {
	replay "$1" ncu "$EX/$1/ncu.000" | kf-read | kf-collate | kf-feedback "${@:2}"
}

ut_fb() {
	ut_replay "$1" "$FIX/unitrace/$1" "$B580" | kf-read 2>/dev/null | kf-collate | kf-feedback
}

vt_fb() {
	replay "$1" vtune "$FIX/vtune/$1" vtune.000 | kf-read | kf-collate | kf-feedback
}

# The core's focus fields, the same keys for every profiler.
core_keys='.analysis.focus | [has("name"), has("short_name"), has("total_ns"), has("launches"),
	has("share_pct"), has("reason"), has("time_ns"), has("time_label"), has("limiter")]'

@test "ncu: time_ns is the focus launch's duration_ns, advice is analysis.rules, the share from the ranking" {
	ncu_fb sgemm_naive >"$T/n.json"
	run jq -c "$core_keys" "$T/n.json"
	assert_output '[true,true,true,true,true,true,true,true,true]'
	run jq -c '.analysis | [.focus.time_ns == .focus.duration_ns, .focus.time_label,
		.focus.share_pct == .ranking.kernels[0].share_pct, .focus.total_ns == .ranking.kernels[0].total_ns,
		([.advice[] | [.source, .kind, .name, .type, .speedup_pct, .text]] ==
		 [.rules[] | ["ncu", "rule", .name, .type, .speedup, .description]]),
		(.kernels[0].time_ns == .kernels[0].duration_ns)]' "$T/n.json"
	assert_output '[true,"duration",true,true,true,true]'
}

@test "ncu without a raw page: the limiter is ncu's own SOLBottleneck test, the diagnosis's verdict" {
	ncu_fb sgemm_naive >"$T/n.json"
	# Memory Throughput 98.6% >= 60% and above Compute (SM): memory, on the
	# busiest memory level; the diagnosis's first finding says the same
	run jq -c '.analysis | [.focus.limiter.bound, .focus.limiter.unit,
		.focus.limiter.pct == .focus.throughput.l1tex_pct, .focus.limiter.metric,
		.diagnosis[0].kind, .diagnosis[0].unit]' "$T/n.json"
	assert_output '["memory","l1",true,"l1tex_pct","memory_bound","l1"]'
	# Compute (SM) 22.3% and Memory Throughput 51.5% below 60%, L2 at
	# 70.6% over it: memory-bound on L2, as the raw page's units would say
	# (its ResNet-18 launch with the raw page, h200-chain's resnet18-top3),
	# where the rule's text weighs Memory Throughput alone and says latency
	mkdir -p "$T/r"
	cp "$FIX/ncu-h200/detailed-resnet18-plain.csv" "$T/r/ncu_report.csv"
	replay r ncu "$T/r" | kf-read | kf-collate | kf-feedback >"$T/r.json"
	run jq -c '.analysis | [.focus.limiter.bound, .focus.limiter.unit, .focus.limiter.pct, .focus.throughput.memory_pct, (.diagnosis[] | select(.kernel != null) | [.kind, .unit])]' "$T/r.json"
	assert_output '["memory","l2",70.64,51.55,["memory_bound","l2"]]'
	run jq -r '.analysis.focus.bottleneck' "$T/r.json"
	assert_output --partial 'below 60.0% of peak typically indicate latency issues'
	# below 60% on every figure: latency, as the rule's text says
	ncu_fb reduce_atomic >"$T/a.json"
	run jq -c '.analysis | [.focus.limiter.bound, ([.focus.throughput[]] | max < 60), .diagnosis[0].kind]' "$T/a.json"
	assert_output '["latency",true,"latency_bound"]'
}

@test "ncu with the raw page: the roof's first point is the roofline's own numbers" {
	jq -c '.analysis.focus.roof | [.x_unit, .y_unit, .memory_peak == .peak_dram_bytes_per_s,
		.compute_peaks[0].name == .precision, .compute_peaks[0].peak == .peak_flops,
		.compute_peaks[0].ridge == .ridge, .points[0].intensity == .arithmetic_intensity,
		.points[0].performance == .achieved_flops, .points[0].pct_of_roof == .pct_of_roof,
		.points[0].bytes_per_s == .dram_bytes_per_s]' "$FIX/report/roof-sgemm_naive.json" >"$T/r"
	[ "$(cat "$T/r")" = '["FLOP/byte","FLOP/s",true,true,true,true,true,true,true,true]' ]
	[ "$(jq -c '.analysis.focus.limiter | [.bound, .unit]' "$FIX/report/roof-sgemm_naive.json")" = '["compute","l1"]' ]
}

@test "unitrace: time_ns is the median, the limiter the roofline verdict and its ALU, the roof each ALU" {
	ut_fb bmg-gemm-xmx >"$T/u.json"
	run jq -c "$core_keys" "$T/u.json"
	assert_output '[true,true,true,true,true,true,true,true,true]'
	run jq -c '.analysis.focus | [.time_ns == .median_gpu_time_ns, .time_label, .limiter.bound,
		.limiter.unit, .limiter.pct == (.alus[] | select(.name == "ALU2") | .util_pct),
		(.roof.points | map(.label)), .roof.points[0].intensity == .arithmetic_intensity,
		.roof.memory_peak]' "$T/u.json"
	assert_output '[true,"median time","compute","tensor",true,["ALU2","ALU1","ALU0"],true,456000000000]'
	[ "$(jq -c '.analysis.advice' "$T/u.json")" = '[]' ]
}

@test "vtune: a focus like the others, time_ns the average, advice the focus kernel's recommendations" {
	vt_fb sycl-gemm-xmx >"$T/v.json"
	run jq -c "$core_keys" "$T/v.json"
	assert_output '[true,true,true,true,true,true,true,true,true]'
	run jq -c '.analysis | [.focus.name == .kernels[0].name, .focus.time_ns == .kernels[0].average_time_ns,
		.focus.time_label, .focus.limiter.verdict == .bound, .focus.limiter.bound, .focus.limiter.unit,
		.focus.limiter.pct == .kernels[0].xmx_active_pct,
		([.advice[] | [.source, .kind, .name, .text]] ==
		 [.kernels[0].recommendations[] | ["vtune", "recommendation", .kind, .text]]),
		.focus.share_pct == .ranking.kernels[0].share_pct, .focus.reason]' "$T/v.json"
	assert_output '[true,true,"average time",true,"compute","tensor",true,true,true,"most_time"]'
}

@test "a failed run has no focus, and so no core fields to guess from" {
	jq -cn '{id:"x", profiler:"ncu", error:{stage:"kf-run", kind:"program_not_found", message:"no"}}' |
		kf-feedback >"$T/f.json" || true
	[ "$(jq -c '.analysis | [.status, has("focus"), has("advice")]' "$T/f.json")" = '["failed",false,false]' ]
}
