#!/bin/bash
# examples/h200/top44/measure.sh OUT: issues 44 and 46 on one H200, in at
# most BUDGET (540) seconds of wall time. Run in the root of this tree (the
# device copy, with .dev/ carried: libcjson and libcsv, as
# examples/h200/fail/build.sh wants). In order, each step under timeout,
# each skipped (and said) when the budget left is too short:
#   1. build kf here and install it into OUT/kf (examples/h200/fail/build.sh)
#   2. warm: the imports and ncu once, so no measured run pays a first start
#   3. issue 46: pipelines/sweep.mk -j3 GPUS=0 over 6 single-op problems of
#      examples/h200/sweep/ops.py (each inside cudaProfilerStart/Stop,
#      --profile-from-start off), `make times`, and one problem alone
#   4. issue 44: programs no one here wrote, each run plain, under
#      `kf --json ncu --top 3 -a --clock-control -a none`, plain again:
#      GPT-2 generation, ResNet-50 training, two worker processes, the
#      CUDA-graph MLP, a Flax CNN (JAX), a timm/torchvision model built
#      from its config, a Triton kernel tuned by triton.autotune, a
#      single op inside its own profiler range; ResNet-18 under
#      cudnn.benchmark (4 steps, and 1), an MLP under PyTorch's TunableOp
#      (and "oracle": both under PyTorch's profiler, first step and rest)
#   5. the manual way on GPT-2, side by side with kf: PyTorch's profiler to
#      rank (manual_rank.py), then ncu -k regex:^(A|B|C)$ -c 3 with kf's
#      sections and metrics, then its details page exported
#   6. the sweep again with GATE=1 (ncu's attach started before the GPU is
#      free, gated at its connection: lib/ncu/gate), and with RANGE=1 (the
#      GPU held shared until each program's profiler range starts)
#   7. the replay passes of each of kf's sections alone on one kernel
# and prints the tables last (summary.txt), each saying what its columns
# are. Leaves in OUT: measure.log (all it printed), summary.txt, and
# runs.tar.gz (records, texts, ncu_timings.json, ncu_detailed.json,
# ncu_top.json, the sweep's outputs; no .ncu-rep).
#
# MEASURE_STEPS (names, e.g. "warm graph_mlp op_range resnet50") runs only those of
# steps 2-7 (sweep, sweep_alone, manual, sweep_gate, sweep_range, passes and
# each program's name), in the order above.
#
# Test without a GPU: MEASURE_DRY=1 replaces the programs by
# examples/h200/top44/dry-program and ncu by tests/fake/ncu, with this
# tree's build (make) instead of OUT/kf:
#   make && MEASURE_DRY=1 bash examples/h200/top44/measure.sh /tmp/m44
set -u
export LC_ALL=C
T0=$(date +%s)
BUDGET=${BUDGET:-540}
out=${1:?usage: measure.sh OUT}
mkdir -p "$out"
out=$(cd "$out" && pwd)
top=$(pwd)
here=$top/examples/h200/top44
exec > >(tee "$out/measure.log") 2>&1
runs=$out/runs
mkdir -p "$runs"
: >"$out/times.tsv"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
# a detailed run that hangs costs a minute, not twice the timing run plus 2
export KF_NCU_DETAIL_TIMEOUT=${KF_NCU_DETAIL_TIMEOUT:-60}

SKIP_LOG=$out/times.tsv
. examples/h200/top44/common.sh

# timed NAME KIND LIMIT CMD...: CMD's output into runs/NAME.out, a line
# "NAME KIND STATUS WALL" in times.tsv and on the terminal.
timed() {
	local name=$1 kind=$2 lim=$3 s e rc
	shift 3
	s=$(date +%s.%N)
	timeout -k 5 "$lim" "$@" >"$runs/$name.out" 2>&1
	rc=$?
	e=$(date +%s.%N)
	awk -v n="$name" -v k="$kind" -v s="$s" -v e="$e" -v rc="$rc" \
		'BEGIN { printf "%s %s %d %.2f\n", n, k, rc, e - s }' | tee -a "$out/times.tsv"
	[ "$rc" -eq 0 ] || tail -n 3 "$runs/$name.out" | cut -c1-300
	return 0
}

# kfrun NAME LIMIT CMD...: `kf --json ncu --top 3` of CMD, its folders in
# runs/NAME.
kfrun() {
	local name=$1 lim=$2
	shift 2
	timed "$name" kf "$lim" kf --json ncu --top 3 $KF_TOOL -a --clock-control -a none \
		-o "$runs/$name" -- "$@"
}

# want NAME: NAME is one of MEASURE_STEPS, or it is unset (the programs read
# STEPS themselves).
want() {
	case " ${MEASURE_STEPS:-$1} " in *" $1 "*) return 0 ;; esac
	return 1
}

# program NAME NEED LIMIT CMD...: plain, kf, plain.
program() {
	local name=$1 need=$2 lim=$3
	shift 3
	want "$name" && step "$name" "$need" || return 0
	timed "${name}_plain_1" plain "$lim" "$@"
	kfrun "${name}_kf" $((lim * 2)) "$@"
	[ "$(left)" -gt $((lim / 2)) ] && timed "${name}_plain_2" plain "$lim" "$@"
	return 0
}

# 1. build
if [ -n "${MEASURE_DRY:-}" ]; then
	kf=$top
	py=$here/dry-program
	export PATH=$top/bin:$PATH KF_LIBEXECDIR=$top/libexec/kf KF_DATADIR=$top/share/kf
	export KF_TRACE_LIB=/nonexistent FAKE_NCU_TIMING=$top/tests/fixtures/ncu-h200/detailed-multi.csv \
		FAKE_NCU_CSV=$top/tests/fixtures/ncu-h200/detailed-multi.csv
	KF_TOOL="--tool $top/tests/fake/ncu"
	ncu=$top/tests/fake/ncu
	pipes=$top/pipelines
else
	kf=$out/kf
	py=python3
	KF_TOOL=
	export PATH=$PATH:/usr/local/cuda/bin
	step build 60 || exit 1
	s=$(date +%s)
	bash examples/h200/fail/build.sh "$kf" || { echo "build failed"; exit 1; }
	echo "build $(($(date +%s) - s)) s"
	export PATH=$kf/bin:$PATH
	ncu=$(command -v ncu) || { echo "measure.sh: no ncu" >&2; exit 2; }
	pipes=$kf/share/kf/pipelines
	"$ncu" --version | tail -1
	nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
	$py -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'
	$py -c 'import jax; print("jax", jax.__version__)' 2>&1 | tail -1
	$py -c 'import timm; print("timm", timm.__version__)' 2>&1 | tail -1
	ls -l "$kf/libexec/kf/"
fi

p=$top/examples

# 2. warm
if want warm && step warm 40; then
	timed warm_py warm 60 $py -c 'import torch, transformers, torchvision; torch.zeros(1).cuda(); print("warm")'
	timed warm_ncu warm 60 "$ncu" --clock-control none --metrics gpu__time_duration.sum $py -c 'import torch; print(torch.ones(4, device="cuda").sum().item())'
fi

# 3. issue 46: the sweep (first: short, and its own issue)
ops="gelu softmax layernorm gemm_bf16 conv2d_bf16 sdpa"
if want sweep && step sweep 70; then
	for op in $ops; do
		jq -cn --arg op "$op" --arg py "$p/h200/sweep/ops.py" --arg exe "$py" \
			'{id: $op, cmd: [$exe, $py, $op], language: "cuda", arch: "H200", profiler: "ncu",
			  profiler_args: ["--profile-from-start", "off", "--clock-control", "none"]}'
	done >"$out/jobs.jsonl"
	mk=(make -s -f "$pipes/sweep.mk" GPUS=0 LOCKDIR="$out/locks" KF="$(dirname "$(command -v kf)")"
		RUN_FLAGS="--timeout 120" WRAP_FLAGS="$KF_TOOL")
	timed sweep sweep 150 "${mk[@]}" JOBS="$out/jobs.jsonl" OUT="$runs/sweep" -j3
	"${mk[@]}" JOBS="$out/jobs.jsonl" OUT="$runs/sweep" times >/dev/null 2>&1
	if want sweep_alone && step sweep_alone 20; then
		grep '"id":"softmax"' "$out/jobs.jsonl" >"$out/alone.jsonl"
		timed sweep_alone alone 60 "${mk[@]}" JOBS="$out/alone.jsonl" OUT="$runs/alone"
	fi
fi

# 4. issue 44, the cheapest first
program graph_mlp 45 60 $py "$p/h200/trace/graph_mlp.py"
program op_range 40 60 $py "$p/h200/sweep/ops.py" softmax
program triton 50 90 $py "$here/triton_autotune.py"
program resnet50 60 90 $py "$p/top/resnet50_train.py"
program two_procs 60 90 $py "$p/top/two_procs.py"
program tv_model 60 90 $py "$here/tv_model.py"
program gpt2 70 90 $py "$p/top/gpt2.py"
program flax 70 120 $py "$p/top/flax_cnn.py"
# libraries that time candidates themselves, with no cache flush between
# them: cudnn.benchmark (each candidate twice), PyTorch's TunableOp
program cudnn4 60 90 env STEPS=4 $py "$p/top/cudnn_bench.py"
program cudnn1 50 90 env STEPS=1 $py "$p/top/cudnn_bench.py"
program tunableop 60 120 $py "$p/top/tunableop.py"
# their steady state by PyTorch's profiler: the first step, then the others
if want oracle && step oracle 40; then
	timed cudnn_oracle oracle 90 env ORACLE=1 STEPS=4 $py "$p/top/cudnn_bench.py"
	timed tunableop_oracle oracle 120 env ORACLE=1 $py "$p/top/tunableop.py"
fi

# 5. the manual way on GPT-2: rank with PyTorch's profiler, then ncu on
# the names (function names, as a user types them), then its details page
if want manual && step manual 60; then
	MANUAL_OUT=$runs/manual_names.txt timed manual_rank manual 120 $py "$here/manual_rank.py" "$p/top/gpt2.py"
	re=$(awk '{ n = $0; gsub(/\(anonymous namespace\)::/, "", n); sub(/^void /, "", n); sub(/[(<].*/, "", n)
		sub(/.*::/, "", n); gsub(/[][\\^$.|?*+(){}]/, "\\\\&", n)
		printf "%s%s", (NR > 1 ? "|" : ""), n }' "$runs/manual_names.txt" 2>/dev/null)
	secs=$(grep -v '^#' "$kf/share/kf/ncu_sections.txt" | grep . | sed 's/^/--section /' | paste -sd' ')
	mets=$(grep -v '^#' "$kf/share/kf/ncu_metrics.txt" | grep . | paste -sd, -)
	echo "manual regex: ^($re)\$"
	# shellcheck disable=SC2086
	timed manual_ncu manual 180 "$ncu" -k "regex:^($re)\$" -c 3 --clock-control none $secs --metrics "$mets" \
		--import-source yes -f -o "$runs/manual" $py "$p/top/gpt2.py"
	timed manual_export manual 60 "$ncu" -i "$runs/manual.ncu-rep" --page details --csv
fi

# 6. the same sweep with GATE=1: each job's ncu attach starts beside
# another's profiling and takes the GPU at its connection to the program
if [ -f "$out/jobs.jsonl" ] && want sweep_gate && step sweep_gate 60; then
	timed sweep_gate sweep 150 "${mk[@]}" JOBS="$out/jobs.jsonl" OUT="$runs/sweep_gate" -j3 GATE=1
	"${mk[@]}" JOBS="$out/jobs.jsonl" OUT="$runs/sweep_gate" GATE=1 times >/dev/null 2>&1
fi
# and with RANGE=1: the GPU held shared by the programs' work before their
# ranges, alone from each range's start (the jobs profile their own range)
if [ -f "$out/jobs.jsonl" ] && want sweep_range && step sweep_range 60; then
	timed sweep_range sweep 150 "${mk[@]}" JOBS="$out/jobs.jsonl" OUT="$runs/sweep_range" -j3 RANGE=1
	"${mk[@]}" JOBS="$out/jobs.jsonl" OUT="$runs/sweep_range" RANGE=1 times >/dev/null 2>&1
fi

# 7. the replay passes of each section alone, on the bf16 GEMM's kernel
if want passes && step passes 45; then
	for sec in $(grep -v '^#' "$kf/share/kf/ncu_sections.txt" | grep .) METRICS; do
		[ "$(left)" -gt 10 ] || break
		if [ "$sec" = METRICS ]; then a=(--metrics "$(grep -v '^#' "$kf/share/kf/ncu_metrics.txt" | grep . | paste -sd, -)")
		else a=(--section "$sec"); fi
		s=$(date +%s.%N)
		n=$(timeout 30 "$ncu" --profile-from-start off --clock-control none -c 1 "${a[@]}" $py "$p/h200/sweep/ops.py" gemm_bf16 2>&1 |
			grep -o -- '- [0-9]* pass' | grep -o '[0-9]*' | head -1)
		echo "PASSES $sec ${n:-?} $(awk -v s="$s" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }')" | tee -a "$out/times.tsv"
	done
fi

# the tables
python3 "$here/summarize.py" "$out" | tee "$out/summary.txt"

# what comes back: measure.log, summary.txt, runs.tar.gz (at most 15 MB:
# without reports, and without the timing CSVs and traces if too large)
(cd "$out" && find runs -name '*.ncu-rep' -delete 2>/dev/null
 cp times.tsv jobs.jsonl runs/ 2>/dev/null
 tar czf runs.tar.gz runs
 if [ "$(stat -c %s runs.tar.gz)" -gt 15000000 ]; then
	find runs \( -name 'ncu_timing*.csv' -o -name '*.kft' -o -name 'ncu_raw.csv' -o -name 'ncu_source.csv' \) -delete
	tar czf runs.tar.gz runs
 fi
 rm -rf runs kf locks times.tsv jobs.jsonl alone.jsonl)
ls -la "$out"
echo "measure.sh: $(($(date +%s) - T0)) s"
