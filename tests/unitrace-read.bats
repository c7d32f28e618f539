#!/usr/bin/env bats
# kf-read on unitrace outputs: metrics layouts, timelines, failures.
load helper

UT="$FIX/unitrace"
PS="$FIX/public-samples"

setup() {
	T="$BATS_TEST_TMPDIR"
}

read_dir() {	# read_dir DIR [GROUP]
	jq -cn --arg d "$1" --arg g "${2:-}" \
		'{id:"t", profiler:"unitrace", pass:"unitrace.000", output_dir:$d} + (if $g == "" then {} else {group:$g} end)' |
		kf-read 2>"$BATS_TEST_TMPDIR/stderr"
}

@test "current layout: 28 rows of 86 columns, GlobalInstanceId a number, the GEMM's GpuTime" {
	run read_dir "$UT/bmg-gemm-xmx/pass-000-ComputeBasic"
	assert_success
	run jq -r '.data | .layout, .group, .rows, (.sections[0].columns|length),
		(.sections[0].rows[] | select(.[1] == 12) | .[0], .[3])' <<<"$output"
	assert_output "query
ComputeBasic
28
86
(anonymous namespace)::GemmXmxKernel<sycl::_V1::ext::oneapi::bfloat16, 256, 128, 32>[SIMD16 {16; 32; 1} {64; 8; 1}]
1905069"
}

@test "the metric group comes from the columns, not from the pass it was asked for" {
	mkdir "$T/pass-000-ComputeBasic"
	cp "$UT/bmg-gemm-xmx/pass-001-MemoryProfile/trace.metrics.48977" "$T/pass-000-ComputeBasic/trace.metrics.1"
	run read_dir "$T/pass-000-ComputeBasic" ComputeBasic
	assert_success
	run jq -r '.data.group, (.data.warnings[] | select(test("asked for")))' <<<"$output"
	assert_output "MemoryProfile
the pass asked for ComputeBasic but its columns are those of MemoryProfile"
}

@test "every fixture pass: the group detected is the one its folder names" {
	for d in "$UT"/*/pass-*; do
		want=${d##*-}
		got=$(read_dir "$d" | jq -r .data.group)
		[ "$got" = "$want" ] || { echo "$d: $got"; return 1; }
	done
}

@test "sampling layout: ', ' separators, samples averaged per kernel, NoKernel rows counted apart" {
	run read_dir "$UT/bmg-ocl-sampling/pass-000-ComputeBasic"
	assert_success
	run jq -r '.data | .layout, .sections[0].idle_samples, (.sections[0].rows|length),
		([.sections[0].rows[][0]] | index("sgemm_tiled")) as $i | .sections[0].samples[$i]' <<<"$output"
	assert_output "sampling
38
4
205"
}

@test "legacy layout: repeated headers, trailing commas, unquoted names, %g floats" {
	mkdir "$T/legacy"
	cp "$PS/unitrace/pti-gpu_roofline_example_ComputeBasic_legacy_log.1799860.txt" "$T/legacy/gemm.metrics.1799860"
	run read_dir "$T/legacy"
	assert_success
	run jq -r '.data | .layout, .group, (.sections|length), (.sections[0].rows|length),
		(.sections[0].columns|length) == (.sections[0].rows[0]|length),
		.sections[0].rows[0][0], (.sections[0].rows[0][.sections[0].columns|index("XVE_ACTIVE[%]")])' <<<"$output"
	assert_output "legacy
ComputeBasic
1
3
true
binary_test[SIMD16 {1; 1; 1} {4; 2; 1}]
6.89741e-06"
}

@test "unitrace of 2024: the metrics inside the main -o log (trace.<pid>), no metrics file, are read from it" {
	mkdir "$T/in-log"
	cp "$PS/unitrace/pti-gpu_roofline_example_ComputeBasic_legacy_log.1799860.txt" "$T/in-log/gemm.1799860"
	run read_dir "$T/in-log"
	assert_success
	run jq -r '.data | .metrics_in_log, (.metrics_files | join(",")), .layout, .group,
		(.sections[0].rows|length), .sections[0].rows[1][0],
		(.sections[0].rows[1][.sections[0].columns|index("GpuTime[ns]")]),
		.logs[0].total_device_time_ns' <<<"$output"
	assert_output "true
gemm.1799860
legacy
ComputeBasic
3
hgemm_nocopy_nn_64x40_4x8[SIMD16 {56; 1; 1} {64; 8; 1}]
4733040
22017040"
	# The VectorEngineProfile log too, and through the whole feedback.
	mkdir "$T/ve"
	cp "$PS/unitrace/pti-gpu_roofline_example_VectorEngineProfile_legacy_log.1799853.txt" "$T/ve/gemm.1799853"
	run read_dir "$T/ve"
	assert_success
	run jq -r '.data.group, .data.metrics_in_log' <<<"$output"
	assert_output "VectorEngineProfile
true"
}

@test "a main log without the metrics table is still no metrics file" {
	mkdir "$T/nolog"
	sed '/== Kernel Metrics ==/,$d' "$PS/unitrace/pti-gpu_roofline_example_ComputeBasic_legacy_log.1799860.txt" >"$T/nolog/gemm.1799860"
	run read_dir "$T/nolog"
	assert_failure
	run jq -r '.error.kind, .data' <<<"$output"
	assert_output "no_metrics
null"
}

@test "legacy VectorEngineProfile (PVC, no SLM counters) is told from its instruction columns" {
	mkdir "$T/legacy"
	cp "$PS/unitrace/pti-gpu_roofline_example_VectorEngineProfile_legacy_log.1799853.txt" "$T/legacy/gemm.metrics.1799853"
	run read_dir "$T/legacy"
	assert_success
	run jq -r '.data.group' <<<"$output"
	assert_output VectorEngineProfile
}

@test "a header with Kernel not first (KernelFoundry's own test data) is read by name" {
	mkdir "$T/kft"
	cp "$PS/kernelfoundry-tests/test_profiler_feedback.ComputeBasic.metrics.1.csv" "$T/kft/trace.metrics.1"
	run read_dir "$T/kft"
	assert_success
	run jq -c '.data.sections[0].rows[1][0:3]' <<<"$output"
	assert_output '[2,"kernel_b[simd=16x1x1]",200]'
}

@test "two device sections with their own headers stay apart" {
	mkdir "$T/two"
	f="$UT/bmg-gemm-xmx/pass-000-ComputeBasic/trace.metrics.48213"
	{ sed -n '/=== Device #0/,$p' "$f"
	  echo; echo "=== Device #1 Metrics ==="; echo
	  sed -n '/^Kernel,/,$p' "$f" | sed -E 's/(,[^,]*){5}$//'
	} | sed 's/(anonymous namespace)::GemmXmxKernel/GemmXmxKernel/' >"$T/two/trace.metrics.7"
	run read_dir "$T/two"
	assert_success
	run jq -c '[.data.sections[] | [.device, (.columns|length), (.rows|length)]]' <<<"$output"
	assert_output '[[0,86,28],[1,81,28]]'
}

@test "a quoted name with an unescaped quote and commas is kept whole" {
	mkdir "$T/q"
	f="$UT/bmg-gemm-xmx/pass-000-ComputeBasic/trace.metrics.48213"
	sed 's/^"(anonymous namespace)::GemmXmxKernel<[^[]*\[/"my"kernel<float, 3>[/' "$f" >"$T/q/trace.metrics.1"
	run read_dir "$T/q"
	assert_success
	run jq -r '.data.sections[0].rows[] | select(.[1] == 12) | .[0], .[3]' <<<"$output"
	assert_output 'my"kernel<float, 3>[SIMD16 {16; 32; 1} {64; 8; 1}]
1905069'
}

@test "CRLF line ends and NUL bytes in the metrics file change nothing but a warning" {
	mkdir "$T/crlf"
	sed 's/$/\r/; s/^"at::/"\x00at::/' "$UT/bmg-gemm-xmx/pass-000-ComputeBasic/trace.metrics.48213" >"$T/crlf/trace.metrics.1"
	run read_dir "$T/crlf"
	assert_success
	run jq -r '.data.rows, (.data.sections[0].rows[] | select(.[1] == 27) | .[0][0:8]),
		(.data.warnings[] | select(test("NUL")))' <<<"$output"
	assert_output "28
at::nati
trace.metrics.1: 12 NUL bytes dropped"
}

@test "a timeline cut off by a crash still yields the events before the cut" {
	mkdir "$T/crash"
	p="$UT/bmg-gemm-xmx/pass-000-ComputeBasic"
	cp "$p/trace.48213" "$p/trace.metrics.48213" "$T/crash/"
	# up to the ITT event, then half of the next line: no "]}" at the end
	{ sed -n '1,183p' "$p/python3.48213.json"; sed -n '184p' "$p/python3.48213.json" | cut -c1-40; } >"$T/crash/python3.48213.json"
	run read_dir "$T/crash"
	assert_success
	run jq -r '.data.timeline | .truncated, (.kernels|length), .itt[0].label' <<<"$output"
	assert_output "true
28
default"
}

@test "NUL bytes and an unescaped quote in timeline names: the event is kept" {
	mkdir "$T/nul"
	p="$UT/bmg-stream-slm/pass-000-ComputeBasic"
	cp "$p/trace.51544" "$p/trace.metrics.51544" "$T/nul/"
	sed 's/"name": "Stencil3x3SlmKernel</"name": "Stencil"3x3SlmKernel</; s/ittapi::model run loop::task.py/ittapi::model run loop::task.py\x00/' \
		"$p/python3.51544.json" >"$T/nul/python3.51544.json"
	run read_dir "$T/nul"
	assert_success
	run jq -r '.data.timeline | .nul_bytes, .salvaged, .itt[0].label,
		([.kernels[] | select(.name | startswith("Stencil\"3x3"))] | length)' <<<"$output"
	assert_output "1
12
task.py::Test::test_benchmark
12"
}

@test "the timeline is a *python*.json first, else the one naming the model run loop" {
	mkdir "$T/pick"
	p="$UT/bmg-stream-slm/pass-000-ComputeBasic"
	cp "$p/trace.metrics.51544" "$T/pick/"
	printf '{ "traceEvents":[\n]\n}\n' >"$T/pick/a-ninja.1.json"
	cp "$p/python3.51544.json" "$T/pick/z-app.1.json"
	run read_dir "$T/pick"
	assert_success
	run jq -r '.data.timeline | .file, .other_json_files' <<<"$output"
	assert_output "z-app.1.json
1"
	cp "$p/python3.51544.json" "$T/pick/python3.2.json"
	run read_dir "$T/pick"
	run jq -r '.data.timeline.file' <<<"$output"
	assert_output python3.2.json
}

@test "no metrics file: an error record with the reason and a hint, and the next record still flows" {
	mkdir "$T/none"
	cp "$UT/bmg-gemm-xmx/pass-000-ComputeBasic/trace.48213" "$T/none/"
	{ jq -cn --arg d "$T/none" '{id:"a", profiler:"unitrace", output_dir:$d}'
	  jq -cn --arg d "$UT/lnl-shapes/pass-000-ComputeBasic" '{id:"b", profiler:"unitrace", output_dir:$d}'; } >"$T/in"
	run sh -c 'kf-read "$1" 2>/dev/null' _ "$T/in"
	assert_failure 1
	run jq -r 'select(.id == "a") | .error | .stage, .kind, (.message | startswith("no unitrace metrics file (trace.metrics.<pid>) in ")), (.hint | test("start-paused"))' <<<"$output"
	assert_output "kf-read
no_metrics
true
true"
	run jq -r 'select(.id == "b") | .data.rows' < <(kf-read "$T/in" 2>/dev/null)
	assert_output 52
}

@test "a near-empty metrics file is empty_metrics, one with lines but no rows is no_kernels" {
	mkdir "$T/empty" "$T/norows"
	printf '\n=== Device #0 Metrics ===\n\n' >"$T/empty/trace.metrics.5"
	{ for i in 1 2 3 4 5 6 7 8 9 10 11; do echo "[INFO] line $i"; done
	  echo "Kernel,GlobalInstanceId,GpuTime[ns]"; } >"$T/norows/trace.metrics.6"
	echo "[WARNING] Not able to calculate metrics" >"$T/norows/trace.6"
	run read_dir "$T/empty"
	assert_failure 1
	run jq -r '.error | .kind, .message' <<<"$output"
	assert_output "empty_metrics
trace.metrics.5 in $T/empty has 3 lines and no kernel rows"
	run read_dir "$T/norows"
	assert_failure 1
	run jq -r '.error | .kind, .message' <<<"$output"
	assert_output "no_kernels
trace.metrics.6 in $T/norows has 12 lines but no kernel metrics rows; unitrace said: [WARNING] Not able to calculate metrics"
}

@test "a timeline that is no Chrome trace is a bad_timeline error, not silently ignored" {
	mkdir "$T/badjson"
	cp "$UT/bmg-gemm-xmx/pass-000-ComputeBasic/trace.metrics.48213" "$T/badjson/"
	echo 'this is not json' >"$T/badjson/python3.1.json"
	run read_dir "$T/badjson"
	assert_failure 1
	run jq -r '.error.kind' <<<"$output"
	assert_output bad_timeline
}

@test "an output_dir with spaces, quotes and \$(...) in its name is read" {
	d="$T/a b \"c\" \$(touch x)"
	mkdir "$d"
	cp "$UT/lnl-shapes/pass-001-MemoryProfile/"* "$d/"
	run read_dir "$d"
	assert_success
	run jq -r '.data.group, .data.rows' <<<"$output"
	assert_output "MemoryProfile
52"
	[ ! -e x ] && [ ! -e "$T/x" ]
}
