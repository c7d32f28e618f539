#!/bin/bash
# The tracer on the H200, third call: the tracer's cost with plain and
# traced runs interleaved (alternating which goes first), kf ncu --top 3 on
# ResNet-50 between two plain runs, and the JAX program's detailed run with
# the two settings kf-wrap(1) had not tried. Wall seconds, one line each.
# usage: bench3.sh KF_PREFIX OUT   (KF_PREFIX holds bin/ share/ libexec/ lib/)
kf=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
top=$here/../../top
exec > >(tee -a "$out/bench3.log") 2>&1

timed warmup 120 $py -c 'import torch, transformers, torchvision; torch.zeros(1).cuda(); print("warm")'
for i in 1 2; do
	if [ $((i % 2)) -eq 1 ]; then
		timed gpt2_plain_$i 120 $py "$here/gpt2_generate.py" 8
		traced gpt2_traced_$i 120 $py "$here/gpt2_generate.py" 8
	else
		traced gpt2_traced_$i 120 $py "$here/gpt2_generate.py" 8
		timed gpt2_plain_$i 120 $py "$here/gpt2_generate.py" 8
	fi
done
timed resnet_plain_a 120 $py "$here/resnet50_train.py" 3
timed resnet_kf_ncu_top3 200 kf ncu --top 3 -o "$runs/resnet_top3" -- $py "$here/resnet50_train.py" 3
timed resnet_plain_b 120 $py "$here/resnet50_train.py" 3
export XLA_PYTHON_CLIENT_PREALLOCATE=false
timed jax_top3_nocmdbuf 100 kf ncu --top 3 -o "$runs/jax_nocmdbuf" -- env \
	XLA_FLAGS="--xla_gpu_autotune_level=0 --xla_gpu_enable_command_buffer=" $py "$top/flax_cnn.py"
timed jax_top3_appreplay 110 kf ncu --top 3 -a --replay-mode -a application \
	-o "$runs/jax_appreplay" -- env XLA_FLAGS=--xla_gpu_autotune_level=0 $py "$top/flax_cnn.py"
grep TIME "$out/bench3.log"
pack
