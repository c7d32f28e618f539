#!/usr/bin/env bats
# A newcomer's first hour (issue 45): every trip met on a fresh clone, each
# one here as the user meets it.
load helper
bats_require_minimum_version 1.5.0

setup() {
	T=$BATS_TEST_TMPDIR
	cd "$T"
}

@test "kf ncu with no command: kf's usage, not kf-wrap's, status 2, nothing made" {
	for words in "ncu" "ncu --" "ncu --top 3" "ncu -o out"; do
		# shellcheck disable=SC2086
		run --separate-stderr kf $words
		assert_equal "$status" 2
		assert_output ""
		assert_equal "$stderr" "kf-wrap: ncu: no command to profile: put it after --, as in kf ncu [options] -- CMD [ARG ...]
usage: kf [--json | --timings] [-q] [-n N] [-t S] [-i S] [--no-collated] [--gpu NAME] PROFILER [options] -- CMD [ARG ...]
       kf [options] ncu --import FILE.ncu-rep
       kf [options] reread PATH ..."
	done
	[ ! -e kf-out ] && [ ! -e out ]
	# kf-wrap run by itself keeps its own usage
	run --separate-stderr kf-wrap ncu
	assert_equal "$status" 2
	assert_equal "$(sed -n 2p <<<"$stderr")" "usage: kf-wrap [-u] [-o dir] [--tool path] [-a arg] [--sudo] [profiler's kf-wrap options]"
}

# The PATH a test's kf runs with: kf's programs and the system's, no profiler.
bare_path() {
	echo "${KF_BIN:-$TOP/bin}:/usr/bin:/bin"
}

@test "a profiler that is not installed: not_started, naming the PATH looked in, status 5, never the program's failure" {
	P=$(bare_path)
	for prof in unitrace vtune; do
		PATH=$P run --separate-stderr kf "$prof" -- true
		assert_equal "$status" 5
		assert_output "=== true ===
Diagnosis (most time at stake first):
1. Nothing ran: the profiler $prof is not on PATH ($P) (kf-run, profiler_not_found); there are no performance numbers. Fix: install $prof, or add the folder that holds it to PATH."
	done
	PATH=$P run --separate-stderr kf --json unitrace -- true
	assert_equal "$status" 5
	run jq -c '[.analysis.status, .error.stage, .error.kind, (.passes | map(.run.started)),
		(.analysis.diagnosis | map([.kind, .evidence[0].metric, .evidence[0].value]))]' <<<"$output"
	assert_output '["failed","kf-run","profiler_not_found",[false,false,false],[["not_started","run.exit_code",127]]]'
}

@test "a program that does not exist, or is not executable: not_started, the path tried, no advice about the tracer or the driver" {
	mkdir lib
	: >lib/libkftrace.so	# kf-wrap trace finds a tracer; nothing loads it
	KF_LIBEXECDIR=$T/lib run --separate-stderr kf trace -- /nonexistent/prog
	assert_equal "$status" 5
	assert_output "=== prog ===
Diagnosis (most time at stake first):
1. Nothing ran: the program /nonexistent/prog does not exist (kf-run, program_not_found); there are no performance numbers. Fix: check the program's path: / has no nonexistent."
	refute_output --partial CUPTI
	printf 'echo hi\n' >k	# not executable
	PATH="$TOP/tests/fake:$PATH" run --separate-stderr kf ncu -- ./k
	assert_equal "$status" 5
	assert_line --index 2 "1. Nothing ran: the program $T/k ('./k' in $T) is not executable (kf-run, program_not_executable); there are no performance numbers. Fix: make $T/k an executable file (chmod +x), or name the one to run."
	PATH="$TOP/tests/fake:$PATH" run --separate-stderr kf ncu -- ./sub/k
	assert_equal "$status" 5
	assert_line --index 2 "1. Nothing ran: the program $T/sub/k ('./sub/k' in $T) does not exist (kf-run, program_not_found); there are no performance numbers. Fix: check the program's path: $T has no sub."
}

@test "a program that exits 127 itself failed: program_failed, status 3, not not_started" {
	export PATH="$TOP/tests/fake:$PATH" FAKE_NCU_CSV="$FIX/ncu-h200/detailed-copy.csv"
	printf '#!/bin/sh\nno-such-command-kf\n' >k
	chmod +x k
	run --separate-stderr kf --json ncu -- ./k
	assert_equal "$status" 3
	run jq -r '.analysis.diagnosis[0].kind' <<<"$output"
	assert_output program_failed
}

@test "kf-read of a run that did not start (a record without requires): whose program it was, not 'no report'" {
	jq -cn '{id:"a", profiler:"trace", output_dir:"o", cmd:["./gone"], argv:["./gone"],
		run:{exit_code:127, started:false, message:"cannot run '"'"'./gone'"'"': No such file or directory"}}' >a.json
	jq -cn '{id:"b", profiler:"ncu", output_dir:"o", cmd:["./k"], argv:["/x/kf-ncu","ncu"],
		run:{exit_code:126, started:false, message:"cannot run '"'"'/x/kf-ncu'"'"': not executable (Permission denied)"}}' >b.json
	run --separate-stderr kf-read a.json b.json
	assert_failure 1
	run jq -r '[.id, .error.kind, .error.message] | @tsv' <<<"$output"
	assert_output "$(printf '%s\t%s\t%s\n' a program_not_found "the program did not start: cannot run './gone': No such file or directory" \
		b profiler_not_executable "the profiler's command did not start: cannot run '/x/kf-ncu': not executable (Permission denied)")"
}

@test "kf-run: requires looked up before anything starts, with the job's own PATH and directory; the next job still runs" {
	mkdir bin w
	printf '#!/bin/sh\necho mine\n' >bin/myprof
	chmod +x bin/myprof
	{
		jq -cn --arg w "$T/w" '{id:"a", argv:["touch","ran-a"], cwd:$w, requires:{profiler:"myprof", program:"touch"}}'
		jq -cn --arg w "$T/w" --arg p "$T/bin:/usr/bin:/bin" \
			'{id:"b", argv:["touch","ran-b"], cwd:$w, env:{PATH:$p}, requires:{profiler:"myprof", program:"./k"}}'
		jq -cn --arg w "$T/w" --arg p "$T/bin:/usr/bin:/bin" \
			'{id:"c", argv:["touch","ran-c"], cwd:$w, env:{PATH:$p}, requires:{profiler:"myprof", program:"touch"}}'
	} >jobs
	PATH=/usr/bin:/bin run --separate-stderr "${KF_BIN:-$TOP/bin}/kf-run" -k jobs
	assert_failure 1
	run jq -r '[.id, .error.kind // "-", .error.message // "-", .run.started, .run.exit_code] | @tsv' <<<"$output"
	assert_output "$(printf '%s\n' \
		"a	profiler_not_found	the profiler myprof is not on PATH (/usr/bin:/bin)	false	127" \
		"b	program_not_found	the program $T/w/k ('./k' in $T/w) does not exist	false	127" \
		"c	-	-	true	0")"
	assert_equal "$(ls w)" ran-c
	assert_equal "$stderr" "kf-run: jobs: line 1: the profiler myprof is not on PATH (/usr/bin:/bin)
kf-run: jobs: line 2: the program $T/w/k ('./k' in $T/w) does not exist"
}

@test "ncu not found (under sudo, where kf-run leaves the PATH lookup to root): the hint names no option kf-mcp lacks" {
	jq -cn --arg d "$T/nf" '{id:"n", profiler:"ncu", output_dir:$d, run:{exit_code:127, stdout:"", stderr:"kf-ncu: 69: ncu: not found"}}' >in
	mkdir nf
	run --separate-stderr kf-read in
	assert_failure 1
	run jq -r '[.error.kind, .error.hint] | @tsv' <<<"$output"
	assert_output "$(printf 'profiler_not_found\tinstall NVIDIA Nsight Compute, or add the folder that holds ncu to PATH')"
}

@test "a run that could not start leaves no empty kf-out folders; what was there stays" {
	P=$(bare_path)
	PATH=$P run kf unitrace -- true
	assert_equal "$status" 5
	[ ! -e kf-out ] || fail "left: $(find kf-out)"
	mkdir -p kf-out/mine
	PATH=$P run kf vtune -- true
	assert_equal "$status" 5
	assert_equal "$(cd kf-out && find . | sort | paste -sd' ')" ". ./mine"
	# a folder made for a record that kf-wrap then refused goes again too
	run kf trace -a --bogus -o made -- true
	assert_equal "$status" 1
	[ ! -e made ] || fail "left: $(find made)"
	# kf-run removes only empty folders, and only those kf-wrap made
	PATH=$P kf-wrap -o out ncu -- true >rec
	assert_equal "$(jq -r '[.output_dir, .output_made] | @tsv' rec)" "$(printf 'out/true/ncu.000\tout')"
	: >out/true/ncu.000/kept
	PATH=$P run kf-run -q rec
	assert_equal "$(find out | sort | paste -sd' ')" "out out/true out/true/ncu.000 out/true/ncu.000/kept"
}

@test "-o with a typo: kf-wrap makes only its last folder, as mkdir does, and says so" {
	export PATH="$TOP/tests/fake:$PATH" FAKE_NCU_CSV="$FIX/ncu-h200/detailed-copy.csv"
	printf '#!/bin/sh\necho ran\n' >k
	chmod +x k
	run --separate-stderr kf ncu -o reuslts/today/copy -- ./k
	assert_equal "$status" 1
	assert_output "=== k ===
The job was not run: kf-wrap could not prepare it, so nothing was profiled.

What went wrong (kf-wrap, output_dir): job k: -o reuslts/today/copy: reuslts/today does not exist: kf-wrap makes only the last folder of -o, as mkdir does

What to do: check -o for a typo, or make reuslts/today first (mkdir -p reuslts/today)"
	[ ! -e reuslts ]
	: >afile
	run --separate-stderr kf ncu -o afile/x -- ./k
	assert_line --index 2 "What went wrong (kf-wrap, output_dir): job k: -o afile/x: afile is not a folder: kf-wrap makes only the last folder of -o, as mkdir does"
	assert_line --index 3 "What to do: check -o for a typo: afile is a file"
	# one new level is made, as mkdir would
	run --separate-stderr kf ncu -o results -- ./k
	assert_success
	[ -s results/k/ncu.000/ncu_report.csv ]
}

@test "make demo: the feedback only, no stage's warning in the middle of it" {
	cd "$TOP"
	run --separate-stderr sh examples/demo.sh
	assert_success
	assert_equal "$stderr" ""
	refute_line --regexp '^kf-(read|collate|feedback): '
	assert_line "What went wrong (kf-read, no_kernels): examples/h200/none/ncu.000/ncu_report.csv holds no ncu CSV table: ncu profiled no kernel: ==WARNING== No kernels were profiled."
	assert_line "(kf exited 1: a profile above failed, the one of job none, on purpose)"
}

@test "each problem said once: kf's stages keep record errors off stderr (KF_QUIET_ERRORS); a pipeline of one's own may too" {
	export PATH="$TOP/tests/fake:$PATH"
	printf '#!/bin/sh\necho ran\n' >k
	chmod +x k
	FAKE_NCU_MODE=perm run --separate-stderr kf ncu -- ./k
	assert_equal "$status" 1
	# ncu's own words as it ran (kf shows them live), no stage's
	! grep -E '^kf-(select|wrap|run|read|collate|feedback): ' <<<"$stderr" || fail "$stderr"
	rm -rf kf-out		# each run below in kf-out/k/ncu.000
	FAKE_NCU_MODE=perm run --separate-stderr kf -q ncu -- ./k
	assert_equal "$stderr" ""
	msg="ncu may not read the GPU performance counters: ==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters on the target device 0. For instructions on enabling permissions and to get more information see https://developer.nvidia.com/ERR_NVGPUCTRPERM"
	assert_equal "$(grep -c 'may not read the GPU performance counters' <<<"$output")" 1
	assert_line "What went wrong (kf-read, no_permission): no ncu_report.csv in $T/kf-out/k/ncu.000: $msg"
	# asked for: the stages say it on stderr as well
	rm -rf kf-out
	FAKE_NCU_MODE=perm KF_QUIET_ERRORS=0 run --separate-stderr kf -q ncu -- ./k
	assert_equal "$stderr" "kf-read: line 1: no ncu_report.csv in $T/kf-out/k/ncu.000: $msg"
	# a hand-made pipeline: each stage says its own, unless told not to
	run --separate-stderr sh -c 'kf-wrap ncu -- ./nope | kf-run | kf-read | kf-collate | kf-feedback --text'
	assert_equal "$stderr" "kf-run: line 1: the program $T/nope ('./nope' in $T) does not exist"
	run --separate-stderr sh -c 'export KF_QUIET_ERRORS=1; kf-wrap ncu -- ./nope | kf-run | kf-read | kf-collate | kf-feedback --text'
	assert_equal "$stderr" ""
	assert_line --index 2 "1. Nothing ran: the program $T/nope ('./nope' in $T) does not exist (kf-run, program_not_found); there are no performance numbers. Fix: check the program's path: $T has no nope."
}

# await FILE TEXT: TEXT is in FILE within 20 s (a loaded machine is slow).
await_text() {
	local i
	for i in $(seq 200); do
		grep -qF -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	fail "no '$2' in $1: $(cat "$1")"
}

@test "live output: the program's lines reach kf's stderr while it runs, and the record keeps them" {
	export PATH="$TOP/tests/fake:$PATH" FAKE_NCU_CSV="$FIX/ncu-h200/detailed-copy.csv"
	# prints a line on each stream, then waits for the test to have seen them
	printf '#!/bin/sh\necho "step 1"\necho "warn 1" >&2\ni=0\nwhile [ ! -e go ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done\necho "step 2"\n' >train
	chmod +x train
	kf --json ncu -- ./train >out.json 2>err &
	pid=$!
	await_text err "step 1"
	await_text err "warn 1"
	! grep -q "step 2" err || fail "step 2 before it was printed"
	: >go
	wait "$pid"
	grep -qx "step 2" err
	# kf's end marker (NCU_DONE, which kf-ncu prints) is the record's, not shown
	! grep -q NCU_DONE err || fail "$(cat err)"
	jq -r '.passes[0].run.stdout' out.json | grep -qx NCU_DONE
	assert_equal "$(jq -r '.passes[0].run.stdout' out.json | grep -c '^step [12]$')" 2
	assert_equal "$(jq -r '.passes[0].run.stderr' out.json | grep -c '^warn 1$')" 1
	# -q: nothing shown, the record the same
	: >go
	run --separate-stderr kf -q --json ncu -- ./train
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(jq -r '.passes[0].run.stdout' <<<"$output" | grep -c '^step [12]$')" 2
}

@test "kf-run --live with several jobs at once: whole lines, each after its job's id" {
	{
		jq -cn '{id:"a", argv:["sh","-c","printf \"one\\ntw\"; sleep 0.3; printf \"o\\n\"; echo err >&2"]}'
		jq -cn '{id:"b", pass:"ncu.000", argv:["sh","-c","echo three; printf \"no newline\""]}'
	} >jobs
	run --separate-stderr kf-run -q -j 2 --live jobs
	assert_success
	assert_equal "$(sort <<<"$stderr")" "$(printf '%s\n' "a: err" "a: one" "a: two" "b/ncu.000: no newline" "b/ncu.000: three" | sort)"
	assert_equal "$(jq -r 'select(.id == "a") | .run.stdout' <<<"$output")" "$(printf 'one\ntwo')"
}

@test "--max-chars cuts the least useful first: the rules kf does not rank before the kernel ranking, and says what it cut" {
	cd "$TOP"
	kf-read examples/h200/multi-nvtx.json | kf-collate >"$T/c.json"
	run kf-feedback --text --max-chars 2600 "$T/c.json"
	assert_success
	# the whole ranking
	assert_line "Kernels by total GPU time (5 kernels, 6 launches, 3.90 ms in all):"
	assert_line "5. softmax_k(const float *, float *, int, int): 1.0%, 37.9 µs over 1 launch"
	refute_line --partial "MemoryL2Compression"
	assert_line --index -1 '(Cut to fit 2600 characters, the least useful left out: "Rules ncu reported that kf does not rank"; "Other top kernels"; "GPU time by class of work".)'
	# every budget holds, the note always last when there is one
	full=$(kf-feedback "$T/c.json" | jq -r .feedback)
	for n in $(seq 200 100 3300); do
		t=$(kf-feedback --max-chars "$n" "$T/c.json" | jq -r .feedback)
		[ $(($(printf '%s\n' "$t" | wc -c))) -le "$n" ] || fail "$n: $(printf '%s\n' "$t" | wc -c) bytes"
		[ "$t" != "$full" ] || fail "$n: nothing cut"
		! grep -q '^(Cut to fit' <<<"$(printf '%s\n' "$t" | sed '$d')" || fail "$n: a note not last"
	done
	# (at 400 the first finding alone, 356 bytes whole, leaves no room for it)
	for n in 450 800 1500 2500 3000; do
		kf-feedback --max-chars "$n" "$T/c.json" | jq -j .feedback | tail -1 | grep -q "^(Cut to fit $n characters" ||
			fail "$n: no note"
	done
	run kf-feedback --text --max-chars 800 "$T/c.json"
	assert_line --index -1 "(Cut to fit 800 characters: 9 parts left out.)"
	# with room, nothing is cut and nothing said
	run kf-feedback --max-chars "$(printf '%s\n' "$full" | wc -c)" "$T/c.json"
	assert_equal "$(jq -r .feedback <<<"$output")" "$full"
}

@test "kf-report: a program that crashed or hung is not ok, one never started is said so; the counts say each" {
	cd "$TOP/examples/h200"
	run --separate-stderr kf-report abort.json hang.json missing.json copy.json
	assert_success
	grep -qF '<p class="counts">4 jobs: 1 ok, 2 program failed, 1 not started.</p>' <<<"$output"
	grep -qF '<td class="status st-program-failed">program failed<br><span class="run">exit 6</span></td>' <<<"$output"
	grep -qF '<td class="status st-program-failed">program failed<br><span class="run">inactivity</span></td>' <<<"$output"
	grep -qF '<p class="st-failed">The program could not be started, so nothing ran and nothing was profiled. <span class="kind">program_not_found (kf-read)</span></p>' <<<"$output"
}

@test "a sweep's BASELINE that is not a directory stops make before any job, saying so" {
	printf '#!/bin/sh\necho hi\n' >bench
	chmod +x bench
	jq -cn --arg csv "$FIX/ncu-h200/detailed-copy.csv" \
		'{id:"good", cmd:["./bench"], language:"cuda", arch:"H200", env:{FAKE_NCU_CSV:$csv}}' >jobs.jsonl
	PATH="$TOP/tests/fake:$PATH" run --separate-stderr make -s -f "$TOP/pipelines/sweep.mk" JOBS=jobs.jsonl OUT=out BASELINE=no/such/dir
	assert_equal "$status" 2
	[[ $stderr == *"*** BASELINE=no/such/dir is not a directory: give it an earlier sweep's OUT, or leave BASELINE out.  Stop." ]] || fail "$stderr"
	[ ! -e out/good.json ]
}

@test "saved example records re-read from anywhere: output_dir found above the record's file, which becomes its cwd" {
	run --separate-stderr sh -c 'kf-read "$1" | kf-collate | kf-feedback --text' _ "$TOP/examples/h200/copy.json"
	assert_success
	assert_equal "$output" "$(cat "$TOP/examples/h200/copy.feedback.txt")"
	run sh -c 'kf-read "$1" | jq -r "[.cwd, .output_dir, (.error.kind // \"none\")] | @tsv"' _ "$TOP/examples/h200/copy.json"
	assert_output "$(printf '%s\texamples/h200/copy/ncu.000\tnone' "$TOP")"
	# every record of make demo, from here
	run --separate-stderr kf reread "$TOP/examples/replay.jsonl"
	assert_equal "$status" 1	# job none failed on purpose
	assert_equal "$(grep -c '^=== ' <<<"$output")" 6
	assert_equal "$(grep -c 'is not a readable directory' <<<"$output")" 0
}

@test "kf reread PATH: a saved profile in, feedback out, as kf-mcp's reread (a kf-out folder, a pass folder, records, an .ncu-rep)" {
	export PATH="$TOP/tests/fake:$PATH" FAKE_NCU_CSV="$FIX/ncu-h200/detailed-copy.csv"
	printf '#!/bin/sh\necho ran\n' >k
	chmod +x k
	kf -q ncu -- ./k >first.txt
	for p in kf-out/k kf-out/k/ncu.000 "$T/kf-out/k"; do
		run --separate-stderr kf reread "$p"
		assert_success
		assert_equal "$output" "$(cat first.txt)"
	done
	run --separate-stderr kf --json --no-collated reread kf-out/k
	assert_equal "$(jq -r '[.id, .analysis.status, .analysis.focus.duration_ns, has("collated")] | @tsv' <<<"$output")" "$(printf 'k\tok\t131712\tfalse')"
	# an .ncu-rep is an import: kf ncu --import FILE
	cp "$FIX/ncu-h200/detailed-copy.csv" mine.ncu-rep
	run --separate-stderr kf reread mine.ncu-rep
	assert_success
	assert_line --index 0 "=== mine ==="
	[ -s kf-out/mine/ncu.000/ncu_report.csv ]
	# what is not a saved profile
	mkdir empty
	run --separate-stderr kf reread empty
	assert_equal "$status" 1
	assert_line "What went wrong (kf-read, no_profile): empty is not a kf output directory: it holds no pass folder (ncu.000, unitrace.000, ...) and no job folder with one"
	run --separate-stderr kf reread
	assert_equal "$status" 2
	assert_equal "${stderr%%$'\n'*}" "kf: reread: no saved profile (kf-out/ID, a pass folder, a file of records, an .ncu-rep)"
	run --separate-stderr kf reread kf-out/k mine.ncu-rep
	assert_equal "$status" 2
	run --separate-stderr kf -t 5 reread kf-out/k
	assert_equal "$status" 2
}
