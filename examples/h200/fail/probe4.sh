#!/bin/bash
# Issue 34, fourth call: `kf ncu --top 3` of kf with each worker process held
# on its own port and attached to side by side, and XLA's autotuning results
# dumped by the traced timing run and loaded by the held detailed run (its
# command buffers off), each kf run between two plain runs: the Flax CNN,
# two worker processes, and the CUDA-graph MLP (one process, held, as
# before). The final records (--json) and each run's output folder, less the
# .ncu-rep reports, come back as fixtures.
# usage: probe4.sh KF_PREFIX OUT
kf=$1 out=$2
here=$(cd "$(dirname "$0")/../trace" && pwd)
top=$(cd "$here/../../top" && pwd)
. "$here/common.sh"
exec > >(tee -a "$out/probe4.log") 2>&1
# pair NAME N CMD...: N kf runs of CMD, each between two plain ones.
pair() {
	local name=$1 n=$2 i
	shift 2
	for i in $(seq 1 "$n"); do
		timed "${name}_plain_$i" 120 "$@"
		kfjson "${name}_kf_$i" "$@"
	done
	timed "${name}_plain_$((n + 1))" 120 "$@"
}
warm
pair flax 2 "$py" "$top/flax_cnn.py"
pair two 2 "$py" "$top/two_procs.py"
pair graph 1 "$py" "$here/graph_mlp.py"
for d in "$runs"/*_kf_*; do
	[ -d "$d" ] || continue
	f=$(ls "$d"/*/ncu.000/ncu_detailed.json 2>/dev/null | head -1)
	echo "DETAIL ${d##*/}: $(cat "$f" 2>/dev/null)"
	ls -la "$(dirname "$f")" 2>/dev/null | head -30
done
for n in flax_kf_1 two_kf_1 graph_kf_1; do
	echo "=== $n: stderr and the first lines"
	grep -a -v '^{' "$runs/$n.out" | head -8 | cut -c1-600
	grep -a '^{' "$runs/$n.out" | python3 -c 'import json,sys
for l in sys.stdin:
    r=json.loads(l); print("\n".join(r.get("feedback","").splitlines()[:8])[:2500]); print("DIAG", [d["kind"] for d in r.get("analysis",{}).get("diagnosis",[])])
    t=r.get("collated",{}).get("timing",{}); print("CHOSEN", t.get("chosen"), "MISSING", t.get("missing"), "AUTOTUNING", t.get("autotuning"))' 2>&1
done
grep TIME "$out/probe4.log"
means "$out/probe4.log"
pack
