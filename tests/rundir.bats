#!/usr/bin/env bats
# Every run keeps its own outputs: kf-wrap gives a job profiled again a fresh
# output_dir (an empty one that no run wrote into may serve again), never
# writes into a record's own output_dir that holds files, and a baseline
# record stays readable after the job ran again.

load helper

H200="$FIX/ncu-h200"
FAKE="$TOP/tests/fake/ncu"

setup() {
	T="$BATS_TEST_TMPDIR"
	cd "$T"
}

@test "the same job run three times: ID/PASS, then ID/PASS.2, ID/PASS.3, each kept" {
	for i in 1 2 3; do
		d=$(kf-wrap ncu -o 'o u"t' --id k -- ./k | jq -r .output_dir)
		echo "$d" >> dirs
		echo "run $i" > "$d/ncu_report.csv"	# what the profiler leaves
	done
	[ "$(paste -sd, dirs)" = 'o u"t/k/ncu.000,o u"t/k/ncu.000.2,o u"t/k/ncu.000.3' ]
	[ "$(cat 'o u"t/k/ncu.000/ncu_report.csv' 'o u"t/k/ncu.000.3/ncu_report.csv' | paste -sd,)" = 'run 1,run 3' ]
}

@test "a directory no run wrote into is used again: wrapping alone changes nothing" {
	for i in 1 2; do
		kf-wrap ncu -o out --id k -- ./k | jq -r .output_dir
	done > dirs
	[ "$(paste -sd, dirs)" = out/k/ncu.000,out/k/ncu.000 ]
	[ ! -e out/k/ncu.000.2 ]
}

@test "unitrace: the three passes of a second run all get .2" {
	kf-wrap unitrace -o out --id k --language sycl -- ./p | jq -r .output_dir |
		while read -r d; do : > "$d/trace.1"; done
	run sh -c 'kf-wrap unitrace -o out --id k --language sycl -- ./p | jq -r .output_dir | paste -sd,'
	assert_output 'out/k/unitrace.000.2,out/k/unitrace.001.2,out/k/unitrace.002.2'
}

@test "two jobs of one id in one stream, run side by side, get distinct dirs" {
	run sh -c 'printf "%s\n" "{\"id\":\"a\",\"profiler\":\"ncu\",\"cmd\":[\"./x\"]}" \
		"{\"id\":\"a\",\"profiler\":\"ncu\",\"cmd\":[\"./y\"]}" | kf-wrap -o out | jq -r .output_dir | paste -sd,'
	assert_output 'out/a/ncu.000,out/a/ncu.000.2'
}

@test "a record's own output_dir: empty or new is used, one that holds files is refused" {
	mkdir -p empty used
	: > used/ncu_report.csv
	run sh -c 'printf "%s\n" "{\"id\":\"e\",\"profiler\":\"ncu\",\"cmd\":[\"./x\"],\"output_dir\":\"empty\"}" \
		"{\"id\":\"u\",\"profiler\":\"ncu\",\"cmd\":[\"./x\"],\"output_dir\":\"used\"}" \
		"{\"id\":\"n\",\"profiler\":\"ncu\",\"cmd\":[\"./x\"],\"output_dir\":\"new/dir\"}" | kf-wrap'
	[ "$status" -eq 1 ]
	assert_line 'kf-wrap: line 2: job u: output_dir used already holds the outputs of an earlier run'
	run jq -sc 'map([.id, .output_dir, .error.kind, (.argv | type)])' <<<"$(grep '^{' <<<"$output")"
	assert_output '[["e","empty",null,"array"],["u","used","output_dir","null"],["n","new/dir",null,"array"]]'
	[ -d new/dir ]
	[ -f used/ncu_report.csv ] && [ ! -s used/ncu_report.csv ]
}

@test "an output base that is a file: a clear error record, not an endless search" {
	: > file
	run sh -c 'kf-wrap ncu -o file --id k -- ./k'
	[ "$status" -eq 1 ]
	assert_output --partial 'job k: cannot create output_dir file/k/ncu.000: Not a directory'
}

@test "a job profiled twice: the first record still re-reads its own profile, and compares" {
	kf-wrap ncu -o out --tool "$FAKE" --id k -- /bin/true |
		jq -c --arg csv "$H200/detailed-sgemm_naive.csv" '.env.FAKE_NCU_CSV = $csv' |
		kf-run | kf-read | kf-collate | kf-feedback > first.json
	kf-wrap ncu -o out --tool "$FAKE" --id k -- /bin/true |
		jq -c --arg csv "$H200/detailed-copy.csv" '.env.FAKE_NCU_CSV = $csv' |
		kf-run | kf-read | kf-collate | kf-feedback --baseline first.json > second.json
	[ "$(jq -r '.passes[0].output_dir' first.json second.json | paste -sd,)" = out/k/ncu.000,out/k/ncu.000.2 ]
	# re-read the first profile from its output_dir: still sgemm, not copy
	run sh -c "jq -c '{id, profiler, output_dir: .passes[0].output_dir}' first.json | kf-read | kf-collate | kf-feedback | jq -r '.analysis.focus.name'"
	assert_output 'sgemm_naive_k(const float *, const float *, float *, int)'
	run jq -c '.analysis.delta | [.verdict, .total_gpu_time_ns.before, .focus.baseline_name]' second.json
	assert_output '["faster",3134208,"sgemm_naive_k(const float *, const float *, float *, int)"]'
}
