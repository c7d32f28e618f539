#!/usr/bin/env bats
# kf-read | kf-collate | kf-feedback on the unitrace scenarios: the ground
# truth of tests/fixtures/unitrace/SCENARIOS.md and expected.json.
load helper

UT="$FIX/unitrace"
B580='{"gpu_name":"Intel(R) Arc(TM) B580 Graphics"}'
LNL='{"gpu_name":"Intel(R) Arc(TM) 140V GPU (16GB)"}'

setup() {
	T="$BATS_TEST_TMPDIR"
}

# feedback DIR WORKER-JSON [kf-feedback options]
feedback() {
	local d=$1 w=$2
	shift 2
	ut_replay j "$d" "$w" | kf-read 2>/dev/null | kf-collate 2>/dev/null | kf-feedback "$@"
}

r3() { echo '(. * 1000 | round) / 1000'; }

@test "bmg-gemm-xmx: the XMX GEMM dominates, median 1,905,069 ns, compute bound by ALU2" {
	run feedback "$UT/bmg-gemm-xmx" "$B580"
	assert_success
	run jq -r ".analysis.focus | .short_name, .segment, .instances, .median_gpu_time_ns,
		.bound, .bound_alu, (.arithmetic_intensity|$(r3)), (.ridge|map($(r3))|join(\" \")),
		(.alu_util | [.ALU0, .ALU1, .ALU2] | map($(r3)) | join(\" \")),
		.gmem_bw_gbps, (.gmem_bw_pct|$(r3)), .slm_bw_pct, .ve_stall_pct,
		.slm_bank_conflict_pct, .thread_occupancy_pct" <<<"$output"
	assert_output "GemmXmxKernel<bfloat16, 256, 128, 32>
default
10
1905069
compute
ALU2
0.836
0.45 0.556
2.173 5.462 61.801
168.632352
36.981
0
21.470675
0
47.391987"
}

@test "bmg-gemm-xmx: the elementwise kernel is memory bound, and the text names both" {
	run feedback "$UT/bmg-gemm-xmx" "$B580"
	assert_success
	run jq -r '.analysis.kernels[1] | .median_gpu_time_ns, .bound, .gmem_bw_gbps' <<<"$output"
	assert_output "180318
memory
370.6277"
	run feedback "$UT/bmg-gemm-xmx" "$B580" --text
	assert_line "Roofline: compute bound. The kernel is using compute more than memory bandwidth: ALU2, the ALU with the highest instruction rate, runs 0.836 instructions per byte of GPU memory traffic against a ridge band of 0.450-0.556 for this GPU."
	assert_line "1. GemmXmxKernel<bfloat16, 256, 128, 32>: 91.3%, 19.02 ms over 10 launches"
	assert_line "ALU2 is the most used compute resource at 61.80% of its peak, likely the bottleneck of this kernel. Instruction mix: XMX_BF16 100.00%."
}

@test "bmg-stream-slm: only the ITT range counts, the stencil is memory bound with 25.37% SLM bank conflicts" {
	run feedback "$UT/bmg-stream-slm" "$B580"
	assert_success
	run jq -r ".analysis | (.segments|map(.label)|join(\",\")), (.focus | .short_name, .segment,
		.median_gpu_time_ns, .bound, .bound_alu, (.arithmetic_intensity|$(r3)), .gmem_bw_gbps,
		(.gmem_bw_pct|$(r3)), (.slm_bw_pct|$(r3)), (.slm_bank_conflict_pct|.*100|round/100),
		.ve_stall_pct, .thread_occupancy_pct, .alu_util.ALU2)" <<<"$output"
	assert_output "task.py::Test::test_benchmark
Stencil3x3SlmKernel<float, 32, 16>
task.py::Test::test_benchmark
1485269
memory
ALU0
0.069
367.466767
80.585
20.565
25.37
54.809429
84.706772
0"
	run feedback "$UT/bmg-stream-slm" "$B580" --text
	assert_line "25.37% of the SLM accesses cause bank conflicts. Consider changing the SLM access pattern (padding, a different index mapping) to reduce them."
}

@test "lnl-shapes: four segments, the median and the slowest kept, the slowest is the focus" {
	run feedback "$UT/lnl-shapes" "$LNL"
	assert_success
	run jq -r ".analysis | (.segments | map(\"\(.label)=\(.runtime_ns)=\(.selected)\") | join(\" \")),
		(.kernels | map(.segment) | join(\" \")),
		(.focus | .segment, .median_gpu_time_ns, .bound, .bound_alu, (.arithmetic_intensity|$(r3)),
		(.ridge|map($(r3))|join(\" \")), .gmem_bw_gbps, (.gmem_bw_pct|$(r3)), (.slm_bw_pct|$(r3)))" <<<"$output"
	assert_output "task.py::Test::test_benchmark[256]=9873=false task.py::Test::test_benchmark[1024]=101506=true task.py::Test::test_benchmark[4096]=1298558=false task.py::Test::test_benchmark[16384]=19776307=true
task.py::Test::test_benchmark[1024] task.py::Test::test_benchmark[16384]
task.py::Test::test_benchmark[16384]
19776307
memory
ALU0
0.047
0.823 1.016
108.638221
79.588
0.136"
	run jq -r '.analysis.kernels[0] | .median_gpu_time_ns, .gmem_bw_gbps' < <(feedback "$UT/lnl-shapes" "$LNL")
	assert_output "101506
56.584636"
	run feedback "$UT/lnl-shapes" "$LNL" --text
	assert_line "Benchmark 1: pytest test task.py::Test::test_benchmark[1024]"
	assert_line "Benchmark 2: pytest test task.py::Test::test_benchmark[16384]"
}

@test "bmg-ocl-sampling: samples averaged per kernel, device times from the timeline, sgemm_tiled compute bound" {
	run feedback "$UT/bmg-ocl-sampling" "$B580"
	assert_success
	run jq -r ".analysis | .mode, (.focus | .short_name, .samples, .timed_instances, .median_gpu_time_ns,
		.total_gpu_time_ns, .bound, .bound_alu, (.arithmetic_intensity|$(r3)), (.alu_util.ALU0|$(r3)),
		(.alu_util.ALU1|$(r3)), (.gmem_bw_gbps*1e6|round/1e6), (.slm_bank_conflict_pct|$(r3)),
		(.thread_occupancy_pct*1e5|round/1e5)),
		(.kernels | map(\"\(.short_name)=\(.median_gpu_time_ns)=\(.bound)\") | join(\" \"))" <<<"$output"
	assert_output "sampling
sgemm_tiled
205
10
897855
8984180
compute
ALU0
2.722
54.684
6.975
91.621687
6.003
68.97439
sgemm_tiled=897855=compute transpose_b=37704=memory clEnqueueWriteBuffer=null=memory clEnqueueReadBuffer=null=memory"
}

@test "an unknown GPU: a clear message, and the analysis that needs no roofs" {
	run feedback "$UT/bmg-gemm-xmx" '{"gpu_name":"Intel(R) Arc(TM) A770 Graphics"}'
	assert_success
	run jq -r '.analysis | (.gpu.error | startswith("no hardware roofs for GPU '"'"'Intel(R) Arc(TM) A770 Graphics'"'"' (known: Intel Arc B580,")),
		(.focus | has("bound"), .alu_util.ALU2, .median_gpu_time_ns, .gmem_bw_gbps, .thread_occupancy_pct,
		(.alus[] | select(.name == "ALU2") | .arithmetic_intensity * 1000 | round / 1000))' <<<"$output"
	assert_output "true
false
null
1905069
168.632352
47.391987
0.836"
	run feedback "$UT/bmg-gemm-xmx" '{"gpu_name":"Intel(R) Arc(TM) A770 Graphics"}' --text
	assert_line --partial "The roofline verdict and the shares of peak are left out; the rest does not need them."
	assert_line "No roofline verdict: the GPU's roofs are unknown."
}

@test "roofs: --gpu first, then worker.cpu_info, then worker.gpu_name" {
	w='{"cpu_info":"Intel(R) Core(TM) Ultra 7 268V","gpu_name":"Intel(R) Arc(TM) 140V GPU (16GB)"}'
	run feedback "$UT/lnl-shapes" "$w"
	assert_success
	run jq -r '.analysis | .gpu.via, .gpu.roofs, (.focus.ridge[0]*1e6|round/1e6)' <<<"$output"
	assert_output "cpu_info
Intel Core Ultra 7 268V (Arc 140V)
0.843956"
	run feedback "$UT/lnl-shapes" "$w" --gpu 'intel(r) core(tm) ultra 7  258v'
	run jq -r '.analysis | .gpu.via, .gpu.roofs, (.focus.ridge[0]*1e6|round/1e6)' <<<"$output"
	assert_output "--gpu
Intel Core Ultra 7 258V (Arc 140V)
0.822857"
}

@test "--gpus-file adds a GPU whose roofs are then used" {
	cat >"$T/gpus.json" <<-'J'
	{"gpus": [{"name": "Lab GPU", "aliases": ["Intel(R) Arc(TM) A770 Graphics"],
	  "roofs": {"GPU_MEMORY_BYTE_READ": {"value": 560, "source": "datasheet"},
	            "XVE_INST_EXECUTED_ALU0_ALL": {"value": 1000, "source": "estimated"},
	            "XVE_INST_EXECUTED_ALU1_ALL": {"value": 1000, "source": "estimated"},
	            "XVE_INST_EXECUTED_ALU2_ALL": {"value": 140.0, "source": "estimated"}}}]}
	J
	run feedback "$UT/bmg-gemm-xmx" '{"gpu_name":"Intel(R) Arc(TM) A770 Graphics"}' --gpus-file "$T/gpus.json"
	assert_success
	run jq -r '.analysis | .gpu.roofs, .focus.bound, (.focus.alu_util.ALU2|.*1000|round/1000), (.focus.gmem_bw_pct|.*1000|round/1000)' <<<"$output"
	assert_output "Lab GPU
compute
100.647
30.113"
}

@test "the verdict around the ridge: just below memory, inside balanced, just above compute" {
	mkdir "$T/ridge"
	# B580: ALU0 peak 456 inst/ns, 456 GB/s: band [0.9, 1.111] instructions per byte.
	{ echo "Kernel,GlobalInstanceId,GpuTime[ns],XVE_INST_EXECUTED_ALU0_ALL[events],XVE_INST_EXECUTED_ALU1_ALL[events],XVE_INST_EXECUTED_ALU2_ALL[events],GPU_MEMORY_BYTE_READ[bytes],GPU_MEMORY_BYTE_WRITE[bytes],SLM_BANK_CONFLICT_COUNT[events],SLM_BYTE_READ[bytes],SLM_BYTE_WRITE[bytes],XVE_STALL[%]"
	  echo '"below[SIMD16 {1; 1; 1} {16; 1; 1}]",1,1000000,89000000,0,0,50000000,50000000,0,0,0,10.0'
	  echo '"ridge[SIMD16 {1; 1; 1} {16; 1; 1}]",2,1000000,100000000,0,0,50000000,50000000,0,0,0,10.0'
	  echo '"above[SIMD16 {1; 1; 1} {16; 1; 1}]",3,1000000,112000000,0,0,50000000,50000000,0,0,0,10.0'
	} >"$T/ridge/trace.metrics.9"
	run sh -c 'jq -cn --arg d "$1" "{id:\"r\", profiler:\"unitrace\", pass:\"unitrace.000\", output_dir:\$d}" |
		kf-read 2>/dev/null | kf-collate | kf-feedback --gpu B580' _ "$T/ridge"
	assert_success
	run jq -r '.analysis.kernels | map("\(.name)=\(.bound)=\(.gmem_bw_gbps)") | join(" ")' <<<"$output"
	assert_output "above=compute=100 below=memory=100 ridge=balanced=100"
	run sh -c 'jq -cn --arg d "$1" "{id:\"r\", profiler:\"unitrace\", pass:\"unitrace.000\", output_dir:\$d}" |
		kf-read 2>/dev/null | kf-collate | kf-feedback --gpu B580 --text' _ "$T/ridge"
	assert_line "The kernel is balanced between compute and memory bandwidth: improve both together."
	assert_line "No MemoryProfile metrics: SLM bank conflicts are unknown."
}

@test "a crashed run (timeline cut off after the loop) still gives the GEMM's median of the 10 timed launches" {
	cp -r "$UT/bmg-gemm-xmx" "$T/crash"
	chmod -R u+w "$T/crash"
	j="$T/crash/pass-000-ComputeBasic/python3.48213.json"
	{ sed -n '1,183p' "$j"; sed -n '184p' "$j" | cut -c1-30; } >"$T/cut" && mv "$T/cut" "$j"
	run feedback "$T/crash" "$B580"
	assert_success
	run jq -r '.analysis.focus | .instances, .median_gpu_time_ns, .bound' <<<"$output"
	assert_output "10
1905069
compute"
	run feedback "$T/crash" "$B580" --text
	assert_line "The timeline ends early (the program or unitrace was cut off): only the kernels recorded before that are analysed."
}

@test "two devices: the same kernel on device 0 and device 1 is analysed apart" {
	mkdir "$T/two"
	f="$UT/bmg-gemm-xmx/pass-000-ComputeBasic/trace.metrics.48213"
	{ sed -n '/=== Device #0/,$p' "$f"; echo; echo "=== Device #1 Metrics ==="; echo
	  sed -n '/^Kernel,/,$p' "$f" | sed 's/\(SIMD16 {16; 32; 1} {64; 8; 1}\]"\),\([0-9]*\),0,[0-9]*,/\1,\2,0,1000000,/'; } >"$T/two/trace.metrics.1"
	run sh -c 'jq -cn --arg d "$1" "{id:\"d\", profiler:\"unitrace\", pass:\"unitrace.000\", output_dir:\$d}" |
		kf-read 2>/dev/null | kf-collate | kf-feedback --gpu B580' _ "$T/two"
	assert_success
	run jq -r '[.analysis.kernels[] | select(.short_name | startswith("GemmXmx")) | "\(.median_gpu_time_ns)/\(.instances)"] | join(" ")' <<<"$output"
	assert_output "1905069/12 1000000/12"
}

@test "a failed MemoryProfile pass is explained, and the rest is analysed without SLM conflicts" {
	{ ut_replay j "$UT/bmg-gemm-xmx" "$B580" | jq -c 'if .pass == "unitrace.001" then .output_dir = "/nonexistent/x" else . end'; } >"$T/in"
	run sh -c 'kf-read "$1" 2>/dev/null | kf-collate | kf-feedback' _ "$T/in"
	assert_success
	run jq -r '.analysis.focus | .median_gpu_time_ns, .slm_bank_conflict_pct, (.missing|join(","))' <<<"$output"
	assert_output "1905069
null
MemoryProfile"
	run sh -c 'kf-read "$1" 2>/dev/null | kf-collate | kf-feedback --text' _ "$T/in"
	assert_line "Pass unitrace.001 (MemoryProfile) failed: output_dir /nonexistent/x is not a readable directory"
}

@test "--max-chars keeps the diagnosis first and whole: the focus kernel's verdict within the limit" {
	run feedback "$UT/bmg-gemm-xmx" "$B580" --text --max-chars 600
	assert_success
	[ "${#output}" -le 620 ]
	assert_line -n 1 "Diagnosis (most time at stake first):"
	assert_line -n 2 "1. GemmXmxKernel<bfloat16, 256, 128, 32> is compute-bound on ALU2 (XMX matrix engine): 61.8% of its peak instruction rate (about 35% of the program's GPU time at stake, 38% of this kernel's). Fix: keep the XMX engines fed: larger tiles per sub-group, and load the next tiles (2D block loads, prefetch) while DPAS runs on these."
	refute_line --partial "VectorizedElementwiseKernel"
	# smaller: the finding up to its last sentence end, then at a word's end
	run feedback "$UT/bmg-gemm-xmx" "$B580" --max-chars 300
	assert_equal "$(jq -r .feedback <<<"$output" | sed -n 2p)" "1. GemmXmxKernel<bfloat16, 256, 128, 32> is compute-bound on ALU2 (XMX matrix engine): 61.8% of its peak instruction rate (about 35% of the program's GPU time at stake, 38% of this kernel's)."
	run feedback "$UT/bmg-gemm-xmx" "$B580" --max-chars 150
	assert_equal "$(jq -r .feedback <<<"$output")" "Diagnosis (most time at stake first):
1. GemmXmxKernel<bfloat16, 256, 128, 32> is compute-bound on ALU2 (XMX matrix engine): 61.8% of its peak"
}
