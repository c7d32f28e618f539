#!/bin/bash
# What a replay pass costs (issue 46): 20 launches of prog.cu's elementwise
# kernel profiled with kf's sections and metrics, with the sections and
# every metric but the tensor-core paths (lean), with the sections alone;
# the passes and the wall milliseconds of each ncu run, and of the program
# alone. Prints lines "what passes wall_ms". Usage: cost.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
export PATH=/usr/local/cuda/bin:$PATH
[ -x /tmp/passprog ] || nvcc -O2 -arch=sm_90 -o /tmp/passprog "$here/prog.cu" -lcublas || exit 1
. "$here/collection.sh"
lean=$(grep -v '^#' "$top/share/kf/ncu_metrics.txt" | grep . | grep -v '^sm__ops_path_tensor' | paste -sd,)
ms() { echo $(( $(date +%s%N) / 1000000 )); }
go() {
	local name=$1 skip=$2 count=$3 t0; shift 3
	t0=$(ms)
	ncu --clock-control none --launch-skip "$skip" --launch-count "$count" "$@" -o /tmp/passrep -f /tmp/passprog 20 >/tmp/pass.out 2>&1
	echo "$name $(grep -o '[0-9]* passes' /tmp/pass.out | awk '{ s += $1 } END { print s + 0 }') $(( $(ms) - t0 ))"
}
t0=$(ms); /tmp/passprog 20 >/dev/null; echo "plain 0 $(( $(ms) - t0 ))"
go lean_gemm 0 1 "${S[@]}" --metrics "$lean"
go full20 20 20 "${S[@]}" --metrics "$all"
go lean20 20 20 "${S[@]}" --metrics "$lean"
go sections20 20 20 "${S[@]}"
go full1 20 1 "${S[@]}" --metrics "$all"
