#!/bin/bash
# Issue 34, third call: what ncu does with the two programs kf does not yet
# detail within 2.5x of their plain runs.
#  - Flax CNN: XLA's autotuning results dumped by a run of its own
#    (--xla_gpu_dump_autotune_results_to) and loaded by the runs under ncu
#    (--xla_gpu_load_autotune_results_from): the same convolutions, no
#    autotuning under ncu. `kf ncu --top 3` with the file loaded by both
#    runs, then ncu --mode launch / attach by hand with it.
#  - two worker processes: ncu --mode launch --target-processes all, which
#    ports listen as the workers reach CUDA, and one ncu --mode attach a
#    port, side by side.
# usage: probe3.sh KF_PREFIX OUT
kf=$1 out=$2
here=$(cd "$(dirname "$0")/../trace" && pwd)
top=$(cd "$here/../../top" && pwd)
. "$here/common.sh"
exec > >(tee -a "$out/probe3.log") 2>&1
f=("$py" "$top/flax_cnn.py")
t=("$py" "$top/two_procs.py")
at=$out/flax_autotune.txt
listening() { # LO HI: ports listening in LO..HI
	cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk -v lo="$1" -v hi="$2" '
	function hex(s, i, n) { n = 0; s = toupper(s); for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789ABCDEF", substr(s, i, 1)) - 1; return n }
	$1 ~ /^[0-9]+:$/ && $4 == "0A" { k = split($2, a, ":"); p = hex(a[k]); if (p >= lo && p <= hi) print p }' | sort -u | paste -sd' '
}
warm
timed flax_plain_1 100 "${f[@]}"
timed flax_dump 100 env XLA_FLAGS="--xla_gpu_dump_autotune_results_to=$at" "${f[@]}"
ls -l "$at"; head -c 600 "$at"; echo
timed flax_load 100 env XLA_FLAGS="--xla_gpu_load_autotune_results_from=$at" "${f[@]}"
# kf as it is, both runs loading the file: the detailed run after the
# timing run with command buffers off (not autotuning off)
timed flax_kf_load 200 env XLA_FLAGS="--xla_gpu_load_autotune_results_from=$at" \
	KF_NCU_XLA_FLAGS=--xla_gpu_enable_command_buffer= \
	kf ncu --top 3 -a --clock-control -a none -o "$runs/flax_kf_load" --json -- "${f[@]}"
d=$(ls -d "$runs"/flax_kf_load/*/ncu.000 | head -1)
cat "$d/ncu_detailed.json"; echo
grep -a -o '"name":"[^"]*"' "$d/ncu_top.json" | head -5
grep -a -E '==ERROR==|==WARNING==|kf-ncu:' "$runs/flax_kf_load.out" | sort | uniq -c | head
mapfile -t sel < <(python3 -c 'import json,sys; [print(a) for a in json.load(open(sys.argv[1]))["filter"]]' "$d/ncu_top.json")
echo "filters: ${sel[*]}"
# held by hand with the file: launch, wait for the port, attach
p=$((51000 + RANDOM % 2000 * 2))
s=$(date +%s.%N)
XLA_FLAGS="--xla_gpu_load_autotune_results_from=$at --xla_gpu_enable_command_buffer=" \
	ncu --mode launch --port $p --max-connections 2 "${f[@]}" >"$runs/flax_held.out" 2>&1 &
h=$!
for i in $(seq 1 300); do [ -n "$(listening $p $((p + 1)))" ] && break; sleep 0.1; done
awk -v s="$s" -v e="$(date +%s.%N)" 'BEGIN { printf "flax held: listening after %.2f s\n", e - s }'
timed flax_attach 150 ncu --mode attach --hostname 127.0.0.1 --port $p --max-connections 2 \
	--clock-control none -o "$runs/flax_att" -f --import-source yes "${sel[@]}"
wait $h; echo "flax held program status: $?"
tail -5 "$runs/flax_held.out"
ls -l "$runs/flax_att.ncu-rep" 2>/dev/null && ncu -i "$runs/flax_att.ncu-rep" --page details --csv 2>/dev/null | cut -d, -f5 | sort | uniq -c | head
awk -v s="$s" -v e="$(date +%s.%N)" 'BEGIN { printf "flax held: launch to end %.2f s\n", e - s }'
timed flax_plain_2 100 "${f[@]}"

# two processes: which ports listen, as they do
timed two_plain_1 100 "${t[@]}"
p=$((53000 + RANDOM % 1000 * 8))
s=$(date +%s.%N)
ncu --mode launch --target-processes all --port $p --max-connections 8 "${t[@]}" >"$runs/two_held.out" 2>&1 &
h=$!
last=''
for i in $(seq 1 300); do
	l=$(listening $p $((p + 7)))
	if [ "$l" != "$last" ]; then
		awk -v s="$s" -v e="$(date +%s.%N)" -v l="$l" 'BEGIN { printf "two held: +%.2f s listening: %s\n", e - s, l }'
		last=$l
	fi
	[ "$(echo "$l" | wc -w)" -ge 2 ] && break
	sleep 0.1
done
sleep 1
l=$(listening $p $((p + 7)))
echo "two held: listening now: $l"
# one attach a port, side by side, each limited to 3 launches of the matrix product
pids=()
for q in $l; do
	timed "two_attach_$q" 100 ncu --mode attach --hostname 127.0.0.1 --port "$q" --max-connections 2 \
		--clock-control none -o "$runs/two_att_$q" -f --import-source yes \
		--launch-count 3 --kill yes &
	pids+=($!)
done
for x in "${pids[@]}"; do wait "$x"; done
wait $h; echo "two held program status: $?"
awk -v s="$s" -v e="$(date +%s.%N)" 'BEGIN { printf "two held: launch to end %.2f s\n", e - s }'
tail -8 "$runs/two_held.out"
for q in $l; do
	ls -l "$runs/two_att_$q.ncu-rep" 2>/dev/null &&
		ncu -i "$runs/two_att_$q.ncu-rep" --page details --csv 2>/dev/null | cut -d, -f2-5 | sort -u | head -5
done
# one attach for both ports
p=$((53000 + RANDOM % 1000 * 8))
s=$(date +%s.%N)
ncu --mode launch --target-processes all --port $p --max-connections 8 "${t[@]}" >"$runs/two_held2.out" 2>&1 &
h=$!
for i in $(seq 1 300); do [ "$(listening $p $((p + 7)) | wc -w)" -ge 2 ] && break; sleep 0.1; done
timed two_attach_one 100 ncu --mode attach --hostname 127.0.0.1 --port $p --max-connections 8 \
	--clock-control none -o "$runs/two_att_one" -f --launch-count 6
wait $h; echo "two held2 program status: $?"
awk -v s="$s" -v e="$(date +%s.%N)" 'BEGIN { printf "two held2: launch to end %.2f s\n", e - s }'
tail -4 "$runs/two_held2.out"
ls -l "$runs/two_att_one.ncu-rep" 2>/dev/null &&
	ncu -i "$runs/two_att_one.ncu-rep" --page details --csv 2>/dev/null | cut -d, -f2-5 | sort -u | head -8
timed two_plain_2 100 "${t[@]}"
grep TIME "$out/probe3.log"
pack
