#!/bin/sh
# Re-analyse the saved H200 profiles with the current code, no GPU needed:
# every examples/h200/JOB.json is rebuilt from its pass's saved output_dir
# and recorded run (kf-read | kf-collate | kf-feedback), and
# JOB.feedback.txt from it. A failed job keeps its recorded error (it was
# read with the run's stdout and stderr, which the final record no longer
# holds) and only its feedback is made again.
# Run from anywhere: sh examples/h200/regen.sh
set -eu
cd "$(dirname "$0")/../.."
PATH="$PWD/bin:$PATH"
KF_DATADIR="$PWD/share/kf"
export PATH KF_DATADIR
for f in examples/h200/*.json; do
	id=$(basename "$f" .json)
	if jq -e '.error' "$f" >/dev/null; then
		jq -c 'del(.feedback, .analysis)' "$f" | kf-feedback >"$f.new" || true
	else
		jq -c '{id, cmd, profiler, worker} + (.passes[0] | {pass, mode, output_dir, run})' "$f" |
			kf-read 2>/dev/null | kf-collate | kf-feedback >"$f.new" || true
	fi
	mv "$f.new" "$f"
	kf-feedback --text <"$f" >"examples/h200/$id.feedback.txt" || true
done
