#!/bin/sh
# make demo: replay recorded real H200 profiles (no GPU needed) through
# kf-read | kf-collate | kf-feedback and print the feedback.
set -eu
cd "$(dirname "$0")/.."
PATH="$PWD/bin:$PATH"
KF_DATADIR="$PWD/share/kf"
KF_LIBEXECDIR="$PWD/libexec/kf"
# Each failure is said once, in its feedback, as kf says it.
KF_QUIET_ERRORS=1
export PATH KF_DATADIR KF_LIBEXECDIR KF_QUIET_ERRORS

echo "kf demo: real Nsight Compute captures from an NVIDIA H200, replayed offline."
echo "Each job below was profiled with: kf ncu --clock-control none [--top 3] -- PROGRAM"
echo "(examples/README.md has the exact commands). Replaying with:"
echo "  kf-read examples/replay.jsonl | kf-collate | kf-feedback --text --max-chars 2500"
echo
# One job (none) failed on purpose: kf-feedback explains it and exits 1.
kf-read examples/replay.jsonl | kf-collate | kf-feedback --text --max-chars 2500 ||
	echo "(kf-feedback exited $?: a profile above failed, the one of job none, on purpose)"
