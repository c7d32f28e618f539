#!/usr/bin/env bats
# Feedback that tells the truth about real programs (issue 12): the focus is
# where the time goes, framework machinery is set aside, shown names tell
# kernels apart, a stopped run says so, rules repeated per unit are one
# line, and --max-chars is filled by priority. Real H200 captures, some with
# kernels renamed to what XLA and PyTorch launch.

load helper

H200="$FIX/ncu-h200"
FAKE="$TOP/tests/fake/ncu"
DELAY='void stream_executor::gpu::(anonymous namespace)::DelayKernel(volatile stream_executor::gpu::GpuSemaphoreState *, stream_executor::gpu::GpuSemaphoreState)'
REDZONE='void stream_executor::gpu::(anonymous namespace)::RedzoneAllocatorKernelImpl<unsigned long>(unsigned char *, unsigned char, unsigned long, unsigned int *)'

# rename FROM TO < CSV: the CSV with a kernel name (a whole field) replaced.
rename() {
	awk -v from="\"$1\"" -v to="\"$2\"" 'BEGIN { FS = OFS = "," }
		{ n = index($0, from); if (n) $0 = substr($0, 1, n - 1) to substr($0, n + length(from)); print }'
}

@test "machinery: XLA's autotuner delay kernel is set aside, not the focus, and the text says how much time it took" {
	rename 'sgemm_naive_k(const float *, const float *, float *, int)' "$DELAY" <"$H200/detailed-multi.csv" |
		rename 'fma_k(float *, int)' "$REDZONE" >"$BATS_TEST_TMPDIR/xla.csv"
	fb xla "$BATS_TEST_TMPDIR/xla.csv"
	run an xla '[.focus.name, .focus.reason, .ranking.machinery.kernel_count, .ranking.machinery.total_ns, .ranking.machinery.launches, ([.ranking.kernels[].name])]'
	assert_output '["copy_k(const float4 *, float4 *, unsigned long)","most_time",2,3352352,2,["copy_k(const float4 *, float4 *, unsigned long)"]]'
	run an xla '[.ranking.machinery.kernels[] | [.framework, .what, .launches]]'
	assert_output '[["XLA","autotuner timing spin-wait (GpuTimer'"'"'s delay kernel)",1],["XLA","autotuner buffer redzone check",1]]'
	run text xla
	assert_line 'Kernel: copy_k(const float4 *, float4 *, unsigned long)'
	assert_line "Why this kernel: it has the most GPU time of the program's 1 kernel: 100.0% of their time, 265.3 µs over 2 launches (7.3% of all: 2 machinery kernels set aside)."
	assert_line "Set aside as framework machinery, not the program's work (share/kf/machinery.tsv): 2 kernels, 92.7%, 3.35 ms over 2 launches:"
	assert_line "- stream_executor::gpu::DelayKernel(volatile GpuSemaphoreState *, GpuSemaphoreState) (XLA autotuner timing spin-wait (GpuTimer's delay kernel)): 86.5%, 3.13 ms over 1 launch"
	assert_line '   2 machinery kernels set aside: 92.7%, 3.35 ms over 2 launches'
}

@test "machinery: a real JAX jit on the H200, 99.4% of its GPU time in XLA's autotuner, the matmul is the focus" {
	fb jax "$FIX/ncu-h200-jax/jit-timing.csv"
	run an jax '[.focus.name, .focus.total_ns, .focus.launches, .ranking.machinery.kernel_count, .ranking.machinery.launches, .ranking.machinery.total_ns]'
	assert_output '["gemm_fusion_dot_general_1",10607904,24,4,177,2679026752]'
	run an jax '[.ranking.machinery.kernels[] | [.launches, .framework]]'
	assert_output '[[20,"XLA"],[136,"XLA"],[19,"XLA"],[2,"XLA"]]'
	run text jax
	assert_line "Why this kernel: it has the most GPU time of the program's 10 kernels: 83.1% of their time, 10.61 ms over 24 launches (0.4% of all: 4 machinery kernels set aside)."
	assert_line "- stream_executor::DelayKernel(volatile GpuSemaphoreState *, GpuSemaphoreState) (XLA autotuner timing spin-wait (GpuTimer's delay kernel)): 99.4%, 2.67 s over 20 launches"
	assert_line "- stream_executor::RedzoneAllocatorKernelImpl(...) (XLA autotuner buffer redzone check): 0.1%, 3.82 ms over 136 launches"
}

@test "machinery: only machinery ran, so the focus is the busiest of it, and the line says so" {
	rename 'sgemm_naive_k(const float *, const float *, float *, int)' "$DELAY" <"$H200/detailed-multi.csv" |
		rename 'fma_k(float *, int)' "$REDZONE" |
		rename 'copy_k(const float4 *, float4 *, unsigned long)' "$REDZONE" >"$BATS_TEST_TMPDIR/only.csv"
	fb only "$BATS_TEST_TMPDIR/only.csv"
	run an only '[.focus.machinery, .focus.total_ns]'
	assert_output '["autotuner timing spin-wait (GpuTimer'"'"'s delay kernel)",3129408]'
	run text only
	assert_line "Why this kernel: every kernel profiled is framework machinery; this one has the most GPU time: 86.5%, 3.13 ms over 1 launch."
}

@test "machinery: the table is data, read from KF_DATADIR; a bad line is said and the good ones still apply" {
	run grep -c $'^[^#\t][^\t]*\t[^\t]\+\t[^\t]\+$' "$TOP/share/kf/machinery.tsv"
	[ "$output" -ge 8 ]
	fb multi "$H200/detailed-multi.csv"
	run an multi '[.ranking.machinery_error, .ranking.machinery]'
	assert_output '[null,null]'
	mkdir "$BATS_TEST_TMPDIR/data"
	printf '# test table\nfma_k*\tBench\ta warm-up kernel\nno tabs here\n' >"$BATS_TEST_TMPDIR/data/machinery.tsv"
	KF_DATADIR="$BATS_TEST_TMPDIR/data" fb multi2 "$H200/detailed-multi.csv"
	run an multi2 '[.ranking.machinery_error, (.ranking.machinery.kernels[] | [.name, .framework, .what, .total_ns])]'
	assert_output "[\"$BATS_TEST_TMPDIR/data/machinery.tsv:3: not PATTERN<TAB>FRAMEWORK<TAB>WHAT\",[\"fma_k(float *, int)\",\"Bench\",\"a warm-up kernel\",222944]]"
}

@test "names: kernels that differ only deep in their template arguments never share a shown name" {
	mul='void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float>>, std::array<char *, 2>>(int, T2, T3)'
	div='void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float, float, float, at::native::binary_internal::DivFunctor<float>>, std::array<char *, 2>>(int, T2, T3)'
	mul3='void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float>>, std::array<char *, 3>>(int, T2, T3)'
	rename 'sgemm_naive_k(const float *, const float *, float *, int)' "$mul" <"$H200/detailed-multi.csv" |
		rename 'fma_k(float *, int)' "$div" |
		rename 'copy_k(const float4 *, float4 *, unsigned long)' "$mul3" >"$BATS_TEST_TMPDIR/ew.csv"
	fb ew "$BATS_TEST_TMPDIR/ew.csv"
	run an ew '[.ranking.kernels[].short_name]'
	assert_output '["at::native::vectorized_elementwise_kernel<4, AUnaryFunctor<float, float, float, MulFunctor<float>>, array<char *, 2>>(int, T2, T3)","at::native::vectorized_elementwise_kernel<4, AUnaryFunctor<float, float, float, MulFunctor<float>>, array<char *, 3>>(int, T2, T3)","at::native::vectorized_elementwise_kernel<4, AUnaryFunctor<float, float, float, DivFunctor<float>>, ...>(int, T2, T3)"]'
	run text ew
	assert_line 'Kernel: at::native::vectorized_elementwise_kernel<4, AUnaryFunctor<float, float, float, MulFunctor<float>>, array<char *, 2>>(int, T2, T3)'
}

@test "names: the real ResNet-18 kernels keep the part that tells them apart, and no two look alike" {
	fb resnet "$H200/detailed-resnet18-plain.csv" --ranking 100
	run an resnet '[.ranking.kernels[].short_name] | [length, (unique | length)]'
	assert_output '[16,16]'
	run an resnet '[.ranking.kernels[].short_name | select(startswith("at::vectorized_elementwise_kernel"))]'
	assert_output '["at::vectorized_elementwise_kernel<4, launch_clamp_scalar..., ...>(int, T2, T3)","at::vectorized_elementwise_kernel<4, CUDAFunctor_add<float>, array<char *, 3>>(int, T2, T3)"]'
}

@test "a run stopped by the inactivity limit: kf-read names kf-run as the cause, not a missing --csv" {
	dir="$BATS_TEST_TMPDIR/out/hang"
	mkdir -p "$dir"
	jq -cn --arg d "$dir" --arg fake "$FAKE" --arg csv "$H200/detailed-copy.csv" \
		'{id:"hang", profiler:"ncu", pass:"ncu.000", output_dir:$d,
		  argv:[$fake, "--csv", "--log-file", ($d + "/ncu_report.csv"), "sleep", "30"],
		  env:{FAKE_NCU_CSV:$csv}, end_marker:null}' |
		kf-run --inactivity 1 | kf-read 2>/dev/null | kf-collate | kf-feedback >"$BATS_TEST_TMPDIR/hang.json" ||
		[ $? -eq 3 ]	# the program did not finish (program_failed), which outranks the failed profile
	run jq -r '.passes[0].run | "\(.ended_by) \(.limit_s)"' "$BATS_TEST_TMPDIR/hang.json"
	assert_output 'inactivity 1'
	run jq -r '.error.kind, .error.message' "$BATS_TEST_TMPDIR/hang.json"
	assert_line -n 0 stopped
	assert_line -n 1 --partial 'the run did not finish: kf-run stopped it after 1.'
	assert_line -n 1 --partial 's, at its inactivity limit: no output for 1 s, as from a program that hangs (kf-run --inactivity changes it); ncu had nothing complete to read:'
	refute_output --partial 'run ncu with --csv'
	run text hang
	assert_line -n 0 "Diagnosis (most time at stake first):"
	assert_line -n 1 --partial '1. The program failed: its run did not finish: kf-run stopped it after 1.'
	assert_line --partial 'What went wrong (kf-read, stopped): the run did not finish: kf-run stopped it'
}

@test "a partial report of a stopped run: the first lines say so, with the limit and the option" {
	mkdir -p "$BATS_TEST_TMPDIR/part"
	cp "$H200/detailed-multi.csv" "$BATS_TEST_TMPDIR/part/ncu_report.csv"
	for by in timeout inactivity; do
		jq -cn --arg d "$BATS_TEST_TMPDIR/part" --arg by "$by" \
			'{id:"part", profiler:"ncu", output_dir:$d, run:{exit_code:null, signal:"SIGTERM",
			  ended_by:$by, limit_s:600, elapsed_s:600.5, message:"x"}}' |
			kf-read | kf-collate | kf-feedback >"$BATS_TEST_TMPDIR/$by.json" || [ $? -eq 3 ]
	done
	run text timeout
	assert_line -n 1 '1. The program failed: its run did not finish: kf-run stopped it after 600.5 s, at its time limit of 600 s (kf-run --timeout changes it). The numbers that follow are from the kernels that ran before it ended, not from a whole run. Fix: make the program run to its end outside the profiler first, fix what its own messages say, then profile it again.'
	assert_line 'Warning: the run did not finish: kf-run stopped it after 600.5 s, at its time limit of 600 s (kf-run --timeout changes it). The numbers below cover only the kernels that ran before it was stopped.'
	run text inactivity
	assert_line --partial 'Warning: the run did not finish: kf-run stopped it after 600.5 s, at its inactivity limit'
	assert_line --partial 'at its inactivity limit: no output for 600 s, as from a program that hangs (kf-run --inactivity changes it)'
	run an inactivity '.run_end | [.stopped, .ended_by, .limit_s]'
	assert_output '[true,"inactivity",600]'
	# A record from before limit_s: the limit comes from kf-run's message.
	jq -cn --arg d "$BATS_TEST_TMPDIR/part" '{id:"part", profiler:"ncu", output_dir:$d,
		run:{ended_by:"timeout", elapsed_s:901, message:"timed out after 900 s: ended with SIGTERM; killed by SIGTERM"}}' |
		kf-read | kf-collate | kf-feedback >"$BATS_TEST_TMPDIR/old.json" || [ $? -eq 3 ]
	run text old
	assert_line --partial 'kf-run stopped it after 901 s, at its time limit of 900 s'
	fb clean "$H200/detailed-multi.csv"
	run an clean '.run_end'
	assert_output null
}

@test "one finding once: WorkloadImbalance for SMs, L1 slices and SMSPs is one line naming the units" {
	fb gemm "$H200/detailed-resnet18-plain.csv" --focus 'sm90_xmma_fprop_implicit_gemm_f32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize64x128x32*' --rules 10
	run text gemm
	assert_line --partial '3. [OPT] WorkloadImbalance (estimated global speedup up to 12.8%) on SMs, L1 Slices and SMSPs: One or more SMs have'
	assert_line --partial 'Also for L1 Slices (12.8%, max 17.05% above and min 100.00% below the average); SMSPs (12.8%, max 17.42% above and min 100.00% below the average).'
	[ "$(text gemm | grep -c 'WorkloadImbalance')" -eq 1 ]
	run an gemm '[.rules[] | select(.name == "WorkloadImbalance") | .units[] | [.unit, .speedup]]'
	assert_output '[["SMs",12.78],["L1 Slices",12.78],["SMSPs",12.77]]'
}

@test "--max-chars 1500, 2000, 3000 on ResNet-18: most of the budget used, the diagnosis in two thirds of it, the kernel and the top rule next" {
	for n in 1500 2000 3000; do
		fb "r$n" "$H200/detailed-resnet18-plain.csv" --max-chars "$n"
		len=$(jq -r '.feedback | length' "$BATS_TEST_TMPDIR/r$n.json")
		[ "$len" -le "$n" ]
		[ "$len" -ge $((n * 9 / 10)) ]
		run text "r$n"
		assert_line -n 0 'Diagnosis (most time at stake first):'
		# between kernels first: the 3 layout conversions (27.8% of the
		# GPU time), then the 5 elementwise and normalisation kernels; the
		# diagnosis keeps a third of the budget for the rest: one finding
		# in 1500, two in 3000 (the kernel's own L2 limit, third, in its
		# analysis)
		assert_line -n 1 --partial '1. Remove the layout conversions and copies, which move data and compute nothing: NCHW to NHWC conversion 20.3% (2 kernels) and NHWC to NCHW conversion 7.5%, 3 kernels and 27.8% of the GPU time in all'
		[ "$n" -ne 1500 ] || refute_line --partial '2. Fuse'
		[ "$n" -ne 3000 ] || assert_line -n 2 --partial '2. Fuse the elementwise and normalisation kernels: 5 kernels to fuse'
		run jq -c '[.analysis.diagnosis[2] | .kind, .unit]' "$BATS_TEST_TMPDIR/r$n.json"
		assert_output '["memory_bound","l2"]'
		run text "r$n"
		assert_line 'Kernel: cudnn::bn_fw_inf_1C11_kernel_NCHW<float, float, 1, 1>(...)'
		[ "$n" -lt 3000 ] ||
			assert_line --partial '1. [OPT] LaunchConfiguration (estimated global speedup 50.0%): A wave of thread blocks'
	done
	run text r1500
	refute_line --partial '[OPT]'
}

@test "unitrace: --focus names a kernel by part of its name (any case); --focus longest falls back to time and says why" {
	ut_replay j "$FIX/unitrace/bmg-gemm-xmx" '{"gpu_name":"Intel(R) Arc(TM) B580 Graphics"}' |
		kf-read 2>/dev/null | kf-collate >"$BATS_TEST_TMPDIR/ut.jsonl"
	run bash -c 'kf-feedback <"$1" | jq -c ".analysis.focus | [.short_name, .reason, .bound]"' _ "$BATS_TEST_TMPDIR/ut.jsonl"
	assert_output '["GemmXmxKernel<bfloat16, 256, 128, 32>","most_time","compute"]'
	run bash -c 'kf-feedback --focus elementwise <"$1" | jq -c ".analysis.focus | [.short_name, .reason, .bound]"' _ "$BATS_TEST_TMPDIR/ut.jsonl"
	assert_output '["at::native::xpu::VectorizedElementwiseKernel<8, AddFunctor<BFloat16>, Array<char*, 3>, ...>","named","memory"]'
	run kf-feedback --text --focus longest <"$BATS_TEST_TMPDIR/ut.jsonl"
	assert_line "Why this kernel: it has the most GPU time of the program's 2 kernels: 91.3%, 19.02 ms over 10 launches (--focus longest needs each launch's duration, which this profiler's summary does not give, so the focus is by total time)."
}

@test "VTune: the focus is the user kernel with the most time, --focus picks another, the copies stay out" {
	jq -cn --arg d "$FIX/vtune/sycl-latency" '{id:"v", profiler:"vtune", pass:"vtune.000", output_dir:$d}' |
		kf-read | kf-collate >"$BATS_TEST_TMPDIR/v.jsonl"
	run kf-feedback --text <"$BATS_TEST_TMPDIR/v.jsonl"
	assert_line "Why this kernel: it has the most GPU time of the kernels of your own (copies and framework kernels left out): 85.5%, 186.43 ms over 100 launches."
	run bash -c 'kf-feedback --focus "scatter*" <"$1" | jq -c "[.analysis.dominant_kernel, .analysis.kernels[0].name]"' _ "$BATS_TEST_TMPDIR/v.jsonl"
	assert_output '["scatter_add_kernel<float>","scatter_add_kernel<float>"]'
	run bash -c 'kf-feedback --text --focus zeCommandListAppendMemoryCopy <"$1"' _ "$BATS_TEST_TMPDIR/v.jsonl"
	assert_line "Why this kernel: no kernel of your own matches --focus \"zeCommandListAppendMemoryCopy\", so it has the most GPU time of the kernels of your own (copies and framework kernels left out): 85.5%, 186.43 ms over 100 launches."
}

@test "names: a hostile name, 200,000 nested template lists, is shortened without deep recursion, the record still flows" {
	python3 -c '
import json
n = 200000
name = "k<" + "T<" * n + "a" + ">" * n + ">(int)"
ks = [{"id": 0, "name": name, "metrics": {}}, {"id": 1, "name": "x" + name, "metrics": {}}]
print(json.dumps({"id": "h", "profiler": "ncu", "collated": {"format": "details", "kernels": ks}}))
print(json.dumps({"id": "next", "profiler": "ncu", "collated": {"format": "details", "kernels": []}}))' >"$BATS_TEST_TMPDIR/h.jsonl"
	run bash -c 'kf-feedback <"$1" | jq -r "[.id, .analysis.focus.short_name // .analysis.status] | @tsv"' _ "$BATS_TEST_TMPDIR/h.jsonl"
	assert_success
	assert_line -n 0 "$(printf 'h\tk<T<T<T<T<T<T<T<T<T...>>>>>>>>>(int)')"
	assert_line -n 1 "$(printf 'next\tno_kernels')"
}

@test "names: past plain types (float, 4) to the argument that says what the kernel does (torch.compile capture)" {
	fb cm "$TOP/examples/h200/compile_mlp/ncu.000/ncu_report.csv" --ranking 10
	run an cm '[.ranking.kernels[].short_name | select(contains("distribution_elementwise") or contains("FillFunctor"))]'
	assert_output '["at::vectorized_elementwise_kernel<4, FillFunctor<int>, array<char *, 1>>(int, T2, T3)","at::distribution_elementwise_grid_stride_kernel<float, 4, void normal_and_transform<BFloat16, float, CUDAGeneratorImpl *, ...>, ...>(long, PhiloxCudaState, T3, T4)"]'
}

@test "unitrace: one of three passes stopped by the timeout is named in the first lines" {
	ut_replay j "$FIX/unitrace/bmg-gemm-xmx" '{"gpu_name":"Intel(R) Arc(TM) B580 Graphics"}' |
		kf-read 2>/dev/null |
		jq -c 'if .pass == "unitrace.001" then .run = {ended_by:"timeout", limit_s:300, elapsed_s:300.2} else . end' |
		kf-collate | kf-feedback >"$BATS_TEST_TMPDIR/ut.json" || [ $? -eq 3 ]
	run jq -r .feedback "$BATS_TEST_TMPDIR/ut.json"
	assert_line -n 1 --partial '1. The program failed: its run of pass unitrace.001 did not finish: kf-run stopped it after 300.2 s'
	assert_line 'Warning: the run of pass unitrace.001 did not finish: kf-run stopped it after 300.2 s, at its time limit of 300 s (kf-run --timeout changes it). The numbers below cover only the kernels that ran before it was stopped.'
	run jq -c '.analysis.run_end | [.pass, .ended_by, .limit_s]' "$BATS_TEST_TMPDIR/ut.json"
	assert_output '["unitrace.001","timeout",300]'
}
