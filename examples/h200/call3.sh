#!/bin/bash
# The third device call of this session: issue 36's sweep (sweep/run.sh,
# the first N problems) and, in the time left, issue 35's single-op set
# (ops/run.sh), its outputs packed into one file.
# usage: call3.sh OUT   (in the tree's root, on the H200)
out=$1
# jq, which the sweep's scripts use, travels in .dev/bin where it is missing
command -v jq >/dev/null || export PATH=$PWD/.dev/bin:$PATH
bash examples/h200/fail/build.sh /tmp/kf || exit 1
N=${N:-12} timeout 380 bash examples/h200/sweep/run.sh /tmp/kf "$out"
mkdir -p /tmp/ops
DEADLINE=${OPS_DEADLINE:-120} timeout 170 sh examples/h200/ops/run.sh /tmp/kf /tmp/ops >"$out/ops.log" 2>&1
tar czf "$out/ops.tar.gz" -C /tmp ops
tail -5 "$out/ops.log"
cat /tmp/ops/check.tsv 2>/dev/null | tail -30
