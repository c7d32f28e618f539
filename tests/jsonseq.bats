#!/usr/bin/env bats
# lib/core/jsonseq.c: every stage reads any sequence of JSON values separated
# by white space, as jq writes them, and resynchronises after a bad value at
# the next line that begins with { (man/kf.7, "Input").
load helper
bats_require_minimum_version 1.5.0

setup() {
	T=$BATS_TEST_TMPDIR
	R=$FIX/report
}

@test "jq's pretty output of a feedback record: kf-feedback --text prints the same as for the compact line" {
	kf-feedback --text "$R/copy.json" >"$T/want"
	jq . "$R/copy.json" >"$T/pretty"
	[ "$(wc -l <"$T/pretty")" -gt 100 ]
	kf-feedback --text "$T/pretty" >"$T/got" 2>"$T/err"
	[ ! -s "$T/err" ]
	diff "$T/want" "$T/got"
	# Written back as one object a line, byte for byte what came in compact.
	jq . "$R/copy.json" "$R/sgemm_naive.json" | kf-report >/dev/null
	jq . "$R/copy.json" | kf-select >"$T/sel" 2>/dev/null || true
	[ "$(wc -l <"$T/sel")" -eq 1 ]
}

@test "jq . of two records, and two records on one line: each a record of its own, in order" {
	for p in kf-select kf-wrap kf-run kf-read kf-collate kf-feedback; do
		printf '{"id":"a","x":{"y":[1,\n  2]}}\n' >"$T/in"
		printf '{"id":"b"} {"id":"c"}\n' >>"$T/in"
		jq . "$T/in" >"$T/pretty"
		run bash -c '"$1" "$2" 2>/dev/null | jq -r .id' _ "$p" "$T/pretty"
		assert_output $'a\nb\nc'
		run bash -c '"$1" "$2" 2>/dev/null | jq -r .id' _ "$p" "$T/in"
		assert_output $'a\nb\nc'
	done
}

@test "a bad value inside a pretty record: line:column of the fault, the records around it whole" {
	{
		echo '{"id":"a"}'
		printf '{\n  "id": "b",\n  "bad": ,\n  "q": 1\n}\n'
		echo '{"id":"c"}'
	} >"$T/in"
	run --separate-stderr kf-select "$T/in"
	assert_failure 1
	run jq -c '[.id, .error.kind, .error.line, .error.column]' <<<"$output"
	assert_output - <<-'EOF'
	["a","bad_record",null,null]
	[null,"bad_json",4,10]
	["c","bad_record",null,null]
	EOF
	grep -Fx "kf-select: $T/in: line 4:10: not JSON (in the value that begins at line 2:1)" <<<"$stderr"
}

@test "junk lines: one error for the run of them, to the next line that begins with {" {
	printf '{"id":"a"}\nthis is not JSON\nnor this\n  {"nested": "indented, skipped"}\n{"id":"b"}\n' >"$T/in"
	run --separate-stderr kf-collate "$T/in"
	assert_failure 1
	run jq -c '[.id, (if .error.kind == "bad_json" then .error.message else null end)]' <<<"$output"
	assert_output - <<-EOF
	["a",null]
	[null,"$T/in: line 2:1: not JSON (lines 2-4 skipped, to the next line that begins with {)"]
	["b",null]
	EOF
}

@test "a record cut off mid-way ends at the next line that begins with {, or at the end of the input" {
	printf '{"id":"a",\n  "x": [1,\n{"id":"b"}\n{"id":"c",\n' >"$T/in"
	run --separate-stderr kf-collate "$T/in"
	assert_failure 1
	run jq -c '[.id, (if .error.kind == "bad_json" then .error.message else null end)]' <<<"$output"
	assert_output - <<-EOF
	[null,"$T/in: line 1:1: not JSON: the value is not closed before line 3, which begins with {"]
	["b",null]
	[null,"$T/in: line 4:1: not JSON: the input ends inside the value"]
	EOF
}

@test "values after a good one on its line: a scalar is not a JSON object, junk after it a bad value" {
	printf '{"id":"a"} 42 {"id":"b"}\n{"id":"c"} }\n{"id":"d"}\n' >"$T/in"
	run --separate-stderr kf-collate "$T/in"
	assert_failure 1
	run jq -c '[.id, (if .error.kind == "bad_json" then .error.message else null end)]' <<<"$output"
	assert_output - <<-EOF
	["a",null]
	[null,"$T/in: line 1:12: not a JSON object"]
	["b",null]
	["c",null]
	[null,"$T/in: line 2:12: not JSON"]
	["d",null]
	EOF
}

@test "a string that runs past its line is bad at once, not a reader that waits" {
	printf '{"id":"a", "s": "open\n  more"}\n{"id":"b"}\n' >"$T/in"
	run --separate-stderr kf-collate "$T/in"
	assert_failure 1
	run jq -c '[.id, (if .error.kind == "bad_json" then [.error.line, .error.column] else null end)]' <<<"$output"
	assert_output $'[null,[1,18]]\n["b",null]'
}

@test "kf-run reads pretty jobs as they come from a pipe" {
	jq -n '{id:"p", argv:["echo","hi"]}' >"$T/in"
	[ "$(wc -l <"$T/in")" -gt 2 ]
	run bash -c 'kf-run -q <"$1" | jq -r "[.id, .run.stdout] | @tsv"' _ "$T/in"
	assert_output $'p\thi\\n'
}

@test "Nsight Compute's CSV given to kf-read: one error that says what it is and what to run" {
	run --separate-stderr kf-read "$FIX/ncu-h200/detailed-resnet18-plain.csv"
	assert_failure 1
	[ "$(wc -l <<<"$output")" -eq 1 ]
	n=$(wc -l <"$FIX/ncu-h200/detailed-resnet18-plain.csv")
	run jq -r .error.message <<<"$output"
	assert_output "$FIX/ncu-h200/detailed-resnet18-plain.csv: line 1:1: this is Nsight Compute's output (its CSV pages or its log), not records: for a report FILE.ncu-rep run kf ncu --import FILE.ncu-rep; for a folder of exported pages, give kf-read a record that names it (kf-read(1)) (lines 1-$n skipped, to the next line that begins with {)"
	[ "$(wc -l <<<"$stderr")" -eq 1 ]
}
