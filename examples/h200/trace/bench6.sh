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

rn=("$py" "$here/resnet50_train.py" 3)
g2=("$py" "$here/gpt2_generate.py" 8)

warm
alternate resnet 3 "${rn[@]}"
alternate gpt2 2 "${g2[@]}"
timed gpt2_ncunc_1 200 ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum -o "$out/g2nc" -f "${g2[@]}"
ncu -i "$out/g2nc.ncu-rep" --page details --csv --print-units base | gzip >"$out/gpt2_ncu_nocache.csv.gz"
rm -f "$out/g2nc.ncu-rep"
means "$out/bench6.log"
pack 'ncu_timing*.csv'
