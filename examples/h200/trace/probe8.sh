#!/bin/bash
# ncu --mode launch / --mode attach on a port of kf's own: when is the
# target attachable, what a taken port does, two at once, two processes,
# and the overlap of the tracer's run with the detailed run's start.
# usage: probe8.sh KF_PREFIX OUT   (the sixth call; its output in probe8.log)
kf=$1 out=$2

here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
exec > >(tee -a "$out/probe8.log") 2>&1
now() { date +%s.%N; }
el() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
# listeners PORT: "pid" of each process with a LISTEN socket on PORT
listeners() {
	local hex=$(printf '%04X' "$1") inodes
	inodes=$(awk -v h=":$hex" '$4 == "0A" && substr($2, length($2) - 4) == h { print $10 }' /proc/net/tcp /proc/net/tcp6)
	[ -n "$inodes" ] || return 1
	for i in $inodes; do
		for f in /proc/[0-9]*/fd/*; do
			[ "$(readlink "$f" 2>/dev/null)" = "socket:[$i]" ] && { p=${f#/proc/}; echo -n "${p%%/*}($(tr '\0' ' ' < /proc/${p%%/*}/cmdline | cut -c1-40)) "; }
		done
	done
	echo
}
prog=(python3 -c 'import os, sys, time; print("start", os.getpid(), time.time(), flush=True); import torch; print("imported", time.time(), flush=True); a = torch.ones(1 << 20, device="cuda"); print("cuda", time.time(), flush=True); b = (a * 2).sum(); c = a.cumsum(0); torch.cuda.synchronize(); print("done", float(b), time.time(), flush=True)')

echo "== A: when the target listens"
s=$(now)
timeout -k 2 60 ncu --mode launch --port 50300 --max-connections 1 "${prog[@]}" >"$out/a.launch" 2>&1 &
lp=$!
w=''; l=''
for i in $(seq 1 300); do
	[ -z "$w" ] && grep -q Waiting "$out/a.launch" && w=$(el "$s") && echo "waiting line at $w"
	if [ -z "$l" ] && who=$(listeners 50300); then l=$(el "$s"); echo "listening at $l: $who"; break; fi
	sleep 0.05
done
cat "$out/a.launch"
nvidia-smi --query-compute-apps=pid,used_memory --format=csv
sleep 1
a0=$(now)
timeout -k 2 60 ncu --mode attach --hostname 127.0.0.1 --port 50300 --max-connections 1 -o "$out/a" -f --import-source yes --clock-control none --section SpeedOfLight -k regex:reduce --launch-count 1 --kill yes >"$out/a.attach" 2>&1
echo "attach status $? in $(el "$a0") s"
wait $lp; echo "launcher status $? at $(el "$s")"
cat "$out/a.attach"; echo ---; cat "$out/a.launch"
ls -la "$out"/a.ncu-rep

echo "== B: the port is taken"
python3 -c 'import socket, time; s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("0.0.0.0", 50310)); s.listen(); time.sleep(40)' &
hp=$!
sleep 1
s=$(now)
timeout -k 2 30 ncu --mode launch --port 50310 --max-connections 1 "${prog[@]}" >"$out/b.launch" 2>&1
echo "launch on a taken port: status $? in $(el "$s") s"
cat "$out/b.launch"
kill $hp

echo "== C: two at once"
timeout -k 2 60 ncu --mode launch --port 50320 --max-connections 1 "${prog[@]}" >"$out/c1.launch" 2>&1 &
p1=$!
timeout -k 2 60 ncu --mode launch --port 50330 --max-connections 1 "${prog[@]}" >"$out/c2.launch" 2>&1 &
p2=$!
for i in $(seq 1 200); do listeners 50320 >/dev/null && listeners 50330 >/dev/null && break; sleep 0.1; done
echo "50320: $(listeners 50320)  50330: $(listeners 50330)"
timeout -k 2 60 ncu --mode attach --hostname 127.0.0.1 --port 50330 --max-connections 1 -o "$out/c2" -f --section SpeedOfLight --clock-control none >"$out/c2.attach" 2>&1; echo "c2 attach $?"
timeout -k 2 60 ncu --mode attach --hostname 127.0.0.1 --port 50320 --max-connections 1 -o "$out/c1" -f --section SpeedOfLight --clock-control none >"$out/c1.attach" 2>&1; echo "c1 attach $?"
wait $p1 $p2
for c in c1 c2; do echo "$c: program $(grep -m1 start "$out/$c.launch"); report pids: $(ncu -i "$out/$c.ncu-rep" --page details --csv 2>&1 | awk -F'","' 'NR > 1 { print $2 }' | sort -u | tr '\n' ' ')"; done

echo "== D: two worker processes, one port"
s=$(now)
timeout -k 2 45 ncu --mode launch --port 50340 --max-connections 1 python3 "$here/two_procs.py" >"$out/d.launch" 2>&1 &
dp=$!
sleep 12
echo "at $(el "$s"): listening $(listeners 50340 || echo none)"
ps -eo pid,ppid,stat,etime,args | grep -e two_procs -e multiprocessing | grep -v grep | cut -c1-150
nvidia-smi --query-compute-apps=pid,used_memory --format=csv
timeout -k 2 30 ncu --mode attach --hostname 127.0.0.1 --port 50340 --max-connections 1 -o "$out/d" -f --section SpeedOfLight --clock-control none >"$out/d.attach" 2>&1; echo "d attach $? at $(el "$s")"
sleep 3; echo "after attach: listening $(listeners 50340 || echo none)"
ps -eo pid,ppid,stat,etime,args | grep -e two_procs -e multiprocessing | grep -v grep | cut -c1-150
wait $dp; echo "launcher $? at $(el "$s")"
cat "$out/d.launch" "$out/d.attach" | head -30
pkill -f two_procs.py

echo "== E: overlap on ResNet-50"
rn=("$py" "$here/resnet50_train.py" 3)
timed plain1 120 "${rn[@]}"
traced alone 120 "${rn[@]}"
s=$(now)
timeout -k 2 200 ncu --mode launch --port 50350 --max-connections 1 "${rn[@]}" >"$out/e.launch" 2>&1 &
ep=$!
traced overlapped 120 "${rn[@]}"
echo "traced run ended at $(el "$s")"
mapfile -t sel < <(kf-read --profiler trace --select 3 "$runs/overlapped.trace")
printf 'sel: %s\n' "${sel[@]}"
for i in $(seq 1 600); do listeners 50350 >/dev/null && break; kill -0 $ep || break; sleep 0.05; done
echo "listening at $(el "$s")"
a0=$(now)
timeout -k 2 120 ncu --mode attach --hostname 127.0.0.1 --port 50350 --max-connections 1 -o "$out/e" -f --import-source yes --clock-control none "${sel[@]}" >"$out/e.attach" 2>&1
echo "attach status $? in $(el "$a0") s, at $(el "$s")"
wait $ep; echo "launcher $? at $(el "$s")"
tail -n 5 "$out/e.attach" "$out/e.launch"
kf-read --profiler trace --select 5 "$runs/alone.trace" >/dev/null
kf-read --profiler trace --select 5 "$runs/overlapped.trace" >/dev/null
timed plain2 120 "${rn[@]}"

echo "== F: ncu timing of GPT-2 with the caches left alone"
g2=("$py" "$here/gpt2_generate.py" 8)
timed g2_ncu_nocache 200 ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum -o "$out/g2nc" -f "${g2[@]}"
ncu -i "$out/g2nc.ncu-rep" --page details --csv --print-units base > "$out/g2_ncu_nocache.csv"
gzip -f "$out/g2_ncu_nocache.csv"
find "$out" -name "*.ncu-rep" -size +20M -delete
