#!/usr/bin/env bats
# Output failures, for every program: a full disk (/dev/full) is an error
# with status 1 and a message; a reader that goes away (a closed pipe) ends
# the program quietly, with status 1 and nothing on standard error. Never a
# death by signal (a status >= 128).

load helper
load programs

setup() {
	T=$BATS_TEST_TMPDIR
	mkdir -p "$T/ncu"
	cp "$FIX/ncu-h200/detailed-copy.csv" "$T/ncu/ncu_report.csv"
}

# many PROG N: N copies of PROG's good input (distinct ids for kf-collate).
many() {
	good_input "$1" >"$T/one"
	awk -v n="$2" '{ line = $0 } END { for (i = 0; i < n; i++) { l = line
		sub(/"id":"a"/, "\"id\":\"a" i "\"", l); print l } }' "$T/one"
}

@test "writing to /dev/full: status 1 and 'write error on standard output: No space left on device', for every program" {
	[ -w /dev/full ] || skip "no /dev/full"
	local fails=
	for p in $PROGS; do
		good_input "$p" >"$T/in"
		run bash -c "$(prog_cmd "$p") <\"\$1\" >/dev/full" _ "$T/in"
		[ "$status" -eq 1 ] && [ "$output" = "$p: write error on standard output: No space left on device" ] ||
			fails+="$p: status $status: $output"$'\n'
	done
	[ -z "$fails" ] || { echo "$fails"; false; }
}

@test "kf-read --profiler ncu --select 3 to /dev/full: status 1 and the write error, as every other path" {
	[ -w /dev/full ] || skip "no /dev/full"
	cp "$FIX/ncu-h200/detailed-multi.csv" "$T/t.csv"
	run kf-read --profiler ncu --select 3 --no-write "$T/t.csv"
	assert_success
	[ -n "$output" ]
	run bash -c 'kf-read --profiler ncu --select 3 --no-write "$1" >/dev/full' _ "$T/t.csv"
	assert_failure 1
	assert_output "kf-read: write error on standard output: No space left on device"
}

@test "a reader that goes away (head -c 0): status 1, nothing on stderr, for every program" {
	local fails=
	for p in $PROGS; do
		# Far more than a pipe holds: the writer must meet the closed end.
		if [ "$p" = kf-run ]; then many "$p" 300; else many "$p" 3000; fi >"$T/in"
		run bash -c "$(prog_cmd "$p") <\"\$1\" 2>\"\$2\" | head -c 0; echo \${PIPESTATUS[0]}" \
			_ "$T/in" "$T/err"
		[ "$output" = 1 ] && [ ! -s "$T/err" ] ||
			fails+="$p: status $output, stderr: $(head -c 200 "$T/err")"$'\n'
	done
	[ -z "$fails" ] || { echo "$fails"; false; }
}

@test "a reader that takes one line and goes: the first record complete, status 1, quiet" {
	for p in kf-select kf-read kf-collate kf-feedback; do
		many "$p" 3000 >"$T/in"
		run bash -c "$(prog_cmd "$p") <\"\$1\" 2>\"\$2\" | head -n 1 >\"\$3\"; echo \${PIPESTATUS[0]}" \
			_ "$T/in" "$T/err" "$T/first"
		[ "$output" = 1 ]
		[ ! -s "$T/err" ]
		jq -e '.id == "a0" and (has("error") | not)' "$T/first" >/dev/null
	done
}

@test "standard output closed: status 1 and a message, for every program" {
	local fails=
	for p in $PROGS; do
		good_input "$p" >"$T/in"
		run bash -c "$(prog_cmd "$p") <\"\$1\" >&-" _ "$T/in"
		[ "$status" -eq 1 ] && [ "$output" = "$p: write error on standard output: Bad file descriptor" ] ||
			fails+="$p: status $status: $output"$'\n'
	done
	[ -z "$fails" ] || { echo "$fails"; false; }
}
