#!/bin/bash
# The third device call of this session: issue 36's sweep (sweep/run.sh,
# the first N problems), issue 37's kf-mcp with a real program (mcp/run.sh)
# and, in the time left, issue 35's single-op set (ops/run.sh); the last
# two's outputs packed into one file each (at most 8 files come back).
# usage: call3.sh OUT   (in the tree's root, on the H200)
out=$1
# jq, which the sweep's scripts use, travels in .dev/bin where it is missing
command -v jq >/dev/null || export PATH=$PWD/.dev/bin:$PATH
bash examples/h200/fail/build.sh /tmp/kf || exit 1
N=${N:-6} timeout 230 bash examples/h200/sweep/run.sh /tmp/kf "$out"
echo "=== mcp"
OUT=/tmp/mcp timeout 120 sh examples/h200/mcp/run.sh /tmp/kf 2>&1 | tail -25
tar czf "$out/mcp.tar.gz" -C /tmp mcp
echo "=== ops"
mkdir -p /tmp/ops
DEADLINE=${OPS_DEADLINE:-20} timeout 50 sh examples/h200/ops/run.sh /tmp/kf /tmp/ops >"$out/ops.log" 2>&1
tar czf "$out/ops.tar.gz" -C /tmp ops
tail -5 "$out/ops.log"
tail -30 /tmp/ops/check.tsv 2>/dev/null
