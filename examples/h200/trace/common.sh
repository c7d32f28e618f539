# Sourced by bench2.sh to bench5.sh: kf's programs first on PATH, the
# settings the H200 machine needs (no NVLink multicast), and the helpers
# that time a run. Before sourcing set kf (a prefix holding bin/ share/
# libexec/ lib/) and out (the output folder). After: so (the tracer),
# runs (each run's output), py.
so=$kf/libexec/kf/libkftrace.so
runs=$out/runs
py=python3
export PATH=$kf/bin:$PATH LD_LIBRARY_PATH=$kf/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
mkdir -p "$runs"

# timed NAME LIMIT CMD...: CMD under a time limit, its output in
# $runs/NAME.out; prints "TIME NAME rc=STATUS wall=SECONDS", the phases the
# program stamped (BENCH_STAMPS=1: "STAMP what epoch"), seconds from its
# start, and its last two other lines.
timed() {
	local name=$1 lim=$2 s e rc
	shift 2
	s=$(date +%s.%N)
	BENCH_RUN=$name timeout -k 5 "$lim" "$@" >"$runs/$name.out" 2>&1
	rc=$?
	e=$(date +%s.%N)
	awk -v n="$name" -v s="$s" -v e="$e" -v rc="$rc" 'BEGIN { printf "TIME %s rc=%d wall=%.2f\n", n, rc, e - s }'
	awk -v s="$s" '$1 == "STAMP" { printf "  %s +%.2f\n", $2, $3 - s }' "$runs/$name.out"
	grep -v '^STAMP' "$runs/$name.out" | tail -n 2 | cut -c1-300
}

# traced NAME LIMIT CMD...: timed, under kf's tracer, its trace in
# $runs/NAME.trace.
traced() {
	local name=$1
	shift
	mkdir -p "$runs/$name.trace"
	CUDA_INJECTION64_PATH=$so KF_TRACE_DIR=$runs/$name.trace timed "$name" "$@"
}

# kfrun NAME TOP CMD...: `kf ncu --top TOP` of CMD, timed, its records in
# $runs/NAME.
kfrun() {
	local name=$1 top=$2
	shift 2
	timed "$name" 200 kf ncu --top "$top" -a --clock-control -a none -o "$runs/$name" -- "$@"
}

# kfjson NAME CMD...: `kf --json ncu --top 3` of CMD, timed, its final
# record the output ($runs/NAME.out), its folders in $runs/NAME.
kfjson() {
	local name=$1
	shift
	timed "$name" 200 kf --json ncu --top 3 -a --clock-control -a none -o "$runs/$name" -- "$@"
}

# means LOG: the mean wall seconds of each kind of run in LOG (the TIME
# lines of runs named KIND_..._N) and each kf run's ncu_detailed.json.
means() {
	grep TIME "$1" | awk '
		{ split($2, n, "_"); sub("wall=", "", $4); k = n[1] "_" n[2]; s[k] += $4; c[k]++ }
		END { for (k in s) printf "MEAN %s %.2f over %d\n", k, s[k] / c[k], c[k] }' | sort
	for f in "$runs"/*/*/ncu.000/ncu_detailed.json; do
		[ -f "$f" ] && echo "$f: $(cat "$f")"
	done
}

# pack [PATTERN ...]: $runs into $out/runs.tar.gz, without the reports
# (*.ncu-rep) and the files named PATTERN.
pack() {
	local p
	(cd "$out" && find runs -name '*.ncu-rep' -delete &&
		for p in "$@"; do find runs -name "$p" -delete; done &&
		tar czf runs.tar.gz runs && rm -rf runs)
}

# warm: the imports and ncu once each, so that no measured run pays the
# machine's first start of them.
warm() {
	timed warmup 120 "$py" -c 'import torch, transformers, torchvision; torch.zeros(1).cuda(); print("warm")'
	timed ncu_warmup 60 ncu --clock-control none --metrics gpu__time_duration.sum "$py" -c 'import torch; print(torch.ones(4, device="cuda").sum().item())'
}

# alternate NAME N CMD...: plain and `kf ncu --top 3` runs of CMD in turn,
# N kf runs each between two plain ones (NAME_plain_1, NAME_kf_1, ...,
# NAME_plain_N+1).
alternate() {
	local name=$1 n=$2 i
	shift 2
	for i in $(seq 1 "$n"); do
		timed "${name}_plain_$i" 120 "$@"
		kfrun "${name}_kf_$i" 3 "$@"
	done
	timed "${name}_plain_$((n + 1))" 120 "$@"
}
