#!/usr/bin/env bats
# --top chooses what the detailed run will repeat: the timing run ranked
# from its steady state (lib/ncu/ncu_steady.c): inside the program's own
# profiler range (kf's tracer's "P" lines), after the last autotuning
# timed between cache flushes; a spare, the next kernel by time, detailed
# in the same run when a chosen one does not run; kf-ncu's account of
# where its time went (ncu_timings.json, data.timings).

load helper

H200="$FIX/ncu-h200"
FAKE="$TOP/tests/fake/ncu"
SGEMM='sgemm_naive_k(const float *, const float *, float *, int)'
COPY='copy_k(const float4 *, float4 *, unsigned long)'
FMA='fma_k(float *, int)'

setup() {
	T=$BATS_TEST_TMPDIR
	export FAKE_NCU_ARGV="$T/ncu-argv"
	cd "$T" || exit 1
}

# kline NAME START DUR GRID CORR: a trace's K line (device 0, context 1,
# stream 7, block 128).
kline() {
	printf 'K\t%s\t%s\t%s\t0\t1\t7\t%s\t1\t1\t128\t1\t1\t32\t0\t0\t0\t0\t%s\n' "$@"
}

# A traced program of one process: a() five times, its profiler range
# started, b() three times and c() twice, the range stopped, a() twice
# more; times in ns.
ranged_trace() {
	mkdir -p "$1"
	{
		printf '#kftrace\t1\tpid=100\tppid=1\tcupti=130001\tcupti_lib=x\tt0=1000\tmax_bytes=1\tcmd=prog\n'
		printf 'N\t1\t_Z1av\ta()\nN\t2\t_Z1bv\tb()\nN\t3\t_Z1cv\tc()\n'
		for i in 1 2 3 4 5; do kline 1 "$((i * 1000))" 100000 64 "$i"; done
		printf 'P\tstart\t10\t9000\n'
		for i in 1 2 3; do kline 2 "$((10000 + i * 1000))" 20000 64 "$((10 + i))"; done
		for i in 1 2; do kline 3 "$((20000 + i * 1000))" 10000 64 "$((14 + i))"; done
		printf 'P\tstop\t20\t30000\n'
		for i in 1 2; do kline 1 "$((40000 + i * 1000))" 100000 64 "$((20 + i))"; done
		printf 'E\t50000\tend=exit\tsignal=0\tkernels=12\n'
	} >"$1/trace.100.kft"
}

@test "kf trace: a program's profiler range (P lines) is read; --select ranks inside it, the launches outside set aside as one entry" {
	ranged_trace "$T/r/trace"
	run kf-read --profiler trace --select 1 --write "$T/r/trace"
	assert_success
	assert_line '::regex:^(_Z1bv|_Z1cv)$:1'
	# a(): 7 launches of 100 us outside the range, ranked as one entry
	run jq -c '[.launches, .steady_state, .set_aside, [.kernels[] | [.key, .launches, .total_ns]]]' "$T/r/ncu_ranking.json"
	assert_output '[12,"profiler_range",[{"name":"Outside the profiler range: launches before cudaProfilerStart or after cudaProfilerStop","launches":7,"total_ns":700000,"kernel_count":1}],[["Outside the profiler range: launches before cudaProfilerStart or after cudaProfilerStop",7,700000],["_Z1bv",3,60000],["_Z1cv",2,20000]]]'
	# the column the tracer's timing CSV gains, a launch's place
	run awk -F'","' 'NR == 2 { print $NF } /_Z1/ { print $5, $NF }' "$T/r/ncu_timing_mangled.csv"
	assert_output "$(printf '%s\n' 'KF Profiler Range"' '_Z1av out"' '_Z1av out"' '_Z1av out"' '_Z1av out"' '_Z1av out"' \
		'_Z1bv in"' '_Z1bv in"' '_Z1bv in"' '_Z1cv in"' '_Z1cv in"' '_Z1av out"' '_Z1av out"')"
	# and kf-read's record of the trace still has every launch
	run bash -c 'replay t trace "$1" | kf-read | jq -c "[.data.kernel_count // .data.launches, has(\"error\")]"' _ "$T/r/trace"
	assert_success
	refute_output --partial true
}

# bench_csv [GRIDS]: a timing CSV (ncu --metrics gpu__time_duration.sum)
# of one process: init_k, then an autotuner's timed runs between cache
# flushes (a 256 MB fill, grid 131072): mm in the configs of GRIDS ("16 32
# 64"), four runs each, then mm in the last config five more (do_bench of
# the winner), then the steady state: mm in that config ten times and
# add_k ten times. Times in us.
bench_csv() {
	local id=0 pid=7 c i
	row() {	# NAME GRID US
		printf '"%d","%d","p","h","%s","1","7","(128, 1, 1)","(%s, 1, 1)","0","9.0","Command line profiler metrics","gpu__time_duration.sum","us","%s"\n' \
			"$id" "$pid" "$1" "$2" "$3"
		id=$((id + 1))
	}
	echo '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"'
	row 'init_k()' 64 5
	for c in ${1:-16 32 64}; do
		for i in 1 2 3 4; do
			row 'void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<int>, std::array<char*, 1ul> >(int, at::native::FillFunctor<int>, std::array<char*, 1ul>)' 131072 60
			row 'mm_kernel' "$c" 30
		done
	done
	for i in 1 2 3 4 5; do
		row 'void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<int>, std::array<char*, 1ul> >(int, at::native::FillFunctor<int>, std::array<char*, 1ul>)' 131072 60
		row 'mm_kernel' 64 20
	done
	for i in 1 2 3 4 5 6 7 8 9 10; do
		row 'mm_kernel' 64 20
		row 'add_k' 8 2
	done
}

@test "--select: an autotuner's timed runs between cache flushes (Triton's do_bench) before the steady state: set aside to the last change of candidate, the flushes apart" {
	bench_csv >"$T/ncu_timing.csv"
	run kf-read --profiler ncu --select 1 --write "$T/ncu_timing.csv"
	assert_success
	# mm_kernel, and add_k a spare
	assert_line '::regex:^(mm_kernel|add_k)$:1'
	# config 2's runs (4 tried, 5 timed by do_bench) begin the steady state:
	# before them init_k and 8 runs of configs 0 and 1 (9 launches, 245 us);
	# the 17 fills (1020 us) apart; mm: 4 x 30 + 5 x 20 + 10 x 20 us
	run jq -c '[.launches, .steady_state, [.set_aside[] | [.name[0:14], .launches, .total_ns, .kernel_count]], [.kernels[] | [.name[0:14], .launches, .total_ns, .first_id]]]' "$T/ncu_ranking.json"
	assert_output '[55,"autotuning",[["Autotuning: th",9,245000,2],["Cache flushes:",17,1020000,1]],[["Cache flushes:",17,1020000,"1"],["mm_kernel",19,420000,"18"],["Autotuning: th",9,245000,"0"],["add_k",10,20000,"36"]]]'
	# both set aside from the steady state: the feedback names what they
	# are, and ranks neither
	mkdir -p "$T/d"
	cp "$T/ncu_timing.csv" "$T/d/"
	cp "$H200/detailed-copy.csv" "$T/d/ncu_report.csv"
	replay d ncu "$T/d" | kf-read | kf-collate | kf-feedback >"$T/d.json"
	run jq -r .feedback "$T/d.json"
	assert_line --partial 'one of them "Autotuning: the launches before the steady state": 9 launches of 2 kernels up to the last change of candidate among timed runs between cache flushes, an autotuner'"'"'s, one of them "Cache flushes: fills of a scratch buffer between timed runs": 17 launches of 1 kernel'
	# the ranking, its shares and the findings' stakes are of the steady
	# state's 29 launches: mm_kernel 4 x 30 + 15 x 20 us, add_k 10 x 2 us
	refute_output --partial 'Set aside as framework machinery'
	assert_line --partial '17 launches of 1 kernel; the ranking below and every share, the findings'"'"' included, are of the other 29 launches, its steady state (440.0 µs))'
	run jq -c '[.analysis.ranking.total_ns, [.analysis.ranking.kernels[] | [.short_name, .launches, .share_pct]], .analysis.ranking.machinery]' "$T/d.json"
	assert_output '[440000,[["mm_kernel",19,95.45454545454545],["add_k",10,4.545454545454546]],null]'
}

@test "--select: a benchmark that times one candidate between flushes, never another, has no autotuning: every launch of it is the steady state" {
	bench_csv 64 >"$T/ncu_timing.csv"
	run kf-read --profiler ncu --select 1 --write "$T/ncu_timing.csv"
	assert_success
	run jq -c '[.steady_state, [.set_aside[]?.name[0:14]]]' "$T/ncu_ranking.json"
	assert_output '["all",["Cache flushes:"]]'
	run jq -c '[.kernels[] | [.name[0:14], .launches]]' "$T/ncu_ranking.json"
	assert_output '[["Cache flushes:",9],["mm_kernel",19],["add_k",10],["init_k()",1]]'
}

# trials_trace DIR [CANDIDATES] [STEADY_SYNC]: a traced program of one
# process (times in ns from t0) with kf's tracer's synchronisations: a()
# twice, then an autotuner's timed runs, each block of launches followed by
# the host's wait (cudaDeviceSynchronize, "Y 4", after a warm-up;
# cudaEventSynchronize, "Y 1", after the timed run), as cuDNN's benchmark
# mode runs them: t() and a candidate, for each of CANDIDATES ("x y z"),
# twice; the first warm-up follows a() with no wait between. Then the
# steady state, no wait: t(), y() (the winner), b(), c(), a(), three
# times, each y() followed by a synchronisation of STEADY_SYNC's type
# where set (2: a stream's wait for an event, no host's wait); a
# cudaDeviceSynchronize at the end. Durations (us): a 10, t 5, x 300, y 50,
# z 400, b 80, c 20.
trials_trace() {
	local clock=1000 corr=0 c i
	declare -A id=([a]=1 [t]=2 [x]=3 [y]=4 [z]=5 [b]=6 [c]=7) us=([a]=10 [t]=5 [x]=300 [y]=50 [z]=400 [b]=80 [c]=20)
	k() {	# NAME
		corr=$((corr + 1))
		kline "${id[$1]}" "$clock" "$((us[$1] * 1000))" 64 "$corr"
		clock=$((clock + us[$1] * 1000 + 1000))
	}
	y() {	# TYPE: a synchronisation that ends 100 ns after the last launch's end
		printf 'Y\t%s\t%s\t%s\t1\t7\n' "$1" "$((clock - 5000))" 4100
		clock=$((clock + 2000))
	}
	mkdir -p "$1"
	{
		printf '#kftrace\t1\tpid=100\tppid=1\tcupti=130001\tcupti_lib=x\tt0=1000\tmax_bytes=1\tcmd=prog\n'
		for c in a t x y z b c; do printf 'N\t%s\t_Z1%sv\t%s()\n' "${id[$c]}" "$c" "$c"; done
		k a; k a
		for c in ${2:-x y z}; do
			k t; k "$c"; y 4
			k t; k "$c"; y 1
		done
		for i in 1 2 3; do
			k t; k y
			[ -z "${3:-}" ] || y "$3"
			k b; k c; k a
		done
		y 4
		printf 'E\t%s\tend=exit\tsignal=0\tkernels=%s\n' "$clock" "$corr"
	} >"$1/trace.100.kft"
}

@test "kf trace, --select: an autotuner's candidates each run and waited for by the host (cuDNN's benchmark mode) set aside as timed trials, only those: the program's launches before and after them ranked" {
	trials_trace "$T/r/trace"
	run kf-read --profiler trace --select 2 --write "$T/r/trace"
	assert_success
	# b() and y() (c() a spare): z() and x() ran only as candidates
	assert_line '::regex:^(_Z1bv|_Z1yv|_Z1cv)$:1'
	# the 12 launches of the three candidates' runs (t 6 x 5, x 2 x 300,
	# y 2 x 50, z 2 x 400 us), the a() before the first warm-up kept
	run jq -c '[.launches, .steady_state, [.set_aside[] | [.name[0:13], .launches, .total_ns, .kernel_count]], [.kernels[] | [.name, .launches, .total_ns]], .steady_ids]' "$T/r/ncu_ranking.json"
	assert_output '[29,"autotuning",[["Timed trials:",12,1530000,4]],[["Timed trials: candidates run one by one, each waited for by the host",12,1530000],["b()",3,240000],["y()",3,150000],["c()",3,60000],["a()",5,50000],["t()",3,15000]],[14,28]]'
	# the column the tracer's timing CSV gains: each launch the host waited
	# for before the next (and the last, before the end)
	run awk -F'","' 'NR > 2 { print $5 substr($NF, 1, length($NF) - 1) }' "$T/r/ncu_timing.csv"
	assert_output "$(printf '%s\n' 'a()' 'a()' 't()' 'x()yes' 't()' 'x()yes' 't()' 'y()yes' 't()' 'y()yes' 't()' 'z()yes' 't()' 'z()yes' \
		't()' 'y()' 'b()' 'c()' 'a()' 't()' 'y()' 'b()' 'c()' 'a()' 't()' 'y()' 'b()' 'c()' 'a()yes')"
	# the feedback says what they were, and ranks the rest
	mkdir -p "$T/d"
	cp "$T/r/ncu_timing.csv" "$T/r/ncu_timing_mangled.csv" "$T/d/"
	cp "$H200/detailed-copy.csv" "$T/d/ncu_report.csv"
	replay d ncu "$T/d" | kf-read | kf-collate | kf-feedback >"$T/d.json"
	run jq -r .feedback "$T/d.json"
	assert_line --partial 'one of them "Timed trials: candidates run one by one, each waited for by the host": 12 launches of 4 kernels in runs of blocks of a few launches, each waited for by the host, their kernels changing from block to block: an autotuner'"'"'s candidates (cuDNN'"'"'s benchmark mode times each algorithm of a convolution so); the ranking below and every share, the findings'"'"' included, are of the other 17 launches, its steady state (515.0 µs))'
	assert_line 'Note: 74.8% of the timing run'"'"'s GPU time was an autotuner'"'"'s timed trials of candidates (set aside above: 12 launches), so the kernels ranked are the program'"'"'s own work beside them.'
	run jq -c '[.analysis.ranking.total_ns, [.analysis.ranking.kernels[] | [.short_name, .launches]]]' "$T/d.json"
	assert_output '[515000,[["b()",3],["y()",3],["c()",3],["a()",5],["t()",3]]]'
}

@test "kf trace, --select: timed runs that never change kernels (a benchmark's loop, PyTorch's TunableOp), and a stream's waits for events, are the program's own: nothing set aside" {
	trials_trace "$T/r/trace" "y y"
	run kf-read --profiler trace --select 1 --write "$T/r/trace"
	assert_success
	run jq -c '[.launches, .steady_state, .set_aside, [.kernels[] | [.name, .launches]]]' "$T/r/ncu_ranking.json"
	assert_output '[25,"all",null,[["y()",7],["b()",3],["c()",3],["a()",5],["t()",7]]]'
	trials_trace "$T/s/trace" "x y z" 2
	run kf-read --profiler trace --select 1 --write "$T/s/trace"
	assert_success
	run jq -c '[.launches, .steady_state, [.set_aside[].launches]]' "$T/s/ncu_ranking.json"
	assert_output '[29,"autotuning",[12]]'
}

@test "kf trace, --select on real timing runs (H100): ResNet-18 under cudnn.benchmark ranks the kernels PyTorch's profiler saw after the first step, its candidates set aside; TunableOp's candidates, one kernel in one configuration, stay" {
	TR="$FIX/ncu-h100-top/trials"
	for n in cudnn4 cudnn1 tunableop; do
		mkdir -p "$T/$n/trace"
		gzip -dc "$TR/$n.kft.gz" >"$T/$n/trace/trace.1.kft"
		kf-read --profiler trace --select 3 --write "$T/$n/trace" >/dev/null
	done
	# 4 steps: 2,625 launches of 97 kernels in the candidates' runs, 75.9%
	# of the GPU time; ranked without them, 55 kernels, as many as PyTorch's
	# profiler saw in steps 2-4 (oracle.txt: "rest: 55 kernels"), and the
	# three chosen its first three (the NCHW to NHWC conversion 10.1%, the
	# two batch-norm backward kernels 8.5% and 8.1%; here 10.0, 8.9, 8.6%)
	run jq -c '[.launches, .steady_state, [.set_aside[] | [.launches, .total_ns, .kernel_count]], .total_ns, .steady_ids,
		([.kernels[] | select(.name | startswith("Timed trials:") | not)] | length),
		[.kernels[1:4][] | [.name[0:40], .launches, .total_ns]]]' "$T/cudnn4/ncu_ranking.json"
	assert_output '[4048,"autotuning",[[2625,89730497,97]],118173103,[2899,4047],55,[["void cudnn::engines_precompiled::nchwToN",340,2849844],["void cudnn::bn_bw_1C11_kernel_new<float,",16,2540109],["void cudnn::bn_bw_1C11_kernel_new<float,",4,2452556]]]'
	run jq -r '.chosen_keys[]' "$T/cudnn4/ncu_top.json"
	assert_output "$(printf '%s\n' _ZN5cudnn19engines_precompiled16nchwToNhwcKernelIfffLb0ELb1EL21cudnnKernelDataType_t0EEEvNS0_18nchw2nhwc_params_tIT1_EEPKT_PT0_ \
		_ZN5cudnn21bn_bw_1C11_kernel_newIff6float2Li128ELb1ELi1EEEvT0_S2_S2_S2_17cudnnTensorStructPKT_S3_S6_S3_PS4_PKS2_PS2_SA_S9_S9_S2_ \
		_ZN5cudnn21bn_bw_1C11_kernel_newIff6float2Li512ELb1ELi1EEEvT0_S2_S2_S2_17cudnnTensorStructPKT_S3_S6_S3_PS4_PKS2_PS2_SA_S9_S9_S2_)"
	# the spares: kernels whose first launch, in the steady state or in the
	# trials the detailed run runs again, follows the chosen ones' (the
	# conversion's at launch 74, a trial's; the batch norms' at 2592 and
	# 2830): only the optimizer's step, first at 2904. On the H100 the
	# forward batch norm and a convolution, first launched in the
	# detailed run's trials, took two chosen kernels' places
	run jq -c '[.kernels[1:4][] | [.first_id, .first_trial_id]]' "$T/cudnn4/ncu_ranking.json"
	assert_output '[["382","74"],["2592",null],["2830",null]]'
	run jq -r '.spares[] | .[0:50]' "$T/cudnn4/ncu_top.json"
	assert_output 'void at::native::(anonymous namespace)::multi_tens'
	# the candidates that ran only in the first step are none of those ranked
	run jq -r '.kernels[] | select(.name | startswith("wgrad2d_grouped") or startswith("void cudnn::cnn::wgrad2d_grouped")) | .name' "$T/cudnn4/ncu_ranking.json"
	assert_output ''
	# 1 step: the candidates 94.3% of its GPU time, the rest its own work
	run jq -c '[.launches, [.set_aside[] | [.launches, .total_ns]], .total_ns, [.kernels[1:4][] | [.name[0:40], .launches]]]' "$T/cudnn1/ncu_ranking.json"
	assert_output '[2901,[[2628,89576392]],94999984,[["void cudnn::bn_bw_1C11_kernel_new<float,",4],["void cudnn::bn_bw_1C11_kernel_new<float,",1],["void cudnn::engines_precompiled::nchwToN",57]]]'
	# XLA's autotuner times its candidates so too: inside its autotuning,
	# which is set aside whole as XLA's (the Flax CNN, H200)
	mkdir -p "$T/flax/trace"
	gzip -dc "$FIX/ncu-h200-top/programs/flax-held/trace/trace.2784.kft.gz" >"$T/flax/trace/trace.2784.kft"
	kf-read --profiler trace --select 3 --write "$T/flax/trace" >/dev/null
	run jq -c '[.steady_state, [.set_aside[] | [.name[0:14], .launches]], .steady_ids]' "$T/flax/ncu_ranking.json"
	assert_output '["xla_autotuning",[["XLA autotuning",5330]],[5330,5464]]'
	# TunableOp: nothing set aside, its candidates counted with the GEMMs
	run jq -c '[.steady_state, .set_aside, [.kernels[0:3][] | [.name, .launches]]]' "$T/tunableop/ncu_ranking.json"
	assert_output '["all",null,[["nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NTT",252],["nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_bias_TNT",252],["nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT",248]]]'
}

@test "kf trace's own record: an autotuner's timed trials and XLA's autotuning set aside from its kernels and chains, its window after the last of them; on ResNet-18 under cudnn.benchmark (H100) and the Flax CNN (H200) as --top ranks" {
	trials_trace "$T/r"
	replay t trace "$T/r" | kf-read >"$T/t.json"
	# the 12 launches of the candidates' runs apart; b, y, c, a, t of the
	# rest (3 x 80, 3 x 50, 3 x 20, 5 x 10, 3 x 5 us); the window from the
	# first launch after the last of them, the winner's t() (the 15 launches
	# of the steady state)
	run jq -c '.data | [.launches, .kernel_count, .total_ns, .set_aside, [.kernels[] | [.name, .launches]], .timeline.window.from, .timeline.window.launches, .timeline.launches]' "$T/t.json"
	assert_output '[29,5,515000,[{"name":"Timed trials: candidates run one by one, each waited for by the host","launches":12,"total_ns":1530000,"kernel_count":4}],[["b()",3],["y()",3],["c()",3],["a()",5],["t()",3]],"steady_state",15,29]'
	# the chains hold none of them: 17 launches, not 29
	run jq -c '.data.chains.launches' "$T/t.json"
	assert_output 17
	kf-collate <"$T/t.json" | kf-feedback --text >"$T/t.txt"
	run cat "$T/t.txt"
	assert_line --partial 'kf trace (CUPTI) timed every GPU activity of 1 process: 29 kernel launches (2.04 ms of GPU time); 12 of them (1.53 ms, 4 kernels) in runs of blocks of a few launches, each waited for by the host, their kernels changing from block to block: an autotuner'"'"'s candidates (cuDNN'"'"'s benchmark mode times each algorithm of a convolution so), set aside as "Timed trials: candidates run one by one, each waited for by the host"; the kernels below and every share are of the other 17 launches (515.0 µs in 5 kernels), and the traced window begins after the last of them.'
	assert_line 'Kernels by total GPU time (5 kernels, 17 launches, 515.0 µs in all):'
	# without them (the candidates never change): nothing set aside
	trials_trace "$T/s" "y y"
	replay s trace "$T/s" | kf-read | jq -e '.data | (has("set_aside") | not) and .timeline.window.from == "top_kernel"'
	# XLA's autotuning set aside as --top sets it aside: the Flax CNN's
	# (H200), its 5 steps' 135 launches ranked, the window theirs
	gzip -dc "$FIX/ncu-h200-top/programs/flax-held/trace/trace.2784.kft.gz" >"$T/r/trace.100.kft"
	replay fx trace "$T/r" | kf-read >"$T/fx.json"
	run jq -c '.data | [.launches, .kernel_count, [.set_aside[] | [.name, .launches, .kernel_count]], .timeline.window.from, .timeline.window.launches]' "$T/fx.json"
	assert_output '[5465,26,[["XLA autotuning: the launches before the steady state",5330,144]],"steady_state",135]'
	kf-collate <"$T/fx.json" | kf-feedback --text >"$T/fx.txt"
	run grep -c 'up to the last launch of XLA'"'"'s autotuner in their process, its timed runs of candidates among them, set aside as "XLA autotuning: the launches before the steady state"; the kernels below and every share are of the other 135 launches' "$T/fx.txt"
	assert_output 1
	# the recorded H100 trace: the ranking --top makes (the test above)
	mkdir -p "$T/rn"
	gzip -dc "$FIX/ncu-h100-top/trials/cudnn4.kft.gz" >"$T/rn/trace.1355.kft"
	replay rn trace "$T/rn" | kf-read >"$T/rn.json"
	run jq -c '.data | [.launches, .kernel_count, .total_ns, [.set_aside[] | [.launches, .total_ns, .kernel_count]], [.kernels[0:3][] | [.name[0:40], .launches, .total_ns]], .timeline.window.from, .timeline.window.launches]' "$T/rn.json"
	assert_output '[4048,55,28442606,[[2625,89730497,97]],[["void cudnn::engines_precompiled::nchwToN",340,2849844],["void cudnn::bn_bw_1C11_kernel_new<float,",16,2540109],["void cudnn::bn_bw_1C11_kernel_new<float,",4,2452556]],"steady_state",1149]'
}

# multi_reordered: bench multi's recorded details page with sgemm_naive_k
# first (ID 0), then copy_k, fma_k, copy_k: the order in which the
# program launched them.
multi_reordered() {
	awk -v want="$1" 'BEGIN { n = split(want, o, " "); for (i = 1; i <= n; i++) to[o[i]] = i - 1 }
		/^"ID"/ { if (!hdr++) print; next }
		/^"[0-9]/ { id = substr($0, 2, index($0, "\",") - 2); if (!(id in to)) next
			rows[to[id]] = rows[to[id]] "\"" to[id] substr($0, index($0, "\",")) "\n" }
		END { for (i = 0; i < n; i++) printf "%s", rows[i] }' "$H200/detailed-multi.csv"
}

@test "--top 2: a chosen kernel the detailed run does not run leaves its place to a spare, the next kernel by time that ran after the chosen ones, detailed in the same run; the text says so" {
	multi_reordered "2 0 1 3" >"$T/timing.csv"
	# the detailed run: copy_k does not run
	multi_reordered "2 1" >"$T/detail.csv"
	export FAKE_NCU_TIMING="$T/timing.csv" FAKE_NCU_CSV="$T/detail.csv"
	kf-wrap ncu --id sp -o "$T/o" --tool "$FAKE" --top 2 -- /bin/echo ran | kf-run -q -t 60 >"$T/sp.run"
	kf-read <"$T/sp.run" | kf-collate | kf-feedback >"$T/sp.json" || true
	D="$T/o/sp/ncu.000"
	# chosen: sgemm_naive_k (first launch ID 0), copy_k (ID 1); the spare,
	# fma_k, first launched (ID 2) after both; the count stays 2
	run jq -c '[.chosen, .spares, .launch_count]' "$D/ncu_top.json"
	assert_output "[[\"$SGEMM\",\"$COPY\"],[\"$FMA\"],2]"
	run jq -r '.filter[3]' "$D/ncu_top.json"
	assert_output '::regex:^(_Zfsgemm_naive_k_const_float____const_float____float____int_|_Zfcopy_k_const_float4____float4____unsigned_long_|_Zffma_k_float____int_)$:1'
	run jq -c '[.collated.kernel_count, [.collated.kernels[].name], .collated.timing.missing, .collated.timing.spares_detailed,
		[.collated.timing.kernels[] | select(.spare) | .name]]' "$T/sp.json"
	assert_output "[2,[\"$SGEMM\",\"$FMA\"],[\"$COPY\"],[\"$FMA\"],[\"$FMA\"]]"
	# ncu reached its count (2 launches): it ended the program
	run jq -c '.run.stdout | contains("Trying to shutdown")' "$T/sp.run"
	assert_output true
	run jq -r .feedback "$T/sp.json"
	assert_line --partial "these kernels chosen from the timing run did not run in the detailed run (random shapes, autotuning or caches can change which kernels run), so they have no details: $COPY. In their place the same run detailed the next kernels by GPU time that ran after them: $FMA."
	# all chosen ran: no spare is reached
	rm -f "$FAKE_NCU_ARGV"
	export FAKE_NCU_CSV="$T/timing.csv"
	kf-wrap ncu --id all -o "$T/o" --tool "$FAKE" --top 2 -- /bin/echo ran | kf-run -q -t 60 >"$T/all.run"
	kf-read <"$T/all.run" | kf-collate | kf-feedback >"$T/all.json" || true
	run jq -c '[[.collated.kernels[].name], .collated.timing.missing, .collated.timing.spares_detailed]' "$T/all.json"
	assert_output "[[\"$SGEMM\",\"$COPY\"],[],null]"
}

@test "kf-ncu's account of its time: ncu_timings.json, read into data.timings; ncu's replay passes counted from its own lines" {
	export FAKE_NCU_TIMING="$H200/detailed-multi.csv" FAKE_NCU_CSV="$H200/detailed-multi.csv"
	kf-wrap ncu --id tm -o "$T/o" --tool "$FAKE" --top 2 -- /bin/echo ran | kf-run -q -t 60 >"$T/tm.run"
	D="$T/o/tm/ncu.000"
	run jq -r 'keys | join(" ")' "$D/ncu_timings.json"
	assert_output 'after_last_profiled_s choose_s detailed_s export_details_s export_mangled_s export_raw_s export_source_s export_timing_s exports_s gpu_wait_s launches_profiled ncu_connect_s profiling_s replay_passes timing_run_s to_first_profiled_s total_s'
	run jq -c '[.launches_profiled, .replay_passes, ([.[] | numbers | . >= 0] | all)]' "$D/ncu_timings.json"
	assert_output '[2,30,true]'
	# the parts ncu's lines split its run into lie within it (each part is
	# rounded to the millisecond, and the gaps between them can be less)
	run jq -c '[.ncu_connect_s + .to_first_profiled_s + .profiling_s + .after_last_profiled_s <= .detailed_s + 0.01,
		.detailed_s + .exports_s + .timing_run_s <= .total_s + 0.01]' "$D/ncu_timings.json"
	assert_output '[true,true]'
	run bash -c 'kf-read <"$1" | jq -c "[.data.timings.launches_profiled, .data.timings.replay_passes]"' _ "$T/tm.run"
	assert_output '[2,30]'
	# a launch slow to start: ncu's warning cuts its line in two
	kf-wrap ncu --id sl -o "$T/o" --tool "$FAKE" --top 2 -- /bin/echo ran | FAKE_NCU_SLOW=1 kf-run -q -t 60 >"$T/sl.run"
	run jq -r .run.stdout "$T/sl.run"
	assert_line --regexp '^==PROF== Profiling ".*" - 0: 0%\.$'
	assert_line '...50%....100% - 15 passes'
	run jq -c '[.launches_profiled, .replay_passes]' "$T/o/sl/ncu.000/ncu_timings.json"
	assert_output '[2,30]'
	run jq -r 'has("replay_host_backups")' "$T/o/sl/ncu.000/ncu_timings.json"
	assert_output false
	# the GPU with no room for ncu's copy of the memory: its warning said
	# for each launch, counted and told
	kf-wrap ncu --id hb -o "$T/o" --tool "$FAKE" --top 2 -- /bin/echo ran | FAKE_NCU_SLOW=host kf-run -q -t 60 >"$T/hb.run"
	run jq -r .run.stdout "$T/hb.run"
	assert_line --regexp '^==PROF== Profiling ".*" - 1: 0%$'
	assert_line '....50%....100% - 15 passes'
	run jq -c '[.launches_profiled, .replay_passes, .replay_host_backups]' "$T/o/hb/ncu.000/ncu_timings.json"
	assert_output '[2,30,2]'
	run bash -c 'kf-read <"$1" | kf-collate | kf-feedback --timings' _ "$T/hb.run"
	assert_output --partial 'ncu said 2 times that it backed up device memory in system memory (replay_host_backups)'
}
