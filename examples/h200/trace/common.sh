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
