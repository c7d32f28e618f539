#!/usr/bin/env bats
# lib/run/job.c: the "run" object kf-run writes, from jobs made up in
# tests/progs/runrec.c (exit, timeout, inactivity, interruption, not
# started), without running a process.
load helper

setup_file() {
	local flavor cc=${CC:-cc} san=""
	flavor=$(cat "$TOP/build/flavor" 2>/dev/null || echo plain)
	if [ "$flavor" = san ]; then
		cc=clang
		san="-fsanitize=address,undefined -fno-sanitize-recover=all"
	fi
	cjson=$(pkg-config --cflags --libs libcjson 2>/dev/null || echo "-I/usr/include/cjson -lcjson")
	# shellcheck disable=SC2086
	$cc -std=c11 -g -D_GNU_SOURCE $san -I"$TOP/lib/core" -I"$TOP/lib/run" -I"$TOP/lib" \
		-o "$BATS_FILE_TMPDIR/runrec" "$TOP/tests/progs/runrec.c" \
		"$TOP/build/$flavor/libkf.a" $cjson -lcsv -lm
	"$BATS_FILE_TMPDIR/runrec" > "$BATS_FILE_TMPDIR/out"
}

line() { sed -n "${1}p" "$BATS_FILE_TMPDIR/out"; }

@test "an exit: status, elapsed time from start to exit, the tail and the byte count" {
	line 1 | jq -e '.exit_code == 3 and .signal == null and .ended_by == "exit"
		and .elapsed_s == 1.5 and .stdout == "efgh" and .stdout_bytes == 8
		and .stderr == "" and .stderr_bytes == 0 and .pid == 4321 and .started
		and .leftovers == 0 and .message == "exited with status 3" and (has("gpu") | not)'
}

@test "the record's own timeout, SIGTERM then SIGKILL: all said in the message" {
	line 2 | jq -e '.exit_code == null and .signal == "SIGKILL" and .ended_by == "timeout"
		and .elapsed_s == 7.25
		and .message == "timed out after 5 s: ended with SIGTERM and, after the grace period, SIGKILL; killed by SIGKILL"'
}

@test "inactivity, a program that never ended, its GPU" {
	line 3 | jq -e '.ended_by == "inactivity" and .exit_code == null and .signal == null
		and .elapsed_s == 107 and .gpu == "1"
		and .message == "no output for 100 s: ended with SIGTERM and, after the grace period, SIGKILL; the program did not end, even after SIGKILL"'
}

@test "interrupted: the signal that stopped kf-run, and what was left running" {
	line 4 | jq -e '.ended_by == "interrupted" and .exit_code == 130
		and .message == "kf-run was stopped by SIGINT: ended with SIGTERM; exited with status 130; 2 processes left running after it exited were ended"'
}

@test "not started: 127 for a command not found, 126 for one not executable" {
	line 5 | jq -e '.exit_code == 127 and .started == false and .pid == null
		and .message == "cannot run '"'nosuch'"': command not found in PATH"'
	line 6 | jq -e '.exit_code == 126
		and .message == "cannot run '"'./k'"': not executable (Permission denied)"'
}
