#!/usr/bin/env bats
# Limits that hold: bounded input, bounded memory, whole output. A 50 MB
# record through every program, a 50 MB ncu report of 3200 launches through
# the pipeline, and profiler files of a million junk lines each end with
# their record whole and their memory bounded. How long they take is
# measured by `make bench`, not asserted here (a shared machine, the
# sanitizers); each run's seconds are printed to the TAP output.

load helper

setup() {
	T=$BATS_TEST_TMPDIR
	mkdir -p "$T/ncu"
	cp "$FIX/ncu-h200/detailed-copy.csv" "$T/ncu/ncu_report.csv"
}

# pad FILE: FILE's one record with a 50 MB "pad" string added.
pad() {
	awk 'BEGIN { s = "0123456789abcdef"; for (i = 0; i < 16; i++) s = s s }
	{ sub(/}$/, ",\"pad\":\""); printf "%s", $0
	  for (i = 0; i < 50; i++) printf "%s", s; print "\"}" }' "$1"
}

# timed CMD...: run it and print how long it took (for the reader of the
# TAP output; no limit is asserted).
timed() {
	local start=$SECONDS
	run "$@"
	echo "# $((SECONDS - start)) s: $*" >&3
}

@test "a 50 MB record goes through every program whole" {
	local p want=$((50 * 16 * 65536))
	echo '{"id":"a","cmd":["./x"],"language":"cuda","arch":"H200"}' >"$T/kf-select.in"
	kf-select <"$T/kf-select.in" >"$T/kf-wrap.in"
	echo '{"id":"a","argv":["echo","hello"]}' >"$T/kf-run.in"
	replay a ncu "$T/ncu" >"$T/kf-read.in"
	kf-read <"$T/kf-read.in" >"$T/kf-collate.in"
	kf-collate <"$T/kf-collate.in" >"$T/kf-feedback.in"
	for p in kf-select kf-wrap kf-run kf-read kf-collate kf-feedback; do
		pad "$T/$p.in" >"$T/big"
		[ "$(wc -c <"$T/big")" -gt 50000000 ]
		case $p in
		kf-wrap) timed bash -c 'kf-wrap -o "$2/o" <"$1" >"$2/out"' _ "$T/big" "$T" ;;
		kf-run) timed bash -c 'kf-run -q -t 60 <"$1" >"$2/out"' _ "$T/big" "$T" ;;
		*) timed bash -c '"$3" <"$1" >"$2/out"' _ "$T/big" "$T" "$p" ;;
		esac
		[ "$status" -eq 0 ] || { echo "$p: status $status: $output"; false; }
		[ "$(jq '.pad | length' "$T/out")" -eq "$want" ] || { echo "$p lost the pad"; false; }
		jq -e 'has("error") | not' "$T/out" >/dev/null
	done
}

@test "a 50 MB ncu report of 3200 launches: kf-read, kf-collate and kf-feedback read it all" {
	mkdir -p "$T/big"
	# 3200 launches of the recorded one, with IDs 0..3199 and 500 names.
	awk '/^"0"/ { rows[++n] = $0; next } n == 0 { print }
	END { for (k = 0; k < 3200; k++) for (i = 1; i <= n; i++) { r = rows[i]
		sub(/^"0"/, "\"" k "\"", r); sub(/copy_k\(/, "copy_k" (k % 500) "(", r); print r } }' \
		"$T/ncu/ncu_report.csv" >"$T/big/ncu_report.csv"
	[ "$(wc -c <"$T/big/ncu_report.csv")" -gt 50000000 ]
	replay big ncu "$T/big" >"$T/rec"
	timed bash -c 'kf-read <"$1" >"$2/read"' _ "$T/rec" "$T"
	assert_success
	[ "$(jq .data.kernel_count "$T/read")" -eq 3200 ]
	timed bash -c 'kf-collate <"$1" >"$2/col"' _ "$T/read" "$T"
	assert_success
	timed bash -c 'kf-feedback <"$1" >"$2/fb"' _ "$T/col" "$T"
	assert_success
	jq -e '.feedback | test("Kernels by total GPU time \\(500 kernels, 3200 launches")' "$T/fb" >/dev/null
	timed bash -c 'kf-feedback --max-chars 500 <"$1" >"$2/fb500"' _ "$T/col" "$T"
	assert_success
	[ "$(jq '.feedback | length' "$T/fb500")" -le 500 ]
}

# A million short lines that are nothing a profiler writes.
junk() {
	awk 'BEGIN { for (i = 0; i < 1000000; i++) printf "junk %d,\"x\t{[\n", i }'
}

@test "ncu_report.csv: a header then a million junk lines is no_kernels, with bounded memory" {
	mkdir -p "$T/j"
	{ head -n 4 "$T/ncu/ncu_report.csv"; junk; } >"$T/j/ncu_report.csv"
	replay j ncu "$T/j" >"$T/rec"
	timed bash -c 'kf-read <"$1" 2>/dev/null' _ "$T/rec"
	[ "$status" -eq 1 ]
	echo "$output" | jq -e '.error.kind == "no_kernels"' >/dev/null
}

@test "unitrace metrics: a header then a million junk lines is no_kernels" {
	UT=$FIX/unitrace/bmg-stream-slm/pass-000-ComputeBasic
	mkdir -p "$T/j"
	{ head -n 4 "$UT/trace.metrics.51544"; junk; } >"$T/j/trace.metrics.1"
	replay j unitrace "$T/j" >"$T/rec"
	timed bash -c 'kf-read <"$1" 2>/dev/null' _ "$T/rec"
	[ "$status" -eq 1 ]
	echo "$output" | jq -e '.error.kind == "no_kernels" and (.error.message | test("has 1000004 lines"))' >/dev/null
}

@test "Chrome trace: a million junk lines after traceEvents reads no events" {
	UT=$FIX/unitrace/bmg-stream-slm/pass-000-ComputeBasic
	mkdir -p "$T/j"
	cp "$UT/trace.metrics.51544" "$T/j/"
	{ echo '{"traceEvents":['; junk; } >"$T/j/python3.1.json"
	replay j unitrace "$T/j" >"$T/rec"
	timed bash -c 'kf-read <"$1" 2>/dev/null' _ "$T/rec"
	assert_success
	echo "$output" | jq -e '.data.timeline.kernels == [] and .data.rows == 26' >/dev/null
}

@test "Chrome trace: an event that never closes, then 50 MB: memory stays bounded (the event is dropped)" {
	[ -x /usr/bin/time ] || skip "no /usr/bin/time to measure memory"
	UT=$FIX/unitrace/bmg-stream-slm/pass-000-ComputeBasic
	mkdir -p "$T/j"
	cp "$UT/trace.metrics.51544" "$T/j/"
	{ echo '{"traceEvents":['; echo '{"name": "x", "args": {'
	  awk 'BEGIN { for (i = 0; i < 2800000; i++) printf "junk %d,\"x\t{[\n", i }'; } >"$T/j/python3.1.json"
	[ "$(wc -c <"$T/j/python3.1.json")" -gt 50000000 ]
	replay j unitrace "$T/j" >"$T/rec"
	timed /usr/bin/time -o "$T/rss" -f %M kf-read "$T/rec"
	assert_success
	echo "$output" | jq -e '.data.timeline.events_read == 0 and .data.rows == 26' >/dev/null
	echo "# max RSS $(cat "$T/rss") KB" >&3
	[ "$(cat "$T/rss")" -lt 40000 ]
}

@test "vtune report: a header then a million junk lines: a record, not a crash" {
	mkdir -p "$T/j"
	{ grep -m1 '^Computing Task' "$FIX/vtune/sycl-latency/vtune_hotspots_pass0.tsv"; junk; } \
		>"$T/j/vtune_hotspots_pass0.tsv"
	replay j vtune "$T/j" >"$T/rec"
	timed bash -c 'kf-read <"$1" >"$2/out" 2>/dev/null' _ "$T/rec" "$T"
	[ "$status" -lt 2 ]
	jq -e '.id == "j"' "$T/out" >/dev/null
}

@test "100000 small records through kf-select, kf-read, kf-collate and kf-feedback, none lost" {
	awk 'BEGIN { for (i = 0; i < 100000; i++)
		printf "{\"id\":\"j%d\",\"cmd\":[\"./x\"],\"language\":\"cuda\",\"arch\":\"H200\"}\n", i }' >"$T/jobs"
	timed bash -c 'kf-select <"$1" >"$2/sel"' _ "$T/jobs" "$T"
	assert_success
	[ "$(wc -l <"$T/sel")" -eq 100000 ]
	# Records with no output_dir: every one an error, none lost.
	timed bash -c 'kf-read <"$1" 2>/dev/null >"$2/read"' _ "$T/sel" "$T"
	[ "$status" -eq 1 ]
	[ "$(wc -l <"$T/read")" -eq 100000 ]
	# kf-collate passes the errors on (status 0); kf-feedback explains
	# them and says with status 1 that no analysis succeeded.
	timed bash -c 'kf-collate <"$1" >"$2/col"' _ "$T/read" "$T"
	assert_success
	[ "$(wc -l <"$T/col")" -eq 100000 ]
	timed bash -c 'kf-feedback <"$1" >"$2/fb"' _ "$T/col" "$T"
	[ "$status" -eq 1 ]
	[ "$(wc -l <"$T/fb")" -eq 100000 ]
	[ "$(jq -r .id "$T/fb" | sort -u | wc -l)" -eq 100000 ]
	jq -e 'select(.id == "j99999") | .feedback | test("no \"output_dir\" field")' "$T/fb" >/dev/null
}
