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

# median FILE EXPR: the median of an awk expression over the lines of FILE.
median() {
	awk "{ print $2 }" "$1" | sort -g | awk '{ v[NR] = $1 } END { printf "%.1f", v[int((NR + 1) / 2)] }'
}

# ms COUNT: the median wall time and the median CPU time (user + sys) of
# RUNS runs on COUNT jobs, in ms. CPU time is what the linearity is judged
# on: a shared machine's load moves the wall time far more.
ms() {
	jobs "$1" >"$tmp/in.$1"
	: >"$tmp/t.$1"
	i=0
	while [ "$i" -lt "$runs" ]; do
		t0=$(now)
		"$tmp/rusage" "$tmp/ru" "$kf" "$tmp/in.$1" >"$tmp/out.html"
		t1=$(now)
		read -r rss user sys <"$tmp/ru"
		echo "$(((t1 - t0) / 1000)) $user $sys" >>"$tmp/t.$1"
		i=$((i + 1))
	done
	[ "$(grep -c '^<tr class=' "$tmp/out.html")" -eq "$1" ] ||
		{ echo "kf-report-bench: not $1 rows in the page" >&2; exit 1; }
	printf '%s %s' "$(median "$tmp/t.$1" '$1 / 1000')" "$(median "$tmp/t.$1" '($2 + $3) * 1000')"
}

for k in 1 2 4; do
	ms $((k * n)) >"$tmp/r.$k" || exit 1
	echo >>"$tmp/r.$k"
done
read -r w1 c1 <"$tmp/r.1"
read -r w2 c2 <"$tmp/r.2"
read -r w4 c4 <"$tmp/r.4"
"$tmp/rusage" "$tmp/ru" "$kf" "$tmp/in.$((4 * n))" >/dev/null
read -r rss user sys <"$tmp/ru"
mb=$(wc -c <"$tmp/in.$n" | awk '{ printf "%.1f", $1 / 1e6 }')
page=$(wc -c <"$tmp/out.html" | awk '{ printf "%.1f", $1 / 1e6 }')
awk -v n="$n" -v w1="$w1" -v w2="$w2" -v w4="$w4" -v c1="$c1" -v c2="$c2" -v c4="$c4" -v mb="$mb" 'BEGIN {
	printf "kf-report: %d jobs (%s MB of final records): %.1f ms wall, %.1f ms CPU (goal < 1000)\n", n, mb, w1, c1
	printf "kf-report: CPU per job at %d, %d, %d jobs: %.3f, %.3f, %.3f ms; 4x the jobs took %.2fx the CPU time, %.2fx the wall time (linear: 4)\n",
	    n, 2 * n, 4 * n, c1 / n, c2 / (2 * n), c4 / (4 * n), (c1 > 0 ? c4 / c1 : 0), (w1 > 0 ? w4 / w1 : 0) }'
awk -v r="$rss" -v n=$((4 * n)) -v p="$page" 'BEGIN {
	printf "kf-report: %d jobs: peak RSS %.1f MB, a page of %s MB\n", n, r / 1024, p }'
