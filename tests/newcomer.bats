#!/usr/bin/env bats
# What a newcomer trips over (issue 28): what failed said as it is, a
# --focus that matches nothing, units and numbers, records re-read anywhere.
load helper
bats_require_minimum_version 1.5.0

setup() {
	T=$BATS_TEST_TMPDIR
}

first_line() {
	sed -n 2p <<<"$output"
}

@test "a job record given to kf-feedback: it holds no profile, not 'profiling failed'" {
	run --separate-stderr kf-feedback --text <<<'{"id":"j","cmd":["./k"],"language":"cuda"}'
	assert_failure 1
	assert_equal "$(first_line)" "This record holds no profile: it was not run and read (a job or a pass record given to kf-feedback), so there are no performance numbers."
	assert_line "What to do: profile it first: kf-select | kf-wrap | kf-run | kf-read | kf-collate | kf-feedback, or kf PROFILER -- CMD"
	refute_output --partial "Profiling"
}

@test "a line that is not JSON given to kf-feedback: the input was not a record" {
	run --separate-stderr kf-feedback --text <<<'nope'
	assert_failure 1
	assert_output - <<-'EOF'
	kf-feedback could not read this input as a record (it is not a JSON object), so nothing was profiled or analysed for it.

	What went wrong (kf-feedback, bad_json): line 1:1: not JSON
	EOF
}

@test "an output folder kf-wrap cannot make: the job was not run, not 'profiling failed'" {
	run --separate-stderr kf ncu -o /proc/kf-no/such -- true
	assert_failure 1
	assert_line --index 1 "The job was not run: kf-wrap could not prepare it, so nothing was profiled."
	refute_output --partial "Profiling"
}

@test "--focus that matches no kernel: the kernels named in the text and on stderr, status 1" {
	mkdir "$T/o"
	cp "$FIX/ncu-h200/detailed-copy.csv" "$T/o/ncu_report.csv"
	replay c ncu "$T/o" | kf-read | kf-collate >"$T/c.json"
	run --separate-stderr kf-feedback --text --focus nosuchkernel "$T/c.json"
	assert_failure 1
	assert_line --partial 'Why this kernel: no kernel matches --focus "nosuchkernel" (the kernels, most GPU time first: copy_k), so '
	assert_equal "$stderr" "kf-feedback: $T/c.json: line 1: --focus \"nosuchkernel\" matches no kernel; the feedback is about the one with the most GPU time. Kernels: copy_k"
	run kf-feedback --text --focus copy "$T/c.json"
	assert_success
}

@test "units and numbers: µs as the report page says it, one decimal for every share, bytes per block" {
	run kf-feedback --text "$FIX/report/copy.json"
	assert_line 'The numbers below are from its longest launch of 2 (ID 0, process 1037 bench), duration 131.7 µs.'
	assert_line --partial 'registers per thread 16, static shared memory per block 0 bytes, dynamic shared memory per block 0 bytes, waves per SM 1.'
	# ncu's rule speedups (93.83 in the input) as the text states every
	# share; HighPipeUtilization, which kf does not rank
	# (share/kf/ncu_rules.tsv), listed apart after the ranked rules
	assert_line --partial '- [OPT] HighPipeUtilization (estimated local speedup 93.8%): '
	run jq -r '.analysis.rules[] | select(.name == "HighPipeUtilization") | .speedup' "$FIX/report/copy.json"
	assert_output 93.83
}

@test "a speedup of 0.07239% (fma on the H200) reads 0.1%, and one of 0.01% reads < 0.05%" {
	mkdir "$T/o" "$T/c"
	cp "$FIX/ncu-h200/detailed-fma.csv" "$T/o/ncu_report.csv"
	replay f ncu "$T/o" | kf-read | kf-collate | kf-feedback --text >"$T/t"
	grep -F 'MemoryL2Compression (estimated global speedup 0.1%)' "$T/t"
	cp "$FIX/ncu-h200/detailed-copy.csv" "$T/c/ncu_report.csv"
	replay c ncu "$T/c" | kf-read | kf-collate |
		jq -c '(.collated.kernels[0].rules[] | select(.name == "MemoryL2Compression") | .speedup) = 0.01' |
		kf-feedback --text >"$T/t"
	grep -F 'MemoryL2Compression (estimated global speedup < 0.05%)' "$T/t"
}

@test "records re-read anywhere: kf-wrap records the directory a relative output_dir is in, kf-read resolves it from anywhere" {
	cd "$T"
	mkdir w elsewhere
	printf '#!/bin/sh\necho ran\n' >w/k
	chmod +x w/k
	export PATH="$TOP/tests/fake:$PATH" FAKE_NCU_CSV="$FIX/ncu-h200/detailed-copy.csv"
	(cd w && kf-wrap ncu -o rel --id j -- ./k | kf-run >../run.json)
	run jq -r '[.output_dir, .cwd] | @tsv' run.json
	assert_output "$(printf 'rel/j/ncu.000\t%s' "$T/w")"
	cd elsewhere
	run bash -c 'kf-read ../run.json | kf-collate | kf-feedback | jq -r "[.analysis.status, .analysis.focus.duration_ns] | @tsv"'
	assert_output $'ok\t131712'
	# An absolute -o needs no cwd.
	(cd ../w && kf-wrap ncu -o "$T/abs" --id j -- ./k) | jq -e 'has("cwd") | not'
}

@test "a relative output_dir in a replay record still reads from where it is run (fixtures replayed from the repository)" {
	cd "$TOP"
	run bash -c 'jq -cn "{id:\"r\", profiler:\"ncu\", output_dir:\"tests/fixtures/ncu-h200-pages/sgemm_naive\"}" |
		kf-read | jq -r "[.output_dir, (.error.kind // \"none\")] | @tsv"'
	assert_output $'tests/fixtures/ncu-h200-pages/sgemm_naive\tnone'
}

@test "kf stopped by timeout -s INT or TERM (the whole group): the feedback says what ran and what was lost, status 130 or 143" {
	cd "$T"
	printf '#!/bin/sh\necho started\nsleep 30\n' >slow
	chmod +x slow
	export PATH="$TOP/tests/fake:$PATH" FAKE_NCU_CSV="$FIX/ncu-h200/detailed-copy.csv"
	for sig in INT TERM; do
		run --separate-stderr timeout --preserve-status -s "$sig" 2 kf ncu -o "o$sig" -- ./slow
		[ "$status" -eq $((128 + $(kill -l "$sig"))) ]
		assert_line --index 0 "=== slow ==="
		assert_line --index 1 "The run was interrupted before ncu wrote anything complete, so there are no performance numbers for it."
		# kf-ncu, stopped too, dies of the signal or, inside its detailed
		# run, exits 143 after saying so: either ends the run
		assert_line --regexp "^What went wrong \(kf-read, stopped\): the run did not finish: kf-run was interrupted and stopped it after [0-9.]+ s \(kf-run was stopped by SIG$sig: ended with SIGTERM; (killed by SIGTERM|exited with status 143)\); ncu had nothing complete to read: no ncu_report.csv in $T/o$sig/slow/ncu.000\$"
		assert_line "What to do: run it again with the time it needs: the interrupt came before ncu wrote its outputs (kf-run's own --timeout ends a run and still keeps what the profiler finished)"
		[[ $stderr == *"kf: stopped by SIG$sig: the feedback above says what ran and what was lost"* ]]
	done
}

@test "kf-run stopped by a signal to the group: the finished job's record is whole, the one running and the one queued say so" {
	cd "$T"
	printf '#!/bin/sh\nsleep 30\n' >slow
	chmod +x slow
	{
		jq -cn '{id:"done", argv:["echo","fine"]}'
		jq -cn '{id:"running", argv:["./slow"]}'
		jq -cn '{id:"queued", argv:["echo","never"]}'
	} >jobs
	run timeout --preserve-status -s INT 2 sh -c 'exec kf-run -q -j 1 jobs >out.json'
	[ "$status" -eq 130 ]
	# The one running is written when it has ended, after the queued one.
	run jq -c '[.id, .run.ended_by, .run.stdout, .error.kind]' out.json
	assert_output - <<-'EOF'
	["done","exit","fine\n",null]
	["queued",null,null,"interrupted"]
	["running","interrupted","",null]
	EOF
}

@test "kf ncu --import FILE.ncu-rep: a report from the user's own ncu run, its pages exported with ncu -i, the feedback" {
	cd "$T"
	P=$FIX/ncu-h200-pages/sgemm_naive
	# The fake ncu's report is the details page it holds (tests/fake/ncu).
	cp "$P/ncu_report.csv" mine.ncu-rep
	export PATH="$TOP/tests/fake:$PATH" FAKE_NCU_RAW="$P/ncu_raw.csv" FAKE_NCU_SOURCE="$P/ncu_source.csv"
	FAKE_NCU_ARGV=$T/argv run --separate-stderr kf --json ncu --import mine.ncu-rep
	assert_success
	run jq -r '[.id, .analysis.status, .import, (.passes[0].output_dir // .output_dir)] | @tsv' <<<"$output"
	assert_output "$(printf 'mine\tok\t%s\tkf-out/mine/ncu.000' "$T/mine.ncu-rep")"
	for f in ncu_report.csv ncu_raw.csv ncu_source.csv; do [ -s "kf-out/mine/ncu.000/$f" ]; done
	grep -Fx -- '-i' argv
	[ "$(grep -c -- '--page' argv)" -ge 3 ]
	# No run of a program: ncu only ever imports.
	! grep -Fx -- '-o' argv
	run --separate-stderr kf ncu --import no-such.ncu-rep
	assert_failure 1
	assert_line --index 1 "The job was not run: kf-wrap could not prepare it, so nothing was profiled."
	assert_line "What went wrong (kf-wrap, bad_record): --import no-such.ncu-rep: No such file or directory"
	run kf ncu --import mine.ncu-rep -- ./k
	assert_failure 2
}
