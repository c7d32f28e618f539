#!/usr/bin/env bats
# pipelines/parallel.sh (GNU parallel) with local workers, and the Slurm
# recipe's task script run by hand: the many-machines recipes work.

load helper
bats_require_minimum_version 1.5.0

setup() {
	cd "$BATS_TEST_TMPDIR"
	PATH="$TOP/tests/fake:$PATH"
	printf '#!/bin/sh\necho "${CUDA_VISIBLE_DEVICES:-none}" >>"$GPU_LOG"\necho "bench $1"\n' >bench
	chmod +x bench
	local k i=0
	for k in copy fma sgemm_naive copy fma sgemm_naive; do
		i=$((i + 1))
		jq -cn --arg id "p$i-$k" --arg k "$k" --arg csv "$FIX/ncu-h200/detailed-$k.csv" \
			--arg log "$BATS_TEST_TMPDIR/gpus.log" \
			'{id: $id, cmd: ["./bench", $k], language: "cuda", env: {FAKE_NCU_CSV: $csv, GPU_LOG: $log}}'
	done >jobs.jsonl
}

@test "parallel.sh -S : runs every job on local workers and returns each record on stdout" {
	run --separate-stderr "$TOP/pipelines/parallel.sh" -S 3/: -j 3 -k -o po jobs.jsonl
	assert_success
	[ "$(echo "$output" | jq -r .id | paste -sd' ')" = "p1-copy p2-fma p3-sgemm_naive p4-copy p5-fma p6-sgemm_naive" ]
	[ "$(echo "$output" | jq -r '.analysis.ranking.kernels[0].name | split("(")[0]' | paste -sd' ')" = \
		"copy_k fma_k sgemm_naive_k copy_k fma_k sgemm_naive_k" ]
	# each job's outputs stay apart: DIR/SEQ/ID/PASS
	[ -s po/1/p1-copy/ncu.000/ncu_report.csv ] && [ -s po/6/p6-sgemm_naive/ncu.000/ncu_report.csv ]
	[ "$(echo "$output" | jq -r 'select(.id == "p2-fma") | .passes[0].output_dir')" = po/2/p2-fma/ncu.000 ]
}

@test "--sshloginfile with several entries that are this machine, and a failing job among them" {
	printf '2/:\n2/:\n' >logins
	echo '{"id":"gone","cmd":["./gone"],"language":"cuda"}' >>jobs.jsonl
	run --separate-stderr "$TOP/pipelines/parallel.sh" --sshloginfile logins -o po jobs.jsonl
	assert_success
	[ "$(echo "$output" | jq -r .id | sort | paste -sd' ')" = "gone p1-copy p2-fma p3-sgemm_naive p4-copy p5-fma p6-sgemm_naive" ]
	[ "$(echo "$output" | jq -r 'select(.error) | .id')" = gone ]
	echo "$output" | jq -r 'select(.id == "gone") | .error.message' | grep -q "does not exist"
	[ "$(echo "$output" | jq -r 'select(.analysis.status == "ok") | .id' | wc -l)" -eq 6 ]
}

@test "parallel.sh -g: each local job runs on one GPU of the list" {
	run --separate-stderr "$TOP/pipelines/parallel.sh" -S 4/: -k -g "5 6" -o po jobs.jsonl
	assert_success
	[ "$(echo "$output" | jq -r 'select(.analysis.status == "ok") | .id' | wc -l)" -eq 6 ]
	# the program saw CUDA_VISIBLE_DEVICES 5 or 6, every time
	[ "$(wc -l <gpus.log)" -eq 6 ]
	[ "$(sort -u gpus.log | tr '\n' ' ')" = "5 6 " ] || [ "$(sort -u gpus.log | tr '\n' ' ')" = "5 " ] ||
		[ "$(sort -u gpus.log | tr '\n' ' ')" = "6 " ]
}

@test "parallel.sh usage errors" {
	run "$TOP/pipelines/parallel.sh" --help
	assert_success
	assert_output --partial "  --return            run each job on a host in a directory of its own"
	run "$TOP/pipelines/parallel.sh"
	assert_failure 2
	assert_output --partial "usage: parallel.sh"
	run "$TOP/pipelines/parallel.sh" -S : no-such-file
	assert_failure 2
	assert_output --partial "cannot read no-such-file"
}

@test "the Slurm task script: task N profiles line N and leaves its record and feedback" {
	SLURM_ARRAY_TASK_ID=2 run "$TOP/pipelines/slurm.sbatch" jobs.jsonl sl
	assert_success
	[ "$(jq -r .id sl/2.json)" = p2-fma ]
	grep -q "Kernel: fma_k(" sl/2.feedback.txt
	[ -d sl/runs/2/p2-fma/ncu.000 ]
	SLURM_ARRAY_TASK_ID=99 run "$TOP/pipelines/slurm.sbatch" jobs.jsonl sl
	assert_failure 1
	assert_output --partial "task 99: no line 99 in jobs.jsonl"
}

@test "parallel.sh installed in PREFIX/share/kf/pipelines, run through a link from another directory" {
	mkdir -p pre/share/kf/pipelines pre/bin "my dir"
	cp "$TOP"/pipelines/* pre/share/kf/pipelines/
	ln -s "$PWD/pre/share/kf/pipelines/parallel.sh" pre/bin/kf-parallel
	cp jobs.jsonl bench "my dir"/
	cd "my dir"
	run --separate-stderr ../pre/bin/kf-parallel -S 2/: -k -g "7" -o po jobs.jsonl
	assert_success
	[ "$(echo "$output" | jq -r 'select(.analysis.status == "ok") | .id' | paste -sd' ')" = \
		"p1-copy p2-fma p3-sgemm_naive p4-copy p5-fma p6-sgemm_naive" ]
	[ -s po/3/p3-sgemm_naive/ncu.000/ncu_report.csv ]
	[ "$(echo "$output" | jq -r 'select(.id == "p3-sgemm_naive") | .passes[0].output_dir')" = po/3/p3-sgemm_naive/ncu.000 ]
}

@test "kf-pipeline on a host without kf's programs on PATH says which host and which program" {
	run -127 env PATH=/usr/bin:/bin "$TOP/pipelines/kf-pipeline" jobs.jsonl
	assert_failure 127
	assert_output "kf-pipeline: on $(uname -n): kf-select is not on PATH (/usr/bin:/bin): install kf there (make install) or put its programs on PATH"
}
