#!/bin/bash
# The tracer on the H200, sixth call: `kf ncu --top 3` with the detailed
# run held at its first CUDA call beside the traced timing run (ncu --mode
# launch, then --mode attach), against plain runs of the same program, each
# kf run between two plain ones; and ncu's timing run of GPT-2 with the
# caches left alone (--cache-control none) for the ranking against the
# trace. Wall seconds, one line each.
# usage: bench6.sh KF_PREFIX OUT   (KF_PREFIX holds bin/ share/ libexec/ lib/)
kf=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
exec > >(tee -a "$out/bench6.log") 2>&1

kfrun() {
	local name=$1
	shift
	timed "$name" 200 kf ncu --top 3 -a --clock-control -a none -o "$runs/$name" -- "$@"
}
rn=("$py" "$here/resnet50_train.py" 3)
g2=("$py" "$here/gpt2_generate.py" 8)

timed warmup 120 $py -c 'import torch, transformers, torchvision; torch.zeros(1).cuda(); print("warm")'
timed ncu_warmup 60 ncu --clock-control none --metrics gpu__time_duration.sum $py -c 'import torch; print(torch.ones(4, device="cuda").sum().item())'
timed resnet_plain_1 120 "${rn[@]}"
kfrun resnet_kf_1 "${rn[@]}"
timed resnet_plain_2 120 "${rn[@]}"
kfrun resnet_kf_2 "${rn[@]}"
timed resnet_plain_3 120 "${rn[@]}"
kfrun resnet_kf_3 "${rn[@]}"
timed resnet_plain_4 120 "${rn[@]}"
timed gpt2_plain_1 120 "${g2[@]}"
kfrun gpt2_kf_1 "${g2[@]}"
timed gpt2_plain_2 120 "${g2[@]}"
kfrun gpt2_kf_2 "${g2[@]}"
timed gpt2_plain_3 120 "${g2[@]}"
timed gpt2_ncunc_1 200 ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum -o "$out/g2nc" -f "${g2[@]}"
ncu -i "$out/g2nc.ncu-rep" --page details --csv --print-units base | gzip >"$out/gpt2_ncu_nocache.csv.gz"
rm -f "$out/g2nc.ncu-rep"
grep TIME "$out/bench6.log" | awk '
	{ split($2, n, "_"); sub("wall=", "", $4); k = n[1] "_" n[2]; s[k] += $4; c[k]++ }
	END { for (k in s) printf "MEAN %s %.2f over %d\n", k, s[k] / c[k], c[k] }' | sort
for f in "$out"/runs/*/*/ncu.000/ncu_detailed.json; do echo "$f: $(cat "$f")"; done
(cd "$out" && find runs -name '*.ncu-rep' -delete; find runs -name 'ncu_timing*.csv' -delete; tar czf runs.tar.gz runs && rm -rf runs)
