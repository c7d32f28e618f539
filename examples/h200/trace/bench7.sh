#!/bin/bash
# The tracer on the H200, seventh call: two `kf ncu --top 3` at once (each
# holds its detailed run on its own ports: does each profile its own
# program?), two worker processes (the detailed run comes after the traced
# run), and the timing run with ncu (KF_NCU_TIMING=ncu, --cache-control none).
# usage: bench7.sh KF_PREFIX OUT   (KF_PREFIX holds bin/ share/ libexec/ lib/)
kf=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
exec > >(tee -a "$out/bench7.log") 2>&1

rn=("$py" "$here/resnet50_train.py" 3)
g2=("$py" "$here/gpt2_generate.py" 8)
# kernels DIR: the kernels of a run's detailed report, and how it ran
kernels() {
	local d
	d=$(dirname "$(find "$runs/$1" -name ncu_detailed.json | head -n 1)")
	echo "$1: $(cat "$d/ncu_detailed.json")"
	awk -F'","' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "Kernel Name") c = i; next } { print "  " substr($c, 1, 90) }' "$d/ncu_report.csv" | sort -u
	grep -h -e 'Waiting for profiler' -e '^kf-ncu:' "$runs/$1.out" | sort -u
}

timed warmup 120 $py -c 'import torch, transformers, torchvision; torch.zeros(1).cuda(); print("warm")'
timed resnet_plain_1 120 "${rn[@]}"
kfrun both_resnet 3 "${rn[@]}" &
p1=$!
kfrun both_gpt2 3 "${g2[@]}" &
p2=$!
# not a bare wait: it would wait for the tee above as well (bash 5.1)
wait "$p1" "$p2"
kernels both_resnet
kernels both_gpt2
kfrun two_procs 2 "$py" "$here/two_procs.py"
kernels two_procs
KF_NCU_TIMING=ncu kfrun gpt2_ncutiming 3 "${g2[@]}"
kernels gpt2_ncutiming
for n in both_gpt2 gpt2_ncutiming; do
	echo "$n:"; grep -h -A6 '^A timing run measured' "$runs/$n.out" | head -n 7
done
pack
