#!/bin/sh
# On the device, from a copy of kf's tree (bin/ share/ libexec/ lib/ examples/):
# check that ncu knows kf's extra metrics (share/kf/ncu_metrics.txt keeps
# only those it knows, plus every dense tensor-path counter it lists), then
# run.sh, then one tar.gz of the recordings into $OUT.
set -u
M=/tmp/rec/meta
mkdir -p "$M"
cd "$(dirname "$0")/../.."
export LD_LIBRARY_PATH="$PWD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
{ ncu --version; nvidia-smi -L; nvcc --version | tail -1; python3 -c 'import torch; print("torch", torch.__version__, torch.version.cuda)'; } >"$OUT/env.txt" 2>&1
bin/kf-wrap --version >>"$OUT/env.txt" 2>&1 || echo "kf-wrap does not run here" >>"$OUT/env.txt"
ncu --query-metrics --chip gh100 >/tmp/query.txt 2>&1
grep -E '^(sm__ops_path|sm__inst_executed_pipe_tensor|sm__pipe_tensor|smsp__sass_thread_inst_executed_op_h|l1tex__t_sectors_pipe_lsu_mem_local|l1tex__data_bank_conflicts)' /tmp/query.txt >"$M/query-metrics.txt"
t=share/kf/ncu_metrics.txt
cp "$t" "$M/ncu_metrics.asked.txt"
{
	grep '^#' "$t"
	for m in $(grep -v '^#' "$t"); do
		base=${m%%.*}
		if grep -q "^$base " /tmp/query.txt; then echo "$m"; else echo "dropped: $m" >>"$OUT/env.txt"; fi
	done
	for b in $(awk '/^sm__ops_path_tensor_src_/ && !/sparsity/ { print $1 }' /tmp/query.txt); do
		grep -q "^$b\\." "$t" || echo "$b.sum"
	done
} >/tmp/metrics.txt
# ncu refuses a run with a metric it does not know: try the list once on a
# small kernel, and on failure keep only the names that pass one by one.
nvcc -O3 -arch=sm_90 -lineinfo -Xptxas -v -o /tmp/rec/defects examples/cuda/defects.cu >"$M/nvcc.log" 2>&1
list=$(grep -v '^#' /tmp/metrics.txt | paste -sd, -)
if ! ncu --clock-control none --metrics "$list" /tmp/rec/defects fp64_fix >"$M/validate.txt" 2>&1 ||
    grep -q '==ERROR==' "$M/validate.txt"; then
	grep '^#' /tmp/metrics.txt >/tmp/metrics.ok
	for m in $(grep -v '^#' /tmp/metrics.txt); do
		if ncu --clock-control none --metrics "$m" /tmp/rec/defects fp64_fix >/tmp/v1 2>&1 &&
		    ! grep -q '==ERROR==' /tmp/v1; then echo "$m" >>/tmp/metrics.ok
		else echo "refused: $m" >>"$OUT/env.txt"; fi
	done
	cp /tmp/metrics.ok /tmp/metrics.txt
fi
cp /tmp/metrics.txt "$t"
cp "$t" "$M/ncu_metrics.used.txt"
head -c 3000 /tmp/query.txt >"$M/query-head.txt"
sh examples/h200-defects/run.sh /tmp/rec "$@" >"$OUT/run.log" 2>&1
tar czf "$OUT/rec.tar.gz" --exclude='*.ncu-rep' --exclude=defects -C /tmp rec
ls -la "$OUT"
tail -c 6000 "$OUT/run.log"
