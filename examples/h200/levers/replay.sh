#!/bin/sh
# Replay one program of tests/fixtures/programs-h200 through kf-read,
# kf-collate and kf-feedback, as recorded on the H200 (the record's worker
# and run): MODE trace (kf trace), top (kf ncu --top 3, traced) or full
# (kf ncu, every launch of one step in detail). The final record on
# standard output.
#   replay.sh NAME MODE [kf-feedback option ...]
# KF_BIN: where the programs are (default: the tree's bin/).
set -eu
R=$(cd "$(dirname "$0")/../../.." && pwd)
B=${KF_BIN:-$R/bin}
name=$1 mode=$2
shift 2
FX=$R/tests/fixtures/programs-h200/$name
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
[ -d "$FX/$mode" ] || { echo "replay.sh: $name has no $mode recording" >&2; exit 2; }
cp -r "$FX/$mode" "$W/out"
find "$W/out" -name '*.gz' -exec gzip -d {} +
case $mode in trace) prof=trace pass=trace.000 ;; *) prof=ncu pass=ncu.000 ;; esac
gzip -dc "$FX/record.json.gz" |
	jq -c --arg id "$name" --arg p "$prof" --arg pass "$pass" --arg d "$W/out" \
		'{id:$id, profiler:$p, pass:$pass, output_dir:$d} + .' |
	"$B/kf-read" 2>/dev/null | "$B/kf-collate" | "$B/kf-feedback" "$@"
