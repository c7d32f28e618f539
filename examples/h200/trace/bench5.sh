#!/bin/bash
# The tracer on the H200, fifth call: the end-to-end cost of
# `kf ncu --top 3` (the tracer's timing run, the detailed run, one round of
# exports) against plain runs of the same program, each kf run between two
# plain ones (plain, kf, plain, kf, plain, ...), and traced against plain
# runs of GPT-2 in both orders. Wall seconds, one line each.
# usage: bench5.sh KF_PREFIX OUT   (KF_PREFIX holds bin/ share/ libexec/ lib/)
kf=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
exec > >(tee -a "$out/bench5.log") 2>&1

rn=("$py" "$here/resnet50_train.py" 3)
g2=("$py" "$here/gpt2_generate.py" 8)

warm
alternate resnet 3 "${rn[@]}"
alternate gpt2 2 "${g2[@]}"
traced gpt2_traced_1 120 "${g2[@]}"
timed gpt2_plain_4 120 "${g2[@]}"
traced gpt2_traced_2 120 "${g2[@]}"
means "$out/bench5.log"
pack 'ncu_timing*.csv'
