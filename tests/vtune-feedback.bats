#!/usr/bin/env bats
# kf-feedback on VTune reports: the fixtures' ground truth (expected.json),
# the reference's verdict and recommendation rules, and hand-made reports.

load helper
load vtune


# The feedback record of the report in DIR.
fb() {
	replay "${2:-t}" vtune "$1" vtune.000 | kf-read | kf-collate | kf-feedback "${@:3}"
}

setup() {
	export -f replay fb
}

# Compare the analysis of scenario S with expected.json; prints mismatches.
truth() {
	local s=$1
	fb "$V/$s" | jq -r --slurpfile exp "$V/expected.json" --arg s "vtune/$s" '
		$exp[0].scenarios[$s] as $e | .analysis as $a | $a.kernels[0] as $k |
		def close(x; y): ((x - y) | fabs) < 1e-9 * ((y | fabs) + 1);
		[
		  (if $a.dominant_kernel == $e.dominant_kernel then empty else "dominant_kernel \($a.dominant_kernel)" end),
		  (if $a.bound == $e.bound and $k.bound == $e.bound then empty else "bound \($a.bound)" end),
		  (if $a.only_overhead_kernels == $e.only_overhead_kernels then empty else "only_overhead_kernels" end),
		  (if close($k.total_time_s; $e.total_time_s_merged) then empty else "total_time_s \($k.total_time_s)" end),
		  (if $k.average_time_ns == $e.average_time_ns then empty else "average_time_ns \($k.average_time_ns)" end),
		  (["instance_count","simd_width","xve_stalled_pct","stall_send_pct","xmx_active_pct",
		    "alu0_active_pct","alu1_active_pct","thread_occupancy_pct","l3_miss_pct"][] as $f |
		    if $k[$f] == $e[$f] then empty else "\($f) \($k[$f]) != \($e[$f])" end),
		  (if close($k.gpu_memory_rw_gbps; $e.gpu_memory_rw_gbps) then empty else "gpu_memory_rw_gbps \($k.gpu_memory_rw_gbps)" end),
		  (if ([$a.kernels[] | {(.name): .bound}] | add) == $e.kernels_reported_by_reference then empty
		   else "kernels \([$a.kernels[] | {(.name): .bound}] | add)" end)
		] | if length == 0 then "ok" else .[] end'
}

@test "sycl-gemm-xmx: every ground-truth value of expected.json (merged SIMD rows give compute_xmx)" {
	run truth sycl-gemm-xmx
	assert_success
	assert_output ok
}

@test "sycl-latency: every ground-truth value of expected.json (memory_latency, two user kernels)" {
	run truth sycl-latency
	assert_success
	assert_output ok
}

@test "sycl-gemm-xmx text: average time in ms (not seconds called ms), variants, SLM-limited peak" {
	run bash -c "fb '$V/sycl-gemm-xmx' t --text"
	assert_success
	assert_output --partial 'SIMD width: 16, 200 instances, average time 2.06 ms, total time 499.73 ms.'
	assert_output --partial 'merged: SIMD16: 200 instances, 412.32 ms; SIMD32: 50 instances, 87.41 ms.'
	assert_output --partial 'Average thread occupancy: 46.2%, peak: 50.0% (limited by SLM use 50.0%).'
	assert_output --partial 'The kernel is XMX/matrix compute bound [compute_xmx]: the XMX pipeline is active 60.3% of the time (above 20%).'
	refute_output --partial 'zeCommandListAppendMemoryCopy (compute'
	refute_output --partial 'Kernel: [Outside'
}

@test "sycl-gemm-xmx text: stalls sorted, pipelines with counts and mix, memory and L3" {
	run bash -c "fb '$V/sycl-gemm-xmx' t --text"
	assert_output --partial 'SBID: 9.8%, Dist/Acc: 6.2%, Send (memory): 4.1%, Barrier: 1.3%, Instruction Fetch: 0.7%'
	assert_output --partial '  XMX (Matrix/DPAS): 60.3% active, 53.7B instructions (89.3%)'
	assert_output --partial 'Instruction mix: ALU0 3.1%, ALU1 7.5%, XMX 89.3%.'
	assert_output --partial 'read 148.2 GB/s, write 17.5 GB/s, 165.7 GB/s in all.'
	assert_output --partial 'L3 bandwidth: read 842.1 GB/s, write 35.9 GB/s.'
	assert_output --partial 'L3 miss ratio: 21.3%'
}

@test "sycl-gemm-xmx: recommendations compute_xmx, low_occupancy, dependency_stalls, in that order" {
	run bash -c "fb '$V/sycl-gemm-xmx' | jq -c '[.analysis.kernels[0].recommendations[].kind]'"
	assert_output '["compute_xmx","low_occupancy","dependency_stalls"]'
	run bash -c "fb '$V/sycl-gemm-xmx' t --text"
	assert_output --partial '[low_occupancy] Average thread occupancy 46% is low.'
}

@test "sycl-latency: recommendations memory_latency, low_occupancy, dependency_stalls, l3_thrashing" {
	run bash -c "fb '$V/sycl-latency' | jq -c '[.analysis.kernels[] | [.name, [.recommendations[].kind]]]'"
	assert_output '[["embedding_gather<float, 128>",["memory_latency","low_occupancy","dependency_stalls","l3_thrashing"]],["scatter_add_kernel<float>",["memory_latency","low_occupancy","dependency_stalls","l3_thrashing"]]]'
}

@test "sycl-latency: ranking holds every computing task but [Outside any task], by time" {
	run bash -c "fb '$V/sycl-latency' | jq -c '[.analysis.ranking.kernels[] | [.name, .total_ns, .launches]]'"
	assert_output '[["embedding_gather<float, 128>",186432000,100],["scatter_add_kernel<float>",21117000,100],["zeCommandListAppendMemoryCopy",10442000,12]]'
	run bash -c "fb '$V/sycl-latency' t --text"
	assert_output --partial 'Kernels by total GPU time (3 kernels, 212 launches'
}

@test "--max-chars keeps the dominant kernel's verdict and drops the other kernels first" {
	run bash -c "fb '$V/sycl-latency' t --text --max-chars 900"
	assert_success
	assert_output --partial 'Kernel: embedding_gather<float, 128>'
	assert_output --partial 'memory-latency bound'
	refute_output --partial 'scatter_add_kernel<float> ('
	refute_output --partial 'Kernel: scatter_add'
	n=$(fb "$V/sycl-latency" t --max-chars 900 | jq -r '.feedback | length')
	[ "$n" -le 900 ]
}

@test "only copies and framework kernels: the hottest analysed, with a note" {
	{
		echo "$HDR"
		row '[Outside any task]' 0.9
		row 'at::native::xpu::VectorizedElementwiseKernel<4, AddFunctor<float>>' 0.05 0.0005 100 16 40 50 10 60 70 100 100 100 30 0 5 1 2 20 10 0 100 200 0 300.5 100.25 20 5 40 500 100 10
		row zeCommandListAppendMemoryCopy 0.02 0.001 20
		row zeCommandListAppendMemoryFill 0.01 0.001 10
	} | mk ovh
	run bash -c "fb '$BATS_TEST_TMPDIR/ovh' | jq -c '[.analysis.only_overhead_kernels, .analysis.dominant_kernel, .analysis.bound, (.analysis.kernels | length), .analysis.kernels[0].overhead]'"
	assert_output '[true,"at::native::xpu::VectorizedElementwiseKernel<4, AddFunctor<float>>","memory_latency",1,true]'
	run bash -c "fb '$BATS_TEST_TMPDIR/ovh' t --text"
	assert_output --partial 'Only copies and framework kernels were captured, no kernel of your own; this is the hottest of them, at::native::xpu::VectorizedElementwiseKernel<4, AddFunctor<float>>.'
}

@test "ALU-bound kernel with barrier stalls: compute_alu0, barrier_stalls and no_xmx advice" {
	{
		echo "$HDR"
		row 'reduce_tree<float, 256>' 0.05 0.0005 100 32 70 20 10 80 90 100 100 90 3.0 12.5 4.0 1.0 2.0 62.4 20.1 0.0 6,000,000,000 2,000,000,000 0 50.2 10.1 30 5 10.0 200 20 100
	} | mk alu
	run bash -c "fb '$BATS_TEST_TMPDIR/alu' | jq -c '.analysis.kernels[0] | [.bound, [.recommendations[].kind], .stalls[0].reason, .alu0_instr_pct]'"
	assert_output '["compute_alu0",["compute_alu","barrier_stalls","no_xmx"],"barrier",75]'
	run bash -c "fb '$BATS_TEST_TMPDIR/alu' t --text"
	assert_output --partial 'The kernel is ALU0-compute bound (FP16/FP32) [compute_alu0]: the ALU0 pipeline is active 62.4% of the time (above 50%).'
	assert_output --partial '[barrier_stalls] Barrier stalls at 12.5%'
	assert_output --partial '[compute_alu] The ALU0 (FP16/FP32) pipeline is active 62.4%'
	assert_output --partial 'Stall reasons:'$'\n''Barrier: 12.5%, SBID: 4.0%, Send (memory): 3.0%'
}

@test "verdict boundaries follow the reference: Send 5.0 is not latency, XMX 20.0 is not XMX, ALU1 51 is ALU1" {
	{
		echo "$HDR"
		# name total avg n simd act stall idle occ peak l1 l2 l3 send barrier sbid if dist alu0 alu1 xmx
		row send5 0.9 0.009 100 16 50 40 10 60 70 100 100 100 5.0 0 1 0 1 10 10 0
		row sendtie 0.8 0.008 100 16 50 40 10 60 70 100 100 100 8.0 0 8.0 0 1 10 10 0
		row nostall 0.7 0.007 100 16 50 0 10 60 70 100 100 100 30 0 1 0 1 10 10 0
		row xmx20 0.6 0.006 100 16 50 40 10 60 70 100 100 100 1 0 1 0 1 10 10 20.0
		row alu1 0.5 0.005 100 16 50 40 10 60 70 100 100 100 1 0 1 0 1 50 51 0
		row nothing 0.4
	} | mk bnd
	run bash -c "fb '$BATS_TEST_TMPDIR/bnd' | jq -r '.analysis.kernels[] | \"\(.name) \(.bound)\"'"
	assert_output $'send5 balanced\nsendtie memory_latency\nnostall balanced\nxmx20 balanced\nalu1 compute_alu1\nnothing balanced'
}

@test "low peak occupancy advice only when the average is not low; no occupancy advice at 50%" {
	{
		echo "$HDR"
		row avg50peak40 0.9 0.009 100 16 50 40 10 50 40
		row nopeak 0.8 0.008 100 16 50 40 10 '' 45
	} | mk occ
	run bash -c "fb '$BATS_TEST_TMPDIR/occ' | jq -c '[.analysis.kernels[] | [.recommendations[].kind]]'"
	assert_output '[["low_peak_occupancy"],["low_peak_occupancy"]]'
}

@test "missing metrics are said to be missing, in the text and the analysis" {
	{
		echo "$HDR"
		row k 0.5 0.005 100 16 60 '' 10 '' 70 100 100 100 '' '' '' '' '' 55 10 0
	} | mk miss
	run bash -c "fb '$BATS_TEST_TMPDIR/miss' t --text"
	assert_output --partial 'Active: 60.0% | Stalled: missing | Idle: 10.0%'
	assert_output --partial $'Stall reasons:\nmissing from the report.'
	assert_output --partial 'Average thread occupancy: missing, peak: 70.0%.'
	assert_output --partial 'GPU memory bandwidth (VTune-sampled, approximate): missing.'
	run bash -c "fb '$BATS_TEST_TMPDIR/miss' | jq -c '.analysis.kernels[0] | [.bound, (.missing | index(\"xve_stalled_pct\") != null), has(\"xve_stalled_pct\")]'"
	assert_output '["compute_alu0",true,false]'
}

@test "public Xe-Forge sample: no XVE columns, so balanced, and low peak occupancy 40%" {
	mkdir -p "$BATS_TEST_TMPDIR/xf"
	cp "$FIX/public-samples/vtune/xe-forge_gpu-hotspots_computing-task_semicolon.csv" \
		"$BATS_TEST_TMPDIR/xf/vtune_hotspots_pass0.tsv"
	run bash -c "fb '$BATS_TEST_TMPDIR/xf' | jq -c '.analysis.kernels[0] | [.name, .bound, .average_time_ns, .instance_count, [.recommendations[].text]]'"
	assert_output '["gemm_kernel","balanced",529000,50,["Peak occupancy 40%: try larger tiles, fewer registers, or a persistent kernel."]]'
}

@test "a failed collection is explained in the feedback with what to do" {
	mkdir -p "$BATS_TEST_TMPDIR/cf"
	err=$'kf-vtune: collection failed: vtune -collect gpu-hotspots exited with status 1; no report made\n'
	run bash -c "jq -cn --arg d '$BATS_TEST_TMPDIR/cf' --arg e \"\$1\" '{id:\"c\",profiler:\"vtune\",pass:\"vtune.000\",output_dir:\$d,run:{exit_code:1,ended_by:\"exit\",stderr:\$e}}' | kf-read 2>/dev/null | kf-collate | kf-feedback --text" _ "$err"
	assert_output --partial 'Profiling with vtune failed'
	assert_output --partial '(kf-read, collect_failed)'
	assert_output --partial 'What to do: VTune could not collect GPU hotspots.'
}

@test "collated data without kernels says there is nothing to analyse" {
	run bash -c "jq -cn '{id:\"z\",profiler:\"vtune\",collated:{kernels:[{name:\"[Outside any task]\",pseudo:true,metrics:{total_time_s:1}}]}}' | kf-feedback | jq -r '.analysis.status, .feedback'"
	assert_line -n 0 no_kernels
	assert_line --partial "VTune's report holds no GPU computing task"
}
