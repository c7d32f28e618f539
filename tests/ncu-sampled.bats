#!/usr/bin/env bats
# kf-wrap ncu --sampled-source: kf's collection without ncu's count of each
# instruction's executions (share/kf/ncu_source_sampled.section in place of
# SourceCounters and MemoryWorkloadAnalysis), recorded on an H100 beside
# kf's whole collection (tests/fixtures/ncu-h100-sampled): the same
# findings on the same lines but divergence, and ncu's uncoalesced-access
# estimates made by kf where the collection has no rule of SourceCounters.
load helper

SFIX="$FIX/ncu-h100-sampled"
FAKE="$TOP/tests/fake/ncu"

setup() {
	T=$BATS_TEST_TMPDIR
	cd "$T" || exit 1
}

# job MODE-NAME: a recorded job's pages through kf-read | kf-collate |
# kf-feedback, into $T/MODE-NAME.json (its pages in $T/MODE-NAME).
job() {
	replay_pages "$1" "$SFIX/$1"
}

diag() {
	jq -c '[.analysis.diagnosis[] | [.kind, .unit, .line, .impact_pct]]' "$T/$1.json"
}

@test "sampled source: kf-wrap collects kf's section in place of SourceCounters and MemoryWorkloadAnalysis, and tells kf-ncu" {
	run bash -c 'echo {} | kf-wrap ncu --id s -o "$1" --sampled-source -- ./prog' _ "$T/o"
	assert_success
	printf '%s\n' "$output" >"$T/s.json"
	run jq -r '.argv | [.[index("-+") + 1:index("--")][] | select(. != "--section")] | .[0:7] | join(" ")' "$T/s.json"
	assert_output 'SpeedOfLight SpeedOfLight_RooflineChart LaunchStats Occupancy ComputeWorkloadAnalysis WorkloadDistribution KfSourceSampled'
	run jq -c '.env' "$T/s.json"
	assert_output '{"KF_NCU_SAMPLED_SOURCE":"1"}'
	# without it, kf's sections as they are, and nothing for kf-ncu to do
	run bash -c 'echo {} | kf-wrap ncu --id f -o "$1" -- ./prog | jq -c "[(.argv | index(\"SourceCounters\") != null), .env]"' _ "$T/o"
	assert_output '[true,{}]'
	# a job that names its own sections keeps them: the two do not mix
	run bash -c 'echo {} | kf-wrap ncu --id x -o "$1" --sampled-source -a --section -a SpeedOfLight -- ./prog 2>/dev/null | jq -c "[.error.kind, .error.message]"' _ "$T/o"
	assert_output '["bad_option","--sampled-source changes kf'"'"'s own sections, and this job names its own (--set, --section or --section-folder)"]'
	# a report already made was collected as it was
	run bash -c 'echo {} | kf-wrap ncu --id i -o "$1" --sampled-source --import "$2" 2>/dev/null | jq -c "[.error.kind, .error.message]"' _ "$T/o" "$T/mine.ncu-rep"
	assert_output '["bad_option","--sampled-source chooses what a run of ncu collects, and --import reads a report already made"]'
}

@test "sampled source: kf-ncu has ncu restore its sections into the run's folder, puts kf's beside them and passes the folder to the detailed run" {
	export FAKE_NCU_ARGV="$T/argv" FAKE_NCU_CSV="$T/p/ncu_report.csv" FAKE_NCU_RAW="$T/p/ncu_raw.csv"
	export FAKE_NCU_SOURCE="$T/p/ncu_source.csv"
	mkdir -p "$T/p"
	for f in "$SFIX/sampled-strided"/*.csv.gz; do gzip -dc "$f" >"$T/p/$(basename "$f" .gz)"; done
	kf-wrap ncu --id st -o "$T/o" --tool "$FAKE" --sampled-source -- /bin/echo ran | kf-run -q -t 60 >"$T/st.run"
	d="$T/o/st/ncu.000"
	# ncu's own sections, as ncu wrote them, and kf's, byte for byte
	run ls "$d/ncu_sections"
	assert_line 'SpeedOfLight.section'
	assert_line 'KfSourceSampled.section'
	cmp "$d/ncu_sections/KfSourceSampled.section" "$TOP/share/kf/ncu_source_sampled.section"
	# the restore, then the detailed run with the folder before kf's sections
	run awk -v RS='===\n' 'NR <= 2 { gsub(/\n/, " "); print }' "$T/argv"
	assert_line --index 0 "--section-folder $d/ncu_sections --section-folder-restore "
	assert_line --index 1 --regexp "--section-folder $d/ncu_sections .*--section KfSourceSampled --metrics "
	run jq -r 'has("sections_s")' "$d/ncu_timings.json"
	assert_output true
	run bash -c 'kf-read <"$1" | kf-collate | kf-feedback --timings' _ "$T/st.run"
	assert_output --regexp "  ncu's own sections written beside kf's sampled source counters \(--sampled-source\) \(collated.timings.sections_s\)"
	# the record reads as any other: the uncoalesced loads first, on their line
	kf-read <"$T/st.run" | kf-collate | kf-feedback >"$T/st.json"
	run diag st
	assert_output '[["uncoalesced_global","l2",172,72.4],["memory_bound","dram",null,16.5]]'
}

@test "sampled source: ncu that cannot restore its sections is said, and no detailed run follows" {
	export FAKE_NCU_ARGV="$T/argv" FAKE_NCU_RESTORE=fail FAKE_NCU_CSV="$T/none.csv"
	kf-wrap ncu --id st -o "$T/o" --tool "$FAKE" --sampled-source -- /bin/echo ran | kf-run -q -t 60 >"$T/st.run"
	run jq -r '.run.stderr' "$T/st.run"
	assert_output --partial "kf-ncu: --sampled-source: $FAKE --section-folder $T/o/st/ncu.000/ncu_sections --section-folder-restore exited with status 1: the detailed run needs ncu's own sections in that folder beside kf's"
	run grep -c -x '===' "$T/argv"
	assert_output 1
	# kf-read names ncu's own words: whose failure it is
	run bash -c 'kf-read <"$1" 2>/dev/null | jq -r "[.error.kind, .error.message] | join(\": \")"' _ "$T/st.run"
	assert_output "profiler_error: no ncu_report.csv in $T/o/st/ncu.000: ncu reported: ==ERROR== fake ncu: cannot restore the stock section files to \"$T/o/st/ncu.000/ncu_sections\" (ncu exited with status 1)"
}

@test "sampled source: the H100's defects keep their findings, lines and stakes, but divergence, which is said not measured" {
	local j
	for j in full-strided sampled-strided full-bank sampled-bank full-diverge sampled-diverge; do job "$j"; done
	run diag full-strided
	assert_output '[["uncoalesced_global","l2",172,72.5],["memory_bound","dram",null,16.3]]'
	run diag sampled-strided
	assert_output '[["uncoalesced_global","l2",172,72.4],["memory_bound","dram",null,16.5]]'
	run diag full-bank
	assert_output '[["shared_bank_conflict","shared",140,95.2],["memory_bound","shared",null,1.6]]'
	run diag sampled-bank
	assert_output '[["shared_bank_conflict","shared",140,95.2],["memory_bound","shared",null,1.6]]'
	run diag full-diverge
	assert_output '[["branch_divergence",null,218,49.7],["compute_bound","xu",null,6.6]]'
	run diag sampled-diverge
	assert_output '[["compute_bound","xu",null,6.6]]'
	# the lines keep their samples; their execution counts are unknown, not 0
	replay sd ncu "$T/sampled-diverge" | kf-read >"$T/sd.read"
	run jq -c '.data.kernels[0].source | [.instructions_counted, (.lines[0] | [.line, .samples, .instructions_executed, .avg_threads_executed])]' "$T/sd.read"
	assert_output '[false,[218,32709,null,null]]'
	replay fd ncu "$T/full-diverge" | kf-read >"$T/fd.read"
	run jq -c '.data.kernels[0].source | [.instructions_counted, (.lines[0] | [.line, .instructions_executed, .avg_threads_executed])]' "$T/fd.read"
	assert_output '[true,[218,104988672,16]]'
	run jq -c '[.analysis.focus.instructions_counted, (.analysis.focus | has("instructions_counted"))]' "$T/sampled-diverge.json"
	assert_output '[false,true]'
	run jq -c '.analysis.focus | has("instructions_counted")' "$T/full-diverge.json"
	assert_output false
	run jq -r '.feedback' "$T/sampled-diverge.json"
	assert_output --partial "(ncu did not count each instruction's executions: the source page has no Instructions Executed, as under kf-wrap ncu --sampled-source, so whether a line's warps diverge is not measured.)"
}

@test "sampled source: a reduction's uncoalesced-access stake is kf's own from the counters, ncu's formula, where ncu's rule did not run" {
	job full-sum47
	job sampled-sum47
	run diag full-sum47
	assert_output '[["memory_bound","dram",null,18.1]]'
	run jq -r '.analysis.diagnosis[0].evidence[] | select(.metric | startswith("kernel_impact_pct")) | .metric' "$T/full-sum47.json"
	assert_output --partial "ncu's UncoalescedGlobalAccess rule's estimated speedup"
	# 100 x lts__cycles_active.sum / lts__cycles_elapsed.sum x excessive /
	# all theoretical sectors, from the sampled run's raw page
	run diag sampled-sum47
	assert_output '[["memory_bound","dram",null,17.8]]'
	run jq -r '.analysis.diagnosis[0].evidence[] | select(.metric | startswith("kernel_impact_pct")) | .metric' "$T/sampled-sum47.json"
	assert_output --partial 'kernel_impact_pct: 100 x lts__cycles_active.sum / lts__cycles_elapsed.sum x derived__memory_l2_theoretical_sectors_global_excessive / memory_l2_theoretical_sectors_global (the sectors its accesses waste, as ncu'"'"'s UncoalescedGlobalAccess rule estimates it; ncu gave no such rule'
}

@test "sampled source: kf's estimate is ncu's rule's number where both can be had: the full run's page without the rule's rows" {
	local d=$T/norule
	mkdir -p "$d"
	for f in "$SFIX/full-sum47"/*.csv.gz; do gzip -dc "$f" >"$d/$(basename "$f" .gz)"; done
	gzip -dc "$SFIX/full-sum47/ncu_report.csv.gz" |
		awk -F'","' '/^"ID"/ { for (i = 1; i <= NF; i++) if ($i == "Rule Name") c = i }
			!c || !/^"[0-9]/ || $c != "UncoalescedGlobalAccess"' >"$d/ncu_report.csv"
	run grep -c '"UncoalescedGlobalAccess"' "$d/ncu_report.csv"
	assert_output 0
	replay norule ncu "$d" | kf-read | kf-collate | kf-feedback >"$T/norule.json"
	run diag norule
	assert_output '[["memory_bound","dram",null,18.1]]'
	run jq -r '.analysis.diagnosis[0].evidence[] | select(.metric | startswith("kernel_impact_pct")) | .metric' "$T/norule.json"
	assert_output --partial 'ncu gave no such rule'
}

@test "sampled source: a comparison with kf's whole collection claims no rule gone or new that one of the runs could not report" {
	local j
	# one id for the runs compared (a baseline is found by the job's id)
	for j in full-strided sampled-strided full-bank sampled-bank; do
		job "$j"
		jq -c '.id = "k"' "$T/$j.json" >"$T/$j.k" && mv "$T/$j.k" "$T/$j.json"
	done
	# the sections each run collected, by identifier, and each rule's
	run jq -c '.analysis.sections' "$T/sampled-strided.json"
	assert_output '["ComputeWorkloadAnalysis","KfSourceSampled","LaunchStats","Occupancy","SpeedOfLight","SpeedOfLight_RooflineChart","WorkloadDistribution"]'
	run jq -c '.analysis.sections | index("SourceCounters") != null' "$T/full-strided.json"
	assert_output true
	run jq -c '.analysis.advice[0] | [.name, .section]' "$T/full-strided.json"
	assert_output '["UncoalescedGlobalAccess","SourceCounters"]'
	# a launch without its details' metrics says nothing of what was collected
	replay ns ncu "$T/full-strided" | kf-read | jq -c 'del(.data.kernels[].metrics)' | kf-collate | kf-feedback >"$T/ns.json"
	run jq -c '[(.analysis | has("sections")), .analysis.advice[0].name]' "$T/ns.json"
	assert_output '[false,"UncoalescedGlobalAccess"]'
	# the baseline's rule of SourceCounters, which this run did not collect
	kf-feedback --baseline "$T/full-strided.json" <"$T/sampled-strided.json" >"$T/cmp.json"
	run jq -c '.analysis.delta.advice' "$T/cmp.json"
	assert_output '{"resolved":[],"new":[],"changed":[],"not_compared":[{"name":"UncoalescedGlobalAccess","section":"SourceCounters","reported_in":"baseline"}]}'
	run jq -r .feedback "$T/cmp.json"
	assert_output --partial '- Rules of the baseline not compared, their section not collected in this run: UncoalescedGlobalAccess (SourceCounters).'
	refute_output --partial 'Rules resolved'
	# kf-report's page says the same
	kf-report "$T/cmp.json" >"$T/cmp.html"
	run grep -c '<li>not compared (their section collected in one run only): UncoalescedGlobalAccess</li>' "$T/cmp.html"
	assert_output 1
	# this run's rule of a section the baseline did not collect
	kf-feedback --baseline "$T/sampled-bank.json" <"$T/full-bank.json" >"$T/cmp2.json"
	run jq -c '.analysis.delta.advice.not_compared' "$T/cmp2.json"
	assert_output '[{"name":"UncoalescedSharedAccess","section":"SourceCounters","reported_in":"this_run"}]'
	run jq -r .feedback "$T/cmp2.json"
	assert_output --partial '- Rules of this run not compared, their section not collected in the baseline: UncoalescedSharedAccess (SourceCounters).'
	refute_output --partial 'New rules'
	# both runs with SourceCounters: a rule gone is resolved, one that came is new
	kf-feedback --baseline "$T/full-strided.json" <"$T/full-bank.json" >"$T/cmp3.json"
	run jq -c '.analysis.delta.advice | [.resolved, .new, .not_compared]' "$T/cmp3.json"
	assert_output '[["UncoalescedGlobalAccess","AchievedOccupancy"],["UncoalescedSharedAccess"],[]]'
}
