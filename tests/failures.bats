#!/usr/bin/env bats
# Whose failure the first sentence names: the program's (program_failed,
# from its own run) or the profiler's (profiler_failed: ncu's detailed run of
# kf-wrap --top crashed, hung or was stopped while the timing run, the
# program's own, was clean); a saved final record read again keeps its
# runs; an interrupt reaches the end of the documented pipeline.

load helper

FAKE="$TOP/tests/fake/ncu"
RN50="$FIX/ncu-h200-top/programs/rn50-traced"
FLAX="$FIX/ncu-h200-top/programs/flax-held"

setup() {
	T=$BATS_TEST_TMPDIR
	O="$T/out"
	cd "$T" || exit 1
	export FAKE_NCU_ARGV="$T/ncu-argv"
}

# traced ID [STATUS]: kf-wrap ncu --top 3 of the recorded ResNet-50 run
# under kf's tracer (its trace replayed by tests/fake/traced-program, which
# exits STATUS), through kf-run into $T/ID.run, then kf-read | kf-collate |
# kf-feedback into $T/ID.json; kf-feedback's status in $T/ID.status.
traced() {
	local id=$1
	: >"$T/libkftrace.so"
	gzip -dc "$RN50/ncu_report.csv.gz" >"$T/ncu_report.csv"
	gzip -dc "$RN50/ncu_report_mangled.csv.gz" >"$T/ncu_report_mangled.csv"
	export KF_TRACE_LIB="$T/libkftrace.so" FAKE_NCU_CSV="$T/ncu_report.csv" \
		FAKE_NCU_MANGLED="$T/ncu_report_mangled.csv"
	kf-wrap ncu --id "$id" -o "$O" --tool "$FAKE" --top 3 -- "$TOP/tests/fake/traced-program" \
		"$RN50/trace.881.kft.gz" "${2:-0}" | kf-run -q -t "${RUN_LIMIT:-60}" >"$T/$id.run"
	st=0
	kf-read <"$T/$id.run" 2>/dev/null | kf-collate | kf-feedback >"$T/$id.json" || st=$?
	echo "$st" >"$T/$id.status"
}

@test "profiler_failed: ncu's detailed run crashes (status 11) while the traced run was clean: it is the profiler's failure, first, with the retry; the ranking stays; kf-feedback exits 4" {
	FAKE_NCU_DETAIL=crash traced c
	# kf-ncu exits with the program's own status, the timing run's
	run jq -c '[.run.exit_code, .run.ended_by]' "$T/c.run"
	assert_output '[0,"exit"]'
	run cat "$T/c.status"
	assert_output 4
	run jq -c '[.analysis.diagnosis[0].kind, ([.analysis.diagnosis[].kind] | index("program_failed")),
		.collated.timing.detailed_run.status, .collated.timing.detailed_run.exit_code,
		.collated.timing.detailed_run.timing_exit_code, .collated.timing.detailed_run.overlapped,
		[.collated.timing.detailed_run.attempts[] | [.overlapped, .status, .exit_code]],
		(.analysis.ranking.kernels[0].name | startswith("void at::native::batch_norm_backward_kernel<c10::BFloat16"))]' "$T/c.json"
	assert_output '["profiler_failed",null,"failed",11,0,false,[[true,"failed",11]],true]'
	run jq -r .feedback "$T/c.json"
	assert_line --index 1 --regexp "^1\\. ncu's detailed run failed, not the program: the program's own run \\(the timing run, under kf's tracer\\) exited with status 0 after [0-9]+ s, and ncu's detailed run of it \\(after the timing run\\) exited with status 11 after [0-9]+ s and left no report \\(ncu: \"The application returned an error code \\(11\\)\\.\"\\)\\. kf tried it first held beside the timing run \\(ncu --mode launch, then attach\\), where it exited with status 11 after [0-9]+ s\\. The timing run's ranking of all 2816 launches is whole; no kernel has ncu's details\\. Fix: the program is not at fault"
	refute_output --partial 'The program failed'
	run jq -c '[.analysis.diagnosis[0].evidence[] | select(.metric | startswith("detailed_run.exit") or startswith("detailed_run.timing_exit") or . == "timing.launches") | .value]' "$T/c.json"
	assert_output '[11,0,2816]'
}

@test "profiler_failed: a held detailed run that crashes is run again after the timing run; the details are whole and the text says what was tried" {
	FAKE_NCU_DETAIL=crash-held traced r
	run cat "$T/r.status"
	assert_output 0
	run jq -c '[.collated.timing.detailed_run.status, .collated.timing.detailed_run.overlapped,
		(.collated.timing.detailed_run.attempts | length), (.collated.timing.missing | length),
		([.analysis.diagnosis[].kind] | index("program_failed")), ([.analysis.diagnosis[].kind] | index("profiler_failed")),
		.collated.app_exit_code]' "$T/r.json"
	assert_output '["ok",false,1,0,null,null,null]'
	# the attach, then the detailed run with the program after the timing run
	run grep -c -x -e attach "$FAKE_NCU_ARGV"
	assert_output 1
	run jq -r .feedback "$T/r.json"
	assert_line --regexp "^Note: ncu's detailed run was tried first held beside the timing run \\(ncu --mode launch, then attach\\), where it exited with status 11 after [0-9]+ s; it was run again after the timing run, and the details below are from that run\\.\$"
	refute_output --partial 'The program failed'
}

@test "profiler_failed: a detailed run that hangs at kf-ncu's limit, or that kf-run stops, is the profiler's; a timing run that fails is the program's" {
	FAKE_NCU_DETAIL=hang KF_NCU_DETAIL_TIMEOUT=2 traced h
	run jq -c '[.analysis.diagnosis[0].kind, .collated.timing.detailed_run.status, .analysis.diagnosis[0].fix]' "$T/h.json"
	assert_output '["profiler_failed","timeout","give the detailed run more time (KF_NCU_DETAIL_TIMEOUT=SECONDS in kf'"'"'s environment) or detail fewer kernels (--top 1); the timing run'"'"'s ranking needs no second run"]'
	run jq -r '.analysis.diagnosis[0].what' "$T/h.json"
	assert_output --partial "was stopped at kf-ncu's limit of 2 s for it (KF_NCU_DETAIL_TIMEOUT"
	# kf-run's own time limit, in the detailed run: the run ended by
	# timeout, yet the program had ended well
	FAKE_NCU_DETAIL=hang RUN_LIMIT=4 traced s
	run jq -c '[.passes[0].run.ended_by, .collated.timing.detailed_run.status, .analysis.diagnosis[0].kind,
		([.analysis.diagnosis[].kind] | index("program_failed"))]' "$T/s.json"
	assert_output '["timeout","stopped","profiler_failed",null]'
	run cat "$T/s.status"
	assert_output 4
	# the program's own run fails: the program's failure, the detailed
	# run's fate notwithstanding
	FAKE_NCU_DETAIL=crash traced p 6
	run jq -c '[.analysis.diagnosis[0].kind, ([.analysis.diagnosis[].kind] | index("profiler_failed")),
		.collated.timing.detailed_run.timing_exit_code, .passes[0].run.exit_code]' "$T/p.json"
	assert_output '["program_failed",null,6,6]'
	run cat "$T/p.status"
	assert_output 3
}

@test "XLA: a timing run of XLA's kernels gives the detailed run alone XLA_FLAGS with command buffers and autotuning off, each only where the program's own does not set it" {
	export FAKE_NCU_TIMING="$FIX/ncu-h200-jax/jit-timing.csv" FAKE_NCU_CSV="$FIX/ncu-h200-jax/jit-timing.csv"
	printf '#!/bin/sh\necho "flags=[$XLA_FLAGS]"\n' >"$T/prog"
	chmod +x "$T/prog"
	kf-wrap ncu --id x -o "$O" --tool "$FAKE" --top 2 -- "$T/prog" | kf-run -q -t 60 >"$T/x.run"
	run jq -r .run.stdout "$T/x.run"
	assert_line 'flags=[]'
	assert_line 'flags=[--xla_gpu_enable_command_buffer= --xla_gpu_autotune_level=0]'
	run jq -r .xla_flags_added "$O/x/ncu.000/ncu_detailed.json"
	assert_output '--xla_gpu_enable_command_buffer= --xla_gpu_autotune_level=0'
	# the program's own setting stays, and only the other is added
	export XLA_FLAGS='--xla_gpu_autotune_level=2'
	kf-wrap ncu --id y -o "$O" --tool "$FAKE" --top 2 -- "$T/prog" | kf-run -q -t 60 >"$T/y.run"
	run jq -r .run.stdout "$T/y.run"
	assert_line 'flags=[--xla_gpu_autotune_level=2]'
	assert_line 'flags=[--xla_gpu_autotune_level=2 --xla_gpu_enable_command_buffer=]'
	# a kernel that is not XLA's gets nothing
	unset XLA_FLAGS
	export FAKE_NCU_TIMING="$FIX/ncu-h200/detailed-multi.csv" FAKE_NCU_CSV="$FIX/ncu-h200/detailed-multi.csv"
	kf-wrap ncu --id z -o "$O" --tool "$FAKE" --top 2 -- "$T/prog" | kf-run -q -t 60 >"$T/z.run"
	run jq -r .run.stdout "$T/z.run"
	refute_output --partial 'xla'
	run jq -r .xla_flags_added "$O/z/ncu.000/ncu_detailed.json"
	assert_output null
}

# flax ID: kf-wrap ncu --top 3 of the Flax CNN recorded on the H200 (its
# trace replayed by tests/fake/traced-program, its detailed pages by the
# fake ncu) through kf-run into $T/ID.run and on to $T/ID.json. The program
# prints its XLA_FLAGS and XLA_PYTHON_CLIENT_PREALLOCATE, and where XLA_FLAGS
# ask XLA to dump its autotuning results (--xla_gpu_dump_autotune_results_to=F)
# writes the recorded ones to F, as XLA does, unless NO_RESULTS is set.
flax() {
	local id=$1
	: >"$T/libkftrace.so"
	for f in ncu_report ncu_report_mangled ncu_raw ncu_source; do
		gzip -dc "$FLAX/$f.csv.gz" >"$T/$f.csv"
	done
	cat >"$T/xla-prog" <<-EOF
		#!/bin/sh
		echo "env=[\$XLA_FLAGS][\${XLA_PYTHON_CLIENT_PREALLOCATE-unset}]"
		case " \$XLA_FLAGS " in
		*" --xla_gpu_dump_autotune_results_to="*)
			f=\${XLA_FLAGS##*--xla_gpu_dump_autotune_results_to=}
			[ -n "\${NO_RESULTS:-}" ] || gzip -dc "$FLAX/xla_autotune.txt.gz" >"\${f%% *}" ;;
		esac
		exec "$TOP/tests/fake/traced-program" "$FLAX/trace/trace.2784.kft.gz"
	EOF
	chmod +x "$T/xla-prog"
	export KF_TRACE_LIB="$T/libkftrace.so" FAKE_NCU_CSV="$T/ncu_report.csv" \
		FAKE_NCU_MANGLED="$T/ncu_report_mangled.csv" FAKE_NCU_RAW="$T/ncu_raw.csv" \
		FAKE_NCU_SOURCE="$T/ncu_source.csv" FAKE_NCU_SOURCE_ALL=1
	kf-wrap ncu --id "$id" -o "$O" --tool "$FAKE" --top 3 -- "$T/xla-prog" | kf-run -q -t 60 >"$T/$id.run"
	kf-read <"$T/$id.run" 2>/dev/null | kf-collate | kf-feedback >"$T/$id.json" || true
	D="$O/$id/ncu.000"
}

@test "XLA, the Flax CNN of the H200 replayed: the traced timing run dumps XLA's autotuning results, the held detailed run loads them with command buffers off and no preallocation; the kernels the steps ran are chosen and all detailed" {
	flax f
	run jq -r .run.stdout "$T/f.run"
	# the timing run, then the held run: the program's environment in each
	assert_line --index 0 "env=[--xla_gpu_dump_autotune_results_to=$D/xla_autotune.txt][unset]"
	assert_line "env=[--xla_gpu_load_autotune_results_from=$D/xla_autotune.txt --xla_gpu_enable_command_buffer=][false]"
	run grep -c -x -- "$T/xla-prog" "$FAKE_NCU_ARGV"
	assert_output 1
	# from the trace the choice made on the H200: the steady state begins
	# after the autotuner's last launch (5330 launches of 144 kernels before
	# it, in the trace's launch order), the steps' kernels chosen
	[ "$(jq -c '.chosen_keys | sort' "$D/ncu_top.json")" = "$(gzip -dc "$FLAX/ncu_top.json.gz" | jq -c '.chosen_keys | sort')" ]
	run jq -c '[.status, .overlapped, .attached_processes, .xla_autotune, .xla_env_added]' "$D/ncu_detailed.json"
	assert_output '["ok",true,1,"loaded","XLA_PYTHON_CLIENT_PREALLOCATE=false"]'
	run jq -c '[.collated.timing.autotuning.launches, .collated.timing.autotuning.kernel_count,
		([.collated.timing.kernels[] | select(.chosen and .detailed)] | length), .collated.timing.missing,
		.analysis.focus.name[0:22]]' "$T/f.json"
	assert_output '[5330,144,3,[],"void wgrad_alg0_engine"]'
	# the text of the H200's run, and a note of what the detailed run loaded
	jq -r .feedback "$T/f.json" >"$T/f.txt"
	run grep -c -x -F "Note: its kernels are XLA's: the detailed run ran with XLA_FLAGS+=\"--xla_gpu_load_autotune_results_from=$D/xla_autotune.txt --xla_gpu_enable_command_buffer=\" and XLA_PYTHON_CLIENT_PREALLOCATE=false in its environment (the autotuning results of the timing run loaded, so that XLA runs the kernels it chose there without autotuning under ncu, and its command buffers (CUDA graphs, on which ncu crashed on an H200) off; JAX's memory pool not taken whole at its start, since ncu saves and restores the memory a kernel can write for each pass)." "$T/f.txt"
	assert_output 1
	# the diagnosis leads with the traced window (the trace's timeline,
	# trace_timeline.json beside the timing CSVs) and puts every finding in
	# the program's unit
	run jq -r '.analysis.diagnosis[0] | .kind, .impact_pct, .impact_basis' "$T/f.json"
	assert_output "launch_bound
83.5
traced_window"
	[ -f "$D/trace_timeline.json" ]
	# the traced window is the steady state too: its 135 launches, busy
	# 579.2 us of the ranking's 581.2 us, not the autotuning before it
	run jq -c '.timeline.window | [.from, .launches, .busy_ns, .short_launches.count]' "$D/trace_timeline.json"
	assert_output '["steady_state",135,579193,114]'
	run jq -r .feedback "$T/f.json"
	assert_line --partial '1. The GPU waits on the host between launches: it was idle 83.5% of the traced window (2.93 ms in 83 gaps under 1 ms between launches, against 579.2 µs busy); 114 of 135 launches ran under 10 µs, the median 1.2 µs'
	# the shares are of the steady state (its 135 launches, 581.2 us), not
	# of the autotuning before it (99.6% of the timing run): the FP32
	# convolutions on the FMA pipe are 52.5% of it, and the focus kernel's
	# low occupancy stakes 40.3% of its 43.8%
	run jq -r '.analysis.diagnosis[1:][] | [.kind, .impact_pct, .kernel_impact_pct] | @tsv' "$T/f.json"
	assert_line -n 0 "$(printf 'fp32_matmul\t51.3\t')"
	assert_line -n 1 "$(printf 'low_occupancy\t17.7\t40.3')"
	run jq -c '[.analysis.ranking.total_ns, .analysis.focus.share_pct, .analysis.ranking.machinery]' "$T/f.json"
	assert_output '[581182,43.7837028676043,null]'
	# what the detailed run says of the chosen kernels is the H200's, word
	# for word; the ranking is now of the steady state, and what was set
	# aside before it is said once, not ranked as machinery
	diff <(detailed_part "$T/f.txt") <(detailed_part "$FLAX/feedback.txt")
	run grep -c -e 'XLA autotuning: the launches before the steady state' "$T/f.txt"
	assert_output 1
	run grep -c -F "; the ranking below and every share, the findings' included, are of the other 135 launches, its steady state (581.2 µs))" "$T/f.txt"
	assert_output 1
}

# detailed_part TEXT: the focus kernel and what its launch profiled in
# detail says, not the ranking nor the diagnosis (a share of the program)
detailed_part() {
	awk '/^Kernel: / || /^The numbers below/ { print }
		/^Throughput \(Speed Of Light/ { p = 1 } /^Kernels by total GPU time/ { p = 0 } p && !/^$/ { print }' "$1"
}

@test "XLA: a timing run that leaves no autotuning results (its XLA_FLAGS replaced, or an output path XLA_FLAGS cannot carry) lets the held program go; the detailed run comes after it with autotuning and command buffers off; the program's own settings stay" {
	NO_RESULTS=1 flax n
	run jq -r .run.stderr "$T/n.run"
	assert_output --partial "kf-ncu: the timing run ran XLA's kernels and left no autotuning results to load: the detailed run comes after it, with XLA_FLAGS+=\"--xla_gpu_enable_command_buffer= --xla_gpu_autotune_level=0\""
	run jq -r .run.stdout "$T/n.run"
	assert_line "env=[--xla_gpu_enable_command_buffer= --xla_gpu_autotune_level=0][false]"
	run jq -c '[.status, .overlapped, .xla_autotune, .xla_env_added]' "$D/ncu_detailed.json"
	assert_output '["ok",false,"off","XLA_PYTHON_CLIENT_PREALLOCATE=false"]'
	# an output folder with a space: nothing dumped, the program's own
	# preallocation setting kept
	O="$T/o u t"
	XLA_PYTHON_CLIENT_PREALLOCATE=true flax s
	run jq -r .run.stdout "$T/s.run"
	assert_line --index 0 "env=[][true]"
	assert_line "env=[--xla_gpu_enable_command_buffer= --xla_gpu_autotune_level=0][true]"
	run jq -c '[.overlapped, .xla_autotune, .xla_env_added]' "$D/ncu_detailed.json"
	assert_output '[false,"off",null]'
	[ ! -e "$D/xla_autotune.txt" ]
}

@test "a saved final record read again (kf-read | kf-collate | kf-feedback) keeps its runs: the H200 device-side assert still leads with program_failed and the assert's own line" {
	cp -r "$FIX/ncu-h200-fail/." "$T/"
	for n in assert-all assert-top; do
		st=0
		kf-read <"$T/$n.json" | kf-collate | kf-feedback >"$T/$n.again.json" || st=$?
		[ "$st" -eq 3 ]
		run jq -c '[.analysis.diagnosis[0].kind, .passes[0].run.exit_code, .passes[0].output_dir]' "$T/$n.again.json"
		assert_output "[\"program_failed\",$(jq '.passes[0].run.exit_code' "$T/$n.json"),\"$n/ncu.000\"]"
		run jq -r .feedback "$T/$n.again.json"
		assert_line --index 1 --partial 'It said: "/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu:111: operator(): block: [0,0,0], thread: [0,0,0] Assertion `-sizes[i] <= index && index < sizes[i] && "index out of bounds"` failed.'
	done
	# the re-read's numbers are the saved record's
	run jq -c '[.collated.kernel_count, .analysis.focus.name]' "$T/assert-top.again.json"
	assert_output "$(jq -c '[.collated.kernel_count, .analysis.focus.name]' "$T/assert-top.json")"
	run jq -r '.analysis.diagnosis[0].what' "$T/assert-top.again.json"
	assert_output --partial 'torch.AcceleratorError: CUDA error: device-side assert triggered'
	refute_output --partial 'The last lines of its stderr'
}

@test "^C on kf-wrap | kf-run | kf-read | kf-collate | kf-feedback --text: kf-run's interrupted record reaches the end, which says so; the last four stages exit 130" {
	export FAKE_NCU_CSV="$FIX/ncu-h200/detailed-multi.csv"
	cat >"$T/pipe.sh" <<EOF
kf-wrap ncu --id i -o "$O" --tool "$FAKE" -- sleep 29.5 | kf-run -q | kf-read | kf-collate | kf-feedback --text >"$T/text.txt"
echo "\${PIPESTATUS[*]}" >"$T/status.txt"
EOF
	# a group of its own with SIGINT at its default, as a shell in a
	# terminal runs a pipeline; then ^C to the whole group
	setsid perl -e '$SIG{INT} = "DEFAULT"; open(my $f, ">", "pg") or die; print $f "$$\n"; close $f; exec @ARGV' \
		bash "$T/pipe.sh" 3>&- &
	for i in $(seq 100); do pgrep -f "sleep 29.5" >/dev/null && break; sleep 0.1; done
	sleep 0.5
	kill -INT -- "-$(cat pg)"
	# on a loaded machine the stages take a while to finish their input
	for i in $(seq 300); do [ -s "$T/status.txt" ] && break; sleep 0.1; done
	run cat "$T/status.txt"
	assert_output '0 130 130 130 130'
	run cat "$T/text.txt"
	assert_line --index 0 '=== i ==='
	assert_line --index 1 'The run was interrupted before ncu wrote anything complete, so there are no performance numbers for it.'
	assert_output --partial 'kf-run was interrupted and stopped it after'
}

@test "program_failed: of a device-side assert that every thread prints, its first assert line and the exception that ended the program, not 32 copies nor the traceback's first" {
	a='/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu:111: operator(): block: [0,0,0], thread: [%d,0,0] Assertion `idx < n` failed.\n'
	err=$(for i in $(seq 0 31); do printf "$a" "$i"; done
		printf 'Traceback (most recent call last):\n  File "t.py", line 9, in <module>\nValueError: caught first\n\nDuring handling of the above exception, another exception occurred:\n\ntorch.AcceleratorError: CUDA error: device-side assert triggered\nSearch for `cudaErrorAssert'"'"' for more information.\n')
	jq -cn --arg err "$err" '{id:"a", profiler:"ncu", cmd:["python3","t.py"],
		passes:[{pass:"ncu.000", status:"ok", run:{exit_code:1, signal:null, ended_by:"exit", stdout:"", stderr:$err}}],
		collated:{kernels:[]}}' >"$T/a.json"
	run kf-feedback "$T/a.json"
	assert_equal "$status" 3
	run jq -r '.analysis.diagnosis[0].what' <<<"$output"
	assert_output 'The program failed: its run exited with status 1 (run.exit_code). It said: "/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu:111: operator(): block: [0,0,0], thread: [0,0,0] Assertion `idx < n` failed. | torch.AcceleratorError: CUDA error: device-side assert triggered". The numbers that follow are from the kernels that ran before it ended, not from a whole run'
}

@test "program_failed before any kernel, in a sweep job's held run: not run again; kf-read says program_failed, the program's own words lead, kf-feedback exits 3" {
	export KF_NCU_GPU_LOCK="$T/gpu.lock" FAKE_NCU_MODE=none
	kf-wrap ncu --id f -o "$O" --tool "$FAKE" -- sh -c 'echo ran >>"$1"; echo "RuntimeError: boom" >&2; exit 1' _ "$T/ran" |
		kf-run -q -t 60 >"$T/f.run"
	# held for ncu, attached to, ended: once (the attach was connected and
	# said it profiled nothing)
	run cat "$T/ran"
	assert_output ran
	run grep -c -x -e --mode "$FAKE_NCU_ARGV"
	assert_output 2
	run jq -r .run.stderr "$T/f.run"
	assert_line 'kf-ncu: the program held for ncu ended with status 1 and ncu profiled no kernel'
	refute_output --partial 'runs again'
	run jq -c '[.run.exit_code, .error.kind, (.error.message | endswith(": the program exited with status 1 before ncu profiled any kernel"))]' <(kf-read <"$T/f.run")
	assert_output '[1,"program_failed",true]'
	st=0
	kf-read <"$T/f.run" 2>/dev/null | kf-collate | kf-feedback --text >"$T/f.txt" || st=$?
	[ "$st" -eq 3 ]
	run cat "$T/f.txt"
	assert_line --index 2 --regexp '^1\. The program failed: its run exited with status 1 \(run\.exit_code\)\. It said: "RuntimeError: boom"\.'
	assert_line 'The program failed before ncu profiled any kernel, so there are no performance numbers for this run.'
	refute_output --partial 'Profiling with ncu failed'
	refute_output --partial 'target-processes'
	# kf-report's index: the program's failure, not the profiling's
	kf-read <"$T/f.run" 2>/dev/null | kf-collate | kf-feedback >"$T/f.json" || true
	kf-report "$T/f.json" >"$T/f.html"
	grep -qF 'class="status st-program-failed">program failed' "$T/f.html"
	# the same program run by ncu itself (no sweep's lock): ncu says the
	# program's status, and it is the same failure
	unset KF_NCU_GPU_LOCK
	kf-wrap ncu --id s -o "$O" --tool "$FAKE" -- sh -c 'echo "RuntimeError: boom" >&2; exit 1' |
		kf-run -q -t 60 >"$T/s.run"
	run jq -c '[.run.exit_code, .error.kind, (.run.stdout | contains("returned an error code (1)")),
		(.run.stdout | contains("No kernels were profiled"))]' <(kf-read <"$T/s.run")
	assert_output '[1,"program_failed",true,false]'
	# a program that ends well with no kernel: no_kernels, as before
	kf-wrap ncu --id n -o "$O" --tool "$FAKE" -- /bin/echo ran | kf-run -q -t 60 >"$T/n.run"
	run jq -c '[.run.exit_code, .error.kind]' <(kf-read <"$T/n.run")
	assert_output '[0,"no_kernels"]'
}

@test "program_failed before any kernel with --top: a timing run that failed and a held run that profiled nothing are not followed by a third run; the ranking stays" {
	FAKE_NCU_MODE=none traced t 1
	# ncu ran twice: the held program (--mode launch) and its attach
	run grep -c -x -e --mode "$FAKE_NCU_ARGV"
	assert_output 2
	run grep -c -x -e '===' "$FAKE_NCU_ARGV"
	assert_output 2
	run jq -r .run.stderr "$T/t.run"
	assert_line --partial 'kf-ncu: the program failed in the timing run (status 1) and ended with status 1 in the detailed run held for ncu, which profiled no kernel; it is not run again'
	run cat "$T/t.status"
	assert_output 3
	run jq -c '[.analysis.diagnosis[0].kind, .collated.timing.detailed_run.status,
		.collated.timing.detailed_run.error.kind, .collated.timing.detailed_run.attempts,
		.collated.timing.launches]' "$T/t.json"
	assert_output '["program_failed","failed","program_failed",[],2816]'
}
