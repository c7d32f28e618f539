#!/usr/bin/env bats
# Real H200 captures other than the fixtures (examples/h200, made with
# examples/h200/run.sh): replayed offline, the feedback names the longest
# kernel, the top kernels by time, its throughputs, the bottleneck rule and the
# rule with the largest global estimated speedup. Expected values were read
# from each ncu_report.csv.

load helper

setup() {
	cd "$TOP"
}

# feedback_of JOB [kf-feedback options]: replay examples/h200/JOB through
# kf-read | kf-collate | kf-feedback
feedback_of() {
	local job=$1
	shift
	jq -c '{id, profiler, output_dir: .passes[0].output_dir, worker}' "examples/h200/$job.json" |
		kf-read | kf-collate | kf-feedback "$@" > "$BATS_TEST_TMPDIR/$job.json"
}

an() {
	jq -r "$2" "$BATS_TEST_TMPDIR/$1.json"
}

@test "resnet18 --set full, 120 launches: the kernel with the most time is the focus, not the longest launch (rank 6)" {
	feedback_of resnet18-full
	[ "$(an resnet18-full '.analysis.focus | "\(.reason) \(.id) \(.duration_ns) \(.total_ns) \(.launches)"')" = "most_time 65 34048 179744 20" ]
	run an resnet18-full .feedback
	assert_output --partial "Kernel: cudnn::bn_fw_inf_1C11_kernel_NCHW<float, float, 1, 1>(...)"
	assert_output --partial "Why this kernel: it has the most GPU time of the program's 19 kernels: 14.7%, 179.7 µs over 20 launches."
	feedback_of resnet18-full --focus longest
	run an resnet18-full .feedback
	assert_output --partial "over all its launches it takes 7.9% of the profiled GPU time (1 launch), rank 6 of 19"
}

@test "resnet18 --set full, 120 launches, --focus longest: longest launch, its SOL figures and rules" {
	feedback_of resnet18-full --focus longest
	[ "$(an resnet18-full '.analysis.focus.id')" = 63 ]
	[ "$(an resnet18-full '.analysis.focus.duration_ns')" = 97024 ]
	[ "$(an resnet18-full '.analysis.focus.throughput | [.compute_sm_pct, .l1tex_pct, .l2_pct, .dram_pct] | @csv')" = "53.06,63.56,19.42,7.88" ]
	[ "$(an resnet18-full '.analysis.focus.bottleneck | .[0:38]')" = "Compute and Memory are well-balanced: " ]
	[ "$(an resnet18-full '.analysis.rules[0] | "\(.name) \(.speedup_type) \(.speedup)"')" = "UncoalescedGlobalAccess global 50.9" ]
	run an resnet18-full .feedback
	assert_output --partial "Kernel: sm80_xmma_fprop_implicit_gemm_indexed_wo_smem_tf32f32"
	assert_output --partial "The numbers below are from the longest of the 120 kernel launches profiled (ID 63"
	assert_output --partial "DRAM Throughput: 7.9%"
	assert_output --partial "UncoalescedGlobalAccess (estimated global speedup 50.9%)"
}

@test "resnet18 --set full: kernels ranked by total time over their launches" {
	feedback_of resnet18-full
	[ "$(an resnet18-full '.analysis.ranking.kernel_count')" = 19 ]
	[ "$(an resnet18-full '.analysis.ranking.kernels[0] | "\(.total_ns) \(.launches)"')" = "179744 20" ]
	[ "$(an resnet18-full '.analysis.ranking.kernels[1] | "\(.total_ns) \(.launches)"')" = "142912 24" ]
	run an resnet18-full .feedback
	assert_output --partial "Kernels by total GPU time (19 kernels, 120 launches"
	assert_output --partial "1. cudnn::bn_fw_inf_1C11_kernel_NCHW<float, float, 1, 1>(...): 14.7%, 179.7 µs over 20 launches"
}

@test "multi --nvtx: NVTX ranges read from the extra columns and named in the feedback" {
	feedback_of multi-nvtx
	[ "$(an multi-nvtx '.analysis.focus.id')" = 3 ]
	[ "$(an multi-nvtx '.analysis.focus.duration_ns')" = 2380288 ]
	[ "$(an multi-nvtx '.analysis.focus.nvtx | join(",")')" = sgemm_tiled ]
	[ "$(an multi-nvtx '.analysis.ranking.kernels[1] | "\(.total_ns) \(.launches)"')" = "995520 1" ]
	run an multi-nvtx .feedback
	assert_output --partial "Kernel: sgemm_tiled_k(const float *, const float *, float *, int)"
	assert_output --partial "NVTX ranges: sgemm_tiled"
}

@test "transformer in bf16, --focus longest: the longest launch is not the kernel with the most total time" {
	feedback_of transformer --focus longest
	[ "$(an transformer '.analysis.focus.id')" = 8 ]
	[ "$(an transformer '.analysis.focus.duration_ns')" = 55840 ]
	[ "$(an transformer '.analysis.ranking.kernels[0] | "\(.name) \(.total_ns) \(.launches)"')" = "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_bias_TNT 245056 7" ]
	[ "$(an transformer '.analysis.focus.throughput.compute_sm_pct')" = 65.65 ]
	run an transformer .feedback
	assert_output --partial "Compute is more heavily utilized than Memory"
	assert_output --partial "over all its launches it takes 21.7% of the profiled GPU time (2 launches), rank 2 of 5; the kernel with the most GPU time is nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_bias_TNT (47.8%)"
}

@test "sgemm_tiled --set full: the shared-memory rule ncu reports only with the full set" {
	feedback_of sgemm_tiled-full
	# HighPipeUtilization (local 88.17%) never leads (share/kf/ncu_rules.tsv).
	[ "$(an sgemm_tiled-full '.analysis.rules[0] | "\(.name) \(.speedup_type) \(.speedup)"')" = "SharedMemoryConflicts global 9.723" ]
	[ "$(an sgemm_tiled-full '.analysis.focus.throughput.l1tex_pct')" = 94.25 ]
}

@test "triton softmax: a Triton kernel named as Triton names it" {
	feedback_of triton-softmax
	[ "$(an triton-softmax '.analysis.focus.name')" = softmax_kernel ]
	[ "$(an triton-softmax '.analysis.focus.throughput.dram_pct')" = 71.2 ]
	[ "$(an triton-softmax '.analysis.ranking.kernels[0].launches')" = 3 ]
}

@test "a failed real run (program missing) is explained from the recorded run" {
	run jq -r '.feedback' examples/h200/missing.json
	assert_output --partial "ncu could not start the program"
	assert_output --partial "'/tmp/does-not-exist' does not exist or is not an executable"
}

@test "the H200 sweep's saved outputs re-analysed offline give the summary's top kernels" {
	while IFS="$(printf '\t')" read -r id prof status top share verdict; do
		[ "$status" = ok ]
		got=$(jq -c '{id, profiler, output_dir: .passes[0].output_dir}' "examples/h200-sweep/$id.json" |
			kf-read | kf-collate | kf-feedback | jq -r '.analysis.ranking.kernels[0].name')
		[ "$got" = "$top" ]
	done < <(tail -n +2 examples/h200-sweep/summary.tsv)
	[ "$(wc -l < examples/h200-sweep/summary.tsv)" -eq 7 ]
}

@test "make demo replays the recorded profiles and prints their feedback" {
	run sh examples/demo.sh
	assert_success
	assert_output --partial "=== resnet18-full ==="
	assert_output --partial "Kernel: transpose_naive_k(const float *, float *, int)"
	assert_output --partial "Uncoalesced global access"
	assert_output --partial "ncu profiled no kernel"
}

# replay_rec JOB [kf-feedback options]: the saved record of a captured job,
# its run included, re-read from its saved report.
replay_rec() {
	local job=$1
	shift
	jq -c '{id, cmd, profiler, worker} + (.passes[0] | {pass, mode, output_dir, run})' "examples/h200/$job.json" |
		kf-read 2>/dev/null | kf-collate | kf-feedback "$@" > "$BATS_TEST_TMPDIR/$job.json" ||
		{ rc=$?; [ $rc -eq 1 ] || [ $rc -eq 3 ]; }	# 1: a failed profile (jax-jit); 3: the program failed
}

@test "cupy-fft: CuPy's generator setup is set aside, the cuFFT kernel is the focus" {
	replay_rec cupy-fft
	[ "$(an cupy-fft '.analysis.ranking.machinery.kernels[0] | "\(.name) \(.total_ns)"')" = "void init_curand<curand_pseudo_state<curandStateXORWOW>>(long, unsigned long, long) 580704" ]
	[ "$(an cupy-fft '.analysis.focus | "\(.total_ns) \(.launches)"')" = "408352 3" ]
	run an cupy-fft .feedback
	assert_output --partial "Kernel: regular_fft_factor<4096, EPT<16>, 4, 0, 14, 0, 2, 1, unsigned int, float, ...>(kernel_arguments_t<T9>)"
}

@test "hang and abort: program_failed leads, with how the run ended and ncu's own words; no guess at a signal" {
	replay_rec hang
	run an hang .feedback
	assert_line -n 1 --partial "1. The program failed: its run did not finish: kf-run stopped it after 29.339 s, at its inactivity limit: no output for 20 s, as from a program that hangs (kf-run --inactivity changes it)."
	assert_line "Warning: the run did not finish: kf-run stopped it after 29.339 s, at its inactivity limit: no output for 20 s, as from a program that hangs (kf-run --inactivity changes it). The numbers below cover only the kernels that ran before it was stopped."
	replay_rec abort
	[ "$(an abort '.analysis.diagnosis[0] | "\(.kind) \(.evidence[0].metric) \(.evidence[0].value)"')" = "program_failed run.exit_code 6" ]
	run an abort .feedback
	assert_line -n 1 --partial '1. The program failed: its run exited with status 6 (run.exit_code). ncu said: "==ERROR== The application returned an error code (6)."'
	assert_output --partial "Note: the program exited with status 6 after the profiled kernels ran"
	refute_output --partial "SIGABRT"
	replay_rec jax-jit
	[ "$(an jax-jit '.error.kind')" = stopped ]
	run an jax-jit .error.message
	assert_output --partial "kf-run stopped it after 60.015 s, at its inactivity limit: no output for 60 s"
	refute_output --partial "run ncu with --csv"
}

@test "make examples: every recorded example is what this build prints (examples/regen.sh into a fresh folder)" {
	sh examples/regen.sh "$BATS_TEST_TMPDIR/ex"
	n=0
	while IFS= read -r f; do
		n=$((n + 1))
		[ -f "examples/$f" ] || fail "examples/regen.sh made $f, which examples/ lacks"
		cmp -s "$BATS_TEST_TMPDIR/ex/$f" "examples/$f" ||
			fail "examples/$f is not what the build prints (run make examples): $(diff "examples/$f" "$BATS_TEST_TMPDIR/ex/$f" | head -n 20)"
	done < <(cd "$BATS_TEST_TMPDIR/ex" && find . -type f | sed 's|^\./||' | sort)
	# 23 + 3 + 6 jobs with a record and a text, the summary, 5 pages, 22
	# defect kernels' texts, the report; the 27 single ops with a record
	# and a text, their summary and check
	[ "$n" -eq 149 ] || fail "$n files"
	# nothing of the run itself: no path of this build or of the folder it
	# ran in (the recorded profiles' own source paths are data)
	! grep -rlF -e "$TOP/bin" -e "$TOP/share" -e "$TOP/tests" -e "$BATS_TEST_TMPDIR" \
		"$BATS_TEST_TMPDIR/ex" || fail "an absolute path"
	# every committed text has its generator
	for f in examples/h200/*.feedback.txt examples/h200-chain/*.feedback.txt \
		examples/h200-sweep/*.feedback.txt examples/h200-pages/*.feedback.txt \
		examples/h200-defects/*.feedback.txt; do
		[ -f "$BATS_TEST_TMPDIR/ex/${f#examples/}" ] || fail "nothing makes $f"
	done
}
