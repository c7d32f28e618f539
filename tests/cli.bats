#!/usr/bin/env bats
# The command line people expect (issue 17): -h, durations with units,
# profiler options after the profiler's name, exit statuses, usage errors,
# the kf command, completion, versions, sweeps, man pages as rendered.
load helper

PROGS="kf-select kf-wrap kf-run kf-read kf-collate kf-feedback kf-report"

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

# ncu_feedback NAME CSV: collated records of a replayed capture, in $T/NAME.jsonl
collated() {
	mkdir -p "$T/$1"
	cp "$2" "$T/$1/ncu_report.csv"
	replay "$1" ncu "$T/$1" | kf-read 2>/dev/null | kf-collate >"$T/$1.jsonl" || true
}

@test "kf-feedback exits 1 when a record it wrote is a failure, and still writes every record" {
	collated good "$FIX/ncu-h200/detailed-copy.csv"
	replay gone ncu "$T/nothing-here" | kf-read 2>/dev/null | kf-collate >"$T/bad.jsonl" || true
	cat "$T/bad.jsonl" "$T/good.jsonl" >"$T/both.jsonl"
	run --separate-stderr kf-feedback "$T/both.jsonl"
	assert_equal "$status" 1
	assert_equal "$(jq -r '[.id, .analysis.status] | @tsv' <<<"$output" | tr '\t\n' ': ')" "gone:failed good:ok "
	run --separate-stderr kf-feedback --text "$T/both.jsonl"
	assert_equal "$status" 1
	assert_line "=== gone ==="
	assert_line "=== good ==="
	run kf-feedback "$T/good.jsonl"
	assert_success
	assert_equal "$(jq -r .analysis.status <<<"$output")" ok
}

@test "kf-feedback --gpu NAME that is not known, --gpus-file that cannot be read: usage errors" {
	collated good "$FIX/ncu-h200/detailed-copy.csv"
	run --separate-stderr kf-feedback --gpu foo "$T/good.jsonl"
	assert_equal "$status" 2
	assert_output ""
	[[ "$stderr" == "kf-feedback: --gpu: no hardware roofs for GPU 'foo' (known: "*"NVIDIA H200 141GB"* ]] || fail "$stderr"
	[[ "$stderr" == *"usage: kf-feedback"* ]] || fail "$stderr"
	run --separate-stderr kf-feedback --gpus-file "$T/no such file" "$T/good.jsonl"
	assert_equal "$status" 2
	assert_output ""
	[[ "$stderr" == "kf-feedback: --gpus-file: cannot read GPU roofs $T/no such file: No such file or directory"* ]] || fail "$stderr"
	printf '[{"name":' >"$T/broken.json"
	run --separate-stderr kf-feedback --gpus-file "$T/broken.json" "$T/good.jsonl"
	assert_equal "$status" 2
	[[ "$stderr" == "kf-feedback: --gpus-file: "*"broken.json"* ]] || fail "$stderr"
}

@test "kf-feedback --gpu with ncu records: said once on stderr, the feedback as without it" {
	collated a "$FIX/ncu-h200/detailed-copy.csv"
	collated b "$FIX/ncu-h200/detailed-fma.csv"
	cat "$T/a.jsonl" "$T/b.jsonl" >"$T/two.jsonl"
	run --separate-stderr kf-feedback --gpu H200 "$T/two.jsonl"
	assert_success
	assert_equal "$stderr" "kf-feedback: --gpu does not apply to ncu records (their feedback uses no GPU roofs): ignored for them"
	assert_equal "$output" "$(kf-feedback "$T/two.jsonl")"
	[[ "$output" != *"--gpu"* ]] || fail "the option is named in the records"
}

@test "kf-feedback on unitrace passes not collated: kf-collate's one collation, together or apart" {
	S="$FIX/unitrace/bmg-gemm-xmx"
	ls "$S" >/dev/null
	cd "$T"
	PATH="$TOP/tests/fake:$PATH" KF_FAKE_SCENARIO="$S" KF_FAKE_LOG="$T/log" \
		sh -c 'kf-wrap unitrace -o out --id gemm --language sycl -- true | kf-run -q | kf-read >read.jsonl'
	assert_equal "$(jq -r .pass read.jsonl | tr '\n' ' ')" "unitrace.000 unitrace.001 unitrace.002 "
	# together: the same feedback and analysis as through kf-collate
	run --separate-stderr kf-feedback --gpu B580 read.jsonl
	assert_success
	kf-collate read.jsonl | kf-feedback --gpu B580 >"$T/collated.json"
	assert_equal "$(jq -c '[.feedback, .analysis, (.passes | length)]' <<<"$output")" \
		"$(jq -c '[.feedback, .analysis, (.passes | length)]' "$T/collated.json")"
	assert_equal "$(jq -r '.analysis.status' <<<"$output")" ok
	# apart (another job's record between them, the passes out of order):
	# grouped by id as kf-collate groups them, the job once its passes are in
	collated c "$FIX/ncu-h200/detailed-copy.csv"
	{ sed -n 3p read.jsonl; cat "$T/c.jsonl"; sed -n '1,2p' read.jsonl; } >apart.jsonl
	run --separate-stderr kf-feedback --gpu B580 apart.jsonl
	assert_success
	assert_equal "$(jq -r '[.id, .analysis.status, (.passes | length)] | join(":")' <<<"$output" | paste -sd' ')" \
		"c:ok:1 gemm:ok:3"
	assert_equal "$(jq -c 'select(.id == "gemm") | [.feedback, .analysis]' <<<"$output")" \
		"$(jq -c '[.feedback, .analysis]' "$T/collated.json")"
	# a job whose passes did not all come: what came, at the end, as kf-collate does
	sed -n 1p read.jsonl | kf-feedback --gpu B580 >"$T/one.json" || true
	assert_equal "$(jq -c '[.id, [.passes[].pass], .collated.missing_groups]' "$T/one.json")" \
		"$(sed -n 1p read.jsonl | kf-collate | jq -c '[.id, [.passes[].pass], .collated.missing_groups]')"
}

@test "kf-wrap PROFILER takes the profiler's options before --; a bare word is the value of the one before" {
	cd "$T"
	run kf-wrap ncu --clock-control none --set full -k regex:copy --id c -- ./k "a b"
	assert_success
	# kf-ncu NCU DIR TOP SELECT [timing run's] -+ [detailed run's] -- CMD
	assert_equal "$(jq -c '.argv[1:]' <<<"$output")" \
		'["ncu","kf-out/c/ncu.000","0","'"$TOP"'/bin/kf-read","--clock-control","none","-k","regex:copy","-+","--metrics","'"$(kf_metrics)"'","--clock-control","none","--set","full","-k","regex:copy","--","./k","a b"]'
	assert_equal "$(jq -c '[.id, .cmd]' <<<"$output")" '["c",["./k","a b"]]'
}

@test "kf-wrap: kf-wrap's own options keep working between PROFILER and --, -a too" {
	cd "$T"
	run kf-wrap ncu -o "out dir" --id=z --timeout 5m -a --clock-control none --language cuda -u -- ./k
	assert_success
	assert_equal "$(jq -c '[.id, .output_dir, .timeout, .language, .cmd]' <<<"$output")" \
		'["z","out dir/z/ncu.000",300,"cuda",["./k"]]'
	assert_equal "$(jq -c '.argv[-4:]' <<<"$output")" '["--clock-control","none","--","./k"]'
	run kf-wrap ncu -a --clock-control -a none -- ./k
	assert_equal "$(jq -c '[.id, .argv[-4:]]' <<<"$output")" '["k",["--clock-control","none","--","./k"]]'
	# a profiler option named like one of kf-wrap's goes with -a
	run kf-wrap vtune -a --timeout -a 7 -- ./k
	assert_success
	assert_equal "$(jq -r '.argv | index("--timeout") as $i | .[$i + 1]' <<<"$output")" 7
	assert_equal "$(jq -c .timeout <<<"$output")" null
}

@test "kf-wrap: the forgotten -a of issue 17 is no longer a job called none" {
	cd "$T"
	# -a --clock-control then the bare value: taken as its value
	run kf-wrap ncu -a --clock-control none -- ./k
	assert_success
	assert_equal "$(jq -c '[.id, .cmd, .argv[-4:]]' <<<"$output")" '["k",["./k"],["--clock-control","none","--","./k"]]'
	# a bare word with no option before it is a usage error, not the program
	run --separate-stderr kf-wrap ncu none -- ./k
	assert_equal "$status" 2
	assert_output ""
	[[ "$stderr" == "kf-wrap: 'none' before --: the program goes after --"* ]] || fail "$stderr"
	run --separate-stderr kf-wrap ncu --id x y -- ./k
	assert_equal "$status" 2
	run --separate-stderr kf-wrap ncu --sudo=yes -- ./k
	assert_equal "$status" 2
	assert_equal "${stderr%%$'\n'*}" "kf-wrap: --sudo takes no value"
	run --separate-stderr kf-wrap ncu --set full --id --
	assert_equal "$status" 2
	assert_equal "${stderr%%$'\n'*}" "kf-wrap: --id requires an argument"
}

@test "kf-wrap nsys -- ./k: a first word that is not a profiler is a usage error listing them" {
	cd "$T"
	printf '#!/bin/sh\necho hi\n' >k
	chmod +x k
	run --separate-stderr kf-wrap nsys -- ./k
	assert_equal "$status" 2
	assert_output ""
	assert_equal "${stderr%%$'\n'*}" "kf-wrap: 'nsys' is not a profiler (one of ncu, unitrace, vtune, trace)"
	run --separate-stderr kf-wrap -o o nsys --set full -- ./k
	assert_equal "$status" 2
	run --separate-stderr kf-wrap nsys
	assert_equal "$status" 2
	assert_equal "${stderr%%$'\n'*}" "kf-wrap: 'nsys' is not a profiler (one of ncu, unitrace, vtune, trace) nor a file of records"
	# a file of records named like a word still works
	echo '{"id":"j","profiler":"ncu","cmd":["./k"]}' >nsys
	run kf-wrap -o o nsys
	assert_success
	assert_equal "$(jq -r .output_dir <<<"$output")" o/j/ncu.000
	[ ! -e o/nsys ]
}

# kf with the fake ncu replaying a real H200 capture; ./k is the program.
kf_setup() {
	cd "$T"
	printf '#!/bin/sh\necho "k: $*"\n' >k
	chmod +x k
	PATH="$TOP/tests/fake:$PATH"
	export FAKE_NCU_CSV="$FIX/ncu-h200/detailed-copy.csv"
}

@test "kf ncu -- ./k: the whole pipeline, the text of kf-feedback --text, status 0" {
	kf_setup
	run --separate-stderr kf ncu --clock-control none -- ./k "a b"
	assert_success
	assert_line --index 0 "=== k ==="
	assert_line 'Kernel: copy_k(const float4 *, float4 *, unsigned long)'
	assert_line '  - DRAM Throughput: 81.3%'
	# the same as the pipeline written out by hand
	kf-wrap -o by-hand ncu --clock-control none -- ./k "a b" | kf-run -q | kf-read | kf-collate |
		kf-feedback --text >"$T/hand"
	assert_equal "$output" "$(cat "$T/hand")"
	# ncu ran: its report, and the details page exported from it
	[ -f kf-out/k/ncu.000/report.ncu-rep ]
	grep -q '"copy_k(const float4 \*, float4 \*, unsigned long)"' kf-out/k/ncu.000/ncu_report.csv
}

@test "kf --json: the final record, with feedback and analysis; --no-collated leaves the data out" {
	kf_setup
	run kf --json --id j -- ncu -- ./k
	assert_failure 2
	run --separate-stderr kf --json ncu --id j -- ./k
	assert_success
	assert_equal "$(jq -c '[.id, .profiler, .analysis.status, (.collated.kernels | length), (.feedback | test("copy_k"))]' <<<"$output")" \
		'["j","ncu","ok",1,true]'
	run --separate-stderr kf --json --no-collated ncu --id j -- ./k
	assert_success
	assert_equal "$(jq -c '[.id, .analysis.status, has("collated"), has("data"), (.passes | length), .analysis.focus.duration_ns]' <<<"$output")" \
		'["j","ok",false,false,1,131712]'
}

@test "kf: a failed profile is explained and exits 1; a mistyped profiler exits 2 listing them" {
	kf_setup
	FAKE_NCU_MODE=perm run --separate-stderr kf ncu -- ./k
	assert_equal "$status" 1
	assert_line --index 0 "=== k ==="
	assert_output --partial "Profiling with ncu failed"
	run --separate-stderr kf nsys -- ./k
	assert_equal "$status" 2
	assert_output ""
	assert_equal "${stderr%%$'\n'*}" "kf: 'nsys' is not a profiler (one of ncu, unitrace, vtune, trace)"
	run --separate-stderr kf ncu stray -- ./k
	assert_equal "$status" 2
	assert_equal "${stderr%%$'\n'*}" "kf-wrap: 'stray' before --: the program goes after --, and a profiler option's value right after the option"
	rm -rf kf-out
	run --separate-stderr kf -t 5x ncu -- ./k
	assert_equal "$status" 2
	[ ! -e kf-out ]
	run kf -h
	assert_success
	assert_line --index 0 --partial "usage: kf [--json | --timings]"
	run kf --version
	assert_output --regexp '^kf [0-9]+\.[0-9]+\.[0-9]+$'
}

@test "kf -t: the limit reaches kf-run; the feedback says the run was stopped, status 3; the program is gone" {
	kf_setup
	printf '#!/bin/sh\necho $$ >"%s/pid"\nexec sleep 30\n' "$T" >hang
	chmod +x hang
	run --separate-stderr kf --json -t 0.5 ncu -- ./hang
	assert_equal "$status" 3	# the program did not finish: program_failed
	assert_equal "$(jq -r '.analysis.diagnosis[0].kind' <<<"$output")" program_failed
	assert_equal "$(jq -r '.passes[0].run.ended_by' <<<"$output")" timeout
	pid=$(cat "$T/pid")
	! kill -0 "$pid" 2>/dev/null || fail "the program $pid outlived kf"
}

@test "kf: SIGTERM reaches kf-run, which ends the program; kf still prints the explanation" {
	kf_setup
	printf '#!/bin/sh\necho $$ >"%s/pid"\nexec sleep 30\n' "$T" >hang
	chmod +x hang
	kf --json ncu -- ./hang >"$T/out" 2>"$T/err" &
	kfpid=$!
	for i in $(seq 50); do [ -s "$T/pid" ] && break; sleep 0.1; done
	pid=$(cat "$T/pid")
	kill -TERM "$kfpid"
	wait "$kfpid" && st=0 || st=$?
	[ "$st" -ne 0 ] || fail "kf exited 0"
	! kill -0 "$pid" 2>/dev/null || fail "the program $pid outlived kf"
	assert_equal "$(jq -r '.passes[0].run.ended_by' "$T/out")" interrupted
}

@test "kf runs the stages next to itself before those on PATH, then those on PATH" {
	kf_setup
	mkdir -p "$T/side" "$T/alone"
	cp "$TOP/bin/kf" "$T/side/kf"
	cp "$TOP/bin/kf" "$T/alone/kf"
	for s in kf-wrap kf-run kf-read kf-collate kf-feedback; do
		printf '#!/bin/sh\necho %s >>"%s/stages"\ncat\n' "$s" "$T" >"$T/side/$s"
		chmod +x "$T/side/$s"
	done
	run "$T/side/kf" ncu -- ./k
	assert_success
	assert_equal "$(sort "$T/stages" | tr '\n' ' ')" "kf-collate kf-feedback kf-read kf-run kf-wrap "
	# alone: found on PATH ($TOP/bin, from helper.bash)
	run "$T/alone/kf" ncu -- ./k
	assert_success
	assert_line 'Kernel: copy_k(const float4 *, float4 *, unsigned long)'
	PATH=/usr/bin:/bin run -127 --separate-stderr "$T/alone/kf" ncu -- ./k
	grep -qx "kf: cannot run kf-wrap: No such file or directory" <<<"$stderr" || fail "$stderr"
}

@test "kf-run's records say which kf made them: worker.kf_version is kf-run --version's" {
	run kf-run -q <<<'{"id":"a","argv":["true"]}'
	assert_success
	assert_equal "kf-run $(jq -r .worker.kf_version <<<"$output")" "$(kf-run --version)"
	# kf.7 states the format's version and what a consumer may rely on
	run sh -c "mandoc -Tutf8 -O width=300 '$TOP/man/kf.7' | col -b"
	assert_line --partial "This page describes version 1 of the record format"
	assert_output --partial "worker.kf_version"
	assert_output --partial "a consumer ignores members it does not know"
}

@test "kf-feedback --no-collated: the same feedback and analysis, without the collated data" {
	collated r "$FIX/ncu-h200/detailed-resnet18-plain.csv"
	kf-feedback "$T/r.jsonl" >"$T/with"
	run kf-feedback --no-collated "$T/r.jsonl"
	assert_success
	assert_equal "$(jq -c '[has("collated"), has("data"), has("passes"), .id]' <<<"$output")" '[false,false,true,"r"]'
	assert_equal "$(jq -c '[.feedback, .analysis]' <<<"$output")" "$(jq -c '[.feedback, .analysis]' "$T/with")"
	assert_equal "$(jq -c 'del(.collated)' "$T/with")" "$(jq -c . <<<"$output")"
	[ "${#output}" -lt "$(( $(wc -c <"$T/with") / 10 ))" ] || fail "not much smaller: ${#output}"
}

# A sweep of two jobs: one good (the fake ncu replays copy), one whose
# program does not exist. make's output in $T/make.out.
sweep_jobs() {
	cd "$T"
	printf '#!/bin/sh\necho "bench $1"\n' >bench
	chmod +x bench
	jq -cn --arg csv "$FIX/ncu-h200/detailed-copy.csv" \
		'{id: "good", cmd: ["./bench", "copy"], language: "cuda", arch: "H200", env: {FAKE_NCU_CSV: $csv}}' >jobs.jsonl
	echo '{"id":"broken","cmd":["./no-such-program"],"language":"cuda","arch":"H200"}' >>jobs.jsonl
}

@test "sweep: no profiler on PATH stops make before any job, status 2, saying what is missing" {
	sweep_jobs
	run --separate-stderr make -s -f "$TOP/pipelines/sweep.mk" JOBS=jobs.jsonl OUT=out
	assert_equal "$status" 2
	[[ "$stderr" == "kf-sweep: the jobs need ncu, not found on PATH: no job was run"* ]] || fail "$stderr"
	[ -z "$(ls out/*.json 2>/dev/null)" ] || fail "a job ran: $(ls out)"
	run --separate-stderr make -s -f "$TOP/pipelines/sweep.mk" JOBS=jobs.jsonl OUT=out KF="$T/nowhere"
	assert_equal "$status" 2
	[[ "$stderr" == "kf-sweep: not found: $T/nowhere/kf-select $T/nowhere/kf-wrap"* ]] || fail "$stderr"
	# --tool in WRAP_FLAGS names the profiler that is checked
	run --separate-stderr make -s -f "$TOP/pipelines/sweep.mk" JOBS=jobs.jsonl OUT=out WRAP_FLAGS="--tool $T/my-ncu"
	assert_equal "$status" 2
	[[ "$stderr" == "kf-sweep: the jobs need $T/my-ncu, not found on PATH"* ]] || fail "$stderr"
}

@test "sweep: one log per job holds every stage's standard error; summary.tsv has a header and a reason" {
	sweep_jobs
	# every stage says a line on standard error, then runs the real program
	mkdir -p "$T/kf"
	for p in kf-select kf-wrap kf-run kf-read kf-collate kf-feedback; do
		printf '#!/bin/sh\necho "%s was here" >&2\nexec "%s" "$@"\n' "$p" "$TOP/bin/$p" >"$T/kf/$p"
		chmod +x "$T/kf/$p"
	done
	ln -s "$TOP/bin/kf-report" "$T/kf/kf-report"	# the page: no job's stage
	PATH="$TOP/tests/fake:$PATH" run make -s -f "$TOP/pipelines/sweep.mk" JOBS=jobs.jsonl OUT=out KF="$T/kf"
	assert_success
	for job in good broken; do
		assert_equal "$(grep ' was here$' "out/$job.log" | sort | paste -sd,)" \
			"kf-collate was here,kf-feedback was here,kf-read was here,kf-run was here,kf-select was here,kf-wrap was here"
	done
	# kf-run looks the program up before it starts anything
	grep -qx "kf-run: line 1: the program .*/no-such-program ('./no-such-program' in .*) does not exist" out/broken.log ||
		fail "no kf-run line: $(cat out/broken.log)"
	assert_equal "$(head -1 out/summary.tsv)" "$(printf 'id\tprofiler\tstatus\ttop_kernel\tshare_pct\tverdict\treason\tlever\tstake')"
	assert_equal "$(awk -F'\t' '$1 == "good" { print $3 "|" $7 }' out/summary.tsv)" "ok|-"
	assert_equal "$(awk -F'\t' '$1 == "broken" { print $3 "|" $7 }' out/summary.tsv)" \
		"failed|$(jq -r '"\(.error.kind): \(.error.message)" | .[0:200]' out/broken.json)"
	assert_equal "$(jq -r .error.kind out/broken.json)" program_not_found
	# make ... failed lists the failed jobs; make exits 2 (the recipe's 1)
	run make -s -f "$TOP/pipelines/sweep.mk" JOBS=jobs.jsonl OUT=out failed
	assert_equal "$status" 2
	assert_line --index 0 broken
}

@test "sweep on a terminal: a count as jobs finish and a closing summary" {
	sweep_jobs
	PATH="$TOP/tests/fake:$PATH" script -qfec "make -s -f '$TOP/pipelines/sweep.mk' JOBS=jobs.jsonl OUT=out" "$T/log" >/dev/null
	tr -d '\r' <"$T/log" >"$T/lines"
	grep -qx "kf-sweep: 1/2 done, [01] failed" "$T/lines" || fail "$(cat "$T/lines")"
	grep -qx "kf-sweep: 2/2 done, 1 failed" "$T/lines" || fail "$(cat "$T/lines")"
	grep -qx "kf-sweep: 2 jobs, 1 ok, 1 failed: broken (out/summary.tsv)" "$T/lines" || fail "$(cat "$T/lines")"
	# not on a terminal: none of it
	rm -rf out
	PATH="$TOP/tests/fake:$PATH" run make -s -f "$TOP/pipelines/sweep.mk" JOBS=jobs.jsonl OUT=out
	assert_success
	assert_output "kf-sweep: good
kf-sweep: broken"
}

# complete WORD...: what the completion offers for the last word, sorted, one line
complete_words() {
	bash -c 'source "$TOP/completion/kf.bash"; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _kf
		printf "%s\n" "${COMPREPLY[@]}" | sort | paste -sd" "' _ "$@"
}

@test "bash completion: each program's options, profiler names, values, the command after --" {
	cd "$T"
	mkdir -p adir
	touch afile
	assert_equal "$(complete_words kf-feedback --no)" "--no-collated --noise"
	assert_equal "$(complete_words kf-run --ti)" "--timeout"
	assert_equal "$(complete_words kf-wrap "")" "adir afile ncu trace unitrace vtune"
	assert_equal "$(complete_words kf "")" "ncu reread trace unitrace vtune"
	assert_equal "$(complete_words kf u)" "unitrace"
	assert_equal "$(complete_words kf-select --profiler v)" "vtune"
	assert_equal "$(complete_words kf-wrap ncu --language c)" "cuda"
	assert_equal "$(complete_words kf-wrap -o a)" "adir"
	assert_equal "$(complete_words kf-feedback --gpus-file a)" "adir afile"
	assert_equal "$(complete_words kf-run -t "")" ""
	assert_equal "$(complete_words kf ncu -- bas)" "$(compgen -c -- bas | sort | paste -sd' ')"
	assert_equal "$(complete_words kf ncu -- ./x a)" "adir afile"
	# a profiler given as an option's value is not the PROFILER operand
	assert_equal "$(complete_words kf-wrap --tool ncu "")" "adir afile ncu trace unitrace vtune"
	# after PROFILER a bare word goes after "--"
	assert_equal "$(complete_words kf-wrap ncu "")" ""
}

@test "bash completion: no word kf does not take (kf --text, --top before PROFILER)" {
	assert_equal "$(complete_words kf --t)" "--timeout --timings"
	assert_equal "$(complete_words kf --)" "--gpu --gpus-file --help --inactivity --json --max-chars --no-collated --quiet --ranking --rules --timeout --timings --unbuffered --version"
	assert_equal "$(complete_words kf -)" "$(printf '%s\n' --gpu --gpus-file --help --inactivity --json --max-chars --no-collated --quiet --ranking --rules --timeout --timings --unbuffered --version -h -i -n -q -t | sort | paste -sd' ')"
	# after PROFILER: kf's options that kf takes there, and kf-wrap's with the profiler's
	assert_equal "$(complete_words kf ncu --)" "--arg --clock-control --end-marker --gpu --gpus-file --help --id --import --inactivity --json --language --max-chars --no-collated --output-dir --quiet --ranking --rules --sampled-source --set --sudo --timeout --timings --tool --top --unbuffered --version"
	assert_equal "$(complete_words kf unitrace --no)" "--no-collated --no-timeline"
	assert_equal "$(complete_words kf vtune --no)" "--no-collated"
	# the deprecated --top of kf-feedback and kf-report is not offered
	assert_equal "$(complete_words kf-feedback --to)" ""
	assert_equal "$(complete_words kf-report --r)" "--ranking --rules"
}

@test "bash completion: values: GPUs of gpus.json, --focus, ncu's --set and --clock-control, kf-select --arch" {
	assert_equal "$(complete_words kf-feedback --gpu H)" "H100 H200"
	assert_equal "$(complete_words kf --gpu A)" "A100 A100-80GB"
	# one word per GPU at least: its one-word names, else its name, quoted
	assert_equal "$(complete_words kf-feedback --gpu I)" 'Intel\ Core\ Ultra\ 7\ 268V\ \(Arc\ 140V\)'
	assert_equal "$(complete_words kf-feedback --gpu "")" 'A100 A100-80GB B580 H100 H200 Intel\ Core\ Ultra\ 7\ 268V\ \(Arc\ 140V\) L40S bmg lnl ptl'
	# each offered name is one kf-feedback --gpu takes
	for g in A100 A100-80GB B580 H100 H200 "Intel Core Ultra 7 268V (Arc 140V)" L40S bmg lnl ptl; do
		kf-feedback --gpu "$g" </dev/null || fail "--gpu $g refused"
	done
	assert_equal "$(complete_words kf-feedback --focus "")" "longest time"
	assert_equal "$(complete_words kf-feedback --gpu = H2)" "H200"
	assert_equal "$(complete_words kf-wrap ncu --set "")" "basic detailed full nvlink pmsampling roofline"
	assert_equal "$(complete_words kf ncu --clock-control "")" "base none"
	assert_equal "$(complete_words kf ncu --set f)" "full"
	# ncu's sets are those ncu 2025.3.1 listed on the H200 (ncu --list-sets)
	assert_equal "$(complete_words kf ncu --set "")" \
		"$(sed -n 's/^\([a-z][a-z]*\) .*/\1/p' "$FIX/ncu-h200/ncu-list-sets.txt" | sort | paste -sd' ')"
	# unitrace has no --set that kf knows
	assert_equal "$(complete_words kf unitrace --set "")" ""
	assert_equal "$(complete_words kf-select --arch hop)" "hopper"
	assert_equal "$(complete_words kf-read --profiler n)" "ncu"
	assert_equal "$(complete_words kf-wrap --tool kf-rea)" "$(compgen -c -- kf-rea | sort | paste -sd" ")"
}

@test "bash completion: every option in each program's --help is offered, and every option offered is taken" {
	for p in $PROGS kf; do
		offered=" $(complete_words "$p" -) "
		# the option lines of --help (an indented option first)
		for o in $("$p" --help | grep -E '^ +-' | grep -oE -- '--[a-z][a-z-]*' | sort -u); do
			[[ $offered == *" $o "* ]] || fail "$p: $o not offered"
		done
		for o in $offered; do
			case $(bash -c 'source "$TOP/completion/kf.bash"; _kf_where "$("$1" --complete)" - |
				awk -F"\t" -v o="$2" "\$1 == o { print \$2; exit }"' _ "$p" "$o") in
			flag) v=() ;;
			words) v=("$("$p" --complete | awk -F'\t' -v o="$o" '$2 == o && $3 == "word" { print $4; exit }')") ;;
			file) v=(/dev/null) ;;
			dir) v=(.) ;;
			command) v=(true) ;;
			*) v=(1) ;;
			esac
			run --separate-stderr "$p" "$o" "${v[@]}" --version
			[[ $stderr != *"unrecognized option"* && $stderr != *"invalid option"* ]] ||
				fail "$p $o ${v[*]}: $stderr"
		done
	done
}

@test "make install: kf and its man page, pipelines under share/kf, completion for every program" {
	make -C "$TOP" --no-print-directory all NODEPS=1 O="$T/build" >/dev/null
	make -C "$TOP" --no-print-directory install NODEPS=1 O="$T/build" DESTDIR="$T/root" PREFIX=/usr >/dev/null
	d=$T/root/usr
	[ -x "$d/bin/kf" ] && [ -f "$d/share/man/man1/kf.1" ]
	for f in sweep.mk kf-sweep-split kf-sweep-check kf-sweep-finish kf-sweep-summary kf-gpu-lock kf-pipeline parallel.sh slurm.sbatch README.md; do
		[ -f "$d/share/kf/pipelines/$f" ] || fail "no pipelines/$f"
	done
	[ -x "$d/share/kf/pipelines/kf-sweep-check" ] && [ ! -x "$d/share/kf/pipelines/sweep.mk" ]
	for p in $PROGS kf; do
		cmp -s "$TOP/completion/kf.bash" "$d/share/bash-completion/completions/$p" || fail "no completion for $p"
	done
	# the installed sweep runs with the installed programs
	sweep_jobs
	PATH="$d/bin:$TOP/tests/fake:$PATH" run make -s -f "$d/share/kf/pipelines/sweep.mk" JOBS=jobs.jsonl OUT=out
	assert_success
	assert_equal "$(cut -f1,3 out/summary.tsv | tail -n +2 | tr '\t\n' ': ')" "good:ok broken:failed "
	make -C "$TOP" --no-print-directory uninstall NODEPS=1 O="$T/build" DESTDIR="$T/root" PREFIX=/usr >/dev/null
	run find "$T/root" -type f
	assert_output ""
}

@test "kf: its own long options also after PROFILER; kf-wrap gets the rest" {
	kf_setup
	FAKE_NCU_ARGV="$T/ncu-argv" run --separate-stderr kf ncu --json --id j --no-collated --max-chars 300 --clock-control none -- ./k --json
	assert_success
	assert_equal "$(jq -c '[.id, has("collated"), (.feedback | length <= 300), .cmd]' <<<"$output")" \
		'["j",false,true,["./k","--json"]]'
	assert_equal "$(sed -n '1,/^===$/p' "$T/ncu-argv" | paste -sd' ')" \
		"-o kf-out/j/ncu.000/report -f --import-source yes $(kf_sections_words) --metrics $(kf_metrics) --clock-control none ./k --json ==="
}

@test "kf unitrace --gpu B580: kf-feedback's options pass through; three passes collated; a bad --gpu is status 2" {
	cd "$T"
	PATH="$TOP/tests/fake:$PATH" KF_FAKE_SCENARIO="$FIX/unitrace/bmg-gemm-xmx" KF_FAKE_LOG="$T/log" \
		run --separate-stderr kf --json unitrace --gpu B580 --id gemm --language sycl -- true
	assert_success
	assert_equal "$(jq -r '[.id, ([.passes[].status] | join(" ")), .analysis.focus.short_name, .analysis.focus.bound] | @tsv' <<<"$output")" \
		"$(printf 'gemm\tok ok ok\tGemmXmxKernel<bfloat16, 256, 128, 32>\tcompute')"
	PATH="$TOP/tests/fake:$PATH" KF_FAKE_SCENARIO="$FIX/unitrace/bmg-gemm-xmx" KF_FAKE_LOG="$T/log" \
		run --separate-stderr kf --gpu=nope unitrace --language sycl -- true
	assert_equal "$status" 2
	assert_output ""
	[[ "$stderr" == *"kf-feedback: --gpu: no hardware roofs for GPU 'nope'"* ]] || fail "$stderr"
}

@test "kf ncu --top K is kf-wrap's (time every launch, detail the top K); --ranking N is kf-feedback's --ranking" {
	kf_setup
	export FAKE_NCU_CSV="$FIX/ncu-h200/detailed-multi.csv" FAKE_NCU_TIMING="$FIX/ncu-h200/detailed-multi.csv"
	run --separate-stderr kf ncu --top 2 --clock-control none -- ./k
	assert_success
	assert_line 'A timing run measured all 4 kernel launches (3.62 ms of GPU time in 3 kernels); the details below come from a second run that profiled the 2 kernels with the most GPU time (2 launches).'
	run --separate-stderr kf --json --quiet --ranking 1 ncu -- ./k
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(jq -c '.analysis.ranking.kernels | length' <<<"$output")" 1
	run --separate-stderr kf --top 2 ncu -- ./k
	assert_equal "$status" 2
}

@test "kf PROFILER -h and --help: kf's help, then kf-wrap's, on stdout, status 0, nothing run" {
	cd "$T"
	for h in -h --help; do
		run --separate-stderr kf ncu --clock-control none "$h" -- ./absent
		assert_equal "$status" 0
		assert_equal "$stderr" ""
		assert_equal "$output" "$(kf --help)

kf-wrap ncu --help:
$(kf-wrap --help)"
	done
	run --separate-stderr kf --json unitrace -h
	assert_equal "$status" 0
	assert_line --index 0 --partial "usage: kf [--json | --timings]"
	assert_line "kf-wrap unitrace --help:"
	# -h after -- is the program's, and -a's value is ncu's: the pipeline runs
	run --separate-stderr kf ncu -a -h -- ./absent -h
	refute_line "kf-wrap ncu --help:"
	assert_equal "$status" 5	# ./absent is not there: the pipeline ran and said so
	assert_line --index 0 "=== absent ==="
}

@test "a profiler option without --: unrecognized, and where it goes (kf-wrap and kf, before and after PROFILER)" {
	cd "$T"
	run --separate-stderr kf-wrap ncu --clock-control none ./bench
	assert_equal "$status" 2
	assert_output ""
	assert_equal "$(sed -n 1,2p <<<"$stderr")" "kf-wrap: unrecognized option '--clock-control'
kf-wrap: ncu's own options go between ncu and --: put -- before the command (ncu --clock-control ... -- CMD [ARG ...]); without --, only kf-wrap's own options may follow ncu"
	run --separate-stderr kf ncu --clock-control=none ./bench
	assert_equal "$status" 2
	assert_equal "$(sed -n 1,2p <<<"$stderr")" "kf-wrap: unrecognized option '--clock-control'
kf-wrap: ncu's own options go between ncu and --: put -- before the command (ncu --clock-control ... -- CMD [ARG ...]); without --, only kf-wrap's own options may follow ncu"
	run --separate-stderr kf-wrap --clock-control none unitrace -- ./bench
	assert_equal "$status" 2
	assert_equal "$(sed -n 1,2p <<<"$stderr")" "kf-wrap: unrecognized option '--clock-control'
kf-wrap: unitrace's own options go after unitrace, before --: unitrace --clock-control ... -- CMD [ARG ...]"
	run --separate-stderr kf-wrap -Q jobs.json
	assert_equal "$status" 2
	assert_equal "$(sed -n 1,2p <<<"$stderr")" "kf-wrap: unrecognized option '-Q'
kf-wrap: a profiler's own options go after its name, before --: PROFILER -Q ... -- CMD [ARG ...]; for records, -a -Q"
	run --separate-stderr kf --clock-control none ncu -- ./bench
	assert_equal "$status" 2
	assert_equal "$(sed -n 1,3p <<<"$stderr")" "kf: unrecognized option '--clock-control'
kf: kf's own options go before ncu; ncu's own options and kf-wrap's go after it, before --: kf ncu --clock-control ... -- CMD [ARG ...]
usage: kf [--json | --timings] [-q] [-n N] [-t S] [-i S] [--no-collated] [--gpu NAME] PROFILER [options] -- CMD [ARG ...]"
	# and with -- the same words are ncu's
	run kf-wrap --tool "$TOP/tests/fake/ncu" ncu --clock-control none -- ./bench
	assert_success
	run jq -c '.argv[-4:]' <<<"$output"
	assert_output '["--clock-control","none","--","./bench"]'
}
