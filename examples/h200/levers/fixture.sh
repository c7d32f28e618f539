#!/bin/sh
# Turn record.sh's runs into tests/fixtures/programs-h200/NAME: the
# tracer's files, --top's folder (no report), the full folder where there
# is one, the oracle, and the --top run's worker and exit status, gzipped.
# A --top folder recorded before trace_timeline.json existed gets it made
# here from its trace, as kf's timing source writes it now.
#   fixture.sh RUNS NAME ...   (RUNS: record.sh's runs/ unpacked)
set -eu
R=$(cd "$(dirname "$0")/../../.." && pwd)
runs=$1
shift
for p in "$@"; do
	D=$R/tests/fixtures/programs-h200/$p
	rm -rf "$D"
	mkdir -p "$D/trace"
	cp "$runs/$p"/trace/trace.000/*.kft "$D/trace/"
	cp "$runs/$p.oracle.json" "$D/oracle.json"
	if [ -d "$runs/$p/top/ncu.000" ]; then
		mkdir -p "$D/top/trace"
		(cd "$runs/$p/top/ncu.000" && cp ./*.csv ./*.json "$D/top/" && cp trace/*.kft "$D/top/trace/")
		[ -f "$D/top/trace_timeline.json" ] ||
			jq -nc --arg d "$runs/$p/top/ncu.000/trace" '{id:"t", profiler:"trace", output_dir:$d}' |
			"$R/bin/kf-read" | jq -c '{timeline: .data.timeline}' \
			>"$D/top/trace_timeline.json"
		rec=$runs/$p.top.json
	else
		rec=$runs/$p.trace.json
	fi
	if [ -d "$runs/$p/full/ncu.000" ]; then
		mkdir -p "$D/full"
		cp "$runs/$p"/full/ncu.000/* "$D/full/"
	fi
	jq -c '{worker, run: (.passes[0].run | {exit_code, signal, ended_by, elapsed_s})}' "$rec" >"$D/record.json"
	gzip -9 -r "$D"
done
