#!/usr/bin/env bats
# kf-feedback --timings (kf --timings): where a record's time went, each
# number with the field it comes from: kf-run's run of each pass and the
# profiler's own account (collated.timings; for ncu kf-ncu's
# ncu_timings.json).

load helper

FAKE="$TOP/tests/fake/ncu"

setup() {
	T=$BATS_TEST_TMPDIR
	cd "$T" || exit 1
}

@test "--timings on a record of known numbers: the whole table, each part under its whole, unknown keys kept, counts and flags said" {
	jq -cn '{id: "gpt2", profiler: "ncu",
		passes: [{pass: "ncu.000", run: {elapsed_s: 25.55, exit_code: 0}}],
		collated: {kernel_count: 0, kernels: [], timing: {detailed_run: {timing: "trace"}},
			timings: {total_s: 25.47, timing_run_s: 16.3, choose_s: 0.03, listen_wait_s: 0.02,
				timing_before_range_s: 0.4,
				gpu_wait_s: 1.5, range_wait_s: 0.75, detailed_s: 5.73, ncu_connect_s: 0.53,
				to_first_profiled_s: 3.09, profiling_s: 2.05, after_last_profiled_s: 0.04,
				program_under_ncu_s: 5.1, before_range_s: 2.5,
				exports_s: 1.46, export_details_s: 1.104, export_raw_s: 0.9,
				gpu_held_s: 6.2, gpu_shared_s: 2.9, mystery_s: 0.5, launches_profiled: 3, replay_passes: 69,
				range_unseen: 2, note: "not a number"}}}' >"$T/r.json"
	run -1 kf-feedback --timings "$T/r.json"
	assert_output "=== gpt2 ===
Where the time went, in seconds:
    25.55  the whole run under kf-run (passes[0].run.elapsed_s)
    25.47  kf-ncu in all (collated.timings.total_s)
    16.30    the timing run: the program alone, under kf's tracer (collated.timings.timing_run_s)
     0.40      of it, its work before its profiler range, the GPU's lock shared with other jobs (collated.timings.timing_before_range_s)
     0.03    choosing the kernels from it (collated.timings.choose_s)
     0.02    after the timing run, the wait for the held program to listen (collated.timings.listen_wait_s)
     1.50    waiting for a sweep's GPU lock (collated.timings.gpu_wait_s)
     0.75      of it, the program's profiler range waiting for the GPU alone (collated.timings.range_wait_s)
     5.73    the detailed run: ncu's start or attach to its end, less the waits (collated.timings.detailed_s)
     0.53      ncu's start, to the program connected (collated.timings.ncu_connect_s)
     3.09      the program's run to its first profiled launch, that launch's replays included (collated.timings.to_first_profiled_s)
     2.05      the other profiled launches, with their replays (collated.timings.profiling_s)
     0.04      after the last profiled launch, to the program's end (collated.timings.after_last_profiled_s)
     5.10      the program under ncu, to its end (the GPU's part) (collated.timings.program_under_ncu_s)
     2.50        of it, its work before its profiler range asked for the GPU, beside other jobs (collated.timings.before_range_s)
     1.46    the exports of ncu's pages, side by side (collated.timings.exports_s)
     1.10      the longest export of the details page (collated.timings.export_details_s)
     0.90      the longest export of the raw page (collated.timings.export_raw_s)
     6.20    the GPU held alone under a sweep's lock: what paces a sweep (the sum over its jobs) (collated.timings.gpu_held_s)
     2.90    the GPU's lock held shared: the program's own GPU work outside its profiler ranges, beside other jobs' such work, never beside a range (collated.timings.gpu_shared_s)
     0.50    mystery_s (collated.timings.mystery_s)
kf-ncu's time beyond the timing run: 9.17 s (total_s less timing_run_s).
ncu profiled 3 launches (launches_profiled) in 69 replay passes (replay_passes), 23.0 a launch.
The range gate found 2 runs not gated (a launch profiled before the program's profiler range asked for the GPU alone, or a timing run in which no range asked), each taken again with the GPU held alone (range_unseen).
kf-read, kf-collate and kf-feedback come after these and are not in them."
	# the exit status is the feedback's (no kernel in it: 1)
	run -1 kf-feedback -t "$T/r.json"
	run -1 kf-feedback --timings "$T/r.json"
}

@test "--timings on a real chain (fake ncu, --top 2): every number of ncu_timings.json shown once, with its field and its value" {
	export FAKE_NCU_ARGV="$T/argv" FAKE_NCU_TIMING="$FIX/ncu-h200/detailed-multi.csv" FAKE_NCU_CSV="$FIX/ncu-h200/detailed-multi.csv"
	kf-wrap ncu --id tm -o "$T/o" --tool "$FAKE" --top 2 -- /bin/echo ran | kf-run -q -t 60 >"$T/tm.run"
	kf-read <"$T/tm.run" | kf-collate >"$T/tm.col"
	kf-feedback --timings "$T/tm.col" >"$T/out"
	D="$T/o/tm/ncu.000"
	# each seconds field of the file: one line with its value to 2 decimals
	# (as a double rounds it: awk, not the shell's long double)
	for k in $(jq -r 'to_entries[] | select(.key | endswith("_s")) | .key' "$D/ncu_timings.json"); do
		v=$(jq -r --arg k "$k" '.[$k]' "$D/ncu_timings.json")
		run grep -c "(collated.timings.$k)\$" "$T/out"
		assert_output 1
		run grep "(collated.timings.$k)\$" "$T/out"
		assert_output --regexp "^ +$(awk -v v="$v" 'BEGIN { printf "%.2f", v }')  "
	done
	run grep -c 'collated.timings' "$T/out"
	assert_output "$(jq '[to_entries[] | select(.key | endswith("_s"))] | length' "$D/ncu_timings.json")"
	run grep '^ncu profiled' "$T/out"
	assert_output "ncu profiled $(jq .launches_profiled "$D/ncu_timings.json") launches (launches_profiled) in $(jq .replay_passes "$D/ncu_timings.json") replay passes (replay_passes), 15.0 a launch."
	run grep 'the timing run' "$T/out"
	assert_output --partial 'the timing run: the program under ncu, timing every launch (collated.timings.timing_run_s)'
	# kf --timings reread: the same table from the saved profile (kf-run's own
	# line is not saved with it)
	run kf --timings reread "$T/o/tm"
	assert_success
	assert_output "$(grep -v 'passes\[0\]' "$T/out")"
}

@test "--timings of several passes (unitrace), of a failed run and of a record with no run: what there is, or that nothing was recorded" {
	{
		jq -cn '{id: "u", profiler: "unitrace", collated: {}, passes: [
			{pass: "unitrace.000", run: {elapsed_s: 1.5}}, {pass: "unitrace.001", run: {elapsed_s: 2}}]}'
		jq -cn '{id: "gone", profiler: "ncu", cmd: ["./nope"],
			error: {stage: "kf-run", kind: "program_not_found", message: "no ./nope"}}'
		jq -cn '{id: "slow", profiler: "ncu", cmd: ["./k"], run: {elapsed_s: 60.25, exit_code: 1},
			error: {stage: "kf-read", kind: "no_report", message: "no report"}}'
	} >"$T/in"
	run -5 kf-feedback --timings "$T/in"
	assert_output "=== u ===
Where the time went, in seconds:
     1.50  pass unitrace.000, its whole run under kf-run (passes[0].run.elapsed_s)
     2.00  pass unitrace.001, its whole run under kf-run (passes[1].run.elapsed_s)
kf-read, kf-collate and kf-feedback come after these and are not in them.

=== gone ===
Where the time went: not recorded (the record has no run.elapsed_s and no profiler's account, collated.timings).

=== slow ===
Where the time went, in seconds:
    60.25  the whole run under kf-run (run.elapsed_s)
kf-read, kf-collate and kf-feedback come after these and are not in them."
}

@test "--timings of a number no run could take: in %g, not hundreds of digits" {
	jq -cn '{id: "big", profiler: "ncu", collated: {timings: {total_s: 1e300, startup_s: 12345678.9, odd_s: -2e9}}}' >"$T/in"
	run kf-feedback --timings "$T/in"
	assert_line '   1e+300  kf-ncu in all (collated.timings.total_s)'
	assert_line " 1.23e+07    the program's start-up, to its first CUDA call, where ncu holds it (collated.timings.startup_s)"
	assert_line '   -2e+09    odd_s (collated.timings.odd_s)'
	refute_output --regexp '[0-9]{12}'
}

@test "kf --timings and --json together: a usage error before anything runs" {
	run -2 kf --timings --json ncu -- touch "$T/ran"
	assert_line --index 0 "kf: --json and --timings: the record holds its timings (collated.timings); choose one"
	assert [ ! -e "$T/ran" ]
	run -2 kf --json ncu --timings -- touch "$T/ran"
	assert [ ! -e "$T/ran" ]
}

@test "kf-report: each job's page section folds the same table, for a profiled job and a failed one" {
	export FAKE_NCU_ARGV="$T/argv" FAKE_NCU_TIMING="$FIX/ncu-h200/detailed-multi.csv" FAKE_NCU_CSV="$FIX/ncu-h200/detailed-multi.csv"
	kf-wrap ncu --id tm -o "$T/o" --tool "$FAKE" --top 2 -- /bin/echo ran | kf-run -q -t 60 >"$T/tm.run"
	{
		kf-read <"$T/tm.run" | kf-collate | kf-feedback || true
		jq -cn '{id: "slow", profiler: "ncu", cmd: ["./k"], run: {elapsed_s: 60.25, exit_code: 1},
			error: {stage: "kf-read", kind: "no_report", message: "no report"}}' | kf-feedback || true
	} >"$T/final"
	kf-report "$T/final" >"$T/page.html"
	run grep -c '<details class="timings"><summary>Where the time went, in seconds</summary><pre>' "$T/page.html"
	assert_output 2
	# a job with nothing recorded has no fold
	jq -cn '{id: "none", profiler: "ncu", error: {stage: "kf-run", kind: "program_not_found", message: "m"}}' |
		kf-feedback >"$T/none" || true
	kf-report "$T/none" >"$T/none.html"
	run grep -c 'class="timings"' "$T/none.html"
	assert_output 0
	total=$(jq -r 'select(.id == "tm") | .collated.timings.total_s' "$T/final")
	run grep -c "$(awk -v v="$total" 'BEGIN { printf "%.2f", v }')  kf-ncu in all (collated.timings.total_s)" "$T/page.html"
	assert_output 1
	run grep -c '60.25  the whole run under kf-run (run.elapsed_s)' "$T/page.html"
	assert_output 1
}

@test "kf-sweep-times: a missing, a broken and an empty record are one line of - each; the sums are the others'" {
	jq -cn '{id: "ok", passes: [{run: {elapsed_s: 2.5}}],
		collated: {timings: {startup_s: 1, gpu_wait_s: 0.5, detailed_s: 1.25, program_under_ncu_s: 1,
			exports_s: 0.3, launches_profiled: 2, replay_passes: 46, gpu_held_s: 1.1,
			replay_host_backups: 3, gpu_shared_s: 0.75}}}' >"$T/ok.json"
	printf '{"id":"half","collated":' >"$T/broken.json"
	: >"$T/empty.json"
	run -0 "$TOP/pipelines/kf-sweep-times" "$T" ok missing broken empty
	assert_equal "${#lines[@]}" 6
	assert_line -n 1 "$(printf 'ok\t2.5\t1\t0.5\t1.25\t1\t0.3\t-\t2\t46\t23\t1.1\t3\t0.75')"
	assert_line -n 2 "$(printf 'missing\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-')"
	assert_line -n 3 "$(printf 'broken\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-')"
	assert_line -n 4 "$(printf 'empty\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-')"
	assert_line -n 5 "$(printf 'all\t2.50\t1.00\t0.50\t1.25\t1.00\t0.30\t-\t2.00\t46.00\t23.00\t1.10\t3\t0.75')"
}
