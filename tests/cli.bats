#!/usr/bin/env bats
# The command line people expect (issue 17): -h, durations with units,
# profiler options after the profiler's name, exit statuses, usage errors,
# the kf command, completion, versions, sweeps, man pages as rendered.
load helper

PROGS="kf-select kf-wrap kf-run kf-read kf-collate kf-feedback"

setup() {
	T=$BATS_TEST_TMPDIR
}

@test "-h is --help in every program: the usage on stdout, status 0" {
	for p in $PROGS; do
		run --separate-stderr "$p" -h
		[ "$status" -eq 0 ] || fail "$p -h exited $status: $stderr"
		assert_line --index 0 --partial "usage: $p"
		[ "$output" = "$("$p" --help)" ] || fail "$p: -h and --help differ"
	done
}

@test "durations take units as timeout(1): 0.01m is 0.6 s, 1h is 3600 s" {
	echo '{"id":"s","argv":["sleep","30"]}' >"$T/in"
	run kf-run -q -t 0.01m --grace 0.2 "$T/in"
	assert_success
	assert_equal "$(jq -r .run.message <<<"$output")" \
		"timed out after 0.6 s: ended with SIGTERM; killed by SIGTERM"
	run kf-wrap -o "$T/o" --timeout 1h --inactivity 90s ncu -- ./k
	assert_success
	assert_equal "$(jq -c '[.timeout, .inactivity]' <<<"$output")" "[3600,90]"
	run kf-wrap -o "$T/o" --inactivity 1.5d ncu -- ./k
	assert_equal "$(jq -c .inactivity <<<"$output")" 129600
}

@test "a bad duration is a usage error naming the option and the units" {
	while IFS='|' read -r arg; do
		run --separate-stderr kf-run -t "$arg" </dev/null
		[ "$status" -eq 2 ] || fail "-t '$arg' exited $status"
		[[ "$stderr" == *"--timeout: not a number of seconds: '$arg' (or with a unit: 90s, 5m, 1h, 1d)"* ]] ||
			fail "-t '$arg': $stderr"
	done <<-'EOF2'
	5x
	5mm
	m
	-1s
	inf
	1e999
	EOF2
}

@test "the progress line's estimate does not grow while a long job runs (-j 1)" {
	for a in 0.3 3.5 0.3; do jq -cn --arg a "$a" '{id:$a, argv:["sleep",$a]}'; done >"$T/in"
	script -qfec "kf-run -j 1 '$T/in' >'$T/out'" "$T/log" >/dev/null
	assert_equal "$(jq -r .id "$T/out" | tr '\n' ' ')" "0.3 3.5 0.3 "
	# the estimates shown while the 3.5 s job ran
	tr '\r' '\n' <"$T/log" | sed -n 's/.*1\/3 done, 1 running.*about \([0-9]*\)s left.*/\1/p' >"$T/left"
	[ "$(wc -l <"$T/left")" -ge 2 ] || fail "too few progress lines: $(cat "$T/log")"
	sort -rn -c "$T/left" || fail "the estimate grew: $(tr '\n' ' ' <"$T/left")"
}

@test "man pages render without nested quotes" {
	for m in "$TOP"/man/*.[17]; do
		run sh -c "mandoc -Tutf8 '$m' | col -b | grep -n '“[^”]*“\|‘[^’]*‘'"
		assert_failure 1
		assert_output ""
	done
}
