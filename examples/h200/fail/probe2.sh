#!/bin/bash
# Issue 34, second call: `kf ncu --top 3` of kf with the detailed run's
# failures told apart from the program's, each kf run between two plain
# runs: the CUDA-graph MLP (held detailed run), the Flax CNN (XLA: the
# detailed run after the timing run, command buffers and autotuning off),
# two worker processes; and a device-side assert, with --top and without,
# its final records kept (fixtures for saved records and the first lines).
# usage: probe2.sh KF_PREFIX OUT
kf=$1 out=$2
here=$(cd "$(dirname "$0")/../trace" && pwd)
fail=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
exec > >(tee -a "$out/probe2.log") 2>&1
warm
alternate graph 2 "$py" "$here/graph_mlp.py"
alternate flax 1 "$py" "$(cd "$here/../../top" && pwd)/flax_cnn.py"
alternate two 1 "$py" "$(cd "$here/../../top" && pwd)/two_procs.py"
timed assert_plain 60 "$py" "$fail/assert_index.py"
timed assert_top 120 kf ncu --top 3 -a --clock-control -a none -o "$runs/assert_top" --json -- "$py" "$fail/assert_index.py"
timed assert_all 120 kf ncu -a --clock-control -a none -o "$runs/assert_all" --json -- "$py" "$fail/assert_index.py"
for d in "$runs"/*_kf_* "$runs"/assert_*; do
	[ -d "$d" ] || continue
	f=$(ls "$d"/*/ncu.000/ncu_detailed.json 2>/dev/null | head -1)
	echo "DETAIL ${d##*/}: $(cat "$f" 2>/dev/null)"
done
for n in graph_kf_1 flax_kf_1 two_kf_1 assert_top assert_all; do
	echo "=== $n: first lines"
	grep -a -v '^{' "$runs/$n.out" | head -4 | cut -c1-600
	grep -a '^{' "$runs/$n.out" | python3 -c 'import json,sys
for l in sys.stdin:
    r=json.loads(l); print("\n".join(r.get("feedback","").splitlines()[:4])[:1500]); print("DIAG", [d["kind"] for d in r.get("analysis",{}).get("diagnosis",[])])' 2>&1
done
grep TIME "$out/probe2.log"
means "$out/probe2.log"
pack
