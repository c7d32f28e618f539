#!/usr/bin/env bats
# kf-wrap: argv, env, output_dir and end_marker for each profiler, both forms.

load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
}

@test "kf-wrap ncu -- CMD: one pass, the kf-ncu chain into output_dir, NCU_DONE, output_dir created" {
	run kf-wrap ncu -- ./bench copy
	assert_success
	[ "$(echo "$output" | wc -l)" -eq 1 ]
	echo "$output" | jq -e '.id == "bench" and .profiler == "ncu" and .pass == "ncu.000"
		and .mode == "query" and .cmd == ["./bench", "copy"]
		and .output_dir == "kf-out/bench/ncu.000" and .end_marker == "NCU_DONE"
		and (.env | type) == "object"'
	[ "$(echo "$output" | jq -c '.argv | .[0:4] + .[5:]')" = \
		'["'"$KF_LIBEXECDIR"'/kf-ncu","ncu","kf-out/bench/ncu.000","0","-+",'"$(kf_sections)"',"--metrics","'"$(kf_metrics)"'","--","./bench","copy"]' ]
	[ "$(echo "$output" | jq -r '.argv[4]')" = "$(dirname "$(command -v kf-wrap)")/kf-read" ]
	[ -d kf-out/bench/ncu.000 ]
}

@test "-a adds profiler arguments in order, before the command; the record's profiler_args follow" {
	run kf-wrap ncu -a --clock-control -a none -a --target-processes -a all --arg --nvtx -- ./k
	assert_success
	[ "$(echo "$output" | jq -c '.argv[5:]')" = \
		'["--clock-control","none","--target-processes","all","--nvtx","-+",'"$(kf_sections)"',"--metrics","'"$(kf_metrics)"'","--clock-control","none","--target-processes","all","--nvtx","--","./k"]' ]
	jq -cn '{id:"k", profiler:"ncu", cmd:["./k"], profiler_args:["-k","regex:copy"]}' |
		kf-wrap -a --nvtx -o out > rec
	[ "$(jq -c '.argv[5:]' rec)" = '["--nvtx","-k","regex:copy","-+",'"$(kf_sections)"',"--metrics","'"$(kf_metrics)"'","--nvtx","-k","regex:copy","--","./k"]' ]
}

@test "--tool names the profiler program, -o the output base" {
	run kf-wrap ncu --tool "/opt/nv tools/ncu" -o "my out" --id k1 -- ./k
	assert_success
	[ "$(echo "$output" | jq -r '.argv[1]')" = "/opt/nv tools/ncu" ]
	[ "$(echo "$output" | jq -r .output_dir)" = "my out/k1/ncu.000" ]
	[ -d "my out/k1/ncu.000" ]
}

@test "hostile ids and commands reach argv literally, make safe distinct dirs, and nothing runs" {
	local evil='../$(touch CANARY)/"q" '"'"'s'"'"' `touch CANARY2`
x'
	jq -cn --arg id "$evil" '{id:$id, profiler:"ncu", cmd:["./k", "$(touch CANARY)", "a b", "\"q\"", "l1\nl2", ";rm -rf ~"]}' |
		kf-wrap -o base > rec
	[ "$(jq -c '.argv[-6:]' rec)" = '["./k","$(touch CANARY)","a b","\"q\"","l1\nl2",";rm -rf ~"]' ]
	dir=$(jq -r .output_dir rec)
	[ "$dir" = 'base/%2E.%2F$(touch CANARY)%2F"q" '"'"'s'"'"' `touch CANARY2`%0Ax/ncu.000' ]
	[ -d "$dir" ]
	# nothing escaped the base, nothing ran
	[ "$(ls -A)" = "$(printf 'base\nrec')" ]
	[ "$(ls -A base | wc -l)" -eq 1 ]
	# ids that differ only in what was replaced stay apart
	printf '%s\n' '{"id":"a/b","profiler":"ncu","cmd":["x"]}' '{"id":"a%2Fb","profiler":"ncu","cmd":["x"]}' \
		'{"id":".","profiler":"ncu","cmd":["x"]}' '{"id":"..","profiler":"ncu","cmd":["x"]}' |
		kf-wrap -o d | jq -r .output_dir > dirs
	[ "$(cat dirs)" = "$(printf 'd/a%%2Fb/ncu.000\nd/a%%252Fb/ncu.000\nd/%%2E/ncu.000\nd/%%2E./ncu.000')" ]
	[ "$(ls -A d | wc -l)" -eq 4 ]
}

@test "a very long id is cut to a short component that stays distinct" {
	a=$(printf 'x%.0s' $(seq 300))
	printf '{"id":"%s1","profiler":"ncu","cmd":["x"]}\n{"id":"%s2","profiler":"ncu","cmd":["x"]}\n' "$a" "$a" |
		kf-wrap -o d | jq -r '.output_dir | split("/")[1]' > names
	[ "$(sort -u names | wc -l)" -eq 2 ]
	[ "$(awk '{ print length($0) }' names | sort -u)" = 197 ]
	grep -q '^xxxxxxxx*~[0-9a-f]\{16\}$' names
}

@test "a string cmd means sh -c STRING" {
	jq -cn '{id:"s", profiler:"ncu", cmd:"./k --n \"4 096\" > log"}' | kf-wrap > rec
	[ "$(jq -c '.argv[-3:]' rec)" = '["sh","-c","./k --n \"4 096\" > log"]' ]
}

@test "--sudo: sudo -E env PYTHONPATH=VALUE as the reference, sudo -E alone without it, never twice" {
	PYTHONPATH='/a b:/c' run kf-wrap ncu --sudo -- ./k
	[ "$(echo "$output" | jq -c '.argv[:6]')" = '["sudo","-E","env","PYTHONPATH=/a b:/c","'"$KF_LIBEXECDIR"'/kf-ncu","ncu"]' ]
	run env -u PYTHONPATH kf-wrap ncu --sudo -- ./k
	[ "$(echo "$output" | jq -c '.argv[:4]')" = '["sudo","-E","'"$KF_LIBEXECDIR"'/kf-ncu","ncu"]' ]
	run kf-wrap ncu --sudo --tool sudo -- ./k
	[ "$(echo "$output" | jq -r '.argv[0:2] | join(" ")')" != "sudo sudo" ]
	# off by default
	run kf-wrap ncu -- ./k
	[ "$(echo "$output" | jq -r '.argv[1]')" = ncu ]
}

@test "unitrace: three passes, one group each, the reference's arguments" {
	run kf-wrap unitrace --id sy -o o -- ./prog 1
	assert_success
	[ "$(echo "$output" | jq -r '"\(.pass) \(.group) \(.output_dir)"' | paste -sd,)" = \
		"unitrace.000 ComputeBasic o/sy/unitrace.000,unitrace.001 MemoryProfile o/sy/unitrace.001,unitrace.002 VectorEngineProfile o/sy/unitrace.002" ]
	first=$(echo "$output" | head -1)
	echo "$first" | jq -e --arg h "$KF_LIBEXECDIR/kf-unitrace" '.argv[0:5] == [$h, "unitrace", "o/sy/unitrace.000", "ComputeBasic", "query"]
		and (.argv | index("--chrome-kernel-logging")) != null
		and .argv[-3:] == ["--", "./prog", "1"] and .env.KERNELFOUNDRY_PROFILER == "unitrace"'
	run kf-wrap unitrace --no-timeline --tool /x/unitrace -- ./prog
	echo "$output" | head -1 | jq -e '(.argv | index("--chrome-kernel-logging")) == null
		and .env.KERNELFOUNDRY_unitrace_cmd == "/x/unitrace"'
	[ -d kf-out/prog/unitrace.002 ]
}

@test "unitrace for OpenCL (kf-select's sampling passes) runs the retry helper" {
	jq -cn '{id:"cl", cmd:["./cl"], language:"ocl", profiler:"unitrace"}' | kf-select | kf-wrap -o o > recs
	[ "$(jq -r .mode recs | sort -u)" = sampling ]
	[ "$(wc -l < recs)" -eq 3 ]
	jq -s -e '.[0].pass == "unitrace.000" and .[0].end_marker == "UNITRACE_DONE" and
		(.[0].argv | tostring | contains("--metric-sampling") or contains("kf-unitrace"))' recs
}

@test "vtune: one pass through the installed helper, VTUNE_DONE marker" {
	run kf-wrap vtune --id v -- ./prog
	assert_success
	echo "$output" | jq -e '.pass == "vtune.000" and .end_marker == "VTUNE_DONE"
		and .output_dir == "kf-out/v/vtune.000" and .argv[-2:] == ["--", "./prog"]
		and .env.KERNELFOUNDRY_PROFILER == "vtune"'
}

@test "pass records on standard input from kf-select, every profiler" {
	printf '%s\n' '{"id":"c","cmd":["./c"],"language":"cuda"}' \
		'{"id":"s","cmd":["./s"],"language":"sycl"}' | kf-select | kf-wrap -o w > recs
	[ "$(jq -r '"\(.id) \(.pass) \(.argv[1])"' recs | paste -sd,)" = \
		"c ncu.000 ncu,s unitrace.000 unitrace,s unitrace.001 unitrace,s unitrace.002 unitrace" ]
	[ "$(find w -mindepth 2 -type d | sort | paste -sd,)" = \
		"w/c/ncu.000,w/s/unitrace.000,w/s/unitrace.001,w/s/unitrace.002" ]
}

@test "a record's own output_dir wins and is created" {
	jq -cn '{id:"k", profiler:"ncu", cmd:["./k"], output_dir:"mine/deep er"}' | kf-wrap -o other > rec
	[ "$(jq -r .output_dir rec)" = "mine/deep er" ]
	[ -d "mine/deep er" ] && [ ! -e other ]
}

@test "--end-marker, --timeout and --inactivity go into the record for kf-run" {
	run kf-wrap ncu --end-marker ALL_DONE --timeout 60 --inactivity 7.5 -- ./k
	echo "$output" | jq -e '.end_marker == "ALL_DONE" and .timeout == 60 and .inactivity == 7.5'
	run kf-wrap unitrace --end-marker none -- ./k
	[ "$(echo "$output" | jq -r .end_marker | sort -u)" = null ]
	run kf-wrap ncu --timeout soon -- ./k
	assert_failure 2
	assert_output --partial "--timeout: not a number of seconds: 'soon'"
}

@test "bad records become error records and the rest still flow" {
	printf '%s\n' \
		'{"id":"a","profiler":"ncu","cmd":[1]}' \
		'{"id":"b","profiler":"perf","cmd":["x"]}' \
		'{"id":"c","profiler":"unitrace","cmd":["x"]}' \
		'{"profiler":"ncu","cmd":["x"]}' \
		'{"id":"d","profiler":"ncu","cmd":["x"],"profiler_args":"--nvtx"}' \
		'{"x' \
		'{"id":"e","profiler":"ncu","cmd":["x"],"error":{"stage":"kf-select","kind":"no_profiler","message":"m"}}' \
		'{"id":"ok","profiler":"ncu","cmd":["x"]}' > in
	run kf-wrap -o o in
	assert_failure 1
	recs=$(grep '^{' <<<"$output")
	[ "$(jq -r '.error.kind // .pass' <<<"$recs" | paste -sd' ')" = \
		"bad_record bad_record bad_record bad_record bad_record bad_json no_profiler ncu.000" ]
	assert_output --partial 'line 1: job a: "cmd"[0], the program, is not a non-empty string'
	assert_output --partial "line 2: unknown profiler 'perf' (one of ncu, unitrace, vtune, trace)"
	assert_output --partial 'line 3: job c: no "pass": unitrace takes 3 passes'
	# the error record went through untouched: no argv, no output_dir
	[ "$(jq -c 'select(.id == "e") | [.argv, .output_dir, .error.stage]' <<<"$recs")" = '[null,null,"kf-select"]' ]
	[ "$(ls o)" = ok ]
}

@test "an output_dir that cannot be made is an error record that says where" {
	touch file
	run kf-wrap ncu -o file/sub -- ./k
	assert_failure 1
	assert_output --partial "job k: -o file/sub: file is not a folder: kf-wrap makes only the last folder of -o, as mkdir does"
	grep '^{' <<<"$output" | jq -e '.error.kind == "output_dir" and .argv == null'
}

@test "usage errors: no command, --id in the stdin form, a pair kf-select refuses" {
	run kf-wrap ncu
	assert_failure 2
	assert_output --partial "ncu: no command to profile: put it after --, as in ncu [options] -- CMD [ARG ...]"
	run kf-wrap ncu --
	assert_failure 2
	run kf-wrap --id x </dev/null
	assert_failure 2
	run kf-wrap ncu --language sycl -- ./k
	assert_failure 2
	assert_output --partial "profiler 'ncu' cannot profile sycl: it allows unitrace, vtune"
	run kf-wrap --bogus
	assert_failure 2
	run kf-wrap --help
	assert_success
	assert_output --partial "PROFILER [options]"
}

@test "--language in the command form: ocl with unitrace gets the sampling mode" {
	run kf-wrap unitrace --language OCL --id o -- ./cl
	assert_success
	[ "$(echo "$output" | jq -r '"\(.mode) \(.language)"' | sort -u)" = "sampling OCL" ]
}

@test "options go before and after PROFILER; without -- the first operand starts the command" {
	run kf-wrap -o a ncu -o b --id z -- ./k
	[ "$(echo "$output" | jq -r .output_dir)" = b/z/ncu.000 ]
	run kf-wrap ncu --id z ./k -o x
	[ "$(echo "$output" | jq -c .cmd)" = '["./k","-o","x"]' ]
}

# hexargs: a program that writes each argument's bytes in hex, one a line,
# to args.hex beside it.
hexargs() {
	cat >hexargs <<-'EOF'
	#!/bin/sh
	for a in "$@"; do printf %s "$a" | od -An -tx1 | tr -d ' \n'; echo; done >"$(dirname "$0")/args.hex"
	EOF
	chmod +x hexargs
}

@test "an argument that is not UTF-8 reaches the program as its own bytes: {\"hex\", \"text\"} in cmd and argv, kf-wrap | kf-run and kf" {
	hexargs
	bad=$(printf 'a\377b')
	nul=$(printf '\300\200')
	run kf-wrap ncu --tool "$TOP/tests/fake/ncu" -o o -- ./hexargs "$bad" 'é' "$nul" -x
	assert_success
	printf '%s\n' "$output" >w.json
	run jq -c '.cmd, .argv[-5:]' w.json
	assert_output '["./hexargs",{"hex":"61ff62","text":"a�b"},"é",{"hex":"c080","text":"\u0000"},"-x"]
["./hexargs",{"hex":"61ff62","text":"a�b"},"é",{"hex":"c080","text":"\u0000"},"-x"]'
	FAKE_NCU_CSV="$FIX/ncu-h200/detailed-copy.csv" run -0 --separate-stderr kf-run w.json
	run cat args.hex
	assert_output "61ff62
c3a9
c080
2d78"
	rm args.hex
	PATH="$TOP/tests/fake:$PATH" FAKE_NCU_CSV="$FIX/ncu-h200/detailed-copy.csv" run -0 --separate-stderr kf ncu -- ./hexargs "$bad" 'é' "$nul" -x
	run cat args.hex
	assert_output "61ff62
c3a9
c080
2d78"
	# every profiler's argv keeps it, and a job record's cmd may carry it
	for p in unitrace vtune trace; do
		run kf-wrap "$p" -o o -- ./hexargs "$bad"
		assert_equal "$(jq -c '.argv[-1]' <<<"${lines[0]}")" '{"hex":"61ff62","text":"a�b"}'
	done
	jq -cn '{id:"j", profiler:"ncu", cmd:["./hexargs", {hex:"ff"}]}' | kf-wrap -o o >rec
	assert_equal "$(jq -c '.argv[-1]' rec)" '{"hex":"ff","text":"�"}'
	# a bad hex form is a bad record for kf-wrap and for kf-run
	run --separate-stderr kf-wrap -o o <<<'{"id":"j","profiler":"ncu","cmd":["./k",{"hex":"f"}]}'
	assert_equal "$status" 1
	assert_equal "$(jq -r .error.message <<<"$output")" 'job j: "cmd"[1] is not a string (or {"hex": its bytes}): every argument must be one'
	run --separate-stderr kf-run <<<'{"id":"j","argv":["./k",{"hex":"0041"}]}'
	assert_equal "$(jq -r .error.message <<<"$output")" 'argv is not an array of strings'
}
