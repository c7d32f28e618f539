#!/usr/bin/env bats
# pipelines/parallel.sh across a real host boundary: GNU parallel in one
# network namespace, ssh to kf-host-b in another (its own hostname and a
# login directory that only it sees), made by tests/hosts.bash as root and
# removed at the end. Jobs, the scripts and --return's files cross over ssh.

load helper
load hosts
bats_require_minimum_version 1.5.0

setup_file() {
	export BATS_NO_PARALLELIZE_WITHIN_FILE=true
	HW=$(hosts_why_not)
	export HW
	[ -z "$HW" ] || return 0
	export KF_HOSTS_PATH="${KF_BIN:-$TOP/bin}:$TOP/tests/fake:/usr/local/bin:/usr/bin:/bin"
	H=$(mktemp -d /tmp/kf-hosts.XXXXXX)
	export H
	hosts_start "$H" || { hosts_stop "$H"; return 1; }
	export PARALLEL_SSH="ssh -F $H/ssh_config"
}

teardown_file() {
	[ -n "${H:-}" ] || return 0
	hosts_stop "$H"
	rm -rf "$H"
}

need_hosts() {
	[ -z "$HW" ] || skip "no second host: $HW"
}

# Run a command on host A (where GNU parallel runs), or on kf-host-b.
on_a() {
	ip netns exec "$(sed -n 1p "$H/netns")" "$@"
}
on_b() {
	on_a ssh -F "$H/ssh_config" kf-host-b "$@"
}

# A benchmark at the same path on both hosts (the file system is shared
# outside B's login directory) that logs the job, the host, its working
# directory and GPU; four jobs and one whose program does not exist.
setup() {
	cd "$BATS_TEST_TMPDIR"
	PATH="$TOP/tests/fake:$PATH"
	printf '#!/bin/sh\necho "$2 $(hostname) $PWD ${CUDA_VISIBLE_DEVICES:-none}" >>"$GPU_LOG"\necho "bench $1"\n' >bench
	chmod +x bench
	local k i=0
	for k in copy fma sgemm_naive copy; do
		i=$((i + 1))
		jq -cn --arg id "h$i-$k" --arg k "$k" --arg csv "$FIX/ncu-h200/detailed-$k.csv" \
			--arg log "$PWD/hosts.log" --arg b "$PWD/bench" \
			'{id: $id, cmd: [$b, $k, $id], language: "cuda", env: {FAKE_NCU_CSV: $csv, GPU_LOG: $log}}'
	done >jobs.jsonl
	echo '{"id":"gone","cmd":["/no/such/program"],"language":"cuda"}' >>jobs.jsonl
	ls -d /tmp/kf-parallel.* 2>/dev/null | sort >stages.before || true
}

@test "--return: jobs run on kf-host-b, their outputs come back here, nothing is left there" {
	need_hosts
	run --separate-stderr on_a "$TOP/pipelines/parallel.sh" -S 2/kf-host-b -k --return -o "o u t" jobs.jsonl
	assert_success
	[ "$(echo "$output" | jq -r .id | paste -sd' ')" = "h1-copy h2-fma h3-sgemm_naive h4-copy gone" ]
	[ "$(echo "$output" | jq -r 'select(.id == "h2-fma") | .passes[0].output_dir')" = "o u t/2/h2-fma/ncu.000" ]
	echo "$output" | jq -r 'select(.id == "gone") | .error.message' | grep -q "does not exist"
	# every job ran on kf-host-b, in a working directory of its own there
	[ "$(cut -d' ' -f2 hosts.log | sort -u)" = kf-host-b ]
	[ "$(cut -d' ' -f1 hosts.log | sort | paste -sd' ')" = "h1-copy h2-fma h3-sgemm_naive h4-copy" ]
	[ "$(cut -d' ' -f3 hosts.log | grep -cv '^/root/.parallel/tmp/')" -eq 0 ]
	# the profiler's files came back, and kf re-analyses them here
	[ "$(replay h3 ncu "o u t/3/h3-sgemm_naive/ncu.000" | kf-read | kf-collate |
		jq -r '.collated.kernels[0].name | split("(")[0]')" = sgemm_naive_k ]
	[ -s "o u t/1/h1-copy/ncu.000/ncu_report.csv" ] && [ -s "o u t/4/h4-copy/ncu.000/ncu_report.csv" ]
	# kf-host-b keeps nothing: no outputs, no working directories, no scripts
	[ "$(on_b 'find ~ -mindepth 1 ! -path "$HOME/.parallel" ! -path "$HOME/.parallel/tmp"' | wc -l)" -eq 0 ]
	[ -z "$(ls -d /tmp/kf-parallel.* 2>/dev/null | sort | comm -13 stages.before -)" ]
}

@test "without --return the outputs stay on the host that ran the job, a local job's here" {
	need_hosts
	run --separate-stderr on_a "$TOP/pipelines/parallel.sh" -S 1/kf-host-b,1/: -o po jobs.jsonl
	assert_success
	[ "$(echo "$output" | jq -r 'select(.analysis.status == "ok") | .id' | wc -l)" -eq 4 ]
	[ "$(wc -l <hosts.log)" -eq 4 ]
	local id host dir gpu d
	while read -r id host dir gpu; do
		d=$(echo "$output" | jq -r --arg id "$id" 'select(.id == $id) | .passes[0].output_dir')
		case $host in
		kf-host-b)
			[ "$dir" = /root ]
			on_b test -s "$d/ncu_report.csv"
			[ ! -e "$d" ] ;;
		*)
			[ "$dir" = "$BATS_TEST_TMPDIR" ]
			[ -s "$d/ncu_report.csv" ] ;;
		esac
	done <hosts.log
	on_b rm -rf po
	[ -z "$(ls -d /tmp/kf-parallel.* 2>/dev/null | sort | comm -13 stages.before -)" ]
}

@test "-g on kf-host-b: each job holds one of the host's GPUs, through the kf-gpu-lock sent along" {
	need_hosts
	run --separate-stderr on_a "$TOP/pipelines/parallel.sh" -S 3/kf-host-b -g "3 4" -o pg --return jobs.jsonl
	assert_success
	[ "$(echo "$output" | jq -r 'select(.analysis.status == "ok") | .id' | wc -l)" -eq 4 ]
	[ "$(wc -l <hosts.log)" -eq 4 ]
	[ "$(cut -d' ' -f4 hosts.log | grep -cvx '[34]')" -eq 0 ]
}
