#!/usr/bin/env bats
# analysis.diagnosis beyond ncu's own: program_failed (from the runs a
# record holds), launch_bound and machinery (the whole program), the
# unitrace and VTune findings, and the text that leads with them.
load helper

H200="$FIX/ncu-h200"

setup() {
	T="$BATS_TEST_TMPDIR"
}

# kf with the fake ncu replaying the real H200 capture of a program that
# aborts after its kernel (detailed-crash.csv, its stderr line
# detailed-crash.stderr, status 6); ./crash says and does what it did.
crash_setup() {
	cd "$T"
	{ printf '#!/bin/sh\n'; printf 'echo "%s" >&2\n' "$(cat "$H200/detailed-crash.stderr")"; printf 'exit 6\n'; } >crash
	chmod +x crash
	PATH="$TOP/tests/fake:$PATH"
	export FAKE_NCU_CSV="$H200/detailed-crash.csv" FAKE_NCU_RAW="$H200/raw-copy.csv" FAKE_NCU_SOURCE=/dev/null
}

@test "program_failed: kf ncu on a program that aborts: first finding, its stderr and ncu's ==ERROR==, status 3" {
	crash_setup
	run --separate-stderr kf --json ncu -- ./crash
	assert_equal "$status" 3
	assert_equal "$(jq -c '.passes[0].run | [.exit_code, .stderr]' <<<"$output")" \
		'[6,"bench: crashing on purpose\n"]'
	run jq -r '.analysis.status, (.analysis.diagnosis[0] | .kind, .impact_pct, (.evidence[0] | "\(.metric)=\(.value)")), .feedback' <<<"$output"
	assert_line -n 0 ok
	assert_line -n 1 program_failed
	assert_line -n 2 null
	assert_line -n 3 "run.exit_code=6"
	assert_line -n 4 "Diagnosis (most time at stake first):"
	assert_line -n 5 '1. The program failed: its run exited with status 6 (run.exit_code). ncu said: "==ERROR== The application returned an error code (6).". The last lines of its stderr: "bench: crashing on purpose". The numbers that follow are from the kernels that ran before it ended, not from a whole run. Fix: make the program run to its end outside the profiler first (./crash), fix what its own messages say, then profile it again.'
	refute_output --partial "SIGABRT"
	refute_output --partial "kf-wrap"
	# the same record through kf-feedback alone: the same status
	run --separate-stderr kf --json ncu -- ./crash
	run kf-feedback <<<"$output"
	assert_equal "$status" 3
}

@test "program_failed: kf-collate keeps the runs' tails bounded to 2048 bytes from a line start" {
	big=$(jq -rn '[range(400) | "line \(.) of the program"] | join("\n")')
	jq -cn --arg e "$big" '{id:"t", profiler:"ncu", pass:"ncu.000", data:{kernels:[]},
		run:{exit_code:1, signal:null, ended_by:"exit", stdout:"", stderr:($e + "\n")}}' |
		kf-collate >"$T/c.json"
	# lines 315-399 are 85 of 24 bytes: 2040 of the last 2048
	run jq -r '.passes[0].run.stderr | length <= 2048, (split("\n") | .[0], .[-2])' "$T/c.json"
	assert_output "true
line 315 of the program
line 399 of the program"
}

@test "program_failed: a killed program names its signal from run.signal, never from a status" {
	jq -cn '{id:"k", profiler:"ncu", cmd:["python3","gen.py"],
		passes:[{pass:"ncu.000", status:"ok", run:{exit_code:null, signal:"SIGKILL", ended_by:"exit",
		  elapsed_s:3.5, stdout:"step 1\n", stderr:""}}], collated:{kernels:[]}}' >"$T/k.json"
	run kf-feedback "$T/k.json"
	assert_equal "$status" 3
	run jq -r '.analysis.diagnosis[0] | .what, (.evidence | map("\(.metric)=\(.value)") | join(" "))' <<<"$output"
	assert_line -n 0 'The program failed: its run was killed by SIGKILL (run.signal). Its stderr has no line of its own; the last of its stdout: "step 1". The numbers that follow are from the kernels that ran before it ended, not from a whole run'
	assert_line -n 1 "run.signal=9 run.elapsed_s=3.5"
	# exit status 9 is a status, not a signal
	jq -c '.passes[0].run += {exit_code:9, signal:null}' "$T/k.json" | kf-feedback >"$T/o.json" || true
	run jq -r '.analysis.diagnosis[0].what' "$T/o.json"
	assert_output --partial "exited with status 9 (run.exit_code)"
	refute_output --partial "SIGKILL"
}

@test "program_failed: not for a profiler's own failure (no permission) nor a clean run" {
	jq -cn '{id:"p", profiler:"ncu", run:{exit_code:1, signal:null, ended_by:"exit", stdout:"", stderr:""},
		error:{stage:"kf-read", kind:"no_permission", message:"ncu may not read the GPU performance counters"}}' |
		kf-feedback >"$T/p.json" && st=0 || st=$?
	assert_equal "$st" 1
	assert_equal "$(jq -c '.analysis.diagnosis' "$T/p.json")" '[]'
}

# The diagnosis of a replayed output directory DIR of PROFILER.
diag() {
	jq -cn --arg p "$1" --arg d "$2" --arg pass "$3" '{id:"d", profiler:$p, output_dir:$d} +
		(if $pass == "" then {} else {pass:$pass} end)' |
		kf-read 2>/dev/null | kf-collate | kf-feedback "${@:4}"
}

evidence() { echo '[.evidence[] | "\(.metric)=\(.value)"] | join("; ")'; }

@test "launch_bound: ResNet-18's timing run, each launch counted: 176 of 241 under 10 us, 38.1% of 2.48 ms; no timestamps, no stake" {
	# ground truth from ncu_timing.csv: 241 gpu__time_duration.sum rows, 176 under
	# 10,000 ns summing to 945,216 ns of 2,483,104 ns
	run diag ncu "$FIX/ncu-h200-top/resnet18-top" ncu.000
	assert_success
	run jq -r ".analysis.diagnosis[] | select(.kind == \"launch_bound\") | .kind, .impact_pct, .unit, .kernel, ($(evidence)), .what, .fix" <<<"$output"
	assert_line -n 0 launch_bound
	assert_line -n 1 null
	assert_line -n 2 null
	assert_line -n 3 null
	assert_line -n 4 "gpu__time_duration.sum: launches=241; gpu__time_duration.sum: launches under 10 us=176; gpu__time_duration.sum: share of launches under 10 us=73; gpu__time_duration.sum: GPU time=2483104; gpu__time_duration.sum: GPU time in launches under 10 us=945216; impact_pct: not estimated: the GPU's idle time between launches, what fewer launches save, needs timestamps (kf trace), not launch durations=null"
	assert_line -n 5 "Most launches are too short to fill the GPU: 176 of 241 launches (73.0%) ran under 10 µs, 38.1% of the 2.48 ms of GPU time measured. Between launches this short the GPU may wait for the host, but these timings have no timestamps, so the idle time between launches was not measured (kf trace measures it)"
	assert_line -n 6 --partial "fewer, larger launches: fuse the small kernels"
}

@test "launch_bound: the detailed launches' own Durations (80 ResNet-18 launches, 59 short); none below 50 launches" {
	run fb rn "$FIX/ncu-h200/detailed-resnet18-plain.csv"
	run an rn ".diagnosis[] | select(.kind == \"launch_bound\") | [.kind, .impact_pct, .evidence[1].metric, .evidence[1].value, .evidence[4].value]"
	assert_output '["launch_bound",null,"GPU Speed Of Light Throughput: Duration: launches under 10 us",59,305888]'
	fb multi "$FIX/ncu-h200/detailed-multi.csv"
	assert_equal "$(an multi '[.diagnosis[] | select(.kind == "launch_bound")] | length')" 0
}

@test "machinery: CuPy's generator setup as a finding with its share of GPU time, impact unknown" {
	fb cupy "$TOP/examples/h200/cupy-fft/ncu.000/ncu_report.csv"
	run an cupy ".diagnosis[] | select(.kind == \"machinery\") | [.impact_pct, .evidence[0].metric, .evidence[0].value, .evidence[1].value, .evidence[2].value]"
	assert_output '[null,"share_pct",38.3,580704,1]'
	run an cupy '.ranking.machinery.kernels[0].total_ns'
	assert_output 580704
	run text cupy
	assert_line --partial "Framework machinery, not the program's work (share/kf/machinery.tsv), took 38.3% of the GPU time (580.7 µs over 1 launch): init_curand<curand_pseudo_state<curandStateXORWOW>>(long, unsigned long, long) (CuPy random generator state setup (cupy.random)); it is set aside"
}

B580='{"gpu_name":"Intel(R) Arc(TM) B580 Graphics"}'
LNL='{"gpu_name":"Intel(R) Arc(TM) 140V GPU (16GB)"}'

utdiag() {
	ut_replay j "$FIX/unitrace/$1" "$2" | kf-read 2>/dev/null | kf-collate 2>/dev/null | kf-feedback "${@:3}"
}

@test "unitrace bmg-gemm-xmx: compute_bound on tensor (ALU2, XMX) at 61.8% of its peak, 38.2% of its time at stake, 34.9% of the program's" {
	run utdiag bmg-gemm-xmx "$B580"
	assert_success
	# 38.2% of the kernel's time x its 91.3% of the GPU time: 34.9
	run jq -r ".analysis.diagnosis | length, (.[0] | .kind, .unit, .impact_pct, .kernel_impact_pct, .kernel, ($(evidence)), .fix)" <<<"$output"
	assert_output "1
compute_bound
tensor
34.9
38.2
GemmXmxKernel<bfloat16, 256, 128, 32>
XVE_INST_EXECUTED_ALU2_ALL[events]=268435456; XVE_INST_EXECUTED_ALU2_ALL[events] / GpuTime[ns], share of peak=61.8; XVE_INST_EXECUTED_ALU2_ALL[events] / (GPU_MEMORY_BYTE_READ[bytes] + GPU_MEMORY_BYTE_WRITE[bytes])=0.836; kernel_impact_pct: 100 - ALU2's share of its peak instruction rate (headroom to the roof; gpus.json gives no other unit's FLOP rate to move to)=38.2; impact_pct: kernel_impact_pct x the kernel's share of the ranking's GPU time=34.9; share_pct: the kernel's share of the ranking's GPU time=91.3
keep the XMX engines fed: larger tiles per sub-group, and load the next tiles (2D block loads, prefetch) while DPAS runs on these"
}

@test "unitrace bmg-stream-slm: memory_bound on dram at 80.58% of peak (19.4% of its time at stake), then 25.37% SLM bank conflicts" {
	run utdiag bmg-stream-slm "$B580"
	run jq -r '.analysis.diagnosis[] | [.kind, .unit, .impact_pct, .kernel_impact_pct] | @tsv' <<<"$output"
	# the kernel holds 99.2% of the GPU time: 19.4 of its time is 19.3 of the program's
	assert_line -n 0 "$(printf 'memory_bound\tdram\t19.3\t19.4')"
	# 25.37% of SLM accesses conflict, SLM at 20.56% of its peak: 5.2
	assert_line -n 1 "$(printf 'shared_bank_conflict\tshared\t5.2\t5.2')"
	run utdiag bmg-stream-slm "$B580"
	run jq -r ".analysis.diagnosis[] | ($(evidence))" <<<"$output"
	assert_line -n 0 "GPU_MEMORY_BYTE_READ_RATE[GBpS] + GPU_MEMORY_BYTE_WRITE_RATE[GBpS]=367.466767; GPU memory bandwidth, share of peak=80.58; XVE_INST_EXECUTED_ALU0_ALL[events] / (GPU_MEMORY_BYTE_READ[bytes] + GPU_MEMORY_BYTE_WRITE[bytes])=0.069; kernel_impact_pct: 100 - GPU memory bandwidth's share of its peak (headroom to the roof)=19.4; impact_pct: kernel_impact_pct x the kernel's share of the ranking's GPU time=19.3; share_pct: the kernel's share of the ranking's GPU time=99.2"
	assert_line -n 1 "SLM_BANK_CONFLICT_COUNT[events]=10848701; SLM_ACCESS_COUNT[events]=42762240; SLM_BANK_CONFLICT_COUNT / SLM_ACCESS_COUNT=25.37; kernel_impact_pct: SLM_BANK_CONFLICT_COUNT / SLM_ACCESS_COUNT x SLM bandwidth's share of its peak (the conflicting share of SLM's work)=5.2; impact_pct: kernel_impact_pct x the kernel's share of the ranking's GPU time=5.2; share_pct: the kernel's share of the ranking's GPU time=99.2"
	run utdiag bmg-stream-slm "$B580" --text
	assert_line -n 2 "1. Stencil3x3SlmKernel<float, 32, 16> is memory-bound on GPU memory bandwidth: 367.47 GB/s, 80.6% of the peak, at 0.069 ALU0 instructions per byte (ridge 0.900-1.111) (about 19% of the program's GPU time at stake). Fix: move fewer bytes: reuse data from SLM or registers, fuse with the kernels that touch the same tensors, or use narrower types (bf16, fp16)."
	assert_line -n 3 --partial "2. 25.4% of Stencil3x3SlmKernel<float, 32, 16>'s SLM accesses are bank conflicts"
}

@test "unitrace OpenCL sampling: compute_bound on fma (ALU0 54.7%), the fix names XMX at 0%; LNL softmax memory_bound" {
	run utdiag bmg-ocl-sampling "$B580"
	run jq -r '.analysis.diagnosis[0] | .kind, .unit, .impact_pct, .kernel_impact_pct, .evidence[1].value, .fix' <<<"$output"
	assert_output "compute_bound
fma
43.5
45.3
54.68
run the matrix work on XMX (joint_matrix, DPAS: ALU2 is at 0.0%), or do less arithmetic per output"
	run utdiag lnl-shapes "$LNL"
	run jq -c '[.analysis.diagnosis[] | [.kind, .unit, .impact_pct, .kernel]]' <<<"$output"
	assert_output '[["memory_bound","dram",20.4,"SoftmaxRowKernel<float>"]]'
}

@test "unitrace: no unit near its peak is latency_bound by the stall rate, with low occupancy; ALU1 mostly FP64 is fp64_math" {
	ut_replay j "$FIX/unitrace/bmg-stream-slm" "$B580" | kf-read 2>/dev/null | kf-collate 2>/dev/null >"$T/c.json"
	# the boundary kernel alone: ALU1 0.31%, memory 9.80%, stalled 29.76%, occupancy 9.43%
	jq -c '.collated.segments[0].kernels |= [.[1]]' "$T/c.json" | kf-feedback >"$T/o.json"
	run jq -r ".analysis.diagnosis[] | [.kind, .impact_pct, .evidence[0].metric, .evidence[0].value] | @tsv" "$T/o.json"
	assert_output "$(printf 'latency_bound\t29.8\tXVE_STALL[%%]\t29.761568\nlow_occupancy\t\tXVE_THREADS_OCCUPANCY_ALL[%%]\t9.433735')"
	# the same kernel made compute-bound on ALU1 with its instructions FP64
	jq -c '.collated.segments[0].kernels |= [.[0] | .compute_basic["XVE_INST_EXECUTED_ALU1_ALL[events]"] = 1e12 |
		.vector_engine_profile["XVE_INST_EXECUTED_ALU1_ALL[events]"] = 100 |
		.vector_engine_profile["XVE_INST_EXECUTED_FP64[events]"] = 90]' "$T/c.json" | kf-feedback >"$T/f.json"
	run jq -r '.analysis.diagnosis[0] | .kind, .unit, (.evidence[] | select(.metric | startswith("XVE_INST_EXECUTED_FP64")) | .metric, .value), .fix' "$T/f.json"
	assert_output "fp64_math
fp64
XVE_INST_EXECUTED_FP64[events] / XVE_INST_EXECUTED_ALU1_ALL[events]
90
compute in fp32: float literals (1.0f), float variables and the float math functions; keep fp64 only where the precision is needed"
}

vtdiag() {
	jq -cn --arg d "$FIX/vtune/$1" '{id:"t", profiler:"vtune", output_dir:$d, pass:"vtune.000"}' |
		kf-read | kf-collate | kf-feedback "${@:2}"
}

@test "VTune sycl-latency: latency_bound on lsu by Send stalls 35.2%, then low_occupancy capped by SLM use" {
	run vtdiag sycl-latency
	assert_success
	run jq -r ".analysis.diagnosis[] | [.kind, .unit, .impact_pct, ($(evidence)), .fix] | @tsv" <<<"$output"
	# 35.2% of the kernel's time x its 85.5% of the GPU time: 30.1
	assert_line -n 0 "$(printf 'latency_bound\tlsu\t30.1\tXVE Stall Reasons:Send=35.2; XVE Array:Stalled=55.1; GPU L3:Miss Ratio=60.4; kernel_impact_pct: XVE Stall Reasons:Send (the time the XVEs wait on memory)=35.2; impact_pct: kernel_impact_pct x the kernel%ss share of the ranking%ss GPU time=30.1; share_pct: the kernel%ss share of the ranking%ss GPU time=85.5\tkeep the working set in L3 (miss ratio 60.4%%): more reuse per load, and more loads in flight (block loads, prefetch, unrolling)' "'" "'" "'" "'")"
	assert_line -n 1 "$(printf 'low_occupancy\t\t\tXVE Threads Occupancy=40.1; Peak XVE Threads Occupancy=62.5; Peak XVE Threads Occupancy:SLM Use Limit=62.5; kernel_impact_pct: not estimated: more threads help only as far as they hide the stalls, which VTune%ss columns do not split=null; share_pct: the kernel%ss share of the ranking%ss GPU time=85.5\tless SLM per work-group, so that more work-groups fit' "'" "'" "'")"
}

@test "VTune sycl-gemm-xmx: compute_bound on tensor, XMX active 60.3% (39.7 of its time at stake, 38.1 of the program's); one finding" {
	run vtdiag sycl-gemm-xmx
	run jq -c '[.analysis.diagnosis[] | [.kind, .unit, .impact_pct, .kernel_impact_pct, .kernel, .evidence[0].metric, .evidence[0].value]]' <<<"$output"
	assert_output '[["compute_bound","tensor",38.1,39.7,"matmul_bf16_xmx<256, 128>","XVE Pipelines:XMX active",60.3]]'
}

@test "--max-chars at small budgets: the diagnosis first and whole, findings dropped whole, never the first" {
	for n in 700 500 400 300 200; do
		vtdiag sycl-latency --max-chars "$n" >"$T/v$n.json"
		len=$(jq -r '.feedback | length' "$T/v$n.json")
		[ "$len" -le "$n" ] || fail "$n: $len characters"
		jq -r .feedback "$T/v$n.json" >"$T/v$n.txt"
		[ "$(sed -n 1p "$T/v$n.txt")" = "Diagnosis (most time at stake first):" ] || fail "$n: no lead"
	done
	# the diagnosis takes two thirds of the budget when more than its first
	# finding is said: 1000 holds both findings, 700 the first alone
	vtdiag sycl-latency --max-chars 1000 | jq -r .feedback >"$T/v1000.txt"
	grep -qx '2\. embedding_gather.*Fix: less SLM per work-group, so that more work-groups fit\.' "$T/v1000.txt"
	! grep -q '^2\.' "$T/v700.txt"
	# 500 and 400: the first finding whole, the second left out whole
	grep -qx '1\. embedding_gather.*(block loads, prefetch, unrolling)\.' "$T/v500.txt"
	! grep -q '^2\.' "$T/v500.txt"
	grep -qx '1\. embedding_gather.*(block loads, prefetch, unrolling)\.' "$T/v400.txt"
	! grep -q '^2\.' "$T/v400.txt"
	# 200: no sentence of the first finding ends in room: cut at a word
	[ "$(sed -n 2p "$T/v200.txt")" = "1. embedding_gather<float, 128> waits on memory: Send stalls 35.2% of the time (55.1% stalled in all) (about 30% of the program's GPU time at stake, 35% of this" ]
}

@test "program_failed: VTune's and unitrace's own lines are not the program's; VTune's Error line is quoted as its own" {
	jq -cn '{id:"v", profiler:"vtune", cmd:["python3", "t.py", "a b"],
		passes:[{pass:"vtune.000", status:"ok", run:{exit_code:1, signal:null, ended_by:"exit", elapsed_s:9,
		  stdout:"vtune: Executing actions 50 %\n",
		  stderr:"[INFO] Device metrics are stored in x\nTraceback (most recent call last):\n  File \"t.py\", line 3, in <module>\nRuntimeError: CUDA error: device-side assert triggered\nvtune: Warning: Cannot locate debugging information for file\nvtune: Error: Collection failed.\n"}}],
		collated:{kernels:[]}}' >"$T/v.json"
	run kf-feedback "$T/v.json"
	assert_equal "$status" 3
	run jq -r '.analysis.diagnosis[0] | .what, .fix' <<<"$output"
	assert_line -n 0 'The program failed: its run exited with status 1 (run.exit_code). It said: "RuntimeError: CUDA error: device-side assert triggered". vtune said: "vtune: Error: Collection failed.". The numbers that follow are from the kernels that ran before it ended, not from a whole run'
	assert_line -n 1 "make the program run to its end outside the profiler first (python3 t.py 'a b'), fix what its own messages say, then profile it again"
}
