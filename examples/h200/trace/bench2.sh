#!/bin/bash
# The tracer on the H200, second call: kf ncu --top 3 (timing by the tracer)
# against plain runs, kf trace end to end, and ncu's timing run without its
# cache flush (to explain the per-launch difference from ncu's timing run).
# usage: bench2.sh KF_PREFIX OUT   (KF_PREFIX holds bin/ share/ libexec/ lib/)
kf=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
exec > >(tee -a "$out/bench2.log") 2>&1

timed warmup 120 $py -c 'import torch, transformers, torchvision; torch.zeros(1).cuda(); print("warm")'
timed gpt2_plain_a 120 $py "$here/gpt2_generate.py" 8
timed gpt2_kf_trace 120 kf trace -o "$runs/gpt2_trace" -- $py "$here/gpt2_generate.py" 8
timed gpt2_kf_ncu_top3 200 kf ncu --top 3 -o "$runs/gpt2_top3" -- $py "$here/gpt2_generate.py" 8
timed gpt2_plain_b 120 $py "$here/gpt2_generate.py" 8
timed resnet_plain_a 120 $py "$here/resnet50_train.py" 3
timed resnet_kf_ncu_top3 200 kf ncu --top 3 -o "$runs/resnet_top3" -- $py "$here/resnet50_train.py" 3
timed resnet_plain_b 120 $py "$here/resnet50_train.py" 3
timed graph_kf_trace 60 kf trace -o "$runs/graph_trace" -- $py "$here/graph_mlp.py"
grep TIME "$out/bench2.log"
ls -R "$runs" | head -40
pack
timeout -k 5 70 ncu --metrics gpu__time_duration.sum --clock-control none --cache-control none \
	--csv --print-units base --print-kernel-base mangled --log-file "$out/gpt2_ncu_nocache.csv" \
	$py "$here/gpt2_generate.py" 8 > /dev/null 2>&1
echo "ncu --cache-control none: status $?"
