#!/usr/bin/env bats
# kf-read on VTune hotspots reports: the fixtures, hand-made reports, and
# the ways a report can be missing or broken.

load helper
load vtune


rd() {
	replay "${2:-t}" vtune "$BATS_TEST_TMPDIR/$1" | kf-read
}

setup() {
	export -f replay rd
}

@test "sycl-gemm-xmx: SIMD16 and SIMD32 rows merged, total summed, SIMD16 metrics kept" {
	run bash -c "replay g vtune '$V/sycl-gemm-xmx' | kf-read | jq -c '.data.kernels[0] | [.name, .rows, .metrics.total_time_s, .metrics.average_time_s, .metrics.instance_count, .metrics.instance_count_all, .metrics.simd_width, .metrics.xmx_active_pct, .metrics.stall_send_pct, .metrics_from_variant]'"
	assert_success
	assert_output '["matmul_bf16_xmx<256, 128>",2,0.499729,0.002062,200,250,16,60.3,4.1,0]'
}

@test "sycl-gemm-xmx: both variants listed with their own times" {
	run bash -c "replay g vtune '$V/sycl-gemm-xmx' | kf-read | jq -c '.data.kernels[0].variants'"
	assert_output '[{"simd_width":16,"instance_count":200,"total_time_s":0.412318,"average_time_s":0.002062},{"simd_width":32,"instance_count":50,"total_time_s":0.087411,"average_time_s":0.001748}]'
}

@test "sycl-gemm-xmx: kernels ordered by total time, [Outside any task] kept as pseudo, copy has no XVE metrics" {
	run bash -c "replay g vtune '$V/sycl-gemm-xmx' | kf-read | jq -c '[.data.kernels[] | [.name, (.pseudo // false), .metrics.total_time_s]], .data.kernels[2].metrics, .data.messages, .data.skipped_lines'"
	assert_line -n 0 '[["matmul_bf16_xmx<256, 128>",false,0.499729],["[Outside any task]",true,0.309544],["zeCommandListAppendMemoryCopy",false,0.021315]]'
	assert_line -n 1 '{"total_time_s":0.021315,"average_time_s":0.00071,"instance_count":30,"gpu_memory_read_gbps":0.412,"gpu_memory_write_gbps":9.788}'
	assert_line -n 2 '["war:Column filter is ON."]'
	assert_line -n 3 '1'
}

@test "sycl-latency: every column of the gather row read by name, with (%) removed" {
	run bash -c "replay l vtune '$V/sycl-latency' | kf-read | jq -c '.data.kernels[0].metrics'"
	assert_output '{"total_time_s":0.186432,"average_time_s":0.001864,"instance_count":100,"simd_width":16,"xve_active_pct":30.2,"xve_stalled_pct":55.1,"xve_idle_pct":14.7,"occupancy_pct":40.1,"peak_occupancy_pct":62.5,"peak_occupancy_work_size_limit_pct":100,"peak_occupancy_slm_limit_pct":62.5,"peak_occupancy_barriers_limit_pct":100,"stall_send_pct":35.2,"stall_barrier_pct":0,"stall_sbid_pct":12.4,"stall_instruction_fetch_pct":1.9,"stall_dist_acc_pct":3.1,"alu0_active_pct":6.8,"alu1_active_pct":18.9,"xmx_active_pct":0,"alu0_instructions":398458880,"alu1_instructions":1107296256,"xmx_instructions":0,"gpu_memory_read_gbps":98.412,"gpu_memory_write_gbps":11.207,"l3_busy_pct":38,"l3_stalled_pct":11.9,"l3_miss_pct":60.4,"l3_read_gbps":163.508,"l3_write_gbps":18.116,"tlb_misses":52113}'
}

@test "sycl-latency: four computing tasks, 32 columns, tab delimiter" {
	run bash -c "replay l vtune '$V/sycl-latency' | kf-read | jq -c '[.data.delimiter, .data.columns, .data.rows, (.data.kernels | length)]'"
	assert_output '["tab",32,4,4]'
}

@test "public Xe-Forge sample: ';' delimiter, work sizes as text, Peak occupancy read" {
	# The sample is not named vtune_hotspots_pass0.tsv: copy it under that name.
	mkdir -p "$BATS_TEST_TMPDIR/xf"
	cp "$FIX/public-samples/vtune/xe-forge_gpu-hotspots_computing-task_semicolon.csv" \
		"$BATS_TEST_TMPDIR/xf/vtune_hotspots_pass0.tsv"
	run bash -c "replay x vtune '$BATS_TEST_TMPDIR/xf' | kf-read | jq -c '.data.delimiter, .data.kernels[0].name, .data.kernels[0].metrics, .data.kernels[0].other'"
	assert_success
	assert_line -n 0 '"semicolon"'
	assert_line -n 1 '"gemm_kernel"'
	assert_line -n 2 '{"work_size_global":"128 x 8","work_size_local":"64 x 8","total_time_s":0.026427,"average_time_s":0.000529,"instance_count":50,"simd_width":16,"spill_memory_size":0,"peak_occupancy_pct":40,"peak_occupancy_work_size_limit_pct":40,"peak_occupancy_slm_limit_pct":100,"peak_occupancy_barriers_limit_pct":100}'
	assert_line -n 3 '{"Transfer Size":0,"Transfer Size:Host-to-Device":0,"Transfer Size:Device-to-Host":0}'
}

@test "unknown columns are kept under other, by their VTune name" {
	mk u <<-EOF
	Computing Task	Computing Task:Total Time	Transfer Size:Host-to-Device	GPU Frequency, GHz	Computing Task:Purpose
	k1	0.5	1,024	2.85	Compute
	EOF
	run bash -c "rd u | jq -c '.data.kernels[0].other'"
	assert_output '{"Transfer Size:Host-to-Device":1024,"GPU Frequency, GHz":2.85,"Computing Task:Purpose":"Compute"}'
}

@test "warning and progress lines before the header skipped, thousands separators read" {
	{
		echo "war:Column filter is ON."
		printf 'vtune: Executing actions  0 %%                        \rvtune: Executing actions 50 %% Generating a report      \r\n'
		echo "vtune: Warning: Cannot locate debugging information for file \`/usr/lib/x86_64-linux-gnu/libze_intel_gpu.so.1'."
		echo "$HDR"
		row 'big_kernel<1>' 1,234.5 0.012345 100,000 16 50 40 10 70 80 100 80 100 20.5 0 3 1 2 30 20 0 1,887,436,800 45,298 0 1,024.5 2 10 5 30 900 30 52,113
	} | mk sep
	run bash -c "rd sep | jq -c '.data.kernels[0].metrics | [.total_time_s, .instance_count, .alu0_instructions, .alu1_instructions, .gpu_memory_read_gbps, .tlb_misses]'"
	assert_output '[1234.5,100000,1887436800,45298,1024.5,52113]'
	run bash -c "rd sep | jq -c '.data.skipped_lines, (.data.messages | length), .data.messages[1]'"
	assert_line -n 0 3
	assert_line -n 1 3
	assert_line -n 2 '"vtune: Executing actions 50 % Generating a report"'
}

@test "a progress line overwritten by the header (\\r) still finds the header" {
	{
		printf 'vtune: Executing actions 100 %% done\r%s\n' "$HDR"
		row k 0.25 0.0025 100 16
	} | mk cr
	run bash -c "rd cr | jq -c '.data.kernels[0] | [.name, .metrics.total_time_s, .metrics.simd_width]'"
	assert_output '["k",0.25,16]'
}

@test "CRLF line ends read the same as LF" {
	mkdir -p "$BATS_TEST_TMPDIR/crlf"
	sed 's/$/\r/' "$V/sycl-gemm-xmx/vtune_hotspots_pass0.tsv" >"$BATS_TEST_TMPDIR/crlf/vtune_hotspots_pass0.tsv"
	a=$(replay g vtune "$V/sycl-gemm-xmx" | kf-read | jq -S -c .data)
	b=$(replay g vtune "$BATS_TEST_TMPDIR/crlf" | kf-read | jq -S -c .data)
	[ -n "$a" ]
	[ "$a" = "$b" ]
}

@test "empty cells are missing, not zero" {
	{
		echo "$HDR"
		row k 0.5 0.005 100 16 60 30 10 '' 70 100 100 100 '' '' '' '' '' 55 10 0
	} | mk empty
	run bash -c "rd empty | jq -c '.data.kernels[0].metrics | [has(\"occupancy_pct\"), has(\"stall_send_pct\"), has(\"l3_miss_pct\"), .alu0_active_pct, .xmx_active_pct]'"
	assert_output '[false,false,false,55,0]'
}

@test "EU Array naming (older GPUs) read as XVE" {
	{
		printf 'Computing Task\tComputing Task:Total Time\tEU Array:Active(%%)\tEU Array:Stalled(%%)\tEU Array:Idle(%%)\tEU Threads Occupancy(%%)\tPeak EU Threads Occupancy(%%)\n'
		row old_kernel 0.1 81.5 12.25 6.25 77 88
	} | mk eu
	run bash -c "rd eu | jq -c '.data.kernels[0].metrics'"
	assert_output '{"total_time_s":0.1,"xve_active_pct":81.5,"xve_stalled_pct":12.25,"xve_idle_pct":6.25,"occupancy_pct":77,"peak_occupancy_pct":88}'
}

@test "columns requested without (%) are matched too" {
	{
		printf 'Computing Task\tComputing Task:Total Time\tXVE Array:Active\tGPU L3:Miss Ratio\n'
		row k 0.1 42.5 61
	} | mk nopct
	run bash -c "rd nopct | jq -c '.data.kernels[0].metrics'"
	assert_output '{"total_time_s":0.1,"xve_active_pct":42.5,"l3_miss_pct":61}'
}

@test "three SIMD variants: metrics of the longest, gaps filled from the next longest, times summed" {
	{
		printf 'Computing Task\tComputing Task:Total Time\tComputing Task:Instance Count\tComputing Task:SIMD Width\tXVE Array:Active(%%)\tGPU L3:Miss Ratio(%%)\n'
		row k 0.1 10 8 10 1
		row k 0.3 30 16 30 ''
		row k 0.2 20 32 20 2
	} | mk simd3
	run bash -c "rd simd3 | jq -c '.data.kernels[0] | [.rows, .metrics.total_time_s, .metrics.simd_width, .metrics.xve_active_pct, .metrics.l3_miss_pct, .metrics.instance_count, .metrics.instance_count_all, .metrics_from_variant]'"
	assert_output '[3,0.6,16,30,2,30,60,1]'
}

@test "a kernel name holding the ';' delimiter is joined back from the extra cells" {
	{
		echo 'Computing Task;Computing Task:Total Time;Computing Task:SIMD Width'
		echo 'kern<a;b>;0.75;32'
	} | mk semi
	run bash -c "rd semi | jq -c '.data.kernels[0] | [.name, .metrics.total_time_s, .metrics.simd_width]'"
	assert_output '["kern<a;b>",0.75,32]'
}

@test "NUL bytes in the report dropped and counted" {
	{
		echo "$HDR"
		printf 'nul\0_kernel\t0.5\t0.005\t100\n'
	} | mk nul
	run bash -c "rd nul | jq -c '[.data.kernels[0].name, .data.kernels[0].metrics.instance_count, .data.nul_bytes]'"
	assert_output '["nul_kernel",100,1]'
}

@test "a 200 KB kernel name is read whole" {
	name=$(head -c 200000 /dev/zero | tr '\0' 'x')
	{
		echo "$HDR"
		row "$name" 0.5 0.005 100
	} | mk long
	run bash -c "rd long | jq -r '.data.kernels[0].name | length'"
	assert_output 200000
}

@test "a report cut off in the middle of a row keeps the cells it has" {
	{
		echo "$HDR"
		row whole 0.5 0.005 100 16 50
		printf 'cut\t0.25\t0.0025\t5'
	} | mk cut
	run bash -c "rd cut | jq -c '[.data.kernels[] | [.name, .metrics]]'"
	assert_output '[["whole",{"total_time_s":0.5,"average_time_s":0.005,"instance_count":100,"simd_width":16,"xve_active_pct":50}],["cut",{"total_time_s":0.25,"average_time_s":0.0025,"instance_count":5}]]'
}

@test "no report and no run info: no_report error, the next record still read, exit 1" {
	mkdir -p "$BATS_TEST_TMPDIR/none"
	run bash -c "{ replay a vtune '$BATS_TEST_TMPDIR/none'; replay b vtune '$V/sycl-latency'; } | kf-read 2>/dev/null | jq -c '[.id, .error.kind, (.data.kernels | length)]'"
	assert_line -n 0 '["a","no_report",0]'
	assert_line -n 1 '["b",null,4]'
	run bash -c "replay a vtune '$BATS_TEST_TMPDIR/none' | kf-read"
	assert_failure 1
	assert_output --partial "no vtune_hotspots_pass0.tsv in $BATS_TEST_TMPDIR/none"
}

@test "no report after a failed collection: collect_failed, quoting VTune's error, with a hint" {
	mkdir -p "$BATS_TEST_TMPDIR/cf"
	err=$'vtune: Error: Cannot collect GPU hardware metrics: access denied\nkf-vtune: collection failed: vtune -collect gpu-hotspots exited with status 1; no report made\n'
	run bash -c "jq -cn --arg d '$BATS_TEST_TMPDIR/cf' --arg e \"\$1\" '{id:\"c\",profiler:\"vtune\",output_dir:\$d,run:{exit_code:1,ended_by:\"exit\",stderr:\$e}}' | kf-read 2>/dev/null | jq -r '.error.kind, .error.message, .error.hint'" _ "$err"
	assert_line -n 0 collect_failed
	assert_line -n 1 "no vtune_hotspots_pass0.tsv in $BATS_TEST_TMPDIR/cf: collection failed: vtune -collect gpu-hotspots exited with status 1; no report made; vtune: Error: Cannot collect GPU hardware metrics: access denied"
	assert_line -n 2 --partial 'dev.i915.perf_stream_paranoid=0'
}

@test "a failed report leaves a file without header: report_failed, not a silent loss" {
	echo "war:Column filter is ON." | mk rf
	err=$'vtune: Error: The result is corrupted\nkf-vtune: report failed: vtune -report hotspots exited with status 1; x is incomplete\n'
	run bash -c "jq -cn --arg d '$BATS_TEST_TMPDIR/rf' --arg e \"\$1\" '{id:\"r\",profiler:\"vtune\",output_dir:\$d,run:{exit_code:1,ended_by:\"exit\",stderr:\$e}}' | kf-read 2>/dev/null | jq -r '.error.kind, .error.message, .error.hint'" _ "$err"
	assert_line -n 0 report_failed
	assert_line -n 1 --partial "has no 'Computing Task' header line (1 line read): report failed: vtune -report hotspots exited with status 1"
	assert_line -n 2 --partial "run it by hand on $BATS_TEST_TMPDIR/rf/vtune_result"
}

@test "a run stopped by the timeout is named as the reason there is no report" {
	mkdir -p "$BATS_TEST_TMPDIR/to"
	run bash -c "jq -cn --arg d '$BATS_TEST_TMPDIR/to' '{id:\"t\",profiler:\"vtune\",output_dir:\$d,run:{exit_code:null,signal:15,ended_by:\"timeout\",elapsed_s:600}}' | kf-read 2>/dev/null | jq -r '.error.kind, .error.message'"
	assert_line -n 0 stopped
	assert_line -n 1 --partial 'the run did not finish: kf-run stopped it after 600 s, at its time limit (kf-run --timeout changes it); VTune had nothing complete to read'
}

@test "empty report, header without rows, only [Outside any task], comma delimiter: each its own error" {
	: | mk e1
	echo "$HDR" | mk e2
	{ echo "$HDR"; row '[Outside any task]' 0.3; } | mk e3
	printf 'Computing Task,Computing Task:Total Time\nk,0.5\n' | mk e4
	run bash -c "for d in e1 e2 e3 e4; do replay \$d vtune '$BATS_TEST_TMPDIR/'\$d; done | kf-read 2>/dev/null | jq -r '[.id, .error.kind] | join(\" \")'"
	assert_output $'e1 empty_report\ne2 no_rows\ne3 no_kernels\ne4 bad_report'
}

@test "a directory in place of the report file is a read error, not a crash" {
	mkdir -p "$BATS_TEST_TMPDIR/dir/vtune_hotspots_pass0.tsv"
	run bash -c "replay d vtune '$BATS_TEST_TMPDIR/dir' | kf-read 2>/dev/null | jq -r .error.kind"
	assert_output read_error
}

@test "kf-collate passes the one vtune pass's data through as collated" {
	run bash -c "replay l vtune '$V/sycl-latency' vtune.000 | kf-read | kf-collate | jq -c '[.collated.pass, .collated.kernels[0].name, .collated.kernels[0].metrics.total_time_s, .passes[0].status]'"
	assert_output '["vtune.000","embedding_gather<float, 128>",0.186432,"ok"]'
}

@test "a quoted name keeps its delimiter and \"\" quote; an unbalanced quote is kept as text" {
	{
		printf 'Computing Task\tComputing Task:Total Time\n'
		printf '"a\tb ""x"""\t0.5\n'
		printf '"open\t0.25\n'
	} | mk quote
	run bash -c "rd quote | jq -c '[.data.kernels[] | [.name, .metrics.total_time_s]]'"
	assert_output '[["a\tb \"x\"",0.5],["\"open",0.25]]'
}

@test "rows read although the report command failed: data marked incomplete, with kf-vtune's line" {
	{ echo "$HDR"; row k 0.5 0.005 100 16; } | mk part
	err=$'kf-vtune: report failed: vtune -report hotspots exited with status 1; x is incomplete\n'
	run bash -c "jq -cn --arg d '$BATS_TEST_TMPDIR/part' --arg e \"\$1\" '{id:\"p\",profiler:\"vtune\",output_dir:\$d,run:{exit_code:1,ended_by:\"exit\",stderr:\$e}}' | kf-read | jq -c '[.error, .data.incomplete, .data.warning, .data.kernels[0].name]'" _ "$err"
	assert_success
	assert_output '[null,true,"report failed: vtune -report hotspots exited with status 1; x is incomplete","k"]'
	run bash -c "jq -cn --arg d '$BATS_TEST_TMPDIR/part' --arg e \"\$1\" '{id:\"p\",profiler:\"vtune\",output_dir:\$d,run:{exit_code:1,ended_by:\"exit\",stderr:\$e}}' | kf-read | kf-collate | kf-feedback --text" _ "$err"
	assert_output --partial "Note: VTune's report command failed (report failed: vtune -report hotspots exited with status 1; x is incomplete), so the report below may be incomplete."
}

@test "a header without rows after a failed report command is report_failed" {
	echo "$HDR" | mk hdronly
	err=$'kf-vtune: report failed: vtune -report hotspots exited with status 1; x is incomplete\n'
	run bash -c "jq -cn --arg d '$BATS_TEST_TMPDIR/hdronly' --arg e \"\$1\" '{id:\"h\",profiler:\"vtune\",output_dir:\$d,run:{exit_code:1,ended_by:\"exit\",stderr:\$e}}' | kf-read 2>/dev/null | jq -r .error.kind" _ "$err"
	assert_output report_failed
}
