#!/bin/bash
# The tracer on the H200, second call: kf ncu --top 3 (timing by the tracer)
# against plain runs, kf trace end to end, and ncu's timing run without its
# cache flush (to explain the per-launch difference from ncu's timing run).
# usage: bench2.sh KF_PREFIX OUT   (KF_PREFIX holds bin/ share/ libexec/ lib/)
kf=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
export PATH=$kf/bin:$PATH LD_LIBRARY_PATH=$kf/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
mkdir -p "$out/runs"
exec > >(tee -a "$out/bench2.log") 2>&1
py=python3

timed() {
	local name=$1 lim=$2 s e rc
	shift 2
	s=$(date +%s.%N)
	timeout -k 5 "$lim" "$@" > "$out/runs/$name.out" 2>&1
	rc=$?
	e=$(date +%s.%N)
	awk -v n="$name" -v s="$s" -v e="$e" -v rc="$rc" 'BEGIN { printf "TIME %s rc=%d wall=%.2f\n", n, rc, e - s }'
	tail -3 "$out/runs/$name.out" | cut -c1-300
}

timed warmup 120 $py -c 'import torch, transformers, torchvision; torch.zeros(1).cuda(); print("warm")'
timed gpt2_plain_a 120 $py "$here/gpt2_generate.py" 8
timed gpt2_kf_trace 120 kf trace -o "$out/runs/gpt2_trace" -- $py "$here/gpt2_generate.py" 8
timed gpt2_kf_ncu_top3 200 kf ncu --top 3 -o "$out/runs/gpt2_top3" -- $py "$here/gpt2_generate.py" 8
timed gpt2_plain_b 120 $py "$here/gpt2_generate.py" 8
timed resnet_plain_a 120 $py "$here/resnet50_train.py" 3
timed resnet_kf_ncu_top3 200 kf ncu --top 3 -o "$out/runs/resnet_top3" -- $py "$here/resnet50_train.py" 3
timed resnet_plain_b 120 $py "$here/resnet50_train.py" 3
timed graph_kf_trace 60 kf trace -o "$out/runs/graph_trace" -- $py "$here/graph_mlp.py"
grep TIME "$out/bench2.log"
ls -R "$out/runs" | head -40
(cd "$out" && find runs -name '*.ncu-rep' -delete; tar czf runs.tar.gz runs && rm -rf runs)
timeout -k 5 70 ncu --metrics gpu__time_duration.sum --clock-control none --cache-control none \
	--csv --print-units base --print-kernel-base mangled --log-file "$out/gpt2_ncu_nocache.csv" \
	$py "$here/gpt2_generate.py" 8 > /dev/null 2>&1
echo "ncu --cache-control none: status $?"
