#!/bin/sh
# Kernels with one known defect each, their fixes, and matrix products
# through PyTorch, profiled on a machine with an NVIDIA GPU through the whole
# chain: kf-wrap ncu | kf-run | kf-read | kf-collate | kf-feedback.
#
#   sh examples/h200-defects/run.sh OUTDIR [JOB ...]
#
# OUTDIR/<job>/ncu.000/ gets ncu's pages (ncu_report.csv, ncu_raw.csv,
# ncu_source.csv), OUTDIR/<job>.json the final record and
# OUTDIR/<job>.feedback.txt the text. Jobs: the defect kernels of
# examples/cuda/defects.cu and their fixes, and gemm-bf16, gemm-fp8,
# gemm-tf32, gemm-fp32, gemm-decode (examples/torch/gemm.py); cost-bf16 is
# gemm-bf16 again without kf's extra metrics (share/kf/ncu_metrics.txt), to
# measure what they cost. KF_BIN: where kf's programs are (default: bin).
# DEADLINE: seconds after which the remaining jobs are skipped (default 480).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:?usage: run.sh OUTDIR [JOB ...]}
shift
kfbin=${KF_BIN:-$root/bin}
PATH="$kfbin:$PATH"
ARCH=${ARCH:-sm_90}
deadline=${DEADLINE:-480}
start=$(date +%s)
mkdir -p "$out"

defects=${DEFECTS:-$out/defects}
if [ ! -x "$defects" ]; then
	nvcc -O3 -arch="$ARCH" -lineinfo -Xptxas -v -o "$defects" \
		"$root/examples/cuda/defects.cu" >"$out/nvcc.log" 2>&1 || { cat "$out/nvcc.log"; exit 1; }
fi

# job ID [KF-WRAP OPTION ...] -- CMD ...: one profile through the chain, and
# its wall time in OUTDIR/times.tsv.
job() {
	id=$1
	shift
	now=$(date +%s)
	if [ $((now - start)) -gt "$deadline" ]; then
		echo "== $id: skipped, past the deadline of ${deadline}s"
		return
	fi
	rm -rf "$out/$id"
	t0=$(date +%s.%N)
	kf-wrap ncu --id "$id" -o "$out" -a --clock-control -a none "$@" |
		kf-run --timeout 120 --inactivity 100 |
		kf-read | kf-collate | kf-feedback > "$out/$id.json"
	t1=$(date +%s.%N)
	kf-feedback --text < "$out/$id.json" > "$out/$id.feedback.txt"
	dt=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
	printf '%s\t%s\n' "$id" "$dt" >>"$out/times.tsv"
	echo "== $id ($dt s): $(head -c 400 "$out/$id.feedback.txt" | tr '\n' ' ')"
}

want() { [ -z "$SELECTED" ] && return 0; for w in $SELECTED; do [ "$w" = "$1" ] && return 0; done; return 1; }
SELECTED="$*"
gemm="$root/examples/torch/gemm.py"
for g in bf16 fp8 decode; do
	want "gemm-$g" && job "gemm-$g" -a --profile-from-start -a off -- python3 "$gemm" "$g"
done
for k in local fp64 barrier bank strided atomic diverge small; do
	want "$k" && job "$k" -- "$defects" "$k"
	want "${k}_fix" && job "${k}_fix" -- "$defects" "${k}_fix"
done
for g in fp32 tf32; do
	want "gemm-$g" && job "gemm-$g" -a --profile-from-start -a off -- python3 "$gemm" "$g"
done
if want cost-bf16; then
	# The same profile without kf's extra metrics: an empty table in a data
	# folder searched first.
	mkdir -p "$out/nometrics"
	: >"$out/nometrics/ncu_metrics.txt"
	(KF_DATADIR="$out/nometrics"; export KF_DATADIR
	job cost-bf16 -a --profile-from-start -a off -- python3 "$gemm" bf16)
fi
exit 0
