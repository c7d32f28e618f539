#!/bin/sh
# examples/h200/ops/run.sh PREFIX OUT [ID ...]: the single-op PyTorch sweep
# (ops.py, jobs.jsonl) on a machine with an NVIDIA GPU, through kf's own
# pipeline (pipelines/sweep.mk: kf-select | kf-wrap ncu | kf-run | kf-read |
# kf-collate | kf-feedback), each op profiled alone (--profile-from-start
# off: the one call between cudaProfilerStart and Stop).
#
# PREFIX: where kf's programs are (PREFIX/bin/kf-wrap, as make install or a
# build tree leaves them; PREFIX itself when it holds kf-wrap). ID ...: only
# these ops (default: every line of jobs.jsonl). Needs ncu, python3 with
# torch and CUDA, jq and make; root, or counters allowed to users
# (NVreg_RestrictProfilingToAdminUsers=0). GPUS (default 0) and JOBS_AT_ONCE
# (default: the number of GPUS) spread the ops over GPUs.
#
# The sweep writes into examples/h200/ops/ of this tree (so the records'
# output_dir, examples/h200/ops/runs/ID/ID/ncu.000, is where the pages lie
# once OUT is copied back there); OUT then gets ID.json, ID.feedback.txt,
# ID.log, summary.tsv, check.tsv (check.sh: each verdict against
# expected.tsv), runs/ (ncu's CSV pages, not its .ncu-rep report), env.txt
# and times.txt. About 15-30 s an op on an H200, ten minutes for all 27 on
# one GPU; DEADLINE (seconds, default 540) skips the ops not started by then.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
[ $# -ge 2 ] || { echo "usage: run.sh PREFIX OUT [ID ...]" >&2; exit 2; }
prefix=$1
out=$2
shift 2
if [ -x "$prefix/bin/kf-wrap" ]; then
	kf=$(cd "$prefix/bin" && pwd)
elif [ -x "$prefix/kf-wrap" ]; then
	kf=$(cd "$prefix" && pwd)
else
	echo "run.sh: no kf-wrap in $prefix/bin or $prefix" >&2
	exit 2
fi
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
gpus=${GPUS:-0}
cd "$root" || exit 2

{
	date -u '+%Y-%m-%dT%H:%M:%SZ'
	nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1
	ncu --version 2>&1 | tail -n 1
	python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)' 2>&1
} >"$out/env.txt"

# the jobs to run: all, or those named; the deadline cuts the list in
# time order (the sweep runs them in the file's order)
jobs=$here/jobs.jsonl
if [ $# -gt 0 ]; then
	jobs=$out/jobs.jsonl
	ids=$(printf '%s\n' "$@" | jq -R . | jq -cs .)
	jq -c --argjson ids "$ids" 'select(.id as $i | $ids | index($i))' "$here/jobs.jsonl" >"$jobs"
fi

start=$(date +%s)
deadline=${DEADLINE:-540}
n=$(echo $gpus | wc -w)
timeout -s INT "$deadline" make -f pipelines/sweep.mk JOBS="$jobs" OUT=examples/h200/ops \
	KF="$kf" GPUS="$gpus" -j"${JOBS_AT_ONCE:-$n}" \
	RUN_FLAGS="--timeout 240 --inactivity 180" >"$out/sweep.log" 2>&1
echo "sweep: status $?, $(($(date +%s) - start)) s" >"$out/times.txt"

for f in examples/h200/ops/*.json examples/h200/ops/*.feedback.txt examples/h200/ops/*.log \
	examples/h200/ops/summary.tsv; do
	[ -f "$f" ] && cp "$f" "$out/"
done
# ncu's pages, without its binary report
(cd examples/h200/ops && find runs -type f ! -name '*.ncu-rep' 2>/dev/null) |
	while IFS= read -r f; do
		mkdir -p "$out/$(dirname "$f")"
		cp "examples/h200/ops/$f" "$out/$f"
	done
sh "$here/check.sh" "$out" >"$out/check.tsv"
tail -n 1 "$out/check.tsv"
cat "$out/times.txt"
