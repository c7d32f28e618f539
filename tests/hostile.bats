#!/usr/bin/env bats
# The hostile input table: every program, fed bad lines between good ones,
# marks the bad one with an error record and lets the good ones through
# complete; profiler files that are broken in every usual way are errors or
# warnings, never crashes. A status >= 128 would be a crash.

load helper
load programs

NCU="$FIX/ncu-h200/detailed-copy.csv"
UT="$FIX/unitrace/bmg-stream-slm/pass-000-ComputeBasic"
VT="$FIX/vtune/sycl-latency/vtune_hotspots_pass0.tsv"

setup() {
	T=$BATS_TEST_TMPDIR
	mkdir -p "$T/ncu"
	cp "$NCU" "$T/ncu/ncu_report.csv"
}

# What must be equal between two runs of a good record (kf-run's timing and
# pid vary from run to run; kf-wrap gives a second record of the same id a
# directory of its own, ID/PASS.2, and says which folders it made, which
# depends on what the run before it made: output_made).
stable() {
	if [ "$1" = kf-run ]; then
		jq -c '[.id, .argv, .run.exit_code, .run.ended_by, .run.stdout, .error]'
	elif [ "$1" = kf-wrap ]; then
		jq -cS 'del(.output_made) |
			walk(if type == "string" then sub("(?<p>/ncu[.][0-9]+)[.][0-9]+"; "\(.p)"; "g") else . end)'
	else
		jq -cS .
	fi
}

# sandwich PROG FILE: FILE holds one bad line; run PROG on good, bad, good.
# Sets $bad (the bad line's output record) after asserting that the good
# records before and after it came out whole and the status is 1.
sandwich() {
	local p=$1 bad_file=$2 cmd
	cmd=$(prog_cmd "$p")
	good_input "$p" >"$T/good"
	$cmd <"$T/good" >"$T/alone" 2>"$T/alone.err"
	[ -s "$T/alone" ]
	jq -e 'has("error") | not' "$T/alone" >/dev/null
	cat "$T/good" "$bad_file" "$T/good" >"$T/in"
	run $cmd <"$T/in"
	# 1: a record was marked; never a crash (>= 128) nor a usage error.
	[ "$status" -eq 1 ]
	$cmd <"$T/in" >"$T/out3" 2>"$T/err3" || true
	[ "$(wc -l <"$T/out3")" -eq 3 ]
	sed -n 1p "$T/out3" | stable "$p" >"$T/first"
	sed -n 3p "$T/out3" | stable "$p" >"$T/last"
	stable "$p" <"$T/alone" >"$T/want"
	diff "$T/want" "$T/first" || { echo "$p: the good record before the bad one changed"; false; }
	diff "$T/want" "$T/last" || { echo "$p: the good record after the bad one changed"; false; }
	bad=$(sed -n 2p "$T/out3")
	# The message on stderr names the line.
	grep -Eq "^$p: line 2(:[0-9]+)?: " "$T/err3"
}

# The error of the bad record: stage kind.
err_of() {
	echo "$bad" | jq -r '"\(.error.stage) \(.error.kind)"'
}

ALL="kf-select kf-wrap kf-run kf-read kf-collate kf-feedback"

@test "a line that is not JSON between good records: bad_json with its line number and text, the others whole" {
	echo 'this is {not JSON' >"$T/bad"
	for p in $ALL; do
		sandwich "$p" "$T/bad"
		[ "$(err_of)" = "$p bad_json" ]
		[ "$(echo "$bad" | jq -r .error.message)" = "line 2:1: not JSON" ]
		[ "$(echo "$bad" | jq -r .error.line)" = 2 ]
		[ "$(echo "$bad" | jq -r .error.input)" = 'this is {not JSON' ]
	done
}

@test "JSON that is not an object (an array, a string, a number) is bad_json, the others whole" {
	for line in '[1,2]' '42'; do
		echo "$line" >"$T/bad"
		for p in $ALL; do
			sandwich "$p" "$T/bad"
			[ "$(err_of)" = "$p bad_json" ]
			[ "$(echo "$bad" | jq -r .error.message)" = "line 2:1: not a JSON object" ]
		done
	done
}

@test "a NUL byte inside a line is bad_json that says so; the input is kept as \\u0000" {
	printf '{"id":"a\0b"}\n' >"$T/bad"
	for p in $ALL; do
		sandwich "$p" "$T/bad"
		[ "$(err_of)" = "$p bad_json" ]
		[ "$(echo "$bad" | jq -r .error.message)" = "line 2:9: not JSON: the line holds a NUL byte" ]
		[ "$(echo "$bad" | jq -c .error.input)" = '"{\"id\":\"a\u0000b\"}"' ]
	done
}

@test "100000 nested '[' is bad_json, not a stack overflow" {
	awk 'BEGIN { for (i = 0; i < 100000; i++) printf "["; print "" }' >"$T/bad"
	for p in $ALL; do
		sandwich "$p" "$T/bad"
		[ "$(err_of)" = "$p bad_json" ]
		echo "$bad" | jq -e '.error.input | length == 200' >/dev/null
		echo "$bad" | jq -e '.error.message | test("cut at 200 bytes")' >/dev/null
	done
}

@test "a 24 MB line that is not JSON is bad_json with its first 200 bytes, the others whole" {
	awk 'BEGIN { s = "0123456789abcdef"; for (i = 0; i < 16; i++) s = s s
		printf "{\"id\": "; for (i = 0; i < 24; i++) printf "%s", s; print "" }' >"$T/bad"
	[ "$(wc -c <"$T/bad")" -gt 24000000 ]
	hex=$(printf '0123456789abcdef%.0s' $(seq 13))
	for p in $ALL; do
		sandwich "$p" "$T/bad"
		[ "$(err_of)" = "$p bad_json" ]
		[ "$(echo "$bad" | jq -r .error.input)" = "{\"id\": ${hex:0:193}" ]
	done
}

@test "a 24 MB good record goes through kf-select whole" {
	awk -v job="$JOB" 'BEGIN { s = "0123456789abcdef"; for (i = 0; i < 16; i++) s = s s
		sub(/}$/, ",\"pad\":\"", job); printf "%s", job
		for (i = 0; i < 24; i++) printf "%s", s; print "\"}" }' >"$T/big"
	run bash -c 'kf-select <"$1" | jq -r "[.pass, (.pad | length)] | @tsv"' _ "$T/big"
	assert_success
	assert_output "$(printf 'ncu.000\t%d' $((24 * 16 * 65536)))"
}

@test "wrong shapes and types of fields: bad_record that names the field, the others whole" {
	# program, bad line, kind, message
	while IFS='|' read -r p line kind msg; do
		[ -n "$p" ] || continue
		printf '%s\n' "$line" >"$T/bad"
		sandwich "$p" "$T/bad"
		[ "$(err_of)" = "$p $kind" ] || { echo "$p $line: $(err_of)"; false; }
		[ "$(echo "$bad" | jq -r .error.message)" = "$msg" ] ||
			{ echo "$p $line: $(echo "$bad" | jq -r .error.message)"; false; }
	done <<'EOF'
kf-select|{"id":{"x":1},"cmd":["./x"],"language":"cuda"}|bad_record|"id" is not a non-empty string
kf-select|{"id":"b","cmd":5,"language":"cuda"}|bad_record|job b: "cmd" is neither an array of strings nor a string
kf-select|{"id":"b","cmd":[1,2],"language":"cuda"}|bad_record|job b: "cmd"[0], the program, is not a non-empty string
kf-select|{"id":"b","cmd":["./x"],"language":["cuda"]}|bad_record|"language" is not a string
kf-select|{"id":"b","cmd":["./x"],"language":"cuda","arch":{}}|bad_record|"arch" is not a string
kf-wrap|{"id":"b","cmd":["./x"],"profiler":7,"pass":"ncu.000"}|bad_record|no "profiler" (one of ncu, unitrace, vtune, trace)
kf-wrap|{"id":"b","cmd":5,"profiler":"ncu","pass":"ncu.000"}|bad_record|job b: "cmd" is neither an array of strings nor a string
kf-wrap|{"id":["b"],"cmd":["./x"],"profiler":"ncu","pass":"ncu.000"}|bad_record|no "id" (a non-empty string)
kf-run|{"id":"b","argv":"1 2"}|bad_record|argv is not an array of strings
kf-run|{"id":"b","argv":[1,2]}|bad_record|argv is not an array of strings
kf-run|{"id":"b","argv":["echo"],"env":"A=1"}|bad_record|env is not an object
kf-read|{"id":"b","profiler":7,"output_dir":"/tmp"}|bad_record|no "profiler" field (one of ncu, unitrace, vtune, trace)
kf-read|{"id":"b","profiler":"ncu","output_dir":["/tmp"]}|bad_record|no "output_dir" field: where did ncu write?
kf-read|{"id":"b","profiler":"gprof","output_dir":"/tmp"}|bad_record|unknown profiler 'gprof' (one of ncu, unitrace, vtune, trace)
kf-collate|{"id":{"x":1},"profiler":"ncu","data":{}}|bad_record|no "id" field: cannot tell which job this pass belongs to
kf-feedback|{"id":"b","profiler":"ncu","collated":"x"}|bad_record|no "collated" object: run kf-read and kf-collate first
kf-feedback|{"id":"b","profiler":7,"collated":{}}|bad_record|no known "profiler" (one of ncu, unitrace, vtune, trace)
EOF
}

@test "collated data of the wrong shape gets feedback that says there is nothing to analyse, not a crash" {
	for rec in '{"id":"b","profiler":"ncu","collated":{"kernels":"x"}}' \
	    '{"id":"b","profiler":"unitrace","collated":{"segments":[{"kernels":5}]}}' \
	    '{"id":"b","profiler":"unitrace","collated":{"segments":"x","devices":[1,null]}}' \
	    '{"id":"b","profiler":"vtune","collated":{"kernels":[{"name":7}]}}' \
	    '{"id":"b","profiler":"unitrace","pass":"unitrace.000","data":{"sections":[{"columns":["GpuTime[ns]"],"rows":[[1]]}],"timeline":{"itt":[{"ts":0,"dur":9}],"kernels":[{"id":1,"ts":1,"dur":1}],"devices":[7]}}}'; do
		run bash -c 'kf-feedback -t <<<"$1"' _ "$rec"
		[ "$status" -lt 2 ]
		assert_output --partial '=== b ==='
	done
}

@test "empty input, blank lines only: no output, status 0, for every program" {
	for p in $ALL; do
		cmd=$(prog_cmd "$p")
		run $cmd </dev/null
		assert_success
		assert_output ''
		run bash -c "printf '\n  \n\t\n' | $cmd"
		assert_success
		assert_output ''
	done
}

@test "CRLF line ends on records: the same records as LF" {
	for p in kf-select kf-wrap kf-read kf-collate kf-feedback; do
		cmd=$(prog_cmd "$p")
		good_input "$p" >"$T/lf"
		sed 's/$/\r/' "$T/lf" >"$T/crlf"
		$cmd <"$T/lf" | stable "$p" >"$T/o1"
		$cmd <"$T/crlf" | stable "$p" >"$T/o2"
		cmp "$T/o1" "$T/o2"
	done
}

@test "invalid UTF-8 and control bytes in a field come out as valid JSON (U+FFFD, \\u escapes)" {
	printf '{"id":"a\377\300b\001","cmd":["./x"],"language":"cuda"}\n' >"$T/in"
	run bash -c 'kf-select <"$1" | jq -r .id' _ "$T/in"
	assert_success
	assert_output "$(printf 'a\xef\xbf\xbd\xef\xbf\xbdb\001')"
}

# Profiler files. read_one PROFILER DIR [PASS]: kf-read's record, in $rec.
read_one() {
	rec=$(replay x "$1" "$2" ${3:+"$3"} | kf-read 2>"$T/stderr") && rs=0 || rs=$?
	[ "$rs" -lt 2 ]
}

kind_of() { echo "$rec" | jq -r '.error.kind // "ok"'; }

# Bytes that are the same on every run: awk's generator with a fixed seed.
random_bytes() {
	awk -v n="$1" 'BEGIN { srand(7); for (i = 0; i < n; i++) printf "%c", int(rand() * 256) }'
}

@test "ncu_report.csv empty, truncated mid-row, NULs, random bytes, header only, only ==PROF== lines" {
	d=$T/n; mkdir -p "$d"
	: >"$d/ncu_report.csv"
	read_one ncu "$d"; [ "$(kind_of)" = no_csv ]
	echo "$rec" | jq -e --arg f "$d/ncu_report.csv" '.error.message | startswith($f + " holds no ncu CSV table")' >/dev/null
	echo "$rec" | jq -e '.error.hint | test("--csv")' >/dev/null

	head -c 9000 "$NCU" >"$d/ncu_report.csv"
	read_one ncu "$d"; [ "$(kind_of)" = truncated ]
	echo "$rec" | jq -e --arg f "$d/ncu_report.csv" '.error.message == $f + " is cut off before its first kernel launch is complete (header at line 4)"' >/dev/null

	head -c 4000 /dev/zero >"$d/ncu_report.csv"
	read_one ncu "$d"; [ "$(kind_of)" = no_csv ]

	random_bytes 20000 >"$d/ncu_report.csv"
	read_one ncu "$d"; [ "$(kind_of)" = no_csv ]

	grep -m1 '^"ID","Process ID"' "$NCU" >"$d/ncu_report.csv"
	read_one ncu "$d"; [ "$(kind_of)" = no_kernels ]
	echo "$rec" | jq -e --arg f "$d/ncu_report.csv" '.error.message == $f + " has a CSV header but no kernel rows"' >/dev/null

	printf '==PROF== Connected to process 1 (/x)\n==PROF== Disconnected from process 1\n' >"$d/ncu_report.csv"
	read_one ncu "$d"; [ "$(kind_of)" = no_csv ]
}

@test "ncu_report.csv: a launch cut mid-row after a whole one keeps the whole one and says truncated" {
	d=$T/n2; mkdir -p "$d"
	rows=$(grep -c '^"0"' "$NCU")
	{ cat "$NCU"; grep '^"0"' "$NCU" | sed 's/^"0"/"1"/' | head -n $((rows / 2)); printf '"1","5'; } >"$d/ncu_report.csv"
	read_one ncu "$d"
	[ "$rs" -eq 0 ]
	echo "$rec" | jq -e '.data.kernel_count == 1 and .data.truncated == true' >/dev/null
	echo "$rec" | jq -e '.data.notes | any(test("line [0-9]+ .*incomplete and left out"))' >/dev/null
}

@test "ncu_report.csv with NUL bytes sprinkled in and with CRLF line ends parses to the same values" {
	d=$T/n3; mkdir -p "$d/lf" "$d/crlf" "$d/nul"
	cp "$NCU" "$d/lf/ncu_report.csv"
	sed 's/$/\r/' "$NCU" >"$d/crlf/ncu_report.csv"
	sed 's/Throughput/Through\x00put/' "$NCU" >"$d/nul/ncu_report.csv"
	read_one ncu "$d/lf"; want=$(echo "$rec" | jq -cS '.data.kernels')
	read_one ncu "$d/crlf"; [ "$rs" -eq 0 ]
	[ "$(echo "$rec" | jq -cS '.data.kernels')" = "$want" ]
	read_one ncu "$d/nul"; [ "$rs" -eq 0 ]
	[ "$(echo "$rec" | jq -cS '.data.kernels')" = "$want" ]
	echo "$rec" | jq -e '.data.notes | any(test("^[0-9]+ NUL bytes dropped$"))' >/dev/null
}

# unitrace: a pass directory with its log, timeline and the metrics given.
ut_dir() {
	mkdir -p "$1"
	cp "$UT/python3.51544.json" "$UT/trace.51544" "$1/"
	cat >"$1/trace.metrics.51544"
}

@test "unitrace metrics empty, truncated mid-row, NULs, random bytes, header only; CRLF the same" {
	d=$T/u
	: | ut_dir "$d/empty"
	read_one unitrace "$d/empty"; [ "$(kind_of)" = empty_metrics ]
	echo "$rec" | jq -e --arg d "$d/empty" '.error.message == "trace.metrics.51544 in " + $d + " has 0 lines and no kernel rows"' >/dev/null

	head -c 5000 "$UT/trace.metrics.51544" | ut_dir "$d/trunc"
	read_one unitrace "$d/trunc"; [ "$rs" -eq 0 ]
	echo "$rec" | jq -e '.data.rows == 5' >/dev/null
	echo "$rec" | jq -e '.data.warnings | any(test("line 15: not a metrics row"))' >/dev/null

	head -c 4000 /dev/zero | ut_dir "$d/nul"
	read_one unitrace "$d/nul"; [ "$(kind_of)" = empty_metrics ]

	random_bytes 20000 | ut_dir "$d/random"
	read_one unitrace "$d/random"; [ "$(kind_of)" = no_kernels ]
	echo "$rec" | jq -e '.error.message | test("has [0-9]+ lines but no kernel metrics rows")' >/dev/null

	grep -m1 '^Kernel,' "$UT/trace.metrics.51544" | ut_dir "$d/hdr"
	read_one unitrace "$d/hdr"; [ "$(kind_of)" = empty_metrics ]

	ut_dir "$d/lf" <"$UT/trace.metrics.51544"
	sed 's/$/\r/' "$UT/trace.metrics.51544" | ut_dir "$d/crlf"
	read_one unitrace "$d/lf"; want=$(echo "$rec" | jq -cS '.data.sections[0].rows')
	read_one unitrace "$d/crlf"; [ "$rs" -eq 0 ]
	[ "$(echo "$rec" | jq -cS '.data.sections[0].rows')" = "$want" ]
	[ "$(echo "$want" | jq length)" -eq 26 ]
}

@test "unitrace Chrome trace empty, NULs: bad_timeline with a hint; truncated: the events before the cut, a warning" {
	d=$T/c
	for c in empty nul trunc crlf; do ut_dir "$d/$c" <"$UT/trace.metrics.51544"; done
	: >"$d/empty/python3.51544.json"
	head -c 3000 /dev/zero >"$d/nul/python3.51544.json"
	head -c 6000 "$UT/python3.51544.json" >"$d/trunc/python3.51544.json"
	sed 's/$/\r/' "$UT/python3.51544.json" >"$d/crlf/python3.51544.json"
	read_one unitrace "$d/empty"; [ "$(kind_of)" = bad_timeline ]
	echo "$rec" | jq -e --arg f "$d/empty/python3.51544.json" '.error.message == $f + ": not a Chrome trace (no \"traceEvents\" array)"' >/dev/null
	echo "$rec" | jq -e '.error.hint | test("remove the file")' >/dev/null
	read_one unitrace "$d/nul"; [ "$(kind_of)" = bad_timeline ]
	read_one unitrace "$d/trunc"; [ "$rs" -eq 0 ]
	echo "$rec" | jq -e '.data.timeline.truncated == true and (.data.timeline.kernels | length) == 9' >/dev/null
	echo "$rec" | jq -e '.data.warnings | any(test("ends early"))' >/dev/null
	read_one unitrace "$d/crlf"; [ "$rs" -eq 0 ]
	echo "$rec" | jq -e '.data.timeline.truncated == false and (.data.timeline.kernels | length) == 26' >/dev/null
}

@test "vtune report empty, truncated, NULs, random bytes, header only; CRLF the same" {
	d=$T/v
	mkdir -p "$d"/{empty,trunc,nul,random,hdr,lf,crlf}
	: >"$d/empty/vtune_hotspots_pass0.tsv"
	head -c 700 "$VT" >"$d/trunc/vtune_hotspots_pass0.tsv"
	head -c 4000 /dev/zero >"$d/nul/vtune_hotspots_pass0.tsv"
	random_bytes 20000 >"$d/random/vtune_hotspots_pass0.tsv"
	grep -m1 '^Computing Task' "$VT" >"$d/hdr/vtune_hotspots_pass0.tsv"
	cp "$VT" "$d/lf/vtune_hotspots_pass0.tsv"
	sed 's/$/\r/' "$VT" >"$d/crlf/vtune_hotspots_pass0.tsv"
	read_one vtune "$d/empty"; [ "$(kind_of)" = empty_report ]
	echo "$rec" | jq -e --arg f "$d/empty/vtune_hotspots_pass0.tsv" '.error.message | startswith($f + " is empty")' >/dev/null
	read_one vtune "$d/trunc"; [ "$(kind_of)" = no_rows ]
	read_one vtune "$d/nul"; [ "$(kind_of)" = no_header ]
	read_one vtune "$d/random"; [ "$(kind_of)" = no_header ]
	read_one vtune "$d/hdr"; [ "$(kind_of)" = no_rows ]
	read_one vtune "$d/lf"; want=$(echo "$rec" | jq -cS '.data.kernels')
	read_one vtune "$d/crlf"; [ "$rs" -eq 0 ]
	[ "$(echo "$rec" | jq -cS '.data.kernels')" = "$want" ]
	[ "$(echo "$want" | jq length)" -eq 4 ]
}

@test "output_dir missing, a file, a dangling symlink: no_output_dir naming the path, for every profiler" {
	touch "$T/afile"
	ln -s "$T/nowhere" "$T/dangling"
	for d in "$T/missing" "$T/afile" "$T/dangling"; do
		for p in ncu unitrace vtune; do
			read_one "$p" "$d"
			[ "$rs" -eq 1 ]
			[ "$(kind_of)" = no_output_dir ]
			echo "$rec" | jq -e --arg d "$d" '.error.message == "output_dir " + $d + " is not a readable directory"' >/dev/null
			grep -q "^kf-read: line 1: output_dir $d is not a readable directory$" "$T/stderr"
		done
	done
}

@test "an unreadable output_dir and report are read_error/no_output_dir (skipped as root: permissions do not stop root)" {
	[ "$(id -u)" -ne 0 ] || skip "running as root: chmod 000 does not stop root"
	mkdir -p "$T/locked" "$T/nr"
	chmod 000 "$T/locked"
	read_one ncu "$T/locked"; [ "$(kind_of)" = no_output_dir ]
	cp "$NCU" "$T/nr/ncu_report.csv"
	chmod 000 "$T/nr/ncu_report.csv"
	read_one ncu "$T/nr"; [ "$(kind_of)" = read_error ]
	chmod 755 "$T/locked"
}

@test "output_dir with spaces, quotes, \$(...), backquotes and a newline is read as it is" {
	d="$T/a b \"q\" 's' \$(touch CANARY) \`touch CANARY\`
nl"
	mkdir -p "$d"
	cp "$NCU" "$d/ncu_report.csv"
	read_one ncu "$d"
	[ "$rs" -eq 0 ]
	echo "$rec" | jq -e --arg d "$d" '.output_dir == $d and .data.kernel_count == 1' >/dev/null
	[ ! -e CANARY ] && [ ! -e "$T/CANARY" ]
}
