#!/usr/bin/env bats
# The ncu path from the wrapped command on, with tests/fake/ncu standing in
# for NVIDIA's ncu: it runs the program and writes a recorded H200 report
# where the real one would.

load helper

H200="$FIX/ncu-h200"
FAKE="$TOP/tests/fake/ncu"

# wrapped ID CSV MODE CMD...: a wrapped record made by hand, as kf-wrap
# makes it, with the fake ncu and its settings in env. (jq 1.6 takes a
# "-x" in CMD for its own option: use scripts, not sh -c.)
wrapped() {
	local id=$1 csv=$2 mode=$3 dir="$BATS_TEST_TMPDIR/out/$1"
	shift 3
	mkdir -p "$dir"
	jq -cn --arg id "$id" --arg d "$dir" --arg fake "$FAKE" --arg csv "$csv" --arg mode "$mode" \
		'{id:$id, profiler:"ncu", pass:"ncu.000", output_dir:$d,
		  argv:([$fake, "--set", "detailed", "--csv", "--log-file", ($d + "/ncu_report.csv")] + $ARGS.positional),
		  env:{FAKE_NCU_CSV:$csv, FAKE_NCU_MODE:$mode}, end_marker:null}' --args "$@"
}

# A program that writes its arguments, one per line, to $ARGS_OUT.
args_prog() {
	cat >"$BATS_TEST_TMPDIR/prog" <<-'EOF'
	#!/bin/sh
	printf '%s\n' "$@" >"$(dirname "$0")/args.out"
	EOF
	chmod +x "$BATS_TEST_TMPDIR/prog"
	printf '%s\n' "$BATS_TEST_TMPDIR/prog"
}

@test "kf-wrap ncu: argv is kf-ncu NCU OUTPUT_DIR 0 KF-READ, options -+ --set detailed options -- command" {
	run kf-wrap ncu -o "$BATS_TEST_TMPDIR/w" --tool "$FAKE" -a --clock-control -a none -- ./k 'a b' '$(x)'
	assert_success
	run jq -c '[.argv[0:4] + .argv[5:] == ["'"$KF_LIBEXECDIR/kf-ncu"'", "'"$FAKE"'", .output_dir, "0", "--clock-control", "none", "-+", '"$(kf_sections)"', "--metrics", "'"$(kf_metrics)"'", "--clock-control", "none", "--", "./k", "a b", "$(x)"], .env, .end_marker]' <<<"$output"
	assert_output '[true,{},"NCU_DONE"]'
}

@test "kf-wrap ncu: the user's own --set replaces detailed, and only in the detailed run" {
	run kf-wrap ncu -o "$BATS_TEST_TMPDIR/w" -a --set -a full -- ./k
	assert_success
	run jq -c '.argv[5:]' <<<"$output"
	assert_output '["-+","--metrics","'"$(kf_metrics)"'","--set","full","--","./k"]'
}

@test "fake ncu by hand: the log it writes reads as the recorded report" {
	d="$BATS_TEST_TMPDIR/hand"
	mkdir -p "$d"
	FAKE_NCU_CSV="$H200/detailed-copy.csv" run "$FAKE" --set detailed --csv --log-file "$d/ncu_report.csv" /bin/echo ran
	assert_success
	assert_output 'ran'
	run bash -c 'kf-read | jq -c ".data.kernels[0].metrics[\"GPU Speed Of Light Throughput\"][\"DRAM Throughput\"].value"' <<<"$(replay hand ncu "$d")"
	assert_output '81.32'
}

@test "kf-run, kf-read, kf-collate, kf-feedback: copy_k's numbers, and the program's arguments unchanged" {
	prog=$(args_prog)
	wrapped copy "$H200/detailed-copy.csv" ok "$prog" 'a b' '"q"' '$(touch pwned)' "it's" >"$BATS_TEST_TMPDIR/in"
	run bash -c 'kf-run <"$1" | kf-read | kf-collate | kf-feedback >"$2"' _ "$BATS_TEST_TMPDIR/in" "$BATS_TEST_TMPDIR/fb.json"
	assert_success
	run jq -r .feedback "$BATS_TEST_TMPDIR/fb.json"
	assert_line 'Kernel: copy_k(const float4 *, float4 *, unsigned long)'
	assert_line '  - DRAM Throughput: 81.3%'
	run jq -c '[.analysis.focus.throughput.dram_pct, .passes[0].status, .passes[0].run.exit_code]' "$BATS_TEST_TMPDIR/fb.json"
	assert_output '[81.32,"ok",0]'
	run cat "$BATS_TEST_TMPDIR/args.out"
	assert_output $'a b\n"q"\n$(touch pwned)\nit\'s'
	[ ! -e pwned ] && [ ! -e "$BATS_TEST_TMPDIR/pwned" ]
}

@test "kf-run: a program that does not exist: ncu's ==ERROR== on stdout explains it" {
	wrapped missing "$H200/detailed-copy.csv" ok /tmp/kf-does-not-exist >"$BATS_TEST_TMPDIR/in"
	run bash -c 'kf-run <"$1" | kf-read' _ "$BATS_TEST_TMPDIR/in"
	assert_failure 1
	run jq -r '.run.exit_code, .error.kind, .error.message' <<<"${lines[-1]}"
	assert_line -n 0 '1'
	assert_line -n 1 'program_not_found'
	assert_line -n 2 --partial "'/tmp/kf-does-not-exist' does not exist or is not an executable"
}

@test "kf-run: no permission for the GPU counters" {
	wrapped perm "$H200/detailed-copy.csv" perm /bin/true >"$BATS_TEST_TMPDIR/in"
	run bash -c 'kf-run <"$1" | kf-read | kf-collate | kf-feedback --text' _ "$BATS_TEST_TMPDIR/in"
	assert_output --partial 'no_permission'
	assert_output --partial 'ERR_NVGPUCTRPERM'
	assert_output --partial 'NVreg_RestrictProfilingToAdminUsers=0'
}

@test "kf-run: a program that launches no kernel" {
	wrapped none "$H200/detailed-copy.csv" none /bin/true >"$BATS_TEST_TMPDIR/in"
	run bash -c 'kf-run <"$1" | kf-read 2>/dev/null | jq -r ".error.kind, .error.hint"' _ "$BATS_TEST_TMPDIR/in"
	assert_line -n 0 'no_kernels'
	assert_line -n 1 --partial '--target-processes all'
}

@test "kf-run: the program fails after its kernels: the report is kept with its status" {
	printf '#!/bin/sh\necho "crashing on purpose" >&2\nexit 6\n' >"$BATS_TEST_TMPDIR/crash"
	chmod +x "$BATS_TEST_TMPDIR/crash"
	wrapped crash "$H200/detailed-crash.csv" ok "$BATS_TEST_TMPDIR/crash" >"$BATS_TEST_TMPDIR/in"
	run bash -c 'kf-run <"$1" | kf-read | jq -c "[.run.exit_code, .data.app_exit_code, .data.kernel_count, .error]"' _ "$BATS_TEST_TMPDIR/in"
	assert_success
	assert_output '[6,6,1,null]'
}

@test "kf-run: ncu itself not found" {
	wrapped noncu "$H200/detailed-copy.csv" ok /bin/true |
		jq -c '.argv[0] = "/nonexistent/ncu"' >"$BATS_TEST_TMPDIR/in"
	run bash -c 'kf-run <"$1" | kf-read 2>/dev/null | jq -r ".run.exit_code, .error.kind"' _ "$BATS_TEST_TMPDIR/in"
	assert_line -n 0 '127'
	assert_line -n 1 'profiler_not_found'
}
