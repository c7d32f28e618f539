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

# The links in /tmp that lead into this test's folder (kf-wrap made one a
# pass before kf-unitrace).
links_here() {
	local l
	for l in /tmp/kf-unitrace-*; do
		[ -L "$l" ] && case $(readlink "$l") in "$T"/*) echo "$l" ;; esac
	done
	return 0
}

@test "kf-wrap unitrace: the query command of each pass under kf-unitrace, its env and no end marker" {
	run sh -c 'kf-wrap unitrace -o out --id k --language sycl -- ./prog "a b" | jq -r "select(.pass == \"unitrace.001\") | (.argv[0] == \"$KF_LIBEXECDIR/kf-unitrace\"), (.argv[1:9] | join(\"|\")), (.argv[9] | test(\"^[0-9a-f]{32}$\")), (.argv[10:] | join(\"|\")), .env.KERNELFOUNDRY_PROFILER, .env.KERNELFOUNDRY_unitrace_cmd, .end_marker"'
	assert_output "true
unitrace|out/k/unitrace.001|MemoryProfile|query|--chrome-kernel-logging|--chrome-itt-logging|--start-paused|--session
true
--|./prog|a b
unitrace
unitrace
null"
}

@test "kf-wrap unitrace --no-timeline leaves the Chrome logging out" {
	run sh -c 'kf-wrap --no-timeline unitrace -o out --id k --language sycl -- ./prog | jq -r "select(.pass == \"unitrace.000\") | .argv[5:7] | join(\"|\")"'
	assert_output "--start-paused|--session"
}

@test "kf-wrap unitrace for OpenCL: kf-unitrace in sampling mode, its arguments, UNITRACE_DONE" {
	run sh -c 'kf-wrap unitrace -o out --id k --language ocl -- ./prog x | jq -r "select(.pass == \"unitrace.002\") | .mode, .end_marker, (.argv[0] | endswith(\"/kf-unitrace\")), (.argv[1:9] | join(\"|\")), (.argv[10:] | join(\"|\"))"'
	assert_success
	assert_output "sampling
UNITRACE_DONE
true
unitrace|out/k/unitrace.002|VectorEngineProfile|sampling|--chrome-kernel-logging|--chrome-itt-logging|--start-paused|--session
--|./prog|x"
}

@test "kf-unitrace: unitrace gets the query options and a dot-free -o prefix into DIR; the command unchanged" {
	export KF_FAKE_SCENARIO="$UT/bmg-gemm-xmx" KF_FAKE_LOG="$T/log"
	mkdir plain
	run "$TOP/libexec/kf/kf-unitrace" unitrace plain ComputeBasic query --start-paused -- sh -c 'echo "ran: $1"' sh 'a "b"'
	assert_success
	assert_output 'ran: a "b"'
	run grep -A1 -x -e 'arg: -o' -e 'arg: --group' -e 'arg: --output-dir-path' "$T/log"
	assert_output "arg: --group
arg: ComputeBasic
--
arg: --output-dir-path
arg: plain
arg: -o
arg: $T/plain/trace"
	rm "$T/log"
	run "$TOP/libexec/kf/kf-unitrace" unitrace "d.x/u.000" ComputeBasic query -- true
	assert_success
	run sed -n 's/^arg: \(\/proc\/[0-9]*\/fd\/9\/trace\)$/fd prefix/p' "$T/log"
	assert_output "fd prefix"
	run sh -c 'ls d.x/u.000 | sed -E "s/[.][0-9]+/.N/g" | sort'
	assert_output "python3.N.json
trace.N
trace.metrics.N"
	run "$TOP/libexec/kf/kf-unitrace" unitrace d ComputeBasic both -- true
	assert_failure 2
	run "$TOP/libexec/kf/kf-unitrace" unitrace d ComputeBasic query --x
	assert_failure 2
}

@test "kf-wrap unitrace | kf-run with no kf-read, and a run killed at its timeout, leave nothing in /tmp" {
	export KF_FAKE_SCENARIO="$UT/bmg-gemm-xmx"
	kf-wrap unitrace -o "o.d" --id k --language sycl -- true | kf-run >runs.jsonl
	kf-wrap unitrace -o "o.d" --id s --language sycl -- sleep 30 | kf-run -t 1 --grace 0.2 >killed.jsonl
	run jq -r '.run.ended_by' runs.jsonl killed.jsonl
	assert_output "exit
exit
exit
timeout
timeout
timeout"
	assert_equal "$(links_here)" ""
	run sh -c 'ls o.d/k/unitrace.000 | sed -E "s/[.][0-9]+/.N/g" | sort'
	assert_output "python3.N.json
trace.N
trace.metrics.N"
}

@test "kf-unitrace: the program's status, and the signal that ended it, are the job's" {
	export KF_FAKE_SCENARIO="$UT/bmg-gemm-xmx"
	run "$TOP/libexec/kf/kf-unitrace" unitrace "o.d" ComputeBasic query -- sh -c 'exit 7'
	assert_failure 7
	jq -cn --arg h "$TOP/libexec/kf/kf-unitrace" '{id:"t", argv:[$h, "unitrace", "o.d", "ComputeBasic", "query", "--", "sleep", "30"]}' >in
	run --separate-stderr kf-run -t 1 in
	run jq -r '.run | [.ended_by, .signal, (.exit_code | tostring)] | @tsv' <<<"$output"
	assert_output "$(printf 'timeout\tSIGTERM\tnull')"
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
	# unitrace's files are where it names them, despite the dots in the path,
	# and no link was made for it
	run jq -s -c '[length, (map(has("unitrace_link")) | any)]' wrapped.jsonl
	assert_output '[3,false]'
	assert_equal "$(links_here)" ""
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
