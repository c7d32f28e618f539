#!/usr/bin/env bats
# The VTune chain: the kf-vtune script (collect, then report, then
# VTUNE_DONE) with a fake vtune on PATH, and the whole pipeline from a
# wrapped record to feedback.

load helper
bats_require_minimum_version 1.5.0

KV="$TOP/libexec/kf/kf-vtune"
COLUMNS='Computing Task:Total Time,Computing Task:Average Time,Computing Task:Instance Count,Computing Task:SIMD Width,XVE Array:Active,XVE Array:Stalled,XVE Array:Idle,XVE Threads Occupancy,XVE Stall Reasons:Send,XVE Stall Reasons:Barrier,XVE Stall Reasons:SBID,XVE Stall Reasons:Instruction Fetch,XVE Stall Reasons:Dist or Acc,XVE Pipelines:ALU0 active,XVE Pipelines:ALU1 active,XVE Pipelines:XMX active,XVE Instructions:ALU0 Instructions,XVE Instructions:ALU1 Instructions,XVE Instructions:XMX instructions,GPU Memory Bandwidth,GPU L3:Busy,GPU L3:Stalled,GPU L3:Miss Ratio,GPU L3:Average Bandwidth,TLB Misses'

setup() {
	PATH="$TOP/tests/fake:$PATH"
	export FAKE_VTUNE_SCENARIO=sycl-latency
	# A folder with a space, a quote and $(...) in its name.
	D="$BATS_TEST_TMPDIR/out dir 'q' \$(x)"
	mkdir -p "$D"
	cd "$BATS_TEST_TMPDIR"
}

@test "kf-vtune: arguments with spaces, quotes, \$(...) and newlines reach the program literally" {
	run --separate-stderr "$KV" vtune "$D/vtune_result" "$D/vtune_hotspots_pass0.tsv" "$COLUMNS" -- \
		printf '[%s]\n' 'a b' '"dq"' "it's" '$(touch CANARY)' $'two\nlines' '*'
	assert_success
	assert_output $'[a b]\n["dq"]\n[it\'s]\n[$(touch CANARY)]\n[two\nlines]\n[*]\nVTUNE_DONE'
	[ ! -e CANARY ]
	[ ! -e "$D/CANARY" ]
}

@test "kf-vtune: the report is VTune's output, byte for byte, in REPORT" {
	run "$KV" vtune "$D/vtune_result" "$D/vtune_hotspots_pass0.tsv" "$COLUMNS" -- true
	assert_success
	cmp "$D/vtune_hotspots_pass0.tsv" "$FIX/vtune/sycl-latency/vtune_hotspots_pass0.tsv"
}

@test "kf-vtune: collect and report get exactly the reference's arguments, extra ones before --" {
	run "$KV" vtune "$D/vtune_result" "$D/r.tsv" "$COLUMNS" -knob 'a b' -- true
	assert_success
	run cat "$D/vtune_result/collect.args"
	assert_output "$(printf '%s\n' -collect gpu-hotspots --start-paused -result-dir "$D/vtune_result" -knob 'a b')"
	run cat "$D/vtune_result/report.args"
	assert_output "$(printf '%s\n' -report hotspots -result-dir "$D/vtune_result" -group-by computing-task -column "$COLUMNS" -format csv -csv-delimiter tab)"
}

@test "kf-vtune: a failed collection runs no report, says so, and keeps VTune's status" {
	FAKE_VTUNE_FAIL=collect run "$KV" vtune "$D/vtune_result" "$D/vtune_hotspots_pass0.tsv" "$COLUMNS" -- touch "$D/ran"
	assert_failure 1
	assert_output --partial 'vtune: Error: Cannot collect GPU hardware metrics'
	assert_output --partial 'kf-vtune: collection failed: vtune -collect gpu-hotspots exited with status 1; no report made'
	refute_output --partial VTUNE_DONE
	[ ! -e "$D/ran" ]
	[ ! -e "$D/vtune_hotspots_pass0.tsv" ]
	[ ! -e "$D/vtune_result/report.args" ]
}

@test "kf-vtune: a program that fails under collection gets no report, its status kept" {
	run "$KV" vtune "$D/vtune_result" "$D/vtune_hotspots_pass0.tsv" "$COLUMNS" -- sh -c 'exit 3'
	assert_failure 3
	assert_output --partial 'kf-vtune: collection failed: vtune -collect gpu-hotspots exited with status 3'
	[ ! -e "$D/vtune_hotspots_pass0.tsv" ]
}

@test "kf-vtune: a failed report is its own error, with no VTUNE_DONE" {
	FAKE_VTUNE_FAIL=report run --separate-stderr "$KV" vtune "$D/vtune_result" "$D/vtune_hotspots_pass0.tsv" "$COLUMNS" -- echo prog-ran
	assert_failure 1
	assert_output prog-ran
	[[ $stderr == *'vtune: Error: The result is corrupted (fake)'* ]]
	[[ $stderr == *"kf-vtune: report failed: vtune -report hotspots exited with status 1; $D/vtune_hotspots_pass0.tsv is incomplete" ]]
}

@test "kf-vtune: no -- or no command after it is a usage error (status 2), nothing run" {
	run "$KV" vtune "$D/vtune_result" "$D/r.tsv" "$COLUMNS" echo hi
	assert_failure 2
	assert_output --partial 'usage: kf-vtune VTUNE RESULT_DIR REPORT COLUMNS'
	run "$KV" vtune "$D/vtune_result" "$D/r.tsv" "$COLUMNS" -x --
	assert_failure 2
	[ ! -e "$D/vtune_result" ]
}

# Run a wrapped record's argv with its env, as kf-run does; print the record
# with "run" added (exit_code, ended_by, stdout, stderr).
run_by_hand() {
	local rec st
	rec=$(cat)
	readarray -d '' argv < <(jq -j '.argv[] | . + "\u0000"' <<<"$rec")
	readarray -d '' envs < <(jq -j '(.env // {}) | to_entries[] | "\(.key)=\(.value)\u0000"' <<<"$rec")
	env "${envs[@]}" "${argv[@]}" >"$BATS_TEST_TMPDIR/so" 2>"$BATS_TEST_TMPDIR/se"
	st=$?
	jq -c --argjson st "$st" --rawfile so "$BATS_TEST_TMPDIR/so" --rawfile se "$BATS_TEST_TMPDIR/se" \
		'. + {run: {exit_code: $st, signal: null, ended_by: "exit", stdout: $so, stderr: $se}}' <<<"$rec"
}

# The record kf-wrap vtune makes for DIR and the command (argv as in lib/vtune/vtune_wrap.c).
wrapped_by_hand() {
	local dir=$1 cmd a
	shift
	cmd=$(for a in "$@"; do jq -n --arg a "$a" '$a'; done | jq -cs .)
	jq -cn --arg kv "$KV" --arg d "$dir" --arg cols "$COLUMNS" --argjson cmd "$cmd" '
		{id: "w", profiler: "vtune", pass: "vtune.000", output_dir: $d,
		 argv: ([$kv, "vtune", "\($d)/vtune_result", "\($d)/vtune_hotspots_pass0.tsv", $cols, "--"] + $cmd),
		 env: {KERNELFOUNDRY_PROFILER: "vtune", KERNELFOUNDRY_vtune_cmd: "vtune",
		       KERNELFOUNDRY_vtune_result_dir: "\($d)/vtune_result"},
		 end_marker: "VTUNE_DONE"}'
}

@test "pipeline from a wrapped record (by hand): fake vtune, kf-read, kf-collate, kf-feedback" {
	export FAKE_VTUNE_SCENARIO=sycl-gemm-xmx
	rec=$(wrapped_by_hand "$D" sh -c 'echo "profiler=$KERNELFOUNDRY_PROFILER dir=$KERNELFOUNDRY_vtune_result_dir"; printf "[%s]\n" "$@"' prog '$(touch CANARY)')
	out=$(run_by_hand <<<"$rec")
	run jq -r '.run.stdout' <<<"$out"
	assert_output "profiler=vtune dir=$D/vtune_result
[\$(touch CANARY)]
VTUNE_DONE"
	[ ! -e CANARY ]
	run bash -c 'kf-read | kf-collate | kf-feedback | jq -c "[.analysis.dominant_kernel, .analysis.bound, .analysis.kernels[0].total_time_s, .passes[0].status]"' <<<"$out"
	assert_success
	assert_output '["matmul_bf16_xmx<256, 128>","compute_xmx",0.499729,"ok"]'
}

@test "pipeline with a failed report (by hand): kf-read says report_failed, feedback explains it" {
	export FAKE_VTUNE_FAIL=report
	out=$(wrapped_by_hand "$D" true | run_by_hand)
	run bash -c 'kf-read 2>/dev/null | kf-collate | kf-feedback | jq -r ".error.kind, .feedback"' <<<"$out"
	assert_line -n 0 report_failed
	assert_output --partial "What to do: the collection finished but 'vtune -report hotspots' failed"
}

@test "kf-wrap vtune: argv, env and end marker, then the pipeline with kf-run" {
	export FAKE_VTUNE_SCENARIO=sycl-latency
	run bash -c 'jq -cn --arg d "$1" "{id:\"w\",profiler:\"vtune\",pass:\"vtune.000\",output_dir:\$d,cmd:[\"printf\",\"[%s]\\\\n\",\"a b\",\"\$(touch CANARY)\"]}" | kf-wrap' _ "$D"
	assert_success
	rec=$output
	od=$(jq -r .output_dir <<<"$rec")
	run jq -c --arg od "$od" --arg cols "$COLUMNS" '[(.argv | index("vtune")) as $i | .argv[$i:$i+5] == ["vtune", "\($od)/vtune_result", "\($od)/vtune_hotspots_pass0.tsv", $cols, "--"], (.argv[-3:] == ["printf", "[%s]\\n", "a b", "$(touch CANARY)"][1:]), (.argv[] | select(endswith("/kf-vtune")) | length > 0), .env.KERNELFOUNDRY_PROFILER, .env.KERNELFOUNDRY_vtune_cmd, (.env.KERNELFOUNDRY_vtune_result_dir == "\($od)/vtune_result"), .end_marker]' <<<"$rec"
	assert_output '[true,true,true,"vtune","vtune",true,"VTUNE_DONE"]'
	out=$(kf-run <<<"$rec")
	[ ! -e CANARY ]
	run bash -c 'kf-read | kf-collate | kf-feedback | jq -c "[.analysis.dominant_kernel, .analysis.bound]"' <<<"$out"
	assert_output '["embedding_gather<float, 128>","memory_latency"]'
}

@test "kf-wrap vtune -o DIR --tool -a -- CMD: the command-line form, run by kf-run" {
	export FAKE_VTUNE_SCENARIO=sycl-gemm-xmx
	rec=$(kf-wrap vtune -o "$D" --tool vtune -a -knob -a 'a b' --id job -- printf '[%s]\n' '$(touch CANARY)')
	run jq -c --arg d "$D" '[.output_dir == "\($d)/job/vtune.000", .argv[1], .argv[5:8], .argv[-3:]]' <<<"$rec"
	assert_output '[true,"vtune",["-knob","a b","--"],["printf","[%s]\\n","$(touch CANARY)"]]'
	out=$(kf-run <<<"$rec")
	run jq -r '.run.stdout' <<<"$out"
	assert_output $'[$(touch CANARY)]\nVTUNE_DONE'
	[ ! -e CANARY ]
	run bash -c 'kf-read | kf-collate | kf-feedback | jq -c "[.analysis.dominant_kernel, .analysis.bound]"' <<<"$out"
	assert_output '["matmul_bf16_xmx<256, 128>","compute_xmx"]'
}

@test "kf-wrap vtune --sudo runs the chain under sudo -E (argv only)" {
	run bash -c 'kf-wrap vtune --sudo -o "$1" -- true | jq -c ".argv[0:2], (.argv[2] | endswith(\"/kf-vtune\"))"' _ "$D"
	assert_output $'["sudo","-E"]\ntrue'
}

@test "kf-vtune: a report left by an earlier run is removed before collecting" {
	echo stale >"$D/vtune_hotspots_pass0.tsv"
	FAKE_VTUNE_FAIL=collect run "$KV" vtune "$D/vtune_result" "$D/vtune_hotspots_pass0.tsv" "$COLUMNS" -- true
	assert_failure 1
	[ ! -e "$D/vtune_hotspots_pass0.tsv" ]
}
