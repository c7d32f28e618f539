#!/usr/bin/env bats
# The benchmark itself (tests/bench/run): its quick mode prints every row of
# the table with numbers that agree with each other, and its helper measures
# what it says it does. No speed is asserted (the machine is shared): this
# keeps the benchmark from rotting and its arithmetic right.

load helper
bats_require_minimum_version 1.5.0

# One quick run for the whole file; each test reads its output.
setup_file() {
	export KF_BIN="${KF_BIN:-$TOP/bin}"
	export BENCH_DIR="$BATS_FILE_TMPDIR/bench"
	# a failing run is the tests' to show (assert_success prints its output)
	local st=0
	sh "$TOP/tests/bench/run" --quick >"$BATS_FILE_TMPDIR/out" 2>&1 || st=$?
	echo "$st" >"$BATS_FILE_TMPDIR/status"
}

# The quick run's output as bats' $output, its status as $status.
quick() {
	output=$(cat "$BATS_FILE_TMPDIR/out")
	status=$(cat "$BATS_FILE_TMPDIR/status")
	lines=()
	while IFS= read -r l; do lines+=("$l"); done <<<"$output"
}

NUM='[0-9]+(\.[0-9]+)?'

# The row of the table for STAGE and INPUT, or nothing.
table_row() {
	grep -E "^\| $1 +\| $2 +\|" <<<"$output"
}

@test "bench --quick: every stage row of the table, with input MB, wall ms, MB/s" {
	quick
	assert_success
	local stage input r
	for input in "resnet18 csv" "2x copy"; do
		for stage in kf-read kf-collate "kf-feedback --text" "pipeline \(sh, 3 stages\)"; do
			r=$(table_row "$stage" "$input")
			[ -n "$r" ] || fail "no row for $stage on $input"
			[[ $r =~ \|\ +$NUM\ +\|\ +$NUM\ +\|\ +$NUM\ +\| ]] || fail "no numbers in: $r"
		done
	done
	r=$(table_row "kf-read" "resnet18 csv")
	# The input column is the fixture's size: 2252680 bytes.
	[[ $r =~ \|\ +2\.25\ +\| ]] || fail "kf-read's input is not 2.25 MB: $r"
	r=$(table_row "kf-read" "2x copy")
	[[ $r =~ \|\ +4\.51\ +\| ]] || fail "the 2x copy is not 4.51 MB: $r"
	[[ $r =~ \|\ +$NUM\ +\|\ +\>= ]] || fail "no peak memory for kf-read: $r"
	[ -n "$(table_row "wc -l" "2x copy")" ]
	[ -n "$(table_row "kf-read \(same runs\)" "2x copy")" ]
}

@test "bench --quick: each row's MB/s is its MB over its wall time, and the ratio to wc -l is the two rows' times" {
	quick
	assert_success
	# | stage | input | MB in | wall ms | MB/s | ...: MB/s = MB / (ms / 1000), up
	# to the rounding of the printed MB and ms
	run awk -F'|' '$4 ~ /[0-9]/ && $5 ~ /[0-9]/ {
		mb = $4 + 0; ms = $5 + 0; rate = $6 + 0; n++
		want = ms > 0 ? mb / (ms / 1000) : 0
		lo = (mb - 0.005) / ((ms + 0.005) / 1000); hi = ms > 0.005 ? (mb + 0.005) / ((ms - 0.005) / 1000) : 1e300
		if (rate < lo - 0.05 || rate > hi + 0.05) print "row " n ": " mb " MB in " ms " ms is not " rate " MB/s"
	} END { if (n < 10) print n " rows with numbers" }' <<<"$output"
	assert_output ""
	quick
	wc=$(table_row "wc -l" "2x copy" | awk -F'|' '{ print $5 + 0 }')
	rd=$(table_row "kf-read \(same runs\)" "2x copy" | awk -F'|' '{ print $5 + 0 }')
	ratio=$(sed -n 's/^kf-read \/ wc -l, wall time on the 2x copy: \([0-9.]*\)x .*/\1/p' <<<"$output")
	[ -n "$ratio" ]
	awk -v w="$wc" -v r="$rd" -v x="$ratio" 'BEGIN { lo = (r - 0.005) / (w + 0.005); hi = (r + 0.005) / (w - 0.005)
		exit !(w > 0 && x >= lo - 0.05 && x <= hi + 0.05) }' ||
		fail "kf-read / wc -l is ${ratio}x, but the rows say $rd ms and $wc ms"
}

@test "bench --quick: the scaled copy holds twice the fixture's 80 launches, and the ratio to wc -l" {
	quick
	assert_success
	assert_line --regexp "^kf-read / wc -l, wall time on the 2x copy: $NUM""x \(160 kernel launches read, 80 in the original\)$"
	# The copy repeats the rows with launch IDs 80..159 after 0..79.
	[ "$(grep -c '^"159","482",' "$BENCH_DIR/scaled-2/ncu_report.csv")" -gt 0 ]
	[ "$(grep -c '^"160",' "$BENCH_DIR/scaled-2/ncu_report.csv")" -eq 0 ]
	[ "$(wc -l <"$BENCH_DIR/scaled-2/ncu_report.csv")" -eq $((4 + 2 * 6396)) ]
}

@test "bench --quick: kf-run's overhead per job and its CPU time while a job sleeps" {
	quick
	assert_success
	if [ -f "$TOP/tests/bench/kf-run-bench.sh" ]; then
		assert_line "kf-run (tests/bench/kf-run-bench.sh):"
		assert_line --regexp "^kf-run: 20 jobs of true: .*overhead -?$NUM ms a job"
	else
		assert_line --regexp "^kf-run overhead per job: -?$NUM ms \(20 runs of true through kf-run -j 1,"
		assert_line --regexp "^kf-run CPU while a job sleeps 0.2 s: $NUM ms user\+sys"
	fi
}

@test "bench --quick: kf-report's time for 20, 40 and 80 jobs and its peak memory" {
	quick
	assert_success
	assert_line "kf-report (tests/bench/kf-report-bench.sh):"
	assert_line --regexp "^kf-report: 20 jobs \($NUM MB of final records\): $NUM ms wall, $NUM ms CPU \(goal < 1000\)$"
	assert_line --regexp "^kf-report: CPU per job at 20, 40, 80 jobs: $NUM, $NUM, $NUM ms; 4x the jobs took $NUM""x the CPU time, $NUM""x the wall time \(linear: 4\)$"
	assert_line --regexp "^kf-report: 80 jobs: peak RSS $NUM MB, a page of $NUM MB$"
	# The ratio is the CPU per job at 80 jobs over that at 20, times 4, up
	# to the rounding of the per-job figures.
	set -- $(sed -n 's/^kf-report: CPU per job at 20, 40, 80 jobs: \([0-9.]*\), [0-9.]*, \([0-9.]*\) ms; 4x the jobs took \([0-9.]*\)x the CPU.*/\1 \2 \3/p' <<<"$output")
	[ $# -eq 3 ]
	awk -v a="$1" -v c="$2" -v x="$3" 'BEGIN { lo = 4 * (c - 0.0005) / (a + 0.0005)
		hi = a > 0.0005 ? 4 * (c + 0.0005) / (a - 0.0005) : 1e300
		exit !(x >= lo - 0.005 && x <= hi + 0.005) }' ||
		fail "4x the jobs took ${3}x the CPU, but per job it was $1 ms and $2 ms"
}

@test "bench: a bad option is a usage error (status 2)" {
	run sh "$TOP/tests/bench/run" --scale x
	assert_failure 2
	assert_output --partial "usage: tests/bench/run"
}

@test "maxrss: reports the command's exit status, its peak memory and its wall time" {
	quick
	assert_success
	local m="$BENCH_DIR/maxrss"
	# awk holding a 64 MiB string has a peak RSS of more than 60 MiB.
	run "$m" -o "$BATS_TEST_TMPDIR/r" awk 'BEGIN { s = "x"; while (length(s) < 67108864) s = s s; exit 3 }'
	assert_failure 3
	read -r wall user sys rss st <"$BATS_TEST_TMPDIR/r"
	[ "$st" -eq 3 ]
	[ "$rss" -gt 61440 ]
	# Three runs of sleep 0.1 take 0.3 s or more.
	run "$m" -n 3 -o "$BATS_TEST_TMPDIR/r" sleep 0.1
	assert_success
	read -r wall user sys rss st <"$BATS_TEST_TMPDIR/r"
	awk -v w="$wall" 'BEGIN { exit !(w >= 0.3 && w < 5) }'
	run -127 "$m" -o "$BATS_TEST_TMPDIR/r" /nonexistent/prog
	read -r wall user sys rss st <"$BATS_TEST_TMPDIR/r"
	[ "$st" -eq 127 ]
}
