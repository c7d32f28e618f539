#!/bin/sh
# make demo: replay recorded real H200 profiles (no GPU needed) through
# kf-read | kf-collate | kf-feedback, as kf reread runs them, and print the
# feedback.
set -eu
cd "$(dirname "$0")/.."
PATH="$PWD/bin:$PATH"
KF_DATADIR="$PWD/share/kf"
KF_LIBEXECDIR="$PWD/libexec/kf"
export PATH KF_DATADIR KF_LIBEXECDIR

echo "kf demo: real Nsight Compute captures from an NVIDIA H200, replayed offline."
echo "Each job below was profiled with: kf ncu --clock-control none [--top 3] -- PROGRAM"
echo "(examples/README.md has the exact commands). Replaying with:"
echo "  kf --max-chars 2500 reread examples/replay.jsonl"
echo
# One job (none) failed on purpose: its feedback explains it, and kf exits 1.
kf --max-chars 2500 reread examples/replay.jsonl ||
	echo "(kf exited $?: a profile above failed, the one of job none, on purpose)"
