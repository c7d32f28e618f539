#!/bin/bash
# The tracer on the H200, third call: the tracer's cost with plain and
# traced runs interleaved (alternating which goes first), kf ncu --top 3 on
# ResNet-50 between two plain runs, and the JAX program's detailed run with
# the two settings kf-wrap(1) had not tried. Wall seconds, one line each.
# usage: bench3.sh KF_PREFIX OUT   (KF_PREFIX holds bin/ share/ libexec/ lib/)
kf=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
top=$here/../../top
so=$kf/libexec/kf/libkftrace.so
export PATH=$kf/bin:$PATH LD_LIBRARY_PATH=$kf/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
mkdir -p "$out/runs"
exec > >(tee -a "$out/bench3.log") 2>&1
py=python3

timed() {
	local name=$1 lim=$2 s e rc
	shift 2
	s=$(date +%s.%N)
	timeout -k 5 "$lim" "$@" > "$out/runs/$name.out" 2>&1
	rc=$?
	e=$(date +%s.%N)
	awk -v n="$name" -v s="$s" -v e="$e" -v rc="$rc" 'BEGIN { printf "TIME %s rc=%d wall=%.2f\n", n, rc, e - s }'
	tail -2 "$out/runs/$name.out" | cut -c1-300
}
traced() {
	local name=$1
	shift
	mkdir -p "$out/runs/$name.trace"
	CUDA_INJECTION64_PATH=$so KF_TRACE_DIR=$out/runs/$name.trace timed "$name" "$@"
}

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
timed resnet_kf_ncu_top3 200 kf ncu --top 3 -o "$out/runs/resnet_top3" -- $py "$here/resnet50_train.py" 3
timed resnet_plain_b 120 $py "$here/resnet50_train.py" 3
export XLA_PYTHON_CLIENT_PREALLOCATE=false
timed jax_top3_nocmdbuf 100 kf ncu --top 3 -o "$out/runs/jax_nocmdbuf" -- env \
	XLA_FLAGS="--xla_gpu_autotune_level=0 --xla_gpu_enable_command_buffer=" $py "$top/flax_cnn.py"
timed jax_top3_appreplay 110 kf ncu --top 3 -a --replay-mode -a application \
	-o "$out/runs/jax_appreplay" -- env XLA_FLAGS=--xla_gpu_autotune_level=0 $py "$top/flax_cnn.py"
grep TIME "$out/bench3.log"
(cd "$out" && find runs -name '*.ncu-rep' -delete; tar czf runs.tar.gz runs && rm -rf runs)
