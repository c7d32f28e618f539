#!/bin/bash
# ncu's --mode launch / --mode attach on the H200: does a program paused at
# its first CUDA call while another run goes on, then attached with kf's
# detailed-run filter, give the same report, and how long does each part
# take? Also GPT-2's ranking by three timings (rank3.py).
# usage: probe5.sh KF_PREFIX OUT
kf=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
so=$kf/libexec/kf/libkftrace.so
export PATH=$kf/bin:$PATH LD_LIBRARY_PATH=$kf/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export BENCH_STAMPS=1
mkdir -p "$out/runs"
exec > >(tee -a "$out/probe5.log") 2>&1
py=python3
now() { date +%s.%N; }
el() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
met=$(grep -v -e "^#" -e "^$" "$kf/share/kf/ncu_metrics.txt" | paste -sd, -)
rn=("$py" "$here/resnet50_train.py" 3)

t=$(now); $py -c 'import torch, torchvision, transformers; torch.zeros(1).cuda()'; echo "warmup $(el "$t" "$(now)")"
t=$(now)

# 1. ResNet-50: the detailed run launched and paused while the traced run times.
t0=$(now)
timeout -k 5 200 ncu --mode launch --port 50100 --max-connections 1 "${rn[@]}" \
	>"$out/runs/launch.out" 2>"$out/runs/launch.err" &
lp=$!
mkdir -p "$out/runs/tr"
CUDA_INJECTION64_PATH=$so KF_TRACE_DIR=$out/runs/tr "${rn[@]}" >"$out/runs/traced.out" 2>&1
echo "traced run done at +$(el "$t0" "$(now)")"
kf-read --profiler trace --select 3 "$out/runs/tr" >"$out/runs/filter.txt"
echo "selected at +$(el "$t0" "$(now)")"
mapfile -t filt <"$out/runs/filter.txt"
ta=$(now)
timeout -k 5 150 ncu --mode attach --hostname 127.0.0.1 --port 50100 --max-connections 1 --clock-control none -o "$out/runs/att" -f \
	--import-source yes "${filt[@]}" --set detailed --metrics "$met" >"$out/runs/attach.out" 2>&1
echo "attach: status $? at +$(el "$t0" "$(now)") ($(el "$ta" "$(now)") s)"
wait "$lp"
echo "launcher: status $? at +$(el "$t0" "$(now)")"
tail -n 5 "$out/runs/launch.out" "$out/runs/launch.err" "$out/runs/attach.out" | cut -c1-300
grep STAMP "$out/runs/launch.err" | awk -v s="$t0" '{ printf "  launched %s +%.2f\n", $2, $3 - s }'
ncu -i "$out/runs/att.ncu-rep" --page details --csv | awk -F'","' 'NR > 1 { print $1, substr($5, 1, 60) }' | sort -u | head
# 2. A late attach: does the paused program wait 40 s?
t0=$(now)
timeout -k 5 200 ncu --mode launch --port 50110 --max-connections 1 "${rn[@]}" \
	>"$out/runs/late.out" 2>&1 &
lp=$!
sleep 40
timeout -k 5 150 ncu --mode attach --hostname 127.0.0.1 --port 50110 --max-connections 1 --clock-control none -o "$out/runs/late" -f \
	"${filt[@]}" --section SpeedOfLight >"$out/runs/late_attach.out" 2>&1
echo "late attach: status $? at +$(el "$t0" "$(now)")"
wait "$lp"; echo "late launcher: status $?"
tail -n 3 "$out/runs/late.out" "$out/runs/late_attach.out" | cut -c1-300
# 3. Two worker processes: is each process attached and profiled?
t0=$(now)
timeout -k 5 200 ncu --mode launch --port 50120 --max-connections 4 $py "$here/two_procs.py" \
	>"$out/runs/mp.out" 2>&1 &
lp=$!
sleep 8
timeout -k 5 150 ncu --mode attach --hostname 127.0.0.1 --port 50120 --max-connections 4 --clock-control none -o "$out/runs/mp" -f \
	--section SpeedOfLight -k regex:gemm --launch-count 4 >"$out/runs/mp_attach.out" 2>&1
echo "mp attach: status $? at +$(el "$t0" "$(now)")"
wait "$lp"; echo "mp launcher: status $?"
tail -n 6 "$out/runs/mp.out" "$out/runs/mp_attach.out" | cut -c1-300
ncu -i "$out/runs/mp.ncu-rep" --page details --csv | awk -F'","' 'NR > 1 { print $1, $2, substr($5, 1, 50) }' | sort -u | head
# 4. GPT-2 by three timings.
mkdir -p "$out/runs/g2"
: 
: 
: # (kineto done in the first probe)
echo "$(date) ready for rank3"
(cd "$out" && find runs -name '*.ncu-rep' -delete; tar czf runs.tar.gz runs && rm -rf runs)
