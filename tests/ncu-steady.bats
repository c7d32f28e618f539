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
