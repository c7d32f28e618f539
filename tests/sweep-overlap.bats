#!/usr/bin/env bats
# pipelines/sweep.mk at -j above the GPU count: with OVERLAP=1 (the default)
# an ncu job holds its GPU only for ncu's profiled part (kf-gpu-lock -l,
# then kf-ncu: the program held by ncu --mode launch at its first CUDA call,
# the lock, ncu --mode attach), so one job's start-up and exports run
# beside another's profiling, and no two profiled runs ever share a GPU.
# The fake ncu logs each part (FAKE_NCU_GPU_LOG), the program its runs.

load helper

# jobs N [JQ-FILTER]: N jobs of the recorded copy kernel, each program
# taking 0.5 s on the GPU after 1 s of start-up (FAKE_NCU_STARTUP), each
# export 1 s.
jobs() {
	local i
	for i in $(seq 1 "$1"); do
		jq -cn --arg id "j$i" --arg csv "$FIX/ncu-h200/detailed-copy.csv" --arg raw "$FIX/ncu-h200/raw-copy.csv" \
			--arg log "$SW/gpu.log" --arg argv "$SW/argv.log" \
			'{id: $id, cmd: ["./bench", $id], language: "cuda", arch: "H200",
			  env: {FAKE_NCU_CSV: $csv, FAKE_NCU_RAW: $raw, FAKE_NCU_GPU_LOG: $log,
				FAKE_NCU_ARGV: $argv, FAKE_NCU_STARTUP: "1", FAKE_NCU_EXPORT_SLEEP: "1",
				BENCH_LOG: $log}}' | jq -c "${2:-.}"
	done >"$SW/jobs.jsonl"
}

setup() {
	SW=$BATS_TEST_TMPDIR/sw
	mkdir -p "$SW"
	# the program: "bench START END GPU ID" in the log
	cat >"$SW/bench" <<-'EOF2'
	#!/bin/sh
	s=$(date +%s%N)
	sleep "${BENCH_SLEEP:-0.5}"
	echo "bench $s $(date +%s%N) ${CUDA_VISIBLE_DEVICES:-none} $1" >>"$BENCH_LOG"
	echo "bench $1 done"
	EOF2
	chmod +x "$SW/bench"
}

sweep() {
	(cd "$SW" && PATH="$TOP/tests/fake:$PATH" make -s -f "$TOP/pipelines/sweep.mk" \
		JOBS=jobs.jsonl OUT=out LOCKDIR="$SW/locks" "$@")
}

# overlaps KIND1 KIND2 [SAME]: how many pairs of intervals of the two kinds
# overlap in time; with SAME, only pairs on the same GPU (field 4).
overlaps() {
	awk -v a="$1" -v b="$2" -v same="${3:-}" '{ k[NR] = $1; s[NR] = $2; e[NR] = $3; g[NR] = $4 }
		END { n = 0
			for (i = 1; i <= NR; i++) for (j = 1; j <= NR; j++)
				if (i != j && k[i] == a && k[j] == b && s[i] < e[j] && s[j] < e[i] &&
				    (same == "" || g[i] == g[j])) n++
			print n }' "$SW/gpu.log"
}

ok_jobs() {
	awk -F'\t' 'NR > 1 && $3 == "ok"' "$SW/out/summary.tsv" | wc -l
}

@test "-j4, one GPU: one profiled run at a time, start-ups and exports beside them, every record right" {
	# j1 starts up at once, the others take 2 s: theirs overlap its profiling
	jobs 4 'if .id == "j1" then .env.FAKE_NCU_STARTUP = "0.1" else .env.FAKE_NCU_STARTUP = "2" end'
	run sweep -j4 GPUS=0
	assert_success
	[ "$(grep -c '^gpu ' "$SW/gpu.log")" -eq 4 ]
	[ "$(grep -c '^bench ' "$SW/gpu.log")" -eq 4 ]
	[ "$(awk '$1 == "gpu" || $1 == "bench" { print $4 }' "$SW/gpu.log" | sort -u)" = 0 ]
	# never two profiled runs, nor two programs' GPU work, at once
	[ "$(overlaps gpu gpu)" -eq 0 ]
	[ "$(overlaps bench bench)" -eq 0 ]
	# each program ran inside its profiled part: no GPU work outside the lock
	[ "$(overlaps bench gpu)" -eq 4 ]
	# the held programs' start-ups and the exports ran while another was profiled
	[ "$(overlaps startup gpu)" -gt 0 ]
	[ "$(overlaps export gpu)" -gt 0 ]
	# every job held and attached to, none run again
	[ "$(grep -c '^attach$' "$SW/argv.log")" -eq 4 ]
	[ "$(grep -c '^launch$' "$SW/argv.log")" -eq 4 ]
	[ "$(ok_jobs)" -eq 4 ]
	# where the time went: each job's start-up (2 s but j1's 0.1), its
	# one launch of 15 passes, and the sums
	run sweep -j4 GPUS=0 times
	assert_success
	assert_line --index 0 "$(printf 'id\trun_s\tstartup_s\tgpu_wait_s\tdetailed_s\tprogram_s\texports_s\ttiming_run_s\tlaunches\tpasses\tpasses_per_launch\tgpu_held_s\thost_backups\tgpu_shared_s')"
	# ncu backed up no job's memory in host memory, and no job held the lock
	# shared (no range gate): 14 columns, the last two "-"
	[ "$(awk -F'\t' 'NR > 1 && NF == 14 && $13 == "-" && $14 == "-"' "$SW/out/times.tsv" | wc -l)" -eq 5 ]
	[ "$(awk -F'\t' '$1 ~ /^j[234]$/ && $3 >= 2 && $3 < 5 && $9 == 1 && $10 == 15 && $11 == 15 && $8 == "-"' "$SW/out/times.tsv" | wc -l)" -eq 3 ]
	[ "$(awk -F'\t' '$1 == "j1" && $3 < 2 && $6 > 0.4 && $6 <= $5' "$SW/out/times.tsv" | wc -l)" -eq 1 ]
	run awk -F'\t' '$1 == "all" { print $9, $10, $11 }' "$SW/out/times.tsv"
	assert_output '4.00 60.00 15.00'
	for i in 1 2 3 4; do
		grep -q 'Kernel: copy_k(' "$SW/out/j$i.feedback.txt"
		# the program's status and output, after the attach's lines
		jq -e --arg r "Report: out/runs/j$i/j$i/ncu.000/report.ncu-rep" --arg b "bench j$i done" \
			'.passes[0].run | .exit_code == 0 and (.stdout | index($r) < index($b))' "$SW/out/j$i.json" >/dev/null
	done
}

@test "GATE=1: each attach starts beside another job's profiling and takes the GPU at its connection to the program; never two profiled runs at once, every record right" {
	# each attach takes 1 s to start (ncu's own start)
	jobs 4 '.env.FAKE_NCU_ATTACH_STARTUP = "1"'
	run sweep -j4 GPUS=0 GATE=1
	assert_success
	[ "$(grep -c '^gpu ' "$SW/gpu.log")" -eq 4 ]
	[ "$(overlaps gpu gpu)" -eq 0 ]
	[ "$(overlaps bench gpu)" -eq 4 ]
	# the attaches' start-ups ran while another job's program was profiled
	[ "$(overlaps attach gpu)" -gt 0 ]
	[ "$(grep -c '^attach$' "$SW/argv.log")" -eq 4 ]
	[ "$(ok_jobs)" -eq 4 ]
	# the gate's wait is the job's wait for the GPU, not its detailed run's
	for i in 1 2 3 4; do
		grep -q '^locked [0-9.]*$' "$SW/out/runs/j$i/j$i/ncu.000/ncu_gate.log"
		jq -e '.collated.timings | .gpu_wait_s >= 0 and .detailed_s < 3' "$SW/out/j$i.json" >/dev/null
	done
	[ "$(jq -s '[.[].collated.timings.gpu_wait_s] | add > 1' "$SW"/out/j?.json)" = true ]
}

# rangeprog: a program that profiles its own range through a library on
# a shared CUDA runtime (tests/progs/rangeprog.c, rangecall.c,
# fakecudart.c), in $SW
rangeprog() {
	${CC:-cc} -std=c11 -O2 -fPIC -shared -o "$SW/libcudart.so" "$TOP/tests/progs/fakecudart.c"
	${CC:-cc} -std=c11 -O2 -fPIC -shared -o "$SW/librangecall.so" "$TOP/tests/progs/rangecall.c" \
		-L"$SW" -lcudart -Wl,-rpath,"$SW"
	${CC:-cc} -std=c11 -O2 -o "$SW/rangeprog" "$TOP/tests/progs/rangeprog.c" -ldl
}

@test "RANGE=1: the programs' work before their profiler ranges runs side by side, each range has the GPU alone; every record right" {
	rangeprog
	# j2 starts its range from a library loaded RTLD_LOCAL, as PyTorch's
	# extension calls CUDA's runtime from Python
	jobs 3 '.cmd = ["./rangeprog", .id] | .env.FAKE_NCU_STARTUP = "0.1" | .env.RANGE_PRE = "1" |
		if .id == "j2" then .env.RANGE_LOCAL = "1" else . end'
	run sweep -j3 GPUS=0 RANGE=1 WRAP_FLAGS="-a --profile-from-start -a off"
	assert_success
	[ "$(grep -c '^range ' "$SW/gpu.log")" -eq 3 ]
	# never two ranges at once, nor a range beside another's work
	[ "$(overlaps range range)" -eq 0 ]
	[ "$(overlaps range pre)" -eq 0 ]
	# the work before the ranges ran side by side
	[ "$(overlaps pre pre)" -gt 0 ]
	[ "$(ok_jobs)" -eq 3 ]
	for i in 1 2 3; do
		d="$SW/out/runs/j$i/j$i/ncu.000"
		# the program's process asked once and said its range stopped,
		# kf-ncu's answer is gone
		[ "$(grep -cx 'start [0-9]*' "$d/ncu_range.log")" -eq 1 ]
		[ "$(grep -cx 'stop [0-9]*' "$d/ncu_range.log")" -eq 1 ]
		[ "$(wc -l <"$d/ncu_range.log")" -eq 2 ]
		[ ! -e "$d/ncu_range.ack" ]
		# the GPU had alone: the range and the program's end, not its
		# work before; the range's wait is part of the wait for the GPU
		jq -e '.collated.timings | .range_wait_s >= 0 and .gpu_wait_s >= .range_wait_s and
			.gpu_held_s < .program_under_ncu_s and .gpu_held_s >= 0.4 and (has("range_unseen") | not)' \
			"$SW/out/j$i.json" >/dev/null
		# of the program's run under ncu, its second of work before the
		# range (RANGE_PRE), which ran beside other jobs
		jq -e '.collated.timings | .before_range_s >= 0.95 and .before_range_s <= .program_under_ncu_s' \
			"$SW/out/j$i.json" >/dev/null
		grep -q 'Kernel: copy_k(' "$SW/out/j$i.feedback.txt"
		# the runtime's own calls ran: the wait for the work so far, then
		# the range's start
		jq -e --arg b "range j$i done" '.passes[0].run | .exit_code == 0 and (.stdout | contains($b)) and
			(.stdout | contains("cudart: cudaDeviceSynchronize\ncudart: cudaProfilerStart\n"))' \
			"$SW/out/j$i.json" >/dev/null
	done
	# the sweep's times show the GPU held alone, and shared for the second
	# of work before each range; the sums in the last line
	run sweep -j3 GPUS=0 RANGE=1 WRAP_FLAGS="-a --profile-from-start -a off" times
	assert_success
	assert_line --index 0 --partial "$(printf 'passes_per_launch\tgpu_held_s\thost_backups\tgpu_shared_s')"
	[ "$(awk -F'\t' '$1 ~ /^j[123]$/ && $12 >= 0.4 && $12 < $6 && $14 >= 0.95 && $14 < $6' "$SW/out/times.tsv" | wc -l)" -eq 3 ]
	run awk -F'\t' '$1 ~ /^j[123]$/ { s += $14 } $1 == "all" { printf "%.2f %.2f\n", s, $14 }' "$SW/out/times.tsv"
	[ "${output% *}" = "${output#* }" ]
}

@test "RANGE=1: a program's work after its range's stop runs beside other jobs' work before theirs, never beside a range; a second range has the GPU alone again" {
	rangeprog
	# two at a time: j3 and j4 start while j1's and j2's work after their
	# ranges goes on; j4 starts a second range after its work after the first
	jobs 4 '.cmd = ["./rangeprog", .id] | .env.FAKE_NCU_STARTUP = "0.1" | .env.RANGE_PRE = "1" |
		.env.RANGE_POST = "2" | if .id == "j4" then .env.RANGE_AGAIN = "1" else . end'
	run sweep -j2 GPUS=0 RANGE=1 WRAP_FLAGS="-a --profile-from-start -a off"
	assert_success
	[ "$(ok_jobs)" -eq 4 ]
	[ "$(grep -c '^range ' "$SW/gpu.log")" -eq 5 ]
	[ "$(grep -c '^post ' "$SW/gpu.log")" -eq 4 ]
	# a range never beside another's range, nor beside any work before or
	# after a range
	[ "$(overlaps range range)" -eq 0 ]
	[ "$(overlaps range pre)" -eq 0 ]
	[ "$(overlaps range post)" -eq 0 ]
	# the work after a range ran beside another job's work before its range
	[ "$(overlaps post pre)" -gt 0 ]
	for i in 1 2 3 4; do
		d="$SW/out/runs/j$i/j$i/ncu.000" k=1
		[ "$i" -eq 4 ] && k=2
		# each range asked for the GPU and said it stopped
		[ "$(grep -cx 'start [0-9]*' "$d/ncu_range.log")" -eq "$k" ]
		[ "$(grep -cx 'stop [0-9]*' "$d/ncu_range.log")" -eq "$k" ]
		[ ! -e "$d/ncu_range.ack" ]
		# the GPU had alone: the ranges (0.4 s each), not the 2 s after;
		# shared: the second before and the 2 s after
		jq -e --argjson k "$k" '.collated.timings | .gpu_held_s >= 0.4 * $k - 0.05 and
			.gpu_held_s < 0.4 * $k + 1 and .before_range_s >= 0.95 and
			.gpu_shared_s >= 2.95 and .gpu_shared_s < .program_under_ncu_s and
			(has("range_unseen") | not)' \
			"$SW/out/j$i.json" >/dev/null
		grep -q 'Kernel: copy_k(' "$SW/out/j$i.feedback.txt"
	done
}

@test "RANGE=1, a range kf cannot see: the launches profiled before any range asked are taken again with the GPU held throughout, and it says so" {
	# bench never starts a range kf sees (as a program with CUDA's runtime
	# linked in statically); the fake ncu profiles it all the same
	jobs 2
	run sweep -j2 GPUS=0 RANGE=1 WRAP_FLAGS="-a --profile-from-start -a off"
	assert_success
	[ "$(ok_jobs)" -eq 2 ]
	for i in 1 2; do
		jq -e '.passes[0].run.stderr | contains("kf-ncu: ncu profiled the program before its profiler range asked for the GPU (KF_NCU_RANGE: a range kf cannot see, as with CUDA'"'"'s runtime linked statically); the detailed run is taken again with the GPU held throughout\n")' \
			"$SW/out/j$i.json" >/dev/null
		# the GPU had alone: the run taken again, whole
		jq -e '.collated.timings | .range_unseen == 1 and .gpu_held_s >= .detailed_s - 0.01 and
			.gpu_held_s >= 0.5 and .gpu_held_s < .total_s' "$SW/out/j$i.json" >/dev/null
		[ ! -e "$SW/out/runs/j$i/j$i/ncu.000/ncu_range.log" ]
		grep -q 'Kernel: copy_k(' "$SW/out/j$i.feedback.txt"
	done
	# each held and attached to once, then run again whole: four
	# profiled runs of which two attached
	[ "$(grep -c '^launch$' "$SW/argv.log")" -eq 2 ]
	[ "$(grep -c '^attach$' "$SW/argv.log")" -eq 2 ]
	[ "$(grep -c '^gpu ' "$SW/gpu.log")" -eq 4 ]
}

@test "RANGE=1, a launch profiled before the range asked (a range started where kf cannot see, then one it sees): taken again with the GPU held throughout" {
	rangeprog
	# the attach profiles a launch as soon as it is connected, a second
	# before the program's range asks for the GPU
	jobs 2 '.cmd = ["./rangeprog", .id] | .env.FAKE_NCU_STARTUP = "0.1" | .env.RANGE_PRE = "1" |
		.env.FAKE_NCU_EARLY = "1"'
	run sweep -j2 GPUS=0 RANGE=1 WRAP_FLAGS="-a --profile-from-start -a off"
	assert_success
	[ "$(ok_jobs)" -eq 2 ]
	for i in 1 2; do
		jq -e '(.passes[0].run.stderr | contains("kf-ncu: ncu profiled the program before its profiler range asked for the GPU")) and
			.collated.timings.range_unseen == 1' "$SW/out/j$i.json" >/dev/null
		# the GPU had alone twice: from the held run's range to its end
		# (0.4 s), and the run taken again (its detailed_s)
		jq -e '.collated.timings | .gpu_held_s >= .detailed_s + 0.3' "$SW/out/j$i.json" >/dev/null
		grep -q 'Kernel: copy_k(' "$SW/out/j$i.feedback.txt"
	done
	[ "$(grep -c '^launch$' "$SW/argv.log")" -eq 2 ]
	[ "$(grep -c '^gpu ' "$SW/gpu.log")" -eq 4 ]
	# each program asked once in its held run, and ran once more whole
	[ "$(grep -c '^range ' "$SW/gpu.log")" -eq 4 ]
}

@test "RANGE=1 without --profile-from-start off: the GPU held alone from the first CUDA call, as before" {
	rangeprog
	jobs 3 '.cmd = ["./rangeprog", .id] | .env.FAKE_NCU_STARTUP = "0.1"'
	run sweep -j3 GPUS=0 RANGE=1
	assert_success
	[ "$(ok_jobs)" -eq 3 ]
	[ "$(overlaps pre pre)" -eq 0 ]
	[ "$(overlaps range pre)" -eq 0 ]
	for i in 1 2 3; do
		[ ! -e "$SW/out/runs/j$i/j$i/ncu.000/ncu_range.log" ]
		jq -e '.collated.timings | (has("range_wait_s") | not) and .gpu_held_s > 0.9' "$SW/out/j$i.json" >/dev/null
	done
}

@test "EARLY=1, --top: each held program's work before its range runs beside its timing run's; no range beside any other work; every record right, as with EARLY=0" {
	local R="$FIX/ncu-h200-top/programs/rn50-traced" f i
	for f in ncu_report ncu_report_mangled ncu_raw ncu_source; do
		gzip -dc "$R/$f.csv.gz" >"$SW/$f.csv"
	done
	: >"$SW/libkftrace.so"
	for i in 1 2 3; do
		jq -cn --arg id "j$i" --arg sw "$SW" --arg prog "$TOP/tests/fake/traced-program" \
			--arg trace "$R/trace.881.kft.gz" \
			'{id: $id, cmd: [$prog, $trace, "0", "0.2"], language: "cuda", arch: "H200",
			  env: {KF_TRACE_LIB: ($sw + "/libkftrace.so"), FAKE_NCU_CSV: ($sw + "/ncu_report.csv"),
				FAKE_NCU_MANGLED: ($sw + "/ncu_report_mangled.csv"), FAKE_NCU_RAW: ($sw + "/ncu_raw.csv"),
				FAKE_NCU_SOURCE: ($sw + "/ncu_source.csv"), FAKE_NCU_SOURCE_ALL: "1",
				FAKE_RANGE_PRE: "1.5", FAKE_RANGE_IN: "0.3", FAKE_RANGE_LOG: ($sw + "/phases." + $id)}}'
	done >"$SW/jobs.jsonl"
	run sweep -j3 GPUS=0 EARLY=1 WRAP_FLAGS="--top 3 -a --profile-from-start -a off"
	assert_success
	[ "$(ok_jobs)" -eq 3 ]
	cat "$SW"/phases.j* >"$SW/gpu.log"
	# each job's two runs: their work before their ranges side by side
	for i in 1 2 3; do
		[ "$(awk '$1 == "pre" { n[$4]++; s[$4] = $2; e[$4] = $3 }
			END { print (n["timing"] == 1 && n["held"] == 1 && s["held"] < e["timing"] &&
			    s["timing"] < e["held"]) }' "$SW/phases.j$i")" -eq 1 ]
		d="$SW/out/runs/j$i/j$i/ncu.000"
		grep -q '^==PROF== Connected to process' "$d/ncu_early.log"
		jq -e '.collated.timings.early_before_range_s >= 1.4 and .collated.kernel_count == 3 and
			.analysis.status == "ok"' "$SW/out/j$i.json" >/dev/null
	done
	# six ranges, never two at once, never beside any program's other work
	[ "$(grep -c '^range ' "$SW/gpu.log")" -eq 6 ]
	[ "$(overlaps range range)" -eq 0 ]
	[ "$(overlaps range pre)" -eq 0 ]
	# EARLY=0 (the default): no first attach, the same kernels detailed
	rm -rf "$SW/out" "$SW"/phases.j*
	run sweep -j3 GPUS=0 WRAP_FLAGS="--top 3 -a --profile-from-start -a off"
	assert_success
	[ "$(ok_jobs)" -eq 3 ]
	for i in 1 2 3; do
		[ ! -e "$SW/out/runs/j$i/j$i/ncu.000/ncu_early.log" ]
		jq -e '(.collated.timings | has("early_before_range_s") | not) and
			.collated.kernel_count == 3' "$SW/out/j$i.json" >/dev/null
		[ "$(awk '$1 == "pre" && $4 == "held" { h = $2 } $1 == "range" && $4 == "timing" { t = $3 }
			END { print (h >= t) }' "$SW/phases.j$i")" -eq 1 ]
	done
}

@test "OVERLAP=0: the GPU held for the whole job, start-up and exports included" {
	jobs 4
	run sweep -j4 GPUS=0 OVERLAP=0
	assert_success
	[ "$(grep -c '^gpu ' "$SW/gpu.log")" -eq 4 ]
	[ "$(overlaps gpu gpu)" -eq 0 ]
	[ "$(overlaps startup gpu)" -eq 0 ]
	[ "$(overlaps export gpu)" -eq 0 ]
	[ "$(grep -c '^attach$' "$SW/argv.log")" -eq 0 ]
	[ "$(ok_jobs)" -eq 4 ]
}

@test "-j4 over GPUS=\"0 1\": both GPUs, two jobs each, never two profiled runs on one GPU; the program runs on its lock's GPU" {
	jobs 4
	run sweep -j4 GPUS="0 1"
	assert_success
	[ "$(awk '$1 == "gpu" { print $4 }' "$SW/gpu.log" | sort | uniq -c | awk '{ print $1 }' | paste -sd' ')" = "2 2" ]
	[ "$(overlaps gpu gpu same)" -eq 0 ]
	[ "$(overlaps bench bench same)" -eq 0 ]
	# each program's run lies inside a profiled part of its own GPU
	[ "$(overlaps bench gpu same)" -eq 4 ]
	[ "$(ok_jobs)" -eq 4 ]
}

@test "a hung job costs its limit; the others finish; a program that is not there is never started, holds no GPU, and says why" {
	jobs 3 'if .id == "j2" then .timeout = 4 | .env.BENCH_SLEEP = "600" elif .id == "j3" then .cmd = ["./no-such-program"] else . end'
	s=$(date +%s)
	run sweep -j3 GPUS=0
	assert_success
	e=$(date +%s)
	[ $((e - s)) -lt 40 ]
	[ "$(awk -F'\t' '$1 == "j1" { print $3 }' "$SW/out/summary.tsv")" = ok ]
	[ "$(awk -F'\t' '$1 == "j2" { print $3 }' "$SW/out/summary.tsv")" = failed ]
	jq -e '.error.message | test("at its time limit of 4 s")' "$SW/out/j2.json" >/dev/null
	grep -q "^1. Nothing ran: the program .*/no-such-program ('./no-such-program' in .*) does not exist (kf-run, program_not_found)" "$SW/out/j3.feedback.txt"
	! grep -q "no-such-program" "$SW/argv.log"
	# nothing of the hung job is left holding the GPU
	flock -n "$SW/locks/gpu.0" true
}

@test "kf-gpu-lock -l: an ncu record runs at once on the GPU with the fewest jobs, with its lock file; any other takes a GPU first" {
	local l="$TOP/pipelines/kf-gpu-lock" d=$BATS_TEST_TMPDIR/locks
	rec='{"id":"a","argv":["/x/libexec/kf/kf-ncu","ncu","d","0"]}'
	run sh -c 'printf "%s\n" "$1" | "$2" -l -d "$3" -g "0 1" -- sh -c '\''echo "$KF_GPU $CUDA_VISIBLE_DEVICES $KF_NCU_GPU_LOCK"; cat'\' - "$rec" "$l" "$d"
	assert_success
	assert_line --index 0 "0 0 $d/gpu.0"
	assert_line --index 1 "$rec"
	# a job claims GPU 0 while it runs: the next goes to GPU 1
	(printf '%s\n' "$rec" | "$l" -l -d "$d" -g "0 1" -- sh -c 'cat >/dev/null; sleep 3') &
	sleep 1
	run sh -c 'printf "%s\n" "$1" | "$2" -l -d "$3" -g "0 1" -- sh -c '\''echo "$KF_GPU"'\' - "$rec" "$l" "$d"
	assert_output 1
	wait
	other='{"id":"b","argv":["unitrace","--x"]}'
	run sh -c 'printf "%s\n" "$1" | "$2" -l -d "$3" -g "1" -- sh -c '\''echo "$KF_GPU ${KF_NCU_GPU_LOCK:-none}"; cat'\' - "$other" "$l" "$d"
	assert_success
	assert_line --index 0 "1 none"
	assert_line --index 1 "$other"
	# one ncu record among others: a GPU first
	run sh -c 'printf "%s\n%s\n" "$1" "$2" | "$3" -l -d "$4" -g "0" -- sh -c '\''echo "$KF_GPU ${KF_NCU_GPU_LOCK:-none}"; wc -l'\' - "$rec" "$other" "$l" "$d"
	assert_line --index 0 "0 none"
	assert_line --index 1 2
}
