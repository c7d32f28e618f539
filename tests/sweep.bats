#!/usr/bin/env bats
# pipelines/sweep.mk: a dozen jobs through the whole pipeline with make -j4,
# a fake ncu on PATH (tests/fake/ncu) and a fake benchmark program.

load helper

# Twelve good jobs over four recorded reports, one whose program does not
# exist, and one line that is not JSON. Each job says which kernel its
# feedback must name.
make_jobs() {
	local csv=$FIX/ncu-h200 i=0 k
	for k in copy fma sgemm_naive multi copy fma sgemm_naive multi copy fma sgemm_naive multi; do
		i=$((i + 1))
		jq -cn --arg id "$(printf 'k%02d-%s' $i $k)" --arg k "$k" \
			--arg csv "$csv/detailed-$k.csv" --arg log "$SW/bench.log" \
			'{id: $id, cmd: ["./bench", $k], language: "cuda", arch: "H200",
			  env: {FAKE_NCU_CSV: $csv, BENCH_LOG: $log},
			  expect: (if $k == "copy" then "copy_k" elif $k == "fma" then "fma_k"
				   else "sgemm_naive_k" end)}'
	done
	echo '{"id":"broken","cmd":["./no-such-program"],"language":"cuda"}'
	echo 'this line is not JSON'
}

setup_file() {
	export BATS_NO_PARALLELIZE_WITHIN_FILE=true
	SW=$BATS_FILE_TMPDIR/sw
	export SW
	mkdir -p "$SW"
	# The benchmark: logs which GPU it ran on and when, then takes a while.
	cat >"$SW/bench" <<-'EOF'
	#!/bin/sh
	s=$(date +%s%N)
	sleep 0.2
	echo "${CUDA_VISIBLE_DEVICES:-none} $s $(date +%s%N) $1" >>"$BENCH_LOG"
	echo "bench $1 done"
	EOF
	chmod +x "$SW/bench"
	make_jobs >"$SW/jobs.jsonl"
}

sweep() {
	(cd "$SW" && PATH="$TOP/tests/fake:$PATH" make -s -f "$TOP/pipelines/sweep.mk" \
		JOBS=jobs.jsonl OUT=out GPUS="0 1" LOCKDIR="$SW/locks" "$@")
}

@test "a dozen jobs with -j4: every feedback names its kernel, a failing job is reported, the rest finish" {
	run sweep -j4
	assert_success
	cd "$SW"
	# a header, 12 good jobs, the broken one, and the bad line (line 14)
	[ "$(wc -l <out/summary.tsv)" -eq 15 ]
	[ "$(cut -f1 out/summary.tsv | paste -sd' ')" = \
		"id k01-copy k02-fma k03-sgemm_naive k04-multi k05-copy k06-fma k07-sgemm_naive k08-multi k09-copy k10-fma k11-sgemm_naive k12-multi broken line-14" ]
	while read -r line; do
		id=$(jq -r .id <<<"$line") expect=$(jq -r .expect <<<"$line")
		[ -s "out/$id.json" ] && [ -s "out/$id.feedback.txt" ]
		grep -q "Kernel: $expect(" "out/$id.feedback.txt" || { echo "$id: no $expect"; return 1; }
		[ "$(awk -F'\t' -v id="$id" '$1 == id { print $2, $3 }' out/summary.tsv)" = "ncu ok" ]
		[ "$(jq -r .id "out/$id.json")" = "$id" ]
	done < <(grep '"expect"' jobs.jsonl)
	# the profiler's files, per job
	[ -s out/runs/k03-sgemm_naive/k03-sgemm_naive/ncu.000/ncu_report.csv ]
	# top kernel and its share come from the record: multi's sgemm is 86.5% of 3.62 ms
	[ "$(awk -F'\t' '$1 == "k04-multi" { print $4 "|" $5 }' out/summary.tsv)" = \
		"sgemm_naive_k(const float *, const float *, float *, int)|86.5" ]
	[ "$(awk -F'\t' '$1 == "k01-copy" { print $5 }' out/summary.tsv)" = 100 ]
	# the failures: reported in the summary and explained in their feedback
	[ "$(awk -F'\t' '$3 == "failed" { print $1 }' out/summary.tsv | paste -sd' ')" = "broken line-14" ]
	grep -q "^1. Nothing ran: the program .*/no-such-program ('./no-such-program' in .*) does not exist (kf-run, program_not_found)" out/broken.feedback.txt
	grep -q "not JSON" out/line-14.feedback.txt
	run make -s -f "$TOP/pipelines/sweep.mk" JOBS=jobs.jsonl OUT=out failed
	assert_failure
	assert_line --index 0 broken
	assert_line --index 1 line-14
}

@test "-j4 over GPUS=\"0 1\": both GPUs used, never two jobs on one GPU at a time" {
	[ -s "$SW/bench.log" ] || skip "needs the sweep of the first test"
	[ "$(wc -l <"$SW/bench.log")" -eq 12 ]
	[ "$(cut -d' ' -f1 "$SW/bench.log" | sort -u | paste -sd' ')" = "0 1" ]
	# per GPU, sorted by start: each run starts after the one before ended
	run sort -k1,1 -k2,2n "$SW/bench.log"
	echo "$output" | awk '$1 == gpu && $2 < end { print "overlap on GPU " $1; bad = 1 }
		{ gpu = $1; end = $3 } END { exit bad }'
}

# "No file changes" is checked by comparing every file's name, size and
# modification time (to the nanosecond) before and after, not against a
# time stamp: a stamp back-dated to beat coarse file times also predates
# the first sweep's last writes when this test starts within that margin
# of them (issue 12: out and out/summary.tsv "newer" on a fast machine).
snapshot() {
	find out -printf '%p %s %T@\n' | LC_ALL=C sort
}

@test "the sweep's report.html beside summary.tsv: a row per job, the two failures with their reasons" {
	[ -s "$SW/out/summary.tsv" ] || skip "needs the sweep of the first test"
	[ "$(grep -c '^<tr class="ok">' "$SW/out/report.html")" -eq 12 ]
	# broken's program is not there, so it never started: whose failure it was
	[ "$(grep -c '^<tr class="failed">' "$SW/out/report.html")" -eq 1 ]
	[ "$(grep -c '^<tr class="not-started">' "$SW/out/report.html")" -eq 1 ]
	grep -q '^<tr class="not-started">.*<a href="#job-[0-9]*">broken</a>.*<td class="reason" colspan="4">program_not_found: ' \
		"$SW/out/report.html"
	grep -q '<a href="#job-[0-9]*">k01-copy</a>.*<td class="kernel"><span title="copy_k(' "$SW/out/report.html"
}

@test "a second run does nothing: make -q says up to date and no file changes" {
	[ -s "$SW/out/summary.tsv" ] || skip "needs the sweep of the first test"
	cd "$SW"
	before=$(snapshot)
	run sweep -q
	assert_success
	run sweep -j4
	assert_success
	assert_output ""
	after=$(snapshot)
	[ "$before" = "$after" ] || { diff <(echo "$before") <(echo "$after"); return 1; }
}

@test "a changed job is profiled again, and only that one" {
	[ -s "$SW/out/summary.tsv" ] || skip "needs the sweep of the first test"
	cd "$SW"
	sed -i 's/"id":"k05-copy","cmd":\["\.\/bench","copy"\]/"id":"k05-copy","cmd":["\.\/bench","copy","again"]/' jobs.jsonl
	grep -q '"again"' jobs.jsonl
	run sweep -j4
	assert_success
	assert_output "kf-sweep: k05-copy"
	[ "$(jq -c .cmd out/k05-copy.json)" = '["./bench","copy","again"]' ]
	run sweep -q
	assert_success
}

@test "a job removed from the jobs file leaves the summary" {
	[ -s "$SW/out/summary.tsv" ] || skip "needs the sweep of the first test"
	cd "$SW"
	grep -v '"k12-multi"' jobs.jsonl >jobs.new && mv jobs.new jobs.jsonl
	run sweep
	assert_success
	refute_output --partial "kf-sweep: k"
	[ "$(wc -l <out/summary.tsv)" -eq 14 ]
	! grep -q '^k12-multi' out/summary.tsv
	[ ! -e out/jobs/k12-multi.job ]
}

@test "a missing jobs file is a make error that names it" {
	run make -s -f "$TOP/pipelines/sweep.mk" JOBS="$BATS_TEST_TMPDIR/none.jsonl" OUT="$BATS_TEST_TMPDIR/o"
	assert_failure 2
	assert_output --partial "none.jsonl: no such jobs file"
}

@test "the split: a job file is rewritten only when its line changed; odd ids made safe names, repeats -N" {
	cd "$BATS_TEST_TMPDIR"
	printf '%s\n' '{"id":"a","cmd":["x"]}' '' '{"id":"a","cmd":["y"]}' '{"id":"../e vil","cmd":["x"]}' \
		'{"id":7,"cmd":["x"]}' '[1]' '{"id":"with space"}' '{"id":"..."}' '{"id":"x/y:%z"}' >jobs
	run "$TOP/pipelines/kf-sweep-split" jobs d
	assert_success
	assert_output "$(printf 'a\na-3\ne_vil\n7\nline-6\nwith_space\nline-8\nx_y_z')"
	[ "$(cat d/a.job)" = '{"id":"a","cmd":["x"]}' ]
	[ "$(cat d/e_vil.job)" = '{"id":"../e vil","cmd":["x"]}' ]
	[ "$(cat d/with_space.job)" = '{"id":"with space"}' ]
	touch -d '2000-01-01' d/a.job d/7.job
	sed -i 's/"y"/"z"/' jobs
	"$TOP/pipelines/kf-sweep-split" jobs d >/dev/null
	[ "$(stat -c %Y d/a.job)" = "$(date -d 2000-01-01 +%s)" ]
	[ "$(cat d/a-3.job)" = '{"id":"a","cmd":["z"]}' ]
}

@test "kf-gpu-lock: one holder per GPU, the variables set, the lock gone with the holder" {
	cd "$BATS_TEST_TMPDIR"
	run "$TOP/pipelines/kf-gpu-lock" -d locks -g "3" sh -c 'echo "$CUDA_VISIBLE_DEVICES $ZE_AFFINITY_MASK $KF_GPU"'
	assert_success
	assert_output "3 3 3"
	"$TOP/pipelines/kf-gpu-lock" -d locks -g "3" sh -c 'sleep 0.5; date +%s%N >first' &
	sleep 0.2
	"$TOP/pipelines/kf-gpu-lock" -d locks -g "3" sh -c 'date +%s%N >second'
	wait
	[ "$(cat second)" -gt "$(cat first)" ]
	run "$TOP/pipelines/kf-gpu-lock" -g "" true
	assert_failure 2
}

@test "a sweep stopped by timeout -s INT or TERM (the whole group): no *.tmp left, no half-written record" {
	for sig in INT TERM; do
		d=$BATS_TEST_TMPDIR/$sig
		mkdir -p "$d"
		printf '#!/bin/sh\nsleep 30\n' >"$d/slow"
		chmod +x "$d/slow"
		jq -cn --arg csv "$FIX/ncu-h200/detailed-copy.csv" \
			'{id: "slow one", cmd: ["./slow"], language: "cuda", arch: "H200", env: {FAKE_NCU_CSV: $csv}}' >"$d/jobs.jsonl"
		cd "$d"
		run timeout -s "$sig" 3 env PATH="$TOP/tests/fake:$PATH" make -s -f "$TOP/pipelines/sweep.mk" \
			JOBS=jobs.jsonl OUT=out LOCKDIR="$d/locks"
		[ "$status" -ne 0 ]
		[ -f out/jobs/slow_one.job ]
		run find out -name '*.tmp'
		assert_output ''
		[ ! -e out/slow_one.json ]
	done
}

@test "kf-sweep-summary: a missing, broken or empty record, or one that is not an object, is one failed line" {
	d=$BATS_TEST_TMPDIR
	jq -cn '{id: "good", profiler: "ncu", analysis: {status: "ok", ranking: {kernels: [{name: "copy_k", share_pct: 87.25}]},
		diagnosis: [{kind: "memory_bound", impact_pct: 12.5}]}}' >"$d/good.json"
	printf '{"id":"half","analysis":' >"$d/broken.json"
	: >"$d/empty.json"
	echo '[1]' >"$d/list.json"
	run -0 "$TOP/pipelines/kf-sweep-summary" "$d" good missing broken empty list
	assert_equal "${#lines[@]}" 6
	assert_line -n 1 "$(printf 'good\tncu\tok\tcopy_k\t87.3\t-\t-\tmemory_bound\t12.5%% of gpu_time')"
	for n in missing broken empty list; do
		assert_line "$(printf '%s\t-\tfailed\t-\t-\t-\tno record: %s\t-\t-' "$n" "$d/$n.json")"
	done
	# with -b, the same line has the two columns of the comparison
	run -0 "$TOP/pipelines/kf-sweep-summary" -b "$d" missing
	assert_equal "${#lines[@]}" 2
	assert_line -n 1 "$(printf 'missing\t-\tfailed\t-\t-\t-\tno record: %s\t-\t-\t-\t-' "$d/missing.compared.json")"
}
