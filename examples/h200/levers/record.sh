#!/bin/bash
# Issue 43: real multi-kernel programs recorded on the H200, each three ways
# beside PyTorch's own profiler on the same steps (harness.py --oracle): kf's
# tracer (kf trace), kf ncu --top 3, and, for the short ones, every launch
# of one step in detail (kf ncu, --profile-from-start off). Each kf run
# leaves its final record (NAME.KIND.json) and its folders; the reports are
# left out. Stops starting programs after $BUDGET s.
# usage: record.sh KF_PREFIX OUT PROG ...   (PROG: a name in $PROGS, progs/;
# NOTOP: the programs to leave out of kf ncu --top, separated by blanks)
kf=$1 out=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
runs=$out/runs
BUDGET=${BUDGET:-420}
T0=$(date +%s)
export PATH=$kf/bin:$PATH PYTHONUNBUFFERED=1
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
mkdir -p "$runs"
exec > >(tee -a "$out/record.log") 2>&1
t() {	# t NAME LIMIT CMD...: timed, output in $runs/NAME.out
	local name=$1 lim=$2 s rc
	shift 2
	s=$(date +%s.%N)
	timeout -k 5 "$lim" "$@" >"$runs/$name.out" 2>"$runs/$name.err"
	rc=$?
	awk -v n="$name" -v s="$s" -v e="$(date +%s.%N)" -v rc="$rc" \
	    'BEGIN { printf "TIME %s rc=%d wall=%.2f\n", n, rc, e - s }'
	grep -a ORACLE "$runs/$name.out" | head -5
}
t warm 120 python3 -c 'import torch, timm, torchvision; torch.zeros(1).cuda(); print("warm")'
for p in "$@"; do
	left=$((BUDGET - ($(date +%s) - T0)))
	[ "$left" -lt 45 ] && { echo "== $p: skipped, ${left}s left"; continue; }
	h=(python3 "$here/harness.py" "${PROGS:-$here/progs}/$p.py")
	t "$p.oracle" 90 "${h[@]}" --oracle "$runs/$p.oracle.json"
	t "$p.trace" 90 kf --json trace -o "$runs/$p" --id trace -- "${h[@]}"
	mv "$runs/$p.trace.out" "$runs/$p.trace.json"
	case " ${NOTOP:-} " in *" $p "*) ;; *)
		t "$p.top" 120 kf --json ncu --top 3 -a --clock-control -a none -o "$runs/$p" --id top -- "${h[@]}"
		mv "$runs/$p.top.out" "$runs/$p.top.json" ;;
	esac
	case $p in conv_*|linear_tail_bf16)
		t "$p.full" 120 kf --json ncu -a --clock-control -a none -a --profile-from-start \
		    -a off -o "$runs/$p" --id full -- "${h[@]}" --steps 1
		mv "$runs/$p.full.out" "$runs/$p.full.json" ;;
	esac
	for k in trace top full; do
		[ -f "$runs/$p.$k.json" ] && python3 -c 'import json,sys
for l in open(sys.argv[1]):
    if l.startswith("{"): print(sys.argv[2] + ":", " | ".join(json.loads(l).get("feedback", "").split("\n")[:4])[:400])' "$runs/$p.$k.json" "$k"
	done
done
(cd "$out" && find runs -name '*.ncu-rep' -delete && tar czf runs.tar.gz runs && rm -rf runs)
echo "== total $(($(date +%s) - T0)) s"
