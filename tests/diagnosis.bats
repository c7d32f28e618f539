#!/usr/bin/env bats
# analysis.diagnosis beyond ncu's own: program_failed (from the runs a
# record holds), launch_bound and machinery (the whole program), the
# unitrace and VTune findings, and the text that leads with them.
load helper

H200="$FIX/ncu-h200"

setup() {
	T="$BATS_TEST_TMPDIR"
}

# kf with the fake ncu replaying the real H200 capture of a program that
# aborts after its kernel (detailed-crash.csv, its stderr line
# detailed-crash.stderr, status 6); ./crash says and does what it did.
crash_setup() {
	cd "$T"
	{ printf '#!/bin/sh\n'; printf 'echo "%s" >&2\n' "$(cat "$H200/detailed-crash.stderr")"; printf 'exit 6\n'; } >crash
	chmod +x crash
	PATH="$TOP/tests/fake:$PATH"
	export FAKE_NCU_CSV="$H200/detailed-crash.csv" FAKE_NCU_RAW="$H200/raw-copy.csv" FAKE_NCU_SOURCE=/dev/null
}

@test "program_failed: kf ncu on a program that aborts: first finding, its stderr and ncu's ==ERROR==, status 3" {
	crash_setup
	run --separate-stderr kf --json ncu -- ./crash
	assert_equal "$status" 3
	assert_equal "$(jq -c '.passes[0].run | [.exit_code, .stderr]' <<<"$output")" \
		'[6,"bench: crashing on purpose\n"]'
	run jq -r '.analysis.status, (.analysis.diagnosis[0] | .kind, .impact_pct, (.evidence[0] | "\(.metric)=\(.value)")), .feedback' <<<"$output"
	assert_line -n 0 ok
	assert_line -n 1 program_failed
	assert_line -n 2 null
	assert_line -n 3 "run.exit_code=6"
	assert_line -n 4 "Diagnosis (most time at stake first):"
	assert_line -n 5 '1. The program failed: its run exited with status 6 (run.exit_code). ncu said: "==ERROR== The application returned an error code (6).". The last lines of its stderr: "bench: crashing on purpose". The numbers that follow are from the kernels that ran before it ended, not from a whole run. Fix: make the program run to its end outside the profiler first (./crash), fix what its own messages say, then profile it again.'
	refute_output --partial "SIGABRT"
	refute_output --partial "kf-wrap"
	# the same record through kf-feedback alone: the same status
	run --separate-stderr kf --json ncu -- ./crash
	run kf-feedback <<<"$output"
	assert_equal "$status" 3
}

@test "program_failed: kf-collate keeps the runs' tails bounded to 2048 bytes from a line start" {
	big=$(jq -rn '[range(400) | "line \(.) of the program"] | join("\n")')
	jq -cn --arg e "$big" '{id:"t", profiler:"ncu", pass:"ncu.000", data:{kernels:[]},
		run:{exit_code:1, signal:null, ended_by:"exit", stdout:"", stderr:($e + "\n")}}' |
		kf-collate >"$T/c.json"
	# lines 315-399 are 85 of 24 bytes: 2040 of the last 2048
	run jq -r '.passes[0].run.stderr | length <= 2048, (split("\n") | .[0], .[-2])' "$T/c.json"
	assert_output "true
line 315 of the program
line 399 of the program"
}

@test "program_failed: a killed program names its signal from run.signal, never from a status" {
	jq -cn '{id:"k", profiler:"ncu", cmd:["python3","gen.py"],
		passes:[{pass:"ncu.000", status:"ok", run:{exit_code:null, signal:"SIGKILL", ended_by:"exit",
		  elapsed_s:3.5, stdout:"step 1\n", stderr:""}}], collated:{kernels:[]}}' >"$T/k.json"
	run kf-feedback "$T/k.json"
	assert_equal "$status" 3
	run jq -r '.analysis.diagnosis[0] | .what, (.evidence | map("\(.metric)=\(.value)") | join(" "))' <<<"$output"
	assert_line -n 0 'The program failed: its run was killed by SIGKILL (run.signal). Its stderr has no line of its own; the last of its stdout: "step 1". The numbers that follow are from the kernels that ran before it ended, not from a whole run'
	assert_line -n 1 "run.signal=9 run.elapsed_s=3.5"
	# exit status 9 is a status, not a signal
	jq -c '.passes[0].run += {exit_code:9, signal:null}' "$T/k.json" | kf-feedback >"$T/o.json" || true
	run jq -r '.analysis.diagnosis[0].what' "$T/o.json"
	assert_output --partial "exited with status 9 (run.exit_code)"
	refute_output --partial "SIGKILL"
}

@test "program_failed: not for a profiler's own failure (no permission) nor a clean run" {
	jq -cn '{id:"p", profiler:"ncu", run:{exit_code:1, signal:null, ended_by:"exit", stdout:"", stderr:""},
		error:{stage:"kf-read", kind:"no_permission", message:"ncu may not read the GPU performance counters"}}' |
		kf-feedback >"$T/p.json" && st=0 || st=$?
	assert_equal "$st" 1
	assert_equal "$(jq -c '.analysis.diagnosis' "$T/p.json")" '[]'
}
