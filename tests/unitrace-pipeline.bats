#!/usr/bin/env bats
# kf-wrap | kf-run | kf-read | kf-collate | kf-feedback with a fake unitrace
# (tests/fake/unitrace) on PATH, and the OpenCL retry helper kf-unitrace-ocl.
load helper

UT="$FIX/unitrace"
OCL="$TOP/libexec/kf/kf-unitrace-ocl"

setup() {
	T="$BATS_TEST_TMPDIR"
	PATH="$TOP/tests/fake:$PATH"
	export PATH
	cd "$T"
}

teardown() {
	# the dot-free links kf-wrap made for the records that kf-read never saw
	local l
	for l in /tmp/kf-unitrace-*; do
		[ -L "$l" ] && case $(readlink "$l") in "$T"/*) rm -f "$l" ;; esac
	done
	return 0
}

@test "kf-wrap unitrace: the query command of each pass, its env and no end marker" {
	run sh -c 'kf-wrap unitrace -o out --id k --language sycl -- ./prog "a b" | jq -r "select(.pass == \"unitrace.001\") | (.argv[0:5] | join(\"|\")), (.argv[5] | test(\"^[0-9a-f]{32}$\")), (.argv[6:11] | join(\"|\")), (.argv[11] == \"-o\" and (.argv[12] | endswith(\"/trace\"))), (.argv[13:] | join(\"|\")), .env.KERNELFOUNDRY_PROFILER, .env.KERNELFOUNDRY_unitrace_cmd, .end_marker"'
	assert_output "unitrace|--chrome-kernel-logging|--chrome-itt-logging|--start-paused|--session
true
--group|MemoryProfile|--metric-query|--output-dir-path|out/k/unitrace.001
true
./prog|a b
unitrace
unitrace
null"
}

@test "kf-wrap unitrace --no-timeline leaves the Chrome logging out" {
	run sh -c 'kf-wrap --no-timeline unitrace -o out --id k --language sycl -- ./prog | jq -r "select(.pass == \"unitrace.000\") | .argv[1:3] | join(\"|\")"'
	assert_output "--start-paused|--session"
}

@test "kf-wrap unitrace for OpenCL: the retry helper, its arguments, UNITRACE_DONE" {
	run sh -c 'kf-wrap unitrace -o out --id k --language ocl -- ./prog x | jq -r "select(.pass == \"unitrace.002\") | .mode, .end_marker, (.argv[0] | endswith(\"/kf-unitrace-ocl\")), (.argv[1:3] | join(\"|\")), (.argv[4:9] | join(\"|\")), (.argv[10:] | join(\"|\"))"'
	assert_success
	assert_output "sampling
UNITRACE_DONE
true
unitrace|out/k/unitrace.002
VectorEngineProfile|--chrome-kernel-logging|--chrome-itt-logging|--start-paused|--session
--|./prog|x"
}

@test "the whole pipeline over three passes with the fake unitrace: the GEMM, compute bound" {
	export KF_FAKE_SCENARIO="$UT/bmg-gemm-xmx" KF_FAKE_LOG="$T/log"
	run sh -c 'kf-wrap unitrace -o "o.d" --id gemm --language sycl -- sh -c "echo \"arg: \$1\"" sh "a \"b\" \$(touch x)" |
		tee wrapped.jsonl | kf-run | kf-read | kf-collate | kf-feedback --gpu B580 >fb.jsonl'
	assert_success
	run jq -r '.id, ([.passes[].status] | join(" ")), (.analysis.focus | .short_name, .median_gpu_time_ns, .bound, .gmem_bw_gbps)' fb.jsonl
	assert_output "gemm
ok ok ok
GemmXmxKernel<bfloat16, 256, 128, 32>
1905069
compute
168.632352"
	# the program ran in every pass and got its argument unchanged
	run grep -c '^arg: a "b" \$(touch x)$' "$T/log"
	assert_output 3
	[ ! -e x ]
	run grep -c '^env: KERNELFOUNDRY_PROFILER=unitrace$' "$T/log"
	assert_output 3
	# unitrace's files are where it names them, despite the dots in the path
	# and kf-read removed the dot-free link unitrace was given
	run sh -c 'jq -r .unitrace_link wrapped.jsonl | while read -r l; do [ -L "$l" ] && echo "left: $l"; done; jq -s length wrapped.jsonl'
	assert_output 3
	run sh -c 'ls o.d/gemm/unitrace.000 | sed -E "s/[.][0-9]+/.N/g" | sort'
	assert_output "python3.N.json
trace.N
trace.metrics.N"
}

@test "the OpenCL pipeline: an empty first metrics file is retried, sgemm_tiled is compute bound" {
	export KF_FAKE_SCENARIO="$UT/bmg-ocl-sampling" KF_FAKE_EMPTY=1 KF_FAKE_STATE="$T/calls" KF_FAKE_LOG="$T/log"
	run sh -c 'kf-wrap unitrace -o out --id ocl --language ocl -- true | kf-run | tee run.jsonl | kf-read | kf-collate | kf-feedback --gpu B580 >fb.jsonl'
	assert_success
	run jq -r '.analysis | .mode, (.focus | .short_name, .median_gpu_time_ns, .bound)' fb.jsonl
	assert_output "sampling
sgemm_tiled
897855
compute"
	run cat "$T/calls"
	assert_output 4
	run jq -r 'select(.pass == "unitrace.000") | .run.stderr' run.jsonl
	assert_line "kf-unitrace-ocl: metrics file has 3 lines (need 10), tool status 0: trying again"
	run grep -c '^env: PTI_ENABLE_COLLECTION=0$' "$T/log"
	assert_output 4
}

@test "kf-unitrace-ocl gives up after its attempts, prints UNITRACE_DONE, and leaves one attempt's files" {
	export KF_FAKE_SCENARIO="$UT/bmg-ocl-sampling" KF_FAKE_EMPTY=99 KF_FAKE_STATE="$T/calls"
	mkdir out
	KF_UNITRACE_ATTEMPTS=3 run "$OCL" unitrace out out/trace ComputeBasic --session s -- true
	assert_failure 1
	assert_line UNITRACE_DONE
	assert_line "kf-unitrace-ocl: no metrics file with 10 lines after 3 attempts"
	run cat "$T/calls"
	assert_output 3
	run sh -c 'ls out | sed -E "s/[.][0-9]+/.N/g" | sort'
	assert_output "python3.N.json
trace.N
trace.metrics.N"
}

@test "kf-unitrace-ocl keeps the program's exit status and passes every argument unchanged" {
	export KF_FAKE_SCENARIO="$UT/bmg-ocl-sampling" KF_FAKE_LOG="$T/log"
	mkdir out
	run "$OCL" unitrace out out/trace MemoryProfile -- sh -c 'exit 3' 'x y' '--'
	assert_failure 3
	assert_line UNITRACE_DONE
	run sh -c 'grep "^arg: " "$1" | cut -c6- | tr "\n" "|"' _ "$T/log"
	assert_output "--opencl|--group|MemoryProfile|--metric-sampling|--output-dir-path|out|-o|out/trace|sh|-c|exit 3|x y|--|"
}

@test "kf-unitrace-ocl: a usage error without \"--\" or a command is status 2" {
	run "$OCL" unitrace out out/trace ComputeBasic --session s
	assert_failure 2
	run "$OCL" unitrace out out/trace ComputeBasic --
	assert_failure 2
}
