#!/bin/sh
# kf-run's cost: overhead per job against running the same commands from a
# shell loop, CPU time while a job sleeps, and peak memory under a flood.
# Goals (issue 3): under 5 ms a job; near zero CPU while idle; under 64 MB.
# KF_BIN: where kf-run is (default: bin/); N: jobs to time (default 300).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
kf=${KF_BIN:-$top/bin}/kf-run
n=${N:-300}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

${CC:-cc} -O2 -o "$tmp/rusage" "$top/tests/progs/rusage.c"
now() { date +%s%N; }

i=0
while [ "$i" -lt "$n" ]; do
	printf '{"id":"b%d","argv":["true"],"env":{},"end_marker":null}\n' "$i"
	i=$((i + 1))
done >"$tmp/jobs"

# The program itself, not the shell's builtin.
tb=/bin/true
[ -x "$tb" ] || tb=/usr/bin/true
t0=$(now)
i=0
while [ "$i" -lt "$n" ]; do
	"$tb"
	i=$((i + 1))
done
t1=$(now)
"$kf" "$tmp/jobs" >"$tmp/out"
t2=$(now)
[ "$(grep -c '"exit_code":0' "$tmp/out")" -eq "$n" ] || { echo "kf-run-bench: jobs failed" >&2; exit 1; }
awk -v n="$n" -v d="$((t1 - t0))" -v k="$((t2 - t1))" 'BEGIN {
	printf "kf-run: %d jobs of true: %.2f ms a job (directly: %.2f ms); overhead %.2f ms a job (goal < 5)\n",
	    n, k / n / 1e6, d / n / 1e6, (k - d) / n / 1e6 }'

printf '{"id":"s","argv":["sleep","2"]}\n' >"$tmp/sleep"
"$tmp/rusage" "$tmp/ru" "$kf" "$tmp/sleep" >/dev/null
read -r rss user sys <"$tmp/ru"
echo "kf-run: CPU while a job sleeps 2 s: user ${user} s, sys ${sys} s (goal: near zero)"

printf '{"id":"f","argv":["head","-c","300000000","/dev/zero"]}\n' >"$tmp/flood"
t0=$(now)
"$tmp/rusage" "$tmp/ru" "$kf" "$tmp/flood" >/dev/null
t1=$(now)
read -r rss user sys <"$tmp/ru"
awk -v r="$rss" -v d="$((t1 - t0))" 'BEGIN {
	printf "kf-run: 300 MB of output: peak RSS %.1f MB (goal < 64), %.0f MB/s\n", r / 1024, 300e6 / 1048576 / (d / 1e9) }'
