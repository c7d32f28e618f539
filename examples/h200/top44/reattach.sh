#!/bin/bash
# examples/h200/top44/reattach.sh OUT: can a program started by `ncu --mode
# launch` be attached twice: a first `ncu --mode attach` that profiles
# nothing (so the program runs its work before its profiler range under
# ncu), ended, then a second that profiles the chosen kernel? If so, a held
# program need not wait for kf's choice before its own GPU work. Each case
# prints what the program and both attaches said and which kernels the
# second report holds.
set -u
out=${1:?usage: reattach.sh OUT}
mkdir -p "$out"
cd "$out" || exit 1
export PATH=$PATH:/usr/local/cuda/bin
cat >p.cu <<'CU'
#include <cstdio>
#include <unistd.h>
#include <cuda_profiler_api.h>
__global__ void ka(float *x) { x[threadIdx.x] += 1; }
__global__ void kb(float *x) { x[threadIdx.x] *= 2; }
int main() {
	float *x;
	cudaMalloc(&x, 1024 * sizeof(float));
	fprintf(stderr, "p: cuda up\n");
	for (int i = 0; i < 3; i++) ka<<<1, 256>>>(x);
	cudaDeviceSynchronize();
	fprintf(stderr, "p: before range, sleeping 6 s\n");
	sleep(6);
	cudaProfilerStart();
	kb<<<1, 256>>>(x);
	ka<<<1, 256>>>(x);
	cudaDeviceSynchronize();
	cudaProfilerStop();
	fprintf(stderr, "p: range done\n");
	return 0;
}
CU
nvcc -o p p.cu -lcuda || exit 1
ncu --version | tail -1
stamp() { awk -v T="$T" '{ c = "date +%s.%N"; c | getline n; close(c); printf "%6.2f %s\n", n - T, $0; fflush() }'; }
for sig in INT TERM KILL; do
	echo "=== case: first attach ended by SIG$sig"
	T=$(date +%s.%N)
	rm -f r1.ncu-rep r2.ncu-rep
	(ncu --mode launch ./p 2>&1 | stamp | sed 's/^/launch: /') &
	L=$!
	sleep 2
	(ncu --mode attach --hostname 127.0.0.1 -k regex:^never$ -o r1 2>&1 | stamp | sed 's/^/attach1: /') &
	sleep 3
	pkill -"$sig" -f 'ncu --mode attach' ; pkill -"$sig" -f 'ncu.*mode attach'
	sleep 1
	timeout 30 ncu --mode attach --hostname 127.0.0.1 --profile-from-start off -k regex:kb -o r2 2>&1 | stamp | sed 's/^/attach2: /'
	wait "$L"
	echo "launch exit: $?"
	[ -f r2.ncu-rep ] && ncu -i r2.ncu-rep --page raw --csv --metrics gpu__time_duration.sum 2>&1 | cut -c1-200 | head -5
	pkill -KILL -f './p' 2>/dev/null
	sleep 1
done
