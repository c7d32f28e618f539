#!/bin/bash
# examples/h200/top44/reattach.sh OUT: can a program started by `ncu --mode
# launch` be attached twice: a first `ncu --mode attach` that profiles
# nothing (so the program runs its work before its profiler range under
# ncu), ended, then a second that profiles the chosen kernel? If so, a held
# program need not wait for kf's choice before its own GPU work. Each case
# prints what the program and both attaches said and which kernels the
# second report holds. Run on an H100 (ncu 2025.3.1), 2026-12-06, the SIGINT
# case: the first attach said "No kernels were profiled" and ended, the
# program went on, the second attach connected on the same port and
# profiled kb (10 passes), and the program exited 0 (its pkill patterns then
# ended the device's own command: they are narrower now).
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
# each line with the seconds since the case began (bash's clock: mawk would
# hold lines back until its buffer fills)
stamp() {
	local l n
	while IFS= read -r l; do
		n=${EPOCHREALTIME/./}
		printf '%3d.%02d %s\n' $(((n - T) / 1000000)) $(((n - T) / 10000 % 100)) "$l"
	done
}
for sig in INT TERM KILL; do
	echo "=== case: first attach ended by SIG$sig"
	T=${EPOCHREALTIME/./}
	rm -f r1.ncu-rep r2.ncu-rep
	(ncu --mode launch ./p 2>&1 | stamp | sed 's/^/launch: /') &
	L=$!
	sleep 2
	(ncu --mode attach --hostname 127.0.0.1 -k regex:^never$ -o r1 2>&1 | stamp | sed 's/^/attach1: /') &
	sleep 3
	# (patterns that match no other command line: not the caller's)
	pkill -"$sig" -f -- '--mode attach --hostname 127[.]0[.]0[.]1 -k regex:.never'
	echo "sent SIG$sig at $(((${EPOCHREALTIME/./} - T) / 10000))e-2 s"
	sleep 1
	timeout 30 ncu --mode attach --hostname 127.0.0.1 --profile-from-start off -k regex:kb -o r2 2>&1 | stamp | sed 's/^/attach2: /'
	wait "$L"
	echo "launch exit: $?"
	[ -f r2.ncu-rep ] && ncu -i r2.ncu-rep --page raw --csv --metrics gpu__time_duration.sum 2>&1 | cut -c1-200 | head -5
	pkill -KILL -x p 2>/dev/null
	sleep 1
done
