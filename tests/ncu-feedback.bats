#!/usr/bin/env bats
# kf-feedback for ncu: real H200 captures replayed through
# kf-read | kf-collate | kf-feedback.

load helper

H200="$FIX/ncu-h200"

@test "copy_k: names the kernel, its duration and the four throughputs of the reference" {
	fb copy "$H200/detailed-copy.csv"
	run text copy
	assert_line 'Kernel: copy_k(const float4 *, float4 *, unsigned long)'
	assert_line 'The only kernel launch profiled (ID 0, process 540 bench), duration 131.7 µs.'
	assert_line '  - Compute (SM) Throughput: 6.2%'
	assert_line '  - L1/TEX Cache Throughput: 29.4%'
	assert_line '  - L2 Cache Throughput: 88.0%'
	assert_line '  - DRAM Throughput: 81.3%'
}

@test "copy_k: analysis.focus carries the same numbers as data" {
	fb copy "$H200/detailed-copy.csv"
	run an copy '.focus | [.name, .short_name, .id, .duration_ns, .throughput, .launch.block, .launch.grid, .launch.registers_per_thread, .occupancy]'
	assert_output '["copy_k(const float4 *, float4 *, unsigned long)","copy_k(const float4 *, float4 *, unsigned long)",0,131712,{"compute_sm_pct":6.17,"memory_pct":81.32,"l1tex_pct":29.39,"l2_pct":88.04,"dram_pct":81.32},[256,1,1],[1056,1,1],16,{"theoretical_pct":100,"achieved_pct":95.17}]'
	run an copy '[.status, .profiler, (.kernels | length), .kernels[0].name, .kernels[0].role]'
	assert_output '["ok","ncu",1,"copy_k(const float4 *, float4 *, unsigned long)","focus"]'
}

@test "copy_k: bottleneck and roofline texts, 'See ... for more' sentences and URLs removed" {
	fb copy "$H200/detailed-copy.csv"
	run text copy
	assert_output --partial $'Bottleneck (ncu\'s SOLBottleneck rule):\nThis workload is utilizing greater than 80.0% of the available compute or memory performance of the device. To further improve performance, work will likely need to be shifted from the most utilized to another unit. Start by analyzing DRAM in the Memory Workload Analysis section.'
	assert_output --partial $'Roofline (ncu\'s SOLFPRoofline rule):\nThe ratio of peak float (FP32) to double (FP64) performance on this device is 2:1. The workload achieved 0% of this device\'s FP32 peak performance and 0% of its FP64 peak performance.\n'
	refute_output --partial 'http'
	refute_output --partial 'See the Profiling Guide'
	run an copy '.focus.roofline'
	assert_output '"The ratio of peak float (FP32) to double (FP64) performance on this device is 2:1. The workload achieved 0% of this device'"'"'s FP32 peak performance and 0% of its FP64 peak performance."'
}

@test "copy_k: launch configuration and occupancy" {
	fb copy "$H200/detailed-copy.csv"
	run text copy
	assert_line 'Launch configuration: block (256, 1, 1), grid (1056, 1, 1), registers per thread 16, static shared memory per block 0 bytes, dynamic shared memory per block 0 bytes, waves per SM 1.'
	assert_line 'Occupancy: theoretical 100.0%, achieved 95.2%.'
}

@test "multi: the kernel with the most time is the focus, every kernel ranked by total time" {
	fb multi "$H200/detailed-multi.csv"
	run text multi
	assert_line 'Kernel: sgemm_naive_k(const float *, const float *, float *, int)'
	assert_line "Why this kernel: it has the most GPU time of the program's 3 kernels: 86.5%, 3.13 ms over 1 launch."
	assert_line 'The numbers below are from its only launch (ID 2, process 1083 bench), duration 3.13 ms.'
	assert_line 'Kernels by total GPU time (3 kernels, 4 launches, 3.62 ms in all):'
	assert_line '1. sgemm_naive_k(const float *, const float *, float *, int): 86.5%, 3.13 ms over 1 launch'
	assert_line '2. copy_k(const float4 *, float4 *, unsigned long): 7.3%, 265.3 µs over 2 launches'
	assert_line '3. fma_k(float *, int): 6.2%, 222.9 µs over 1 launch'
	run an multi '[.ranking.total_ns, [.ranking.kernels[] | [.total_ns, .launches]]]'
	assert_output '[3617632,[[3129408,1],[265280,2],[222944,1]]]'
}

@test "resnet18: 80 launches grouped into 16 kernels; the focus is the kernel with the most time, from its longest launch" {
	fb resnet "$H200/detailed-resnet18-plain.csv"
	longest=$(replay r ncu "$BATS_TEST_TMPDIR/resnet" | kf-read |
		jq -c '[.data.kernels[] | select(.name | startswith("void cudnn::bn_fw_inf_1C11_kernel_NCHW<float, float, 1, 1>")) | [.metrics["GPU Speed Of Light Throughput"].Duration.value, .id]] | max')
	[ "$longest" = "[33344,65]" ]
	run an resnet '[.focus.id, .focus.duration_ns, .focus.reason, .focus.total_ns, .focus.launches, .ranking.kernel_count, ([.ranking.kernels[].launches] | add) + .ranking.others.launches]'
	assert_output '[65,33344,"most_time",122752,13,16,80]'
	run text resnet
	assert_line "Why this kernel: it has the most GPU time of the program's 16 kernels: 14.3%, 122.8 µs over 13 launches."
	assert_line 'The numbers below are from its longest launch of 13 (ID 65, process 482 python3.12), duration 33.3 µs.'
	run text resnet
	assert_line 'Kernels by total GPU time (16 kernels, 80 launches, 859.4 µs in all):'
	assert_line '1. cudnn::bn_fw_inf_1C11_kernel_NCHW<float, float, 1, 1>(...): 14.3%, 122.8 µs over 13 launches'
	assert_line '   11 other kernels: 43.6%, 374.8 µs over 38 launches'
}

@test "--ranking 2 lists two kernels and sums the rest" {
	fb resnet "$H200/detailed-resnet18-plain.csv" --ranking 2
	run text resnet
	assert_line '2. engines_precompiled::nchwToNhwcKernel<float, float, float, 0, 1, 0>(nchw2nhwc_params_t<T3>, const T1 *, T2 *): 12.3%, 105.7 µs over 16 launches'
	assert_line '   14 other kernels: 73.4%, 630.9 µs over 51 launches'
	run an resnet '[(.ranking.kernels | length), .ranking.others.kernel_count]'
	assert_output '[2,14]'
}

@test "--top N, kf-feedback's old name of --ranking N: the same output, and a warning once" {
	printf '%s\n' '{"id":"resnet","profiler":"ncu","output_dir":"'"$BATS_TEST_TMPDIR/r"'"}' >"$BATS_TEST_TMPDIR/resnet.in"
	mkdir -p "$BATS_TEST_TMPDIR/r"
	cp "$H200/detailed-resnet18-plain.csv" "$BATS_TEST_TMPDIR/r/ncu_report.csv"
	kf-read "$BATS_TEST_TMPDIR/resnet.in" | kf-collate >"$BATS_TEST_TMPDIR/c.json"
	run --separate-stderr kf-feedback --top 2 --top 2 "$BATS_TEST_TMPDIR/c.json"
	assert_success
	assert_equal "$stderr" "kf-feedback: --top is now --ranking; the old name will go"
	assert_equal "$output" "$(kf-feedback --ranking 2 "$BATS_TEST_TMPDIR/c.json")"
	assert_equal "$(jq '.analysis.ranking.kernels | length' <<<"$output")" 2
}

@test "rules ranked by estimated speedup, global and local on one scale, MemoryL2Compression and rules under 1% never first, bottleneck and roofline not repeated" {
	fb full "$H200/full-sgemm_naive.csv"
	run an full '[.rules[] | [.name, .speedup_type, .speedup]]'
	assert_output '[["MemoryCacheAccessPattern","global",43.16],["IssueSlotUtilization","local",1.356],["CPIStall","global",1.356],["MemoryL2Compression","global",0.2219],["HighPipeUtilization",null,null]]'
	run text full
	assert_line --partial '1. [OPT] MemoryCacheAccessPattern (estimated global speedup 43.2%): The memory access pattern for global loads from L1TEX might not be optimal.'
	# [INF] HighPipeUtilization is not an optimisation rule: in
	# analysis.rules, not in the list; MemoryL2Compression (0.22%, and not
	# actionable) after the ranked ones, apart and unnumbered.
	assert_line --partial '3. [OPT] CPIStall'
	refute_line --partial '4. [OPT]'
	assert_line "Rules ncu reported that kf does not rank (not actionable by the kernel's author, share/kf/ncu_rules.tsv, or estimated under 1%):"
	assert_line --partial '- [OPT] MemoryL2Compression (estimated global speedup 0.2%)'
	refute_output --partial '[INF]'
	refute_output --partial 'http'
}

@test "resnet18 --focus longest: the reference's focus, the longest launch, and where its kernel stands" {
	fb resnet "$H200/detailed-resnet18-plain.csv" --focus longest
	longest=$(replay r ncu "$BATS_TEST_TMPDIR/resnet" | kf-read |
		jq -c '[.data.kernels[] | [.metrics["GPU Speed Of Light Throughput"].Duration.value, .id]] | max')
	[ "$longest" = "[97152,63]" ]
	run an resnet '[.focus.id, .focus.duration_ns, .focus.reason]'
	assert_output '[63,97152,"longest_launch"]'
	run text resnet
	assert_line "Why this kernel: it ran the longest launch (--focus longest); over all its launches it takes 11.3% of the profiled GPU time (1 launch), rank 3 of 16; the kernel with the most GPU time is cudnn::bn_fw_inf_1C11_kernel_NCHW<float, float, 1, 1>(...) (14.3%)."
	assert_line 'The numbers below are from the longest of the 80 kernel launches profiled (ID 63, process 482 python3.12), duration 97.2 µs.'
}

@test "resnet18 --focus NAME, part of a name or a glob; a name that matches nothing falls back and says so" {
	fb resnet "$H200/detailed-resnet18-plain.csv" --focus 'max_pool_forward'
	run an resnet '[.focus.reason, .focus.launches, (.focus.name | startswith("void at::<unnamed>::max_pool_forward_nchw<float, int>"))]'
	assert_output '["named",1,true]'
	run text resnet
	assert_line --partial 'Why this kernel: --focus "max_pool_forward" names it; it takes '
	fb resnet "$H200/detailed-resnet18-plain.csv" --focus '*nchwToNhwcKernel*'
	run an resnet '[.focus.reason, .focus.launches]'
	assert_output '["named",16]'
	run text resnet
	assert_line --partial 'Why this kernel: --focus "*nchwToNhwcKernel*" names it (the one with the most time of 2 that match); it takes 12.3% of the profiled GPU time (16 launches), rank 2 of 16;'
	# A typo: the feedback is whole, about the kernel with the most time,
	# and names those there are; status 1 says it was not the one asked for.
	run fb resnet "$H200/detailed-resnet18-plain.csv" --focus 'no such kernel'
	assert_failure 1
	run an resnet '[.focus.reason, .focus.id]'
	assert_output '["unmatched",65]'
	run text resnet
	assert_line --partial 'Why this kernel: no kernel matches --focus "no such kernel" (the kernels, most GPU time first: cudnn::bn_fw_inf_1C11_kernel_NCHW, engines_precompiled::nchwToNhwcKernel, sm80_xmma_fprop_implicit_gemm_indexed_wo_smem_tf32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize128x32x16_stage1_warpsize4x1x1_g1_tensor16x8x8_aligna4_alignc8_execute_kernel__5x_cudnn, '
	assert_line --partial 'and 9 more), so it has the most GPU time'
}

@test "resnet18 --focus longest: the largest estimated speedup comes first, local or global" {
	fb resnet "$H200/detailed-resnet18-plain.csv" --focus longest
	run an resnet '.rules[0] | [.name, .type, .section, .speedup_type, .speedup]'
	assert_output '["TheoreticalOccupancy","OPT","Occupancy","local",75]'
	run an resnet '.rules[0].description'
	refute_output --partial 'CUDA Programming Guide'
}

@test "--rules 1 keeps one rule and says how many were left out" {
	fb full "$H200/full-sgemm_naive.csv" --rules 1
	run an full '[.rules[].name]'
	assert_output '["MemoryCacheAccessPattern"]'
	run text full
	assert_line '(3 more rules left out)'
}

@test "the same rule on several rows is listed once" {
	mkdir -p "$BATS_TEST_TMPDIR/src"
	sed '/"HighPipeUtilization"/{p;p}' "$H200/detailed-copy.csv" >"$BATS_TEST_TMPDIR/src/dup.csv"
	[ "$(grep -c HighPipeUtilization "$BATS_TEST_TMPDIR/src/dup.csv")" -eq 3 ]
	fb dup "$BATS_TEST_TMPDIR/src/dup.csv"
	run an dup '[.rules[].name]'
	assert_output '["HighPipeUtilization","MemoryL2Compression"]'
}

@test "a missing throughput is said to be missing" {
	mkdir -p "$BATS_TEST_TMPDIR/src"
	grep -v '"DRAM Throughput"' "$H200/detailed-copy.csv" >"$BATS_TEST_TMPDIR/src/nodram.csv"
	fb nodram "$BATS_TEST_TMPDIR/src/nodram.csv"
	run text nodram
	assert_line '  - DRAM Throughput: missing from the report'
	run an nodram '.focus.throughput.dram_pct'
	assert_output 'null'
}

@test "--max-chars keeps the diagnosis (the bottleneck), the kernel and its throughputs first, and says what it left out" {
	fb multi "$H200/detailed-multi.csv" --max-chars 900
	run text multi
	[ "${#output}" -le 900 ]
	assert_line --index 1 --partial '1. Memory-bound on L1/TEX: L1/TEX Cache Throughput 99.4% of its peak, Memory Throughput 98.6% (Speed Of Light); at its roof: only fewer bytes gain more than its headroom (about 0.5% of the program'"'"'s GPU time at stake). Fix: '
	assert_line 'Kernel: sgemm_naive_k(const float *, const float *, float *, int)'
	assert_line '  - DRAM Throughput: 0.3%'
	refute_output --partial 'Kernels by total GPU time'
	assert_line --index -1 '(Cut to fit 900 characters, the least useful left out: "Bottleneck"; and 6 more.)'
}

@test "import of a saved report: Duration in ms converted" {
	fb import "$H200/import-details-sgemm.csv"
	run an import '.focus.duration_ns'
	assert_output '3130000'
	run text import
	assert_line 'The only kernel launch profiled (ID 0, process 1587 bench), duration 3.13 ms.'
}

@test "raw page: throughputs from metric names; no rule texts on that page, said so" {
	fb raw "$H200/raw-copy.csv"
	run text raw
	assert_line '  - DRAM Throughput: 81.2%'
	assert_line '  - Compute (SM) Throughput: 6.2%'
	assert_line --partial 'no SOLBottleneck rule'
	run an raw '[.focus.duration_ns, .focus.throughput.l2_pct, .focus.bottleneck]'
	assert_output '[131936,87.62,null]'
}

@test "sh -c: two processes, the longer launch is the focus" {
	fb sh "$H200/detailed-sh-copy.csv"
	run an sh '[.focus.name, .focus.process_id, .focus.duration_ns]'
	assert_output '["fma_k(float *, int)",2206,223232]'
}

@test "crash: the feedback says the program failed after its kernels ran" {
	fb crash "$H200/detailed-crash.csv" || [ $? -eq 3 ]	# 3: the program failed
	[ "$(an crash '.diagnosis[0] | "\(.kind) \(.evidence[0].metric) \(.evidence[0].value)"')" = '"program_failed collated.app_exit_code 6"' ]
	run text crash
	assert_line --partial 'Note: the program exited with status 6 after the profiled kernels ran'
	assert_line 'Kernel: fma_k(float *, int)'
}

@test "truncated report: feedback on the complete launches, and it says so" {
	mkdir -p "$BATS_TEST_TMPDIR/src"
	head -c 31000 "$H200/detailed-multi.csv" >"$BATS_TEST_TMPDIR/src/cut.csv"
	fb cut "$BATS_TEST_TMPDIR/src/cut.csv"
	run text cut
	assert_line 'Note: the ncu report was cut off; this feedback covers the 2 complete kernel launches in it.'
	assert_line 'Kernel: fma_k(float *, int)'
}

@test "none: the error becomes an explanation with what to try, and status 1" {
	run fb none "$H200/detailed-none.csv"
	assert_failure 1
	run text none
	assert_output --partial 'Profiling with ncu failed'
	assert_output --partial 'No kernels were profiled.'
	assert_output --partial '--target-processes all'
	run an none '[.status, .error.kind]'
	assert_output '["failed","no_kernels"]'
}

@test "2020 layout: Duration in nsecond and SM [%] are understood" {
	mkdir -p "$BATS_TEST_TMPDIR/src"
	printf '%s\n' '"ID","Process ID","Process Name","Host Name","Kernel Name","Kernel Time","Context","Stream","Section Name","Metric Name","Metric Unit","Metric Value"' \
		'"0","4242","app","host","add_kernel","2020-May-29 12:02:46","1","7","GPU Speed Of Light","Duration","usecond","5.12"' \
		'"0","4242","app","host","add_kernel","2020-May-29 12:02:46","1","7","GPU Speed Of Light","SM [%]","%","12.5"' \
		'"1","4242","app","host","mul_kernel","2020-May-29 12:02:47","1","7","GPU Speed Of Light","Duration","nsecond","6000"' \
		>"$BATS_TEST_TMPDIR/src/old.csv"
	fb old "$BATS_TEST_TMPDIR/src/old.csv"
	run an old '[.focus.name, .focus.duration_ns, .ranking.kernels[1].total_ns]'
	assert_output '["mul_kernel",6000,5120]'
	fb old2 <(sed '/mul_kernel/d' "$BATS_TEST_TMPDIR/src/old.csv")
	run an old2 '.focus.throughput.compute_sm_pct'
	assert_output '12.5'
}

@test "real --nvtx capture: the focus launch's NVTX ranges are named" {
	fb nvtx "$FIX/ncu-h200-nvtx/nvtx-detailed.csv"
	run text nvtx
	assert_line 'The numbers below are from its longest launch of 2 (ID 1, process 477 nv), duration 5.0 µs.'
	assert_line 'NVTX ranges: outer.'
	run an nvtx '.focus.nvtx'
	assert_output '["outer"]'
}

@test "real --metrics capture: the duration found, the throughputs not collected said missing" {
	fb mo "$FIX/ncu-h200-nvtx/metrics-only.csv"
	run text mo
	assert_line '  - DRAM Throughput: 16.2%'
	assert_line '  - L2 Cache Throughput: missing from the report'
	run an mo '[.focus.id, .focus.duration_ns]'
	assert_output '[0,5408]'
}

@test "Memory Throughput without its levels: memory-bound on memory as a whole, said as such; the core's limiter agrees" {
	grep -v -e '"DRAM Throughput"' -e '"L1/TEX Cache Throughput"' -e '"L2 Cache Throughput"' \
		"$H200/detailed-copy.csv" >"$BATS_TEST_TMPDIR/nolevels.csv"
	fb nolevels "$BATS_TEST_TMPDIR/nolevels.csv"
	run text nolevels
	# 100 - 81.32 = 18.68 at stake, the headroom to the memory's roof
	assert_line --index 1 "1. Memory-bound: Memory Throughput 81.3% of its peak (Speed Of Light; the report names no memory level) (about 19% of the program's GPU time at stake). Fix: move fewer bytes: fuse with the kernels around it, keep data on chip, smaller types (bf16 or fp8)."
	run an nolevels '.diagnosis[0] | [.impact_pct, (.evidence[] | select(.metric | startswith("kernel_impact_pct")) | .metric)]'
	assert_output "[18.7,\"kernel_impact_pct: 100 - Memory Throughput (headroom to the memory's roof)\"]"
	run an nolevels '[.focus.limiter.bound, .focus.limiter.unit, .focus.limiter.pct, .diagnosis[0].kind, .diagnosis[0].unit]'
	assert_output '["memory","memory",81.32,"memory_bound",null]'
}
