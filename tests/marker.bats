#!/usr/bin/env bats
# End markers (lib/run/marker.c) over output that arrives in pieces, through
# kf-run: a marker or a pytest summary split across writes with a pause
# between them, near misses at the seams, and lines too long to look at.
load helper
bats_require_minimum_version 1.5.0

setup() {
	T=$BATS_TEST_TMPDIR
}

# A record: job ID MARKER SCRIPT (run by sh -c, then sleeps 30 s).
job() {
	jq -cn --arg id "$1" --arg m "$2" --arg s "$3; sleep 30" \
		'{id:$id, argv:["sh", "-c", $s], env:{}, end_marker:$m}'
}

# Run the records of $T/in at once; each job's id and how it ended.
ended() {
	run kf-run -j 16 -k -t 3 --marker-grace 0.2 --pytest-grace 0.2 --grace 0.2 "$T/in"
	assert_success
	echo "$output" >"$T/out"
	run jq -r '[.id, .run.ended_by] | @tsv' "$T/out"
}

@test "a literal marker split across writes with pauses is seen; near misses at the seams are not" {
	# one_write: one write of 65541 bytes, more than a pipe holds and more
	# than kf-run reads at once, so the marker reaches it in two reads.
	{
		job halves "ALL DONE" 'printf "xx ALL "; sleep 0.3; printf "DONE yy"'
		job thirds "ALL DONE" 'printf AL; sleep 0.2; printf "L D"; sleep 0.2; printf ONE'
		job bytes "ALL DONE" 'for c in A L L " " D O N E; do printf "%s" "$c"; sleep 0.05; done'
		job repeat "ALL DONE" 'printf "ALL ALL "; sleep 0.3; printf DONE'
		job stderr "ALL DONE" 'printf "ALL " >&2; sleep 0.3; printf "DONE\n" >&2'
		job one_write "ALL DONE" 's=$(printf "%65533s" ""); printf "%s" "${s}ALL DONE"'
		job gap "ALL DONE" 'printf "ALL "; sleep 0.3; printf "XDONE"'
		job split "ALL DONE" 'printf "ALL "; sleep 0.3; printf "DONE" >&2'
		job lower "ALL DONE" 'printf "ALL "; sleep 0.3; printf "done"'
	} >"$T/in"
	ended
	assert_output - <<-EOF
	halves	end_marker
	thirds	end_marker
	bytes	end_marker
	repeat	end_marker
	stderr	end_marker
	one_write	end_marker
	gap	timeout
	split	timeout
	lower	timeout
	EOF
	assert_equal "$(jq -r 'select(.id == "thirds") | .run.message' "$T/out")" \
		'the end marker appeared ("ALL DONE") but the program was still running 0.2 s later: ended with SIGTERM; killed by SIGTERM'
}

@test "a pytest summary split across writes with pauses is seen whole; a summary is a whole line" {
	{
		job halves pytest 'printf "=== 3 pas"; sleep 0.3; printf "sed, 1 failed in 2.1s ===\n"'
		job newline pytest 'printf "=== 1 passed in 0.1s ==="; sleep 0.3; printf "\n"'
		job after pytest 'printf "collected 1 item\n\n=== 1 pa"; sleep 0.3; printf "ssed in 0.1s ===\nbye\n"'
		job unended pytest 'printf "=== 1 passed in 0.1s ==="'
		job inline pytest 'printf "log: === 1 passed in 0.1s ===\n"'
		job joined pytest 'printf "=== 1 passed in 0.1s === "; sleep 0.3; printf "and more\n"'
	} >"$T/in"
	ended
	assert_output - <<-EOF
	halves	end_marker
	newline	end_marker
	after	end_marker
	unended	timeout
	inline	timeout
	joined	timeout
	EOF
	assert_equal "$(jq -r 'select(.id == "halves") | .run.message' "$T/out")" \
		'the pytest summary appeared ("=== 3 passed, 1 failed in 2.1s ===") but the program was still running 0.2 s later: ended with SIGTERM; killed by SIGTERM'
	assert_equal "$(jq -r 'select(.id == "newline") | .run.message' "$T/out")" \
		'the pytest summary appeared ("=== 1 passed in 0.1s ===") but the program was still running 0.2 s later: ended with SIGTERM; killed by SIGTERM. All tests passed but the process did not exit cleanly and had to be terminated'
}

@test "pytest: a line of 1 KiB or more is not looked at, even padded with blanks; the next line is" {
	{
		job short pytest 'printf "%900s" ""; sleep 0.2; printf "=== 1 passed in 0.1s ===\n"'
		job long pytest 'printf "%1100s" ""; sleep 0.2; printf "=== 1 passed in 0.1s ===\n"'
		job next pytest 'printf "%1100s" ""; sleep 0.2; printf "\n=== 2 passed in 0.1s ===\n"'
	} >"$T/in"
	ended
	assert_output - <<-EOF
	short	end_marker
	long	timeout
	next	end_marker
	EOF
	assert_equal "$(jq -r 'select(.id == "next") | .run.message | split(" (\"")[1] | split("\")")[0]' "$T/out")" \
		"=== 2 passed in 0.1s ==="
}
