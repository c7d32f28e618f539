#!/usr/bin/env bats
# pipelines/kf-slurm and slurm.sbatch against a real one-node Slurm cluster
# that this file starts (as root: munged, slurmctld, slurmd; two GRES gpus)
# and stops by pid: submitted from the user's own directory, every task's
# record and GPU, a sweep killed half-way finished without redoing done
# tasks, an installed kf, a request the node can never meet.

load helper
load slurm
bats_require_minimum_version 1.5.0

setup_file() {
	export BATS_NO_PARALLELIZE_WITHIN_FILE=true
	SL_WHY=$(slurm_why_not)
	export SL_WHY
	[ -z "$SL_WHY" ] || return 0
	# A short path: munged's socket name must fit in sockaddr_un.
	SL=$(mktemp -d /tmp/kf-slurm.XXXXXX)
	export SL
	slurm_start "$SL/c" || { slurm_stop "$SL/c"; return 1; }
}

teardown_file() {
	[ -n "${SL:-}" ] || return 0
	slurm_stop "$SL/c"
	rm -rf "$SL"
}

need_slurm() {
	[ -z "$SL_WHY" ] || skip "no Slurm cluster: $SL_WHY"
}

# The user's directory (not the clone) holds a benchmark that logs its job
# id, the GPU it saw and the GPU Slurm's controller gave its task, and
# jobs.jsonl: copy, fma, sgemm_naive and a program that does not exist.
setup() {
	cd "$BATS_TEST_TMPDIR"
	PATH="$TOP/tests/fake:$PATH"
	cat >bench <<-'EOF'
	#!/bin/sh
	idx=$(scontrol show job -d "$SLURM_JOB_ID" | sed -n 's/.*GRES=gpu[^ ]*(IDX:\([0-9,-]*\)).*/\1/p')
	echo "$1 ${CUDA_VISIBLE_DEVICES:-none} ${idx:-none}" >>"$GPU_LOG"
	while [ -e "$HOLD" ]; do sleep 0.2; done
	echo "bench $1"
	EOF
	chmod +x bench
	local k i=0
	for k in copy fma sgemm_naive; do
		i=$((i + 1))
		jq -cn --arg id "s$i-$k" --arg k "$k" --arg csv "$FIX/ncu-h200/detailed-$k.csv" \
			--arg log "$PWD/gpus.log" --arg hold "$PWD/hold-$k" \
			'{id: $id, cmd: ["./bench", $k], language: "cuda",
			  env: {FAKE_NCU_CSV: $csv, GPU_LOG: $log, HOLD: $hold}}'
	done >jobs.jsonl
	echo '{"id":"gone","cmd":["./gone"],"language":"cuda"}' >>jobs.jsonl
}

@test "kf-slurm -w from the user's directory: every task's record, on the GPU Slurm gave it" {
	need_slurm
	run --separate-stderr "$TOP/pipelines/kf-slurm" -w jobs.jsonl out
	# the job that cannot start fails its task, and kf-slurm says so
	assert_failure 1
	[[ "$stderr" == *"kf-slurm: missing: 4 of 4 (tasks 1-4)"* ]]
	[[ "$stderr" == *"kf-slurm: done: 3 of 4 (tasks 1-3)"* ]]
	[[ "$stderr" == *"kf-slurm: failed: 1 of 4 (tasks 4)"* ]]
	[[ "$stderr" == *"kf-slurm: task 4 (gone): kf-run program_not_found: the program $PWD/gone ('./gone' in $PWD) does not exist"* ]] || fail "$stderr"
	[ "$(cat out/{1,2,3,4}.json | jq -r .id | paste -sd' ')" = "s1-copy s2-fma s3-sgemm_naive gone" ]
	[ "$(cat out/{1,2,3}.json | jq -r '.analysis.ranking.kernels[0].name | split("(")[0]' | paste -sd' ')" = \
		"copy_k fma_k sgemm_naive_k" ]
	grep -q "Kernel: fma_k(" out/2.feedback.txt
	jq -r .error.message out/4.json | grep -q "does not exist"
	grep -q "^1. Nothing ran: the program .*/gone (../gone. in .*) does not exist (kf-run, program_not_found)" out/4.feedback.txt
	[ "$(sed -n 2p jobs.jsonl)" = "$(cat out/2.job)" ]
	[ -d out/runs/3/s3-sgemm_naive/ncu.000 ]
	# each program saw the one GPU that slurmctld allocated to its task
	[ "$(wc -l <gpus.log)" -eq 3 ]
	[ "$(cut -d' ' -f1 gpus.log | sort | paste -sd' ')" = "copy fma sgemm_naive" ]
	local k gpu idx
	while read -r k gpu idx; do
		[ "$gpu" = "$idx" ]
		[ "$gpu" = 0 ] || [ "$gpu" = 1 ]
	done <gpus.log
	# the task's log names the pipeline it found beside kf-slurm
	grep -q "kf: task 1 on .*, GPU [01]: $TOP/pipelines/kf-pipeline" out/1.log
}

@test "a sweep killed half-way: kf-slurm submits only the tasks that failed or are missing" {
	need_slurm
	: >hold-fma
	run "$TOP/pipelines/kf-slurm" jobs.jsonl out
	assert_success
	assert_output --partial "kf-slurm: submitted job"
	id=$(cat out/.slurm-job)
	local i
	for i in $(seq 150); do
		[ -s out/1.json ] && [ -s out/3.json ] && [ -s out/4.json ] && grep -q '^fma' gpus.log && break
		sleep 0.2
	done
	[ -s out/1.json ] && [ -s out/3.json ]
	# while task 2 runs, a second submission is refused
	run "$TOP/pipelines/kf-slurm" jobs.jsonl out
	assert_failure 1
	assert_output --partial "job $id, submitted for out, still has tasks queued or running"
	scancel "$id"
	for i in $(seq 100); do
		[ -z "$(squeue -h -j "$id" -o %i 2>/dev/null)" ] && break
		sleep 0.1
	done
	[ -z "$(squeue -h -j "$id" -o %i 2>/dev/null)" ]
	[ ! -e out/2.json ]
	# and it left no half-written files
	[ -z "$(find out -maxdepth 1 -name '.2.*')" ]
	cp out/1.json one.json
	rm hold-fma
	# now the missing task 2 and the failed task 4 (its program now exists)
	printf '#!/bin/sh\necho "gone $*"\n' >gone
	chmod +x gone
	: >gpus.log
	FAKE_NCU_CSV=$FIX/ncu-h200/detailed-copy.csv \
		run --separate-stderr "$TOP/pipelines/kf-slurm" -w jobs.jsonl out
	assert_success
	[[ "$stderr" == *"kf-slurm: done: 2 of 4 (tasks 1,3)"* ]]
	[[ "$stderr" == *"kf-slurm: failed: 1 of 4 (tasks 4)"* ]]
	[[ "$stderr" == *"kf-slurm: missing: 1 of 4 (tasks 2)"* ]]
	[[ "$stderr" == *"kf-slurm: done: 4 of 4 (tasks 1-4)"* ]]
	[ "$(cut -d' ' -f1 gpus.log)" = fma ]
	cmp one.json out/1.json
	[ "$(jq -r .id out/2.json)" = s2-fma ]
	[ "$(jq -r 'has("error")' out/4.json)" = false ]
	# all done: nothing is submitted
	run "$TOP/pipelines/kf-slurm" -w jobs.jsonl out
	assert_success
	assert_output --partial "nothing to submit: every task is done"
	# a changed line runs again, and -a runs them all
	sed -i '3s/s3-sgemm_naive/s3-renamed/' jobs.jsonl
	run "$TOP/pipelines/kf-slurm" -n jobs.jsonl out
	assert_success
	assert_output --partial "kf-slurm: changed: 1 of 4 (tasks 3)"
	assert_output --partial "would run: sbatch --array=3 "
	run "$TOP/pipelines/kf-slurm" -n -a -m 2 jobs.jsonl out -c 1
	assert_output --partial "would run: sbatch --array=1-4%2 --output=out/%a.log -c 1 "
}

@test "sbatch slurm.sbatch by its path, without kf-slurm, finds kf-pipeline next to it" {
	need_slurm
	run sbatch --wait --array=2 --output=sb-%a.log "$TOP/pipelines/slurm.sbatch" jobs.jsonl "o u t"
	assert_success
	[ "$(jq -r .id "o u t/2.json")" = s2-fma ]
	grep -q "kf: task 2 on .*: $TOP/pipelines/kf-pipeline" sb-2.log
}

@test "an installed kf: a copy of slurm.sbatch in the user's directory finds PREFIX/share/kf/pipelines" {
	need_slurm
	mkdir -p pre/bin pre/share/kf/pipelines
	cp "$TOP"/bin/kf-* pre/bin/
	cp "$TOP"/pipelines/* pre/share/kf/pipelines/
	cp "$TOP/pipelines/slurm.sbatch" mine.sbatch
	PATH=$PWD/pre/bin:$TOP/tests/fake:/usr/bin:/bin \
		run sbatch --wait --array=1 --output=mine-%a.log ./mine.sbatch jobs.jsonl o
	assert_success
	[ "$(jq -r '.analysis.ranking.kernels[0].name | split("(")[0]' o/1.json)" = copy_k ]
	grep -q "kf: task 1 on .*: $PWD/pre/share/kf/pipelines/kf-pipeline" mine-1.log
}

@test "a request the node can never meet is refused before submitting, with what the node has" {
	need_slurm
	local cpus
	cpus=$(sinfo -h -o %c)
	run "$TOP/pipelines/kf-slurm" jobs.jsonl out -c $((cpus + 1))
	assert_failure 1
	assert_output --partial "kf-slurm: Slurm can never run these tasks as asked (-c $((cpus + 1));"
	assert_output --partial "Requested node configuration is not available"
	assert_output --partial "kf* $cpus CPUs"
	assert_output --partial "gres=gpu:2"
	run "$TOP/pipelines/kf-slurm" jobs.jsonl out --gres=gpu:3
	assert_failure 1
	assert_output --partial "can never run these tasks as asked (--gres=gpu:3;"
	# nothing was queued
	[ -z "$(squeue -h -o %i)" ]
	[ ! -e out/.slurm-job ]
}

@test "a time over the partition's limit passes sbatch --test-only: kf-slurm cancels the job and says why" {
	need_slurm
	scontrol update PartitionName=kf MaxTime=10
	run "$TOP/pipelines/kf-slurm" jobs.jsonl out --time=20
	scontrol update PartitionName=kf MaxTime=INFINITE
	assert_failure 1
	assert_output --partial "can never run these tasks as asked (--time=20;"
	assert_output --regexp "job [0-9]+ would wait for ever \((PartitionTimeLimit|PartitionConfig)\); cancelled it"
	assert_output --partial "time=10:00"
	[ -z "$(squeue -h -o %i)" ]
	# the script's own default (30 minutes) is over such a limit too
	scontrol update PartitionName=kf MaxTime=10
	run "$TOP/pipelines/kf-slurm" jobs.jsonl out
	scontrol update PartitionName=kf MaxTime=INFINITE
	assert_failure 1
	assert_output --partial "would wait for ever"
	[ -z "$(squeue -h -o %i)" ]
}

@test "kf-slurm usage errors, and -n says each task's state without Slurm" {
	run "$TOP/pipelines/kf-slurm" --help
	assert_success
	assert_line --index 0 "kf-slurm [-n] [-a] [-w] [-m N] JOBS OUT [SBATCH-OPTION ...]  (or -h: this text)"
	assert_output --partial "  -w      wait for the tasks to end, then say how they went (as -n does)"
	run "$TOP/pipelines/kf-slurm" jobs.jsonl
	assert_failure 2
	assert_output --partial "usage: kf-slurm"
	run "$TOP/pipelines/kf-slurm" no-such-file out
	assert_failure 2
	assert_output "kf-slurm: cannot read no-such-file"
	run "$TOP/pipelines/kf-slurm" jobs.jsonl out -c 2 --array=1-3
	assert_failure 2
	assert_output "kf-slurm: the array is kf-slurm's to choose (the tasks not done); -m N runs at most N at once"
	run "$TOP/pipelines/kf-slurm" -m 0 jobs.jsonl out
	assert_failure 2
	assert_output "kf-slurm: -m wants a number of tasks, not 0"
	printf '\n  \n' >blank.jsonl
	run "$TOP/pipelines/kf-slurm" blank.jsonl out
	assert_failure 2
	assert_output "kf-slurm: no jobs in blank.jsonl"
	# task 1 done, 2 failed, 3 a truncated record, 4 missing
	mkdir out
	sed -n 1p jobs.jsonl >out/1.job
	sed -n 2p jobs.jsonl >out/2.job
	sed -n 3p jobs.jsonl >out/3.job
	echo '{"id":"s1-copy"}' >out/1.json
	echo '{"id":"s2-fma","error":{"stage":"kf-run"}}' >out/2.json
	printf '{"id":"s3-sgem' >out/3.json
	run "$TOP/pipelines/kf-slurm" -n -m 8 jobs.jsonl out --time=5
	assert_success
	assert_line "kf-slurm: done: 1 of 4 (tasks 1)"
	assert_line "kf-slurm: failed: 2 of 4 (tasks 2-3)"
	assert_line "kf-slurm: missing: 1 of 4 (tasks 4)"
	assert_line "kf-slurm: task 2 (s2-fma): kf-run ?: no message"
	assert_line "kf-slurm: task 3: out/3.json is not a record"
	assert_line "kf-slurm: task 4 left no record and no log"
	assert_line "kf-slurm: would run: sbatch --array=2-4%8 --output=out/%a.log --time=5 $TOP/pipelines/slurm.sbatch jobs.jsonl out"
}

@test "slurm.sbatch by hand: a NUL byte, a huge line, a cut line each fail their task alone; kf-slurm sees it" {
	{
		sed -n 1p jobs.jsonl
		printf '{"id":"n\0ul","cmd":["x"],"language":"cuda"}\n'
		head -c 300000 /dev/zero | tr '\0' 'a'
		echo
		printf '{"id":"cut","cmd":["x"\n'
		sed -n 2p jobs.jsonl
	} >bad.jsonl
	local t
	for t in 1 2 3 4 5; do
		SLURM_ARRAY_TASK_ID=$t run "$TOP/pipelines/slurm.sbatch" bad.jsonl "o u t"
		if [ "$t" = 1 ] || [ "$t" = 5 ]; then assert_success; else assert_failure 1; fi
	done
	[ "$(jq -r .id "o u t/1.json")" = s1-copy ]
	[ "$(jq -r .id "o u t/5.json")" = s2-fma ]
	[ "$(jq -r .error.message "o u t/2.json")" = "line 1:9: not JSON: the line holds a NUL byte" ]
	[ "$(jq -r .error.kind "o u t/3.json")" = bad_json ]
	[ "$(jq -r .error.kind "o u t/4.json")" = bad_json ]
	cmp <(sed -n 2p bad.jsonl) "o u t/2.job"
	run "$TOP/pipelines/kf-slurm" -n bad.jsonl "o u t"
	assert_line "kf-slurm: done: 2 of 5 (tasks 1,5)"
	assert_line "kf-slurm: failed: 3 of 5 (tasks 2-4)"
}
