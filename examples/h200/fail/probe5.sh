#!/bin/bash
# Issue 34, fifth call: the Flax CNN as probe4.sh ran it, with JAX's memory
# pool not preallocated in the detailed run (XLA_PYTHON_CLIENT_PREALLOCATE=false:
# probe4's held run, loading the autotuning results, profiled two of the
# three chosen kernels and then none in 142 s, ncu "Backing up device memory
# in system memory" of JAX's pool of 75% of the GPU), each kf run between
# two plain runs; then the same with the detailed run after the timing run
# (KF_NCU_OVERLAP=0).
# usage: probe5.sh KF_PREFIX OUT
kf=$1 out=$2
here=$(cd "$(dirname "$0")/../trace" && pwd)
top=$(cd "$here/../../top" && pwd)
. "$here/common.sh"
exec > >(tee -a "$out/probe5.log") 2>&1
warm
f=("$py" "$top/flax_cnn.py")
timed flax_plain_1 120 "${f[@]}"
kfjson flax_kf_1 "${f[@]}"
timed flax_plain_2 120 "${f[@]}"
kfjson flax_kf_2 "${f[@]}"
timed flax_plain_3 120 "${f[@]}"
KF_NCU_OVERLAP=0 kfjson flax_seq_1 "${f[@]}"
timed flax_plain_4 120 "${f[@]}"
for n in flax_kf_1 flax_kf_2 flax_seq_1; do
	echo "=== $n"
	cat "$runs/$n"/*/ncu.000/ncu_detailed.json
	grep -a '^{' "$runs/$n.out" | python3 -c 'import json,sys
for l in sys.stdin:
    r=json.loads(l); print("\n".join(r.get("feedback","").splitlines()[:8])[:2500]); print("DIAG", [d["kind"] for d in r.get("analysis",{}).get("diagnosis",[])])
    run=r["passes"][0]["run"]; print("STDOUT", run.get("stdout","")[-1500:]); print("STDERR", run.get("stderr","")[-800:])
    t=r.get("collated",{}).get("timing",{}); print("CHOSEN", t.get("chosen"), "MISSING", t.get("missing"))' 2>&1
done
grep TIME "$out/probe5.log"
pack
