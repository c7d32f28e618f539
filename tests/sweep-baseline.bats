#!/usr/bin/env bats
# pipelines/sweep.mk BASELINE=DIR: a sweep compared with an earlier one, job
# by job, without profiling again; summary.tsv gains speedup and verdict.
# The fake ncu (tests/fake) writes recorded H200 reports (sgemm_naive, copy,
# fma from tests/fixtures/ncu-h200).

load helper

# jobs FILE ID=REPORT...: one cuda job per pair, the fake ncu writing REPORT.
jobs() {
	local f=$1 p
	shift
	for p in "$@"; do
		jq -cn --arg id "${p%%=*}" --arg csv "$FIX/ncu-h200/detailed-${p#*=}.csv" \
			'{id: $id, cmd: ["true"], language: "cuda", arch: "H200", env: {FAKE_NCU_CSV: $csv}}'
	done > "$f"
}

sweep() {
	(cd "$T" && PATH="$TOP/tests/fake:$PATH" make -s -f "$TOP/pipelines/sweep.mk" \
		LOCKDIR="$T/locks" "$@")
}

setup() {
	T="$BATS_TEST_TMPDIR"
	jobs "$T/old.jsonl" a=sgemm_naive b=copy c=fma
	jobs "$T/new.jsonl" a=copy b=copy d=fma
	sweep JOBS=old.jsonl OUT=old > /dev/null
}

@test "BASELINE=DIR: speedup and verdict per job in summary.tsv, '-' for a job the baseline lacks" {
	run sweep JOBS=new.jsonl OUT=new BASELINE=old
	assert_success
	run cut -f1,8,9 "$T/new/summary.tsv"
	assert_output "$(printf 'id\tspeedup\tchange\na\t23.8\tfaster\nb\t1\tunchanged\nd\t-\t-')"
	run jq -r '.analysis.delta | "\(.total_gpu_time_ns.before) \(.total_gpu_time_ns.after)"' "$T/new/a.compared.json"
	assert_output '3134208 131712'
	# the diagnosis leads; the comparison comes right after it
	run grep -m1 '^Compared with the baseline' "$T/new/a.compared.txt"
	assert_output 'Compared with the baseline (old/a.json): 23.80x faster in total GPU time (3.13 ms -> 131.7 µs).'
	# up to date: a second run compares nothing again
	run sweep -q JOBS=new.jsonl OUT=new BASELINE=old
	assert_success
	run grep -m1 '^No comparison with the baseline' "$T/new/d.compared.txt"
	assert_output 'No comparison with the baseline: cannot open old/d.json: No such file or directory.'
}

@test "BASELINE changes redo the comparisons only; without it the summary has its nine columns" {
	sweep JOBS=new.jsonl OUT=new BASELINE=old > /dev/null
	ls -l --time-style=+%s.%N "$T"/new/runs/*/*/ > "$T/runs.before"
	jobs "$T/old.jsonl" a=copy b=sgemm_naive c=fma
	sweep JOBS=old.jsonl OUT=old > /dev/null
	run sweep JOBS=new.jsonl OUT=new BASELINE=old
	assert_success
	run cut -f1,8,9 "$T/new/summary.tsv"
	assert_output "$(printf 'id\tspeedup\tchange\na\t1\tunchanged\nb\t23.8\tfaster\nd\t-\t-')"
	# no job profiled again
	ls -l --time-style=+%s.%N "$T"/new/runs/*/*/ > "$T/runs.after"
	cmp "$T/runs.before" "$T/runs.after"
	run sweep JOBS=new.jsonl OUT=new
	assert_success
	[ "$(awk -F'\t' '{ print NF }' "$T/new/summary.tsv" | sort -u)" = 9 ]
	# the first finding and its stake, last
	run cut -f1,8,9 "$T/new/summary.tsv"
	assert_line -n 0 "$(printf 'id\tlever\tstake')"
}

@test "BASELINE equal to OUT is refused" {
	run sweep JOBS=new.jsonl OUT=old BASELINE=old
	assert_failure
	assert_output --partial 'BASELINE=old is OUT itself'
}

@test "BASELINE=DIR: report.html draws the compared records, their speedups and a job without a baseline" {
	run sweep JOBS=new.jsonl OUT=new BASELINE=old
	assert_success
	sp=$(jq '.analysis.delta.speedup' "$T/new/a.compared.json")
	grep -qF "<a href=\"#job-1\">a</a>" "$T/new/report.html"
	grep -qF "<td class=\"speedup num\">$(printf '%.3g' "$sp")× faster</td>" "$T/new/report.html"
	grep -qF '<td class="speedup num">1× unchanged</td>' "$T/new/report.html"
	grep -qF '<p class="delta none">No comparison with a baseline: cannot open old/d.json: No such file or directory</p>' \
		"$T/new/report.html"
	[ "$(tr '\n' ' ' <"$T/new/report.html" | perl -ne 'print $1 if m{(<figure class="speedups">.*?</figure>)}' |
		grep -o '<g class="row">' | wc -l)" -eq 2 ]
}
