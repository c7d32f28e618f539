#!/bin/sh
# kf-report's cost: the page for N jobs (default 500) and for 2N and 4N, to
# see that the time grows linearly with the jobs; peak memory at 4N. The
# jobs are the real final records of examples/ (the H200 sweep, the
# transformer, two failures), repeated with distinct ids. Goal (issue 18):
# 500 jobs under a second. KF_BIN: where kf-report is (default: bin/);
# N: jobs; RUNS: runs a size, the median kept (default 3).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
kf=${KF_BIN:-$top/bin}/kf-report
n=${N:-500}
runs=${RUNS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

${CC:-cc} -O2 -o "$tmp/rusage" "$top/tests/progs/rusage.c"
now() { date +%s%N; }

ex=$top/examples
cat "$ex"/h200-sweep/*.json "$ex/h200/transformer.json" "$ex/h200/missing.json" \
	"$ex/h200/none.json" >"$tmp/one"
# jobs COUNT: the records, cycled, ids j0 ... j(COUNT-1).
jobs() {
	awk -v n="$1" '{ r[NR] = $0 } END {
		for (i = 0; i < n; i++) { l = r[i % NR + 1]; sub(/^\{"id":"[^"]*"/, "{\"id\":\"j" i "\"", l); print l } }' \
		"$tmp/one"
}

# ms COUNT: the median wall time of RUNS runs on COUNT jobs, in ms.
ms() {
	jobs "$1" >"$tmp/in.$1"
	: >"$tmp/t.$1"
	i=0
	while [ "$i" -lt "$runs" ]; do
		t0=$(now)
		"$kf" "$tmp/in.$1" >"$tmp/out.html"
		t1=$(now)
		echo "$(((t1 - t0) / 1000))" >>"$tmp/t.$1"
		i=$((i + 1))
	done
	[ "$(grep -c '^<tr class=' "$tmp/out.html")" -eq "$1" ] ||
		{ echo "kf-report-bench: not $1 rows in the page" >&2; exit 1; }
	sort -n "$tmp/t.$1" | awk '{ v[NR] = $1 } END { printf "%.1f", v[int((NR + 1) / 2)] / 1000 }'
}

t1=$(ms "$n")
t2=$(ms $((2 * n)))
t4=$(ms $((4 * n)))
"$tmp/rusage" "$tmp/ru" "$kf" "$tmp/in.$((4 * n))" >/dev/null
read -r rss user sys <"$tmp/ru"
mb=$(wc -c <"$tmp/in.$n" | awk '{ printf "%.1f", $1 / 1e6 }')
page=$(wc -c <"$tmp/out.html" | awk '{ printf "%.1f", $1 / 1e6 }')
awk -v n="$n" -v a="$t1" -v b="$t2" -v c="$t4" -v mb="$mb" 'BEGIN {
	printf "kf-report: %d jobs (%s MB of final records): %.1f ms (goal < 1000)\n", n, mb, a
	printf "kf-report: %d jobs: %.1f ms, %d jobs: %.1f ms; per job %.3f, %.3f, %.3f ms; %dx the jobs took %.2fx the time (linear: %d)\n",
	    2 * n, b, 4 * n, c, a / n, b / (2 * n), c / (4 * n), 4, (a > 0 ? c / a : 0), 4 }'
awk -v r="$rss" -v n=$((4 * n)) -v p="$page" 'BEGIN {
	printf "kf-report: %d jobs: peak RSS %.1f MB, a page of %s MB\n", n, r / 1024, p }'
