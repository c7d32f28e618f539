#!/bin/bash
# The tracer on the H200, first call: versions, plain and traced runs (wall
# seconds), ncu's timing run for the comparison, and the traces kept as
# fixtures (GPT-2 generation, ResNet-50 training, a CUDA graph, two
# processes, host copies, a program stopped by SIGTERM and one killed).
# usage: bench1.sh TRACER_SO OUT
so=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out/traces" "$out/ncu"
log=$out/bench1.log
exec > >(tee -a "$log") 2>&1
py=python3
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1

echo "== versions"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nvcc --version | tail -2
ls -l /usr/local/cuda /usr/local/cuda/lib64/libcupti.so* 2>&1 | head -5
$py -c 'import torch, transformers; print("torch", torch.__version__, "cuda", torch.version.cuda, "transformers", transformers.__version__)'
$py -m pip show nvidia-cuda-cupti 2>/dev/null | grep -i '^version'
which ncu; ncu --version | tail -1
# The tracer was built against CUPTI 13.0 (130001): build it here if this
# machine's CUPTI differs.
v=$(sed -n 's/^#define CUPTI_API_VERSION \([0-9]*\).*/\1/p' /usr/local/cuda/include/cupti.h 2>/dev/null)
echo "CUPTI_API_VERSION here: $v"
src=$here/../../../lib/trace/inject/kftrace.c
[ -f "$src" ] || src=$here/../lib/trace/inject/kftrace.c
if [ -n "$v" ] && [ "$v" != 130001 ]; then
	cc -std=c11 -O2 -D_GNU_SOURCE -fPIC -shared -I/usr/local/cuda/include -o "$out/libkftrace.so" \
		"$src" -L/usr/local/cuda/lib64 -Wl,-rpath,/usr/local/cuda/lib64 \
		-lcupti -lstdc++ -lpthread && so=$out/libkftrace.so && echo "rebuilt the tracer here"
fi

# timed NAME LIMIT CMD...: wall seconds of CMD, one line.
timed() {
	local name=$1 lim=$2 s e rc
	shift 2
	s=$(date +%s.%N)
	timeout -k 5 -s "${SIG:-TERM}" "$lim" "$@" > "$out/$name.stdout" 2>&1
	rc=$?
	e=$(date +%s.%N)
	awk -v n="$name" -v s="$s" -v e="$e" -v rc="$rc" 'BEGIN { printf "TIME %s rc=%d wall=%.2f\n", n, rc, e - s }'
	tail -2 "$out/$name.stdout"
}
traced() {
	local name=$1
	shift
	CUDA_INJECTION64_PATH=$so KF_TRACE_DIR=$out/traces/$name timed "$name" "$@"
}

timed warmup 120 $py -c 'import torch, transformers, torchvision; torch.zeros(1).cuda(); print("warm")'
for i in 1 2; do
	timed gpt2_plain_$i 120 $py "$here/gpt2_generate.py" 8
	traced gpt2_traced_$i 120 $py "$here/gpt2_generate.py" 8
done
timed resnet_plain 120 $py "$here/resnet50_train.py" 3
traced resnet_traced 120 $py "$here/resnet50_train.py" 3
traced graph 120 $py "$here/graph_mlp.py"
traced two_procs 120 $py "$here/two_procs.py"
traced copies 120 $py "$here/host_copies.py"
traced sigterm 12 $py "$here/long_loop.py"
SIG=KILL traced sigkill 12 $py "$here/long_loop.py"
ls -la "$out"/traces/*
for f in "$out"/traces/*/*.kft; do echo "$f: $(wc -l < "$f") lines; $(head -c 300 "$f" | head -1)"; tail -1 "$f" | cut -c1-200; done
timed gpt2_ncu 200 ncu --metrics gpu__time_duration.sum --clock-control none --csv --print-units base \
	--print-kernel-base mangled --log-file "$out/ncu/gpt2.csv" $py "$here/gpt2_generate.py" 8
timed resnet_ncu 200 ncu --metrics gpu__time_duration.sum --clock-control none --csv --print-units base \
	--print-kernel-base mangled --log-file "$out/ncu/resnet.csv" $py "$here/resnet50_train.py" 3
grep TIME "$log"
cd "$out" && tar czf traces.tar.gz traces ncu *.stdout && rm -rf traces ncu *.stdout
