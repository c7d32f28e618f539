#!/bin/sh
# kf-mcp on a machine with an NVIDIA GPU, nvcc and Nsight Compute, driven by
# a standard-library Python client (client.py) as an agent would: profile
# of an uncoalesced copy (copy.cu), profile of the coalesced one with the
# first as baseline, compare, reread of the .ncu-rep, a cancelled profile.
# The transcript (every JSON-RPC line each way) goes to $OUT/mcp.log, the
# server's stderr to $OUT/mcp.log.stderr, the summary to stdout and
# $OUT/summary.txt. Takes a few minutes (two ncu --set detailed runs of
# three launches each).
# usage: sh examples/h200/mcp/run.sh [KF_PREFIX]
# KF_PREFIX: a kf installed with make install PREFIX=... (its lib/, if any,
# holding libcjson and libcsv where the machine has none); default: build
# here with make (needs libcjson-dev and libcsv-dev).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
OUT=${OUT:-$here/out}
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0
if [ $# -ge 1 ]; then
	kf=$1
else
	make -C "$top" -j"$(nproc)" NODEPS=1 all >"$OUT/build.log" 2>&1 || {
		tail -20 "$OUT/build.log"
		echo "run.sh: kf did not build here: give an installed kf as KF_PREFIX" >&2
		exit 1
	}
	kf=$top
fi
[ -d "$kf/lib" ] && LD_LIBRARY_PATH=$kf/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} &&
	export LD_LIBRARY_PATH
PATH="$kf/bin:/usr/local/cuda/bin:$PATH"
export PATH
for t in nvcc ncu python3; do
	command -v "$t" >/dev/null || { echo "run.sh: no $t on PATH" >&2; exit 1; }
done
work=$(mktemp -d)
nvcc -O3 -arch="${ARCH:-sm_90}" -lineinfo -o "$work/copy" "$here/copy.cu" || exit 1
# Within the device's ten minutes a command.
timeout -k 10 540 python3 "$here/client.py" "$kf/bin/kf-mcp" "$work/copy" "$OUT/mcp.log" 2>&1 |
	tee "$OUT/summary.txt"
cp -r "$work/kf-out" "$OUT/" 2>/dev/null
rm -rf "$work"
grep -qx 'all checks passed' "$OUT/summary.txt"
