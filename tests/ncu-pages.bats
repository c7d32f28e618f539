#!/usr/bin/env bats
# ncu's raw and source pages beside the details page: kf-read attaches the
# roofline's inputs and the hottest source lines to each launch, kf-feedback
# turns them into analysis.focus.roof and analysis.focus.source_lines.
# Real H200 captures (tests/fixtures/ncu-h200-pages, README there).

load helper

PAGES="$FIX/ncu-h200-pages"

# pages NAME FIXTURE [FILE...]: a copy of the fixture's files (all when none
# are named) in $BATS_TEST_TMPDIR/NAME, read into NAME.read.json and given
# feedback into NAME.json.
pages() {
	local name=$1 fix=$2 d="$BATS_TEST_TMPDIR/$1"
	shift 2
	mkdir -p "$d"
	if [ $# -eq 0 ]; then
		set -- ncu_report.csv ncu_raw.csv ncu_source.csv
	fi
	for f in "$@"; do cp "$PAGES/$fix/$f" "$d/"; done
	read_dir "$name"
}

read_dir() {
	replay "$1" ncu "$BATS_TEST_TMPDIR/$1" | kf-read 2>"$BATS_TEST_TMPDIR/$1.err" \
		>"$BATS_TEST_TMPDIR/$1.read.json"
	kf-collate <"$BATS_TEST_TMPDIR/$1.read.json" | kf-feedback >"$BATS_TEST_TMPDIR/$1.json"
}

k0() {
	jq -c ".data.kernels[0] | $2" "$BATS_TEST_TMPDIR/$1.read.json"
}

@test "kf-read: the raw page's roofline inputs in base units (Ghz, Kbyte/cycle, Gbyte/s, ms, thousands separators)" {
	pages sg sgemm_naive
	# sgemm_naive/ncu_raw.csv: "Ghz" 1.980618, "Kbyte/cycle" 1.504, "Gbyte/s"
	# 14.657209, "Ghz" 3.199488, "ms" 3.131008, "inst/cycle" 1385.176189 and
	# 16896, "Mbyte" 33.562880, pc samples "395,918".
	run k0 sg '.roofline_inputs | [."sm__cycles_elapsed.avg.per_second", ."dram__bytes.sum.peak_sustained", ."dram__bytes.sum.per_second", ."dram__cycles_elapsed.avg.per_second", ."gpu__time_duration.sum", ."smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed", ."sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained", ."dram__bytes_read.sum", ."smsp__pcsamp_sample_count"]'
	assert_output '[1980618000,1504,14657209000,3199488000,0.003131008,1385.176189,16896,33562880,395918]'
	run jq -c '.data | [.raw_page, .source_page, .notes]' "$BATS_TEST_TMPDIR/sg.read.json"
	assert_output '["ncu_raw.csv","ncu_source.csv",[]]'
}

@test "kf-read: the source page's hottest line of transpose_naive, its stall samples, excessive sectors and the STG behind them" {
	pages tr transpose_naive
	run k0 tr '.source | [.function, .files, .line_info, .samples, .l2_excessive_sectors, (.lines | length)]'
	assert_output '["transpose_naive_k(const float *, float *, int)",["/home/user/kf/examples/cuda/bench.cu"],true,126352,58720256,5]'
	# Lines by stall samples: 81 (the exit, 64,396), 80 (42,512), 77, 79, 75.
	run k0 tr '[.source.lines[] | [.line, .samples]]'
	assert_output '[[81,64396],[80,42512],[77,18640],[79,505],[75,299]]'
	run k0 tr '.source.lines[1] | [.text, .l2_excessive_sectors, .l2_sectors, .shared_excessive_wavefronts, .stalls.long_sb, .sass[0]]'
	assert_output '["out[(size_t)x * w + y] = in[(size_t)y * w + x];",58720256,75497472,null,41284,{"address":"0x7f316b7a0190","text":"STG.E desc[UR4][R4.64], R7","samples":41422,"l2_excessive_sectors":58720256,"stall":"long_sb"}]'
}

@test "kf-read: an output_dir with only ncu_report.csv reads as before, without roofline_inputs or source" {
	pages only transpose_naive ncu_report.csv
	run k0 only '[.name, has("roofline_inputs"), has("source")]'
	assert_output '["transpose_naive_k(const float *, float *, int)",false,false]'
	run jq -c '.data | [has("raw_page"), has("source_page"), .notes]' "$BATS_TEST_TMPDIR/only.read.json"
	assert_output '[false,false,[]]'
	run text only
	assert_output --partial $'Roofline (ncu\'s SOLFPRoofline rule):\nThe ratio of peak float (FP32) to double (FP64)'
	run an only '.focus | [has("roof"), has("source_lines")]'
	assert_output '[false,false]'
}

@test "kf-feedback: sgemm_naive's roof: FLOP/s from the counters, compute side of the DRAM ridge, L1-bound" {
	pages sg sgemm_naive
	# achieved: 2 x 1385.176189 FFMA/cycle x 1.980618e9 cycle/s = 5.4870e12 FLOP/s
	#   (= 2 x 2048^3 FLOP / 3.131008 ms); peak: 2 x 16896 x 1.980618e9 = 66929043456000;
	# DRAM: 14.657209 GB/s of 1504 B/cycle x 3.199488e9 = 4812029952000 B/s;
	# intensity 5.487e12 / 14.657209e9 = 374.4 > ridge 66.93e12 / 4.812e12 = 13.9.
	run an sg '.focus.roof | [.precision, (.achieved_flops | floor), .peak_flops, .dram_bytes_per_s, .peak_dram_bytes_per_s, (.arithmetic_intensity * 10 | round), (.ridge * 100 | round), .bound, (.pct_of_roof * 100 | round), .limiter, .limiter_pct, .tensor_pipe_pct]'
	assert_output '["fp32",5487009786209,66929043456000,14657209000,4812029952000,3744,1391,"memory",820,"l1",99.443494,0]'
	run an sg '[.focus.roof.levels[] | [.level, .throughput_pct]]'
	assert_output '[["L1",99.443494],["L2",19.10179],["DRAM",0.3045951323288854]]'
	run text sg
	assert_output --partial 'Roofline (fp32, from the raw page'"'"'s counters): 5.49 TFLOP/s achieved of 66.9 TFLOP/s peak (8.2%; peak: ncu'"'"'s peak for the precision at the measured SM clock); arithmetic intensity 374 FLOP/byte of DRAM traffic against a ridge of 13.9. DRAM moved 14.7 GB/s of 4.81 TB/s (0.3%).'
	# The L2 byte rate beside its own share of the L2 byte peak, not beside
	# lts__throughput (the busiest L2 sub-unit).
	assert_output --partial 'L2 throughput 19.1% of peak (its busiest sub-unit); L2 bytes 1.32 TB/s of 15.4 TB/s (8.6%)'
	assert_output --partial 'Verdict: memory-bound on L1/TEX, at 99.4% of its peak.'
	# at its roof: its headroom, 100 - 99.44, is what it gains at the same traffic
	assert_output --partial "1. Memory-bound on L1/TEX: 99.4% of its peak; at its roof: only fewer bytes gain more than its headroom (about 0.6% of the program's GPU time at stake). Fix: "
	run an sg '.diagnosis[0] | [.impact_pct, (.evidence[] | select(.metric | startswith("kernel_impact_pct")) | .metric)]'
	assert_output "[0.6,\"kernel_impact_pct: 100 - l1tex__throughput.avg.pct_of_peak_sustained_active (headroom to the unit's roof)\"]"
	refute_output --partial "Roofline (ncu's SOLFPRoofline rule):"
	refute_output --partial 'achieved 0% of'
}

@test "kf-feedback: transpose_naive's roof: no FLOPs, memory side, L2 the limit" {
	pages tr transpose_naive
	# DRAM: 567.825521 Gbyte/s of 1504 x 3.199301e9 = 4811748704000 B/s = 11.8 %.
	run an tr '.focus.roof | [.achieved_flops, .arithmetic_intensity, .bound, .dram_bytes_per_s, .peak_dram_bytes_per_s, (.pct_of_roof * 10 | round), .limiter, .limiter_pct]'
	assert_output '[0,0,"memory",567825521000,4811748704000,118,"l2",85.378942]'
	run text tr
	assert_output --partial 'no floating-point arithmetic was counted (0 FLOP/s)'
	assert_output --partial 'DRAM moved 568 GB/s of 4.81 TB/s (11.8%). L2 throughput 85.4% of peak'
}

@test "kf-feedback: transpose_naive's source lines: the store line with all excessive sectors, its share of stall samples" {
	pages tr transpose_naive
	# Line 80: 42,512 of 126,352 samples = 33.6 %; line 81 (the exit, stall_drain): 64,396 = 51.0 %.
	run an tr '[.focus.line_info, (.focus.source_lines | length)] + [.focus.source_lines[1] | .line, (.stall_pct * 10 | round), .l2_excessive_sectors, .stalls[0].reason, .sass[0].text]'
	assert_output '[true,5,80,336,58720256,"long_sb","STG.E desc[UR4][R4.64], R7"]'
	run text tr
	assert_line '  1. bench.cu:81 `}`: 51.0% of stall samples; 100% of them drain (waiting at exit for the stores (or atomics) before it to drain: their cost, not this line'"'"'s); hottest instruction `BRA 0x7f316b7a01b0` (51.0%).'
	assert_line '  2. bench.cu:80 `out[(size_t)x * w + y] = in[(size_t)y * w + x];`: 33.6% of stall samples; 97% of them long_sb (waiting for global or local memory data (L1TEX)); all 58.7 M excessive L2 sectors, 78% of the line'"'"'s sectors: uncoalesced stores; hottest instruction `STG.E desc[UR4][R4.64], R7` (32.8%).'
	# Line 75 has 0.2 % of the samples and no excessive sectors: not in the text.
	refute_output --partial 'bench.cu:75'
}

@test "kf-feedback: sgemm_naive's hot line is the inner product, 98.8% of the stall samples" {
	pages sg sgemm_naive
	# Line 51: 391,119 of 395,918 samples = 98.79 %.
	run an sg '.focus.source_lines[0] | [.line, .text, (.stall_pct * 100 | round), .stalls[0].reason, .stalls[1].reason]'
	assert_output '[51,"s += A[(size_t)r * n + k] * B[(size_t)k * n + c];",9879,"long_sb","lg"]'
}

@test "kf-feedback: --max-chars keeps the roof and the hottest lines before rankings and details" {
	pages tr transpose_naive
	# 2600: the diagnosis (two findings), the kernel, its throughputs, the
	# bottleneck, the roof and the hottest lines take 2531
	kf-collate <"$BATS_TEST_TMPDIR/tr.read.json" | kf-feedback --max-chars 2600 >"$BATS_TEST_TMPDIR/short.json"
	run jq -r .feedback "$BATS_TEST_TMPDIR/short.json"
	assert_output --partial 'Roofline (fp32'
	assert_output --partial 'Hottest source lines (share of the kernel'
	assert_output --partial "1. Uncoalesced global access: 75497472 L2 sectors where 16777216 would do (4.5x, memory_l2_theoretical_sectors_global) (/home/user/kf/examples/cuda/bench.cu:80; about 66% of the program's GPU time at stake)"
	refute_output --partial 'More source lines'
	refute_output --partial 'Launch configuration'
	refute_output --partial 'UncoalescedGlobalAccess'
	[ "$(jq -r '.feedback | length' "$BATS_TEST_TMPDIR/short.json")" -le 2600 ]
}

@test "kf-read: two launches, their raw rows and source blocks matched in order" {
	local d="$BATS_TEST_TMPDIR/two"
	mkdir -p "$d"
	# The two fixtures as one program's pages: launch 1 is sgemm_naive.
	{ cat "$PAGES/transpose_naive/ncu_report.csv"
	  tail -n +2 "$PAGES/sgemm_naive/ncu_report.csv" | sed 's/^"0"/"1"/'; } >"$d/ncu_report.csv"
	{ cat "$PAGES/transpose_naive/ncu_raw.csv"
	  tail -n 1 "$PAGES/sgemm_naive/ncu_raw.csv" | sed 's/^"0"/"1"/'; } >"$d/ncu_raw.csv"
	cat "$PAGES/transpose_naive/ncu_source.csv" "$PAGES/sgemm_naive/ncu_source.csv" >"$d/ncu_source.csv"
	read_dir two
	run jq -c '[.data.kernels[] | [.id, .roofline_inputs."smsp__pcsamp_sample_count", .source.samples, .source.lines[0].line]]' "$BATS_TEST_TMPDIR/two.read.json"
	assert_output '[[0,126352,126352,81],[1,395918,395918,51]]'
}

@test "reduce_atomic: atomicAdd's header code is a second file of the same launch; samples counted once" {
	pages ra reduce_atomic
	# The page has a block for sm_20_atomic_functions.hpp (line 84, 298,946
	# samples, also counted on bench.cu:120 that calls it: 299,239 there) and
	# one for bench.cu (465,994 samples in all = the raw page's
	# smsp__pcsamp_sample_count).
	run k0 ra '.source | [(.files | map(split("/") | last)), (.main_file | split("/") | last), .samples] + [.lines[0:2][] | [(.file | split("/") | last), .line, .samples]]'
	assert_output '[["sm_20_atomic_functions.hpp","bench.cu"],"bench.cu",465994,["bench.cu",120,299239],["sm_20_atomic_functions.hpp",84,298946]]'
	run k0 ra '.roofline_inputs.smsp__pcsamp_sample_count'
	assert_output '465994'
	# 299,239 / 465,994 = 64.2 %; 298,946 / 465,994 = 64.2 %
	run text ra
	assert_line --partial '  1. bench.cu:120 `atomicAdd(&acc[i & 7], x[i]);`: 64.2% of stall samples; 100% of them long_sb'
	# The header line is counted once, at its call site: the shares never
	# add past 100%.
	refute_output --partial '. sm_20_atomic_functions.hpp:84'
	assert_output --partial '(Header code inlined into the kernel is counted at the line that calls it.)'
	# Nothing above 1.23 % of peak (L2, lts__throughput): latency-bound.
	run an ra '.focus.roof | [.limiter, .limiter_pct, .latency_bound]'
	assert_output '["l2",1.227367,true]'
	run text ra
	assert_output --partial 'Verdict: no unit runs near its peak (the busiest is L2 at 1.2%, under 60%): the kernel is latency-bound'
	# The diagnosis and the roof agree: the atomic line (the drain at exit
	# is its cost too) in a latency-bound kernel.
	run an ra '[.focus.roof.bound, .diagnosis[0].kind, .diagnosis[0].line, .diagnosis[1].kind]'
	assert_output '["latency","atomic_contention",120,"latency_bound"]'
}

@test "multi: six launches of five kernels, raw rows and source blocks matched to each; softmax spans two files" {
	pages mu multi
	run jq -c '[.data.kernels[] | [.id, (.name | split("(") | first), .source.samples == .roofline_inputs.smsp__pcsamp_sample_count, (.source.files | length)]]' "$BATS_TEST_TMPDIR/mu.read.json"
	assert_output '[[0,"copy_k",true,1],[1,"copy_k",true,1],[2,"fma_k",true,1],[3,"sgemm_tiled_k",true,1],[4,"transpose_naive_k",true,1],[5,"softmax_k",true,2]]'
	# The focus is sgemm_tiled (2.38 ms): its inner product over the shared
	# tiles, 238,290 of 297,384 samples (80.1 %), no bank conflicts.
	run an mu '.focus.source_lines[0] | [.line, .text, (.stall_pct * 10 | round), .shared_excessive_wavefronts, .stalls[0].reason]'
	assert_output '[81,"s += As[threadIdx.y][k] * Bs[k][threadIdx.x];",801,0,"mio"]'
	run text mu
	assert_output --partial 'Verdict: memory-bound on shared memory (its wavefronts), at 89.5% of its peak.'
	run an mu '[.diagnosis[].kind]'
	refute_output --partial 'shared_bank_conflict'
}

@test "resnet18 (cuDNN, no -lineinfo): ncu's warnings become launches without lines; the hint to build with -lineinfo" {
	pages rn resnet18-head
	run jq -c '[.data.kernels[] | [.id, .source.line_info, .source.no_table, (.source.lines | length)]], .data.notes' "$BATS_TEST_TMPDIR/rn.read.json"
	assert_output $'[[0,false,true,0],[1,false,true,0],[2,false,true,0],[3,false,true,0]]\n[]'
	run text rn
	assert_output --partial 'Source lines: the source page has no line information for this kernel (code built without -lineinfo, as cuBLAS and cuDNN are).'
	assert_output --partial 'If you own this code, build it with nvcc -lineinfo'
	# The tf32 implicit GEMM: tensor pipe 32.9 % of cycles, more than any
	# memory level; FFMA-counted FLOPs miss its tensor-core work.
	run an rn '.focus.roof | [.tensor_pipe_pct, .limiter, .latency_bound]'
	assert_output '[32.899576,"tensor",true]'
	run text rn
	assert_output --partial 'The tensor pipe was active 32.9% of cycles, but the report has no counts of tensor-core operations (kf'"'"'s --metrics were not collected): their FLOPs are not in the numbers above.'
	assert_output --partial '(the busiest is the tensor pipe at 32.9%, under 60%)'
	run an rn '.focus | [.line_info, .source_lines]'
	assert_output '[false,[]]'
}

@test "kf-read: hostile raw and source pages: cut, NUL bytes, a huge line, garbage; the launch still flows" {
	local d="$BATS_TEST_TMPDIR/bad"
	mkdir -p "$d"
	cp "$PAGES/transpose_naive/ncu_report.csv" "$d/"
	# Cut inside the launch's row (the header and units rows are whole).
	head -c 72000 "$PAGES/transpose_naive/ncu_raw.csv" >"$d/ncu_raw.csv"
	{ head -n 10 "$PAGES/transpose_naive/ncu_source.csv"
	  printf '"77","\0\0x",\n'
	  head -c 300000 /dev/zero | tr '\0' 'a'; printf '\n"unterminated\n'; } >"$d/ncu_source.csv"
	read_dir bad
	run jq -c '[.data.kernel_count, (.data.kernels[0] | has("roofline_inputs")), .data.kernels[0].source.lines[0].line, (.data.notes | length > 0), has("error")]' "$BATS_TEST_TMPDIR/bad.read.json"
	assert_output '[1,false,77,true,false]'
	run jq -r '.data.notes[]' "$BATS_TEST_TMPDIR/bad.read.json"
	assert_output --partial 'ncu_raw.csv: 1 row skipped (cut off, or not a launch'"'"'s)'
	assert_output --partial 'ncu_raw.csv has no row for the details page'"'"'s launches: no roofline'
	run an bad '.status'
	assert_output '"ok"'
}

@test "kf-read: a raw page for other launches, and a source page of another kernel: notes, no attachments" {
	local d="$BATS_TEST_TMPDIR/other"
	mkdir -p "$d"
	cp "$PAGES/transpose_naive/ncu_report.csv" "$d/"
	sed '3s/^"0"/"7"/' "$PAGES/transpose_naive/ncu_raw.csv" >"$d/ncu_raw.csv"
	cp "$PAGES/sgemm_naive/ncu_source.csv" "$d/"
	read_dir other
	run jq -c '[(.data.kernels[0] | has("roofline_inputs"), has("source")), .data.notes]' "$BATS_TEST_TMPDIR/other.read.json"
	assert_output '[false,false,["ncu_raw.csv has no row for the details page'"'"'s launches: no roofline","ncu_source.csv has no block for the details page'"'"'s launches: no source lines"]]'
}

@test "kf-read: a directory name with spaces and quotes" {
	local d="$BATS_TEST_TMPDIR/a \"b\" 'c'"
	mkdir -p "$d"
	cp "$PAGES/transpose_naive/"ncu_*.csv "$d/"
	replay sp ncu "$d" | kf-read >"$BATS_TEST_TMPDIR/sp.json"
	run jq -c '.data.kernels[0] | [.source.samples, ."roofline_inputs"."smsp__pcsamp_sample_count"]' "$BATS_TEST_TMPDIR/sp.json"
	assert_output '[126352,126352]'
}

@test "kf-read: pages exported for some launches only (kf-wrap --top): the others go without, in order" {
	local d="$BATS_TEST_TMPDIR/top"
	mkdir -p "$d"
	cp "$PAGES/multi/ncu_report.csv" "$d/"
	# The raw page's header, units and row of ID 3; the source page's block
	# of sgemm_tiled (launch 3) only.
	sed -n '1,2p; /^"3",/p' "$PAGES/multi/ncu_raw.csv" >"$d/ncu_raw.csv"
	awk '/^"File Path"/ { f = "" } /^"Function Name","sgemm_tiled_k/ { keep = 1 }
	     /^"Function Name"/ && !/sgemm_tiled_k/ { keep = 0 }
	     /^"File Path"/ { held = $0; next } keep && held { print held; held = "" } keep' \
		"$PAGES/multi/ncu_source.csv" >"$d/ncu_source.csv"
	read_dir top
	run jq -c '[.data.kernels[] | [.id, has("roofline_inputs"), .source.samples]], .data.notes' "$BATS_TEST_TMPDIR/top.read.json"
	assert_output $'[[0,false,null],[1,false,null],[2,false,null],[3,true,297384],[4,false,null],[5,false,null]]\n[]'
	run an top '.focus | [.name, .source_lines[0].line, .roof.limiter]'
	assert_output '["sgemm_tiled_k(const float *, const float *, float *, int)",81,"shared"]'
}

@test "kf-read: launch statistics named as metrics (--metrics rows) read as the sections' own" {
	d="$BATS_TEST_TMPDIR/bynames"
	mkdir -p "$d"
	# the details page with its Waves Per SM and Registers Per Thread rows
	# asked for by name instead, as ncu writes a --metrics metric
	f="$PAGES/transpose_naive/ncu_report.csv"
	{
		grep -v '"Launch Statistics","\(Waves Per SM\|Registers Per Thread\)"' "$f"
		grep '"Launch Statistics","Waves Per SM"' "$f" |
			sed 's/"Launch Statistics","Waves Per SM","[^"]*"/"Command line profiler metrics","launch__waves_per_multiprocessor",""/'
		grep '"Launch Statistics","Registers Per Thread"' "$f" |
			sed 's/"Launch Statistics","Registers Per Thread","[^"]*"/"Command line profiler metrics","launch__registers_per_thread","register\/thread"/'
	} >"$d/ncu_report.csv"
	[ "$(grep -c '"Waves Per SM"\|"Registers Per Thread"' "$d/ncu_report.csv")" -eq 0 ]
	[ "$(grep -c '"launch__waves_per_multiprocessor","","248.24"' "$d/ncu_report.csv")" -eq 1 ]
	read_dir bynames
	run jq -c '.analysis.focus.launch | [.waves_per_sm, .registers_per_thread]' "$BATS_TEST_TMPDIR/bynames.json"
	assert_output '[248.24,16]'
}
