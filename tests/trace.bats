#!/usr/bin/env bats
# kf trace: traces recorded on an H200 by kf's CUPTI tracer
# (examples/h200/trace/bench1.sh), replayed through kf-read, kf-collate and
# kf-feedback; cut-off files; the tracer's use as --top's timing source.

load helper

FX=$BATS_TEST_DIRNAME/fixtures/trace

setup() {
	T=$(mktemp -d)
}

teardown() {
	rm -rf "$T"
}

# replay NAME: the fixture's files, unzipped, into $T/NAME; kf-read's record in $T/rec.
replay() {
	mkdir -p "$T/$1"
	for f in "$FX/$1"/*; do
		case $f in
		*.gz) gzip -dc "$f" > "$T/$1/$(basename "${f%.gz}")" ;;
		*) cp "$f" "$T/$1/" ;;
		esac
	done
	printf '{"id":"%s","profiler":"trace","output_dir":"%s"}\n' "$1" "$T/$1" |
		kf-read > "$T/rec" 2> "$T/err"
}

@test "trace: GPT-2 generation: every launch, kernels by GPU time, the timeline" {
	replay gpt2
	run jq -r '.data | [.launches, .kernel_count, .processes, .timeline.median_launch_ns,
		.timeline.gaps.count, .kernels[0].launches, .kernels[0].mangled[0:24], .truncated] | @tsv' "$T/rec"
	assert_output "$(printf '2205\t51\t1\t1216\t2497\t336\t_ZN8internal5gemvx6kerne\tfalse')"
	run jq -r '.data.ranges | map(.name) | join(",")' "$T/rec"
	assert_output "generate,cub::DeviceScan::InclusiveScan"
	run jq -r '.data.copies.HtoD.count' "$T/rec"
	assert_output 151
}

@test "trace: GPT-2 generation is launch_bound, and the text says why" {
	replay gpt2
	kf-collate < "$T/rec" | kf-feedback > "$T/fb"
	run jq -r '.analysis.diagnosis[0] | [.kind, (.impact_pct | floor)] | @tsv' "$T/fb"
	# the traced window, from the top kernel's first launch to the last
	# kernel's end (the weights' copies before it left out): 4.97 ms busy,
	# 57.93 ms in 1,968 gaps under 1 ms between launches
	assert_output "$(printf 'launch_bound\t92')"
	run jq -c '.analysis.timeline.window | [.busy_ns, .idle_ns, .idle_gaps, .outside_ns]' "$T/fb"
	assert_output '[4971022,57933927,1968,0]'
	# the launches it counts are the 1,889 that began in that window, of
	# the trace's 2,205
	run jq -c '.analysis.timeline | [.launches, .window.launches, .window.short_launches.count]' "$T/fb"
	assert_output '[2205,1889,1875]'
	run jq -r '.feedback' "$T/fb"
	assert_output --partial "The GPU waits on the host between launches: it was idle 92.1% of the traced window (57.93 ms in 1,968 gaps under 1 ms between launches, against 4.97 ms busy); 1,875 of 1,889 launches ran under 10 µs, the median 1.2 µs (about 92% of the traced window at stake)"
	assert_output --partial "The GPU was busy 10.5% of the 567.73 ms from its first work to its last"
	assert_output --partial "2205 kernel launches"
	run jq -r '.analysis.diagnosis[0] | .impact_basis, (.evidence | map(.metric) | index("the traced window: busy ns") != null)' "$T/fb"
	assert_output "traced_window
true"
}

@test "trace: ResNet-50 training ranks batch norm backward first" {
	replay resnet50
	run jq -r '.data | [.launches, .kernel_count, (.kernels[0].name | startswith("void at::native::batch_norm_backward_kernel"))] | @tsv' "$T/rec"
	assert_output "$(printf '2816\t76\ttrue')"
}

@test "trace: a CUDA graph's kernels are counted as graph launches" {
	replay graph
	run jq -r '.data.kernels[0] | [.launches, .graph_launches] | @tsv' "$T/rec"
	assert_output "$(printf '52\t40')"
}

@test "trace: two processes, one file each, one ranking" {
	replay two_procs
	run jq -r '.data | [.processes, .launches, (.files | map(.kernels) | join("+"))] | @tsv' "$T/rec"
	assert_output "$(printf '2\t34\t17+17')"
}

@test "trace: host copies are found as the bound" {
	replay copies
	kf-collate < "$T/rec" | kf-feedback > "$T/fb"
	run jq -r '.analysis.diagnosis[0] | [.kind, .unit, (.impact_pct | floor)] | @tsv' "$T/fb"
	# 1.10 s of copies in the 1.11 s window between the first kernel and the last
	assert_output "$(printf 'other\tpcie\t99')"
}

@test "trace: a killed program's file is read up to its end and said to be cut" {
	replay killed
	k=$(grep -c '^K' "$T/killed/trace.947.kft")
	run jq -r '.data | [.truncated, .files[0].complete, .files[0].kernels, (.warnings | length)] | @tsv' "$T/rec"
	assert_output "$(printf 'true\tfalse\t%s\t1' "$k")"
	run cat "$T/err"
	assert_output --partial "trace.947.kft was cut off after line 3000"
}

@test "trace: a file cut in the middle of a line keeps every whole line" {
	replay gpt2
	head -c 100000 "$T/gpt2/trace.572.kft" > "$T/cut.kft"
	whole=$(head -c 100000 "$T/gpt2/trace.572.kft" | sed '$d' | grep -c '^K')
	mkdir "$T/c" && mv "$T/cut.kft" "$T/c/trace.1.kft"
	printf '{"id":"c","profiler":"trace","output_dir":"%s"}\n' "$T/c" | kf-read > "$T/rec2" 2> "$T/err"
	run jq -r '.data | [.truncated, .files[0].cut_mid_line, .launches] | @tsv' "$T/rec2"
	assert_output "$(printf 'true\ttrue\t%s' "$whole")"
	grep -q "in the middle of a line" "$T/err"
}

@test "trace: no trace file is an error record that says what to check" {
	mkdir "$T/none"
	run sh -c "printf '{\"id\":\"n\",\"profiler\":\"trace\",\"output_dir\":\"%s\"}\n' '$T/none' | kf-read"
	assert_failure 1
	echo "$output" | grep '^{' | jq -e '.error.kind == "no_trace" and (.error.hint | contains("CUDA_INJECTION64_PATH"))'
}

@test "trace: a file that is not a trace is a bad_trace error" {
	mkdir "$T/bad" && printf 'hello\n' > "$T/bad/trace.5.kft"
	run sh -c "printf '{\"id\":\"b\",\"profiler\":\"trace\",\"output_dir\":\"%s\"}\n' '$T/bad' | kf-read"
	assert_failure 1
	echo "$output" | grep '^{' | jq -e '.error.kind == "bad_trace"'
}

@test "trace: --select writes ncu's timing CSVs from the trace and ncu's filter" {
	replay resnet50
	mkdir -p "$T/run/trace" && cp "$T/resnet50"/*.kft "$T/run/trace/"
	run kf-read --profiler trace --select 3 --write "$T/run/trace"
	assert_success
	assert_line --index 0 -- "--kernel-name-base"
	assert_line --index 1 "mangled"
	run jq -r '.chosen | length' "$T/run/ncu_top.json"
	assert_output 3
	run sh -c "grep -c '\"gpu__time_duration.sum\"' '$T/run/ncu_timing_mangled.csv'"
	assert_output 2816
}

@test "trace: kf-wrap trace sets the injection and the output folder" {
	[ -f "$BATS_TEST_DIRNAME/../libexec/kf/libkftrace.so" ] || skip "kf built without CUPTI"
	run kf-wrap trace -o "$T/w" -- ./prog
	assert_success
	echo "$output" | jq -e '(.env.CUDA_INJECTION64_PATH | endswith("libkftrace.so")) and (.env.KF_TRACE_DIR == .output_dir) and .argv == ["./prog"]'
}

@test "trace: make skips the tracer, and says where it looked, when there is no CUPTI" {
	cd "$BATS_TEST_DIRNAME/.."
	run make --no-print-directory -s tracer CUDA_HOME=/nonexistent CUPTI_DIRS=/nonexistent
	assert_success
	assert_output "kf: no CUPTI (cupti.h and libcupti.so) under /nonexistent (looked in include targets/x86_64-linux/include extras/CUPTI/include of each): the tracer (kf trace) is not built; set CUDA_HOME"
}

@test "trace: kf-wrap trace without the tracer is a no_tracer error that says how to build it" {
	[ ! -e /usr/local/libexec/kf/libkftrace.so ] || skip "a tracer is installed"
	mkdir -p "$T/bin" "$T/empty"
	cp "$(command -v kf-wrap)" "$T/bin/"
	KF_LIBEXECDIR=$T/empty run "$T/bin/kf-wrap" trace -o "$T/w" -- ./prog
	assert_failure 1
	echo "$output" | grep '^{' | jq -e '.error.kind == "no_tracer" and (.error.hint | contains("CUDA_HOME"))'
	# kf: a profiler that cannot be started, with where it looked (status 5)
	for p in kf kf-run kf-read kf-collate kf-feedback; do cp "$(command -v "$p")" "$T/bin/"; done
	KF_LIBEXECDIR=$T/empty run --separate-stderr "$T/bin/kf" trace -o "$T/w2" -- ./prog
	assert_equal "$status" 5
	assert_line --index 2 "1. Nothing ran: kf's tracer libkftrace.so is not in $T/empty (KF_LIBEXECDIR), $T/bin/../libexec/kf or /usr/local/libexec/kf: it was not built (no CUDA where kf was built) or not installed (kf-wrap, no_tracer); there are no performance numbers. Fix: kf builds it where CUPTI's headers are found: rebuild with CUDA_HOME set to the CUDA install (make says where it looked), or set KF_LIBEXECDIR to the folder holding libkftrace.so."
}

@test "trace: records dropped past the size bound are said, and left out of the totals" {
	mkdir "$T/d"
	{ gzip -dc "$FX/killed/trace.947.kft.gz" | head -n 50
	  printf 'D\tkernel\t12\nE\t100\tend=exit\tsignal=0\tcupti_dropped=3\n'; } > "$T/d/trace.9.kft"
	k=$(grep -c '^K' "$T/d/trace.9.kft")
	printf '{"id":"d","profiler":"trace","output_dir":"%s"}\n' "$T/d" | kf-read > "$T/rec" 2> "$T/err"
	run jq -r '.data | [.launches, .files[0].dropped.kernel, .files[0].cupti_dropped, .truncated, .warnings[0]] | @tsv' "$T/rec"
	assert_output "$(printf '%s\t12\t3\tfalse\ttrace.9.kft: 12 kernel records not kept past the file'"'"'s size bound (kf-wrap trace --max-mb); 3 records dropped by CUPTI (its buffers were full): the totals leave them out' "$k")"
}
