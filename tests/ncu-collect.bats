#!/usr/bin/env bats
# What kf-wrap ncu collects (share/kf/ncu_sections.txt, ncu_metrics.txt)
# against what kf reads: every metric name in the ncu reader, diagnosis and
# roofline is named by a chosen section (tests/fixtures/ncu-sections) or
# asked for by name, and a record cut down to the chosen sections gives
# the same focus, diagnosis, roofline and hot lines as the detailed set's.

load helper

SEC="$FIX/ncu-sections"

# names FILE: a table's names, no comments or blank lines.
names() {
	grep -v '^#' "$1" | sed 's/^[[:space:]]*//; s/[[:space:]]*$//' | grep .
}

# provided: every metric the chosen sections name, and the metrics asked for.
provided() {
	awk -F'\t' 'NR == FNR { keep[$0] = 1; next } !/^#/ && ($1 in keep) { print $3 }' \
		<(names "$KF_DATADIR/ncu_sections.txt") "$SEC/sections.tsv"
	names "$KF_DATADIR/ncu_metrics.txt"
}

# read_names: every metric name the code reads, as a string literal.
read_names() {
	grep -oh '"[a-z0-9][a-z0-9]*__[a-z][a-z0-9_.]*"' "$TOP"/lib/ncu/*.c "$TOP"/lib/analysis/*.c | tr -d '"' | sort -u
}

@test "every metric kf reads is named by a chosen section or asked for, or was never collected" {
	provided | sort -u >"$BATS_TEST_TMPDIR/provided"
	names "$SEC/not-collected.txt" | sort -u >"$BATS_TEST_TMPDIR/never"
	read_names >"$BATS_TEST_TMPDIR/read"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/read")" -gt 100 ]
	# a name is there as itself, as the base of one (NAME.sum...), or,
	# for a prefix the code matches (ending in _), as the start of one
	run awk 'FILENAME ~ /provided$/ { p[$0] = 1; next } FILENAME ~ /never$/ { n[$0] = 1; next }
		{
			ok = ($0 in p) || ($0 in n)
			for (q in p)
				if (!ok && (index(q, $0 ".") == 1 || ($0 ~ /_$/ && index(q, $0) == 1)))
					ok = 1
			if (!ok) print "not collected: " $0
		}' "$BATS_TEST_TMPDIR/provided" "$BATS_TEST_TMPDIR/never" "$BATS_TEST_TMPDIR/read"
	assert_output ""
	# the never-collected list hides nothing the detailed set had: no
	# recorded raw page of it has one of them as a column
	for f in "$FIX"/ncu-h200-pages/*/ncu_raw.csv; do
		run awk -F'","' 'NR == FNR { n[$0] = 1; next } /^"ID"/ { for (i = 1; i <= NF; i++) { c = $i; gsub(/"/, "", c); if (c in n) print c } exit }' \
			"$BATS_TEST_TMPDIR/never" "$f"
		assert_output ""
	done
	# and the sections whose display names kf reads are chosen
	for d in "GPU Speed Of Light Throughput" "Launch Statistics" "Occupancy"; do
		grep -q "\"$d\"" "$TOP/lib/ncu/ncu.h"
		id=$(awk -F'\t' -v d="$d" '$2 == d { print $1; exit }' "$SEC/sections.tsv")
		names "$KF_DATADIR/ncu_sections.txt" | grep -qx "$id"
	done
}

@test "the check fails when kf reads a metric the collection does not have" {
	provided | grep -v '^sm__warps_active' | sort -u >"$BATS_TEST_TMPDIR/provided"
	: >"$BATS_TEST_TMPDIR/never"
	echo sm__warps_active.avg.pct_of_peak_sustained_active >"$BATS_TEST_TMPDIR/read"
	run awk 'FILENAME ~ /provided$/ { p[$0] = 1; next } FILENAME ~ /never$/ { n[$0] = 1; next }
		!($0 in p) && !($0 in n) { print "not collected: " $0 }' \
		"$BATS_TEST_TMPDIR/provided" "$BATS_TEST_TMPDIR/never" "$BATS_TEST_TMPDIR/read"
	assert_output "not collected: sm__warps_active.avg.pct_of_peak_sustained_active"
	# and it is in the chosen sections (Occupancy, LaunchStats)
	provided | grep -qx sm__warps_active.avg.pct_of_peak_sustained_active
}

# cut FIXTURE: the fixture's pages in full/ and cut down to the chosen
# collection in cut/ (tests/progs/ncu-keep), each read into DIR.json.
cut() {
	local f="$FIX/ncu-h200-pages/$1" d="$BATS_TEST_TMPDIR/$1" x
	mkdir -p "$d/full" "$d/cut"
	cp "$f/ncu_report.csv" "$f/ncu_raw.csv" "$f/ncu_source.csv" "$d/full/"
	cp "$f/ncu_source.csv" "$d/cut/"
	"$TOP/tests/progs/ncu-keep" "$SEC/sections.tsv" "$KF_DATADIR/ncu_sections.txt" \
		"$KF_DATADIR/ncu_metrics.txt" details "$f/ncu_report.csv" "$d/cut/ncu_report.csv"
	"$TOP/tests/progs/ncu-keep" "$SEC/sections.tsv" "$KF_DATADIR/ncu_sections.txt" \
		"$KF_DATADIR/ncu_metrics.txt" raw "$f/ncu_raw.csv" "$d/cut/ncu_raw.csv"
	for x in full cut; do
		replay "$1" ncu "$d/$x" | kf-read | kf-collate | kf-feedback >"$d/$x.json"
	done
}

@test "a record of only the chosen sections: the same focus, diagnosis, roofline and hot lines" {
	local fx d
	for fx in sgemm_naive transpose_naive reduce_atomic multi resnet18-head; do
		cut "$fx"
		d="$BATS_TEST_TMPDIR/$fx"
		# the cut is real: the chart's rows and columns are gone
		[ "$(grep -c '"Memory Workload Analysis Chart"\|MemoryWorkloadAnalysis_Chart' "$d/cut/ncu_report.csv")" -eq 0 ]
		[ "$(head -1 "$d/cut/ncu_raw.csv" | tr ',' '\n' | wc -l)" -lt "$(head -1 "$d/full/ncu_raw.csv" | tr ',' '\n' | wc -l)" ]
		jq -e '.analysis.focus.roof and .analysis.diagnosis' "$d/full.json" >/dev/null
		for p in .analysis.focus .analysis.diagnosis .analysis.ranking .analysis.kernels; do
			[ "$(jq -cS "$p" "$d/full.json")" = "$(jq -cS "$p" "$d/cut.json")" ] ||
				{ echo "$fx: $p differs"; diff <(jq -S "$p" "$d/full.json") <(jq -S "$p" "$d/cut.json"); return 1; }
		done
		# the rules and advice: the same but for the chart's one rule, whose
		# place in a list of at most --max-rules the next one may take
		for p in .analysis.rules .analysis.advice; do
			a=$(jq -cS "$p | map(select(.name != \"MemoryL2Compression\"))" "$d/full.json")
			[ "$a" = "$(jq -cS --argjson n "$(jq length <<<"$a")" "$p | .[0:\$n]" "$d/cut.json")" ] ||
				{ echo "$fx: $p differs"; return 1; }
		done
	done
	# the hot lines are there to compare
	jq -e '.analysis.focus.source_lines | length > 0' "$BATS_TEST_TMPDIR/sgemm_naive/cut.json"
}

@test "kf-wrap ncu: the chosen sections and metrics by default; the user's --set, --section or --metrics wins" {
	cd "$BATS_TEST_TMPDIR"
	secs=$(names "$KF_DATADIR/ncu_sections.txt" | jq -R . | jq -sc 'map("--section", .)')
	[ "$(jq -r 'length' <<<"$secs")" -eq 16 ]
	run kf-wrap ncu -- ./k
	assert_success
	[ "$(jq -c '.argv[6:-2]' <<<"$output")" = "$(jq -c --arg m "$(kf_metrics)" '. + ["--metrics", $m]' <<<"$secs")" ]
	run kf-wrap ncu -a --set -a full -- ./k
	[ "$(jq -c '.argv[6:-2]' <<<"$output")" = '["--metrics","'"$(kf_metrics)"'","--set","full"]' ]
	run kf-wrap ncu -a --section -a SpeedOfLight -- ./k
	[ "$(jq -c '.argv[6:-2]' <<<"$output")" = '["--metrics","'"$(kf_metrics)"'","--section","SpeedOfLight"]' ]
	run kf-wrap ncu -a --metrics -a gpu__time_duration.sum -- ./k
	[ "$(jq -c '.argv[6:-2]' <<<"$output")" = "$(jq -c '. + ["--metrics", "gpu__time_duration.sum"]' <<<"$secs")" ]
}
