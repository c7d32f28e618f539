#!/bin/bash
# which --port/--max-connections lets --mode attach find a --mode launch target
# (the sixth call; what came back in probe9.log)
# usage: probe9.sh KF_PREFIX OUT
kf=$1 out=$2

here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
exec > >(tee -a "$out/probe9.log") 2>&1
now() { date +%s.%N; }
el() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
listening() { # LO HI: the ports in LO..HI with a LISTEN socket
	local h n
	awk '$4 == "0A" { split($2, a, ":"); print a[2] }' /proc/net/tcp /proc/net/tcp6 | sort -u | while read -r h; do
		n=$((16#$h)); [ "$n" -ge "$1" ] && [ "$n" -le "$2" ] && echo -n "$n "
	done
}
prog=(python3 -c 'import os, time; print("start", os.getpid(), flush=True); import torch; a = torch.ones(1 << 20, device="cuda"); b = (a * 2).sum(); torch.cuda.synchronize(); print("done", float(b), flush=True)')
try() { # NAME LO HI "LAUNCH OPTS" "ATTACH OPTS"
	local name=$1 lo=$2 hi=$3 s=$(now)
	setsid timeout -k 2 40 ncu --mode launch $4 "${prog[@]}" >"$out/$name.launch" 2>&1 &
	local lp=$!
	for i in $(seq 1 300); do [ -n "$(listening $lo $hi)" ] && break; sleep 0.05; done
	local at=$(el "$s") ports=$(listening $lo $hi)
	sleep 0.5
	timeout -k 2 15 ncu --mode attach --hostname 127.0.0.1 $5 -o "$out/$name" -f --section SpeedOfLight --clock-control none >"$out/$name.attach" 2>&1
	local st=$?
	echo "$name: listening at $at on $ports; attach status $st at $(el "$s"); report $(ls "$out/$name.ncu-rep" 2>/dev/null)"
	grep -h "==" "$out/$name.attach" | head -4
	timeout 10 tail --pid=$lp -f /dev/null || kill -- -$lp
	wait $lp; echo "$name: launcher $?, $(grep -c done "$out/$name.launch") done"
}
try two 50400 50401 "--port 50400 --max-connections 2" "--port 50400 --max-connections 2" &
p1=$!
try p64 50410 50473 "--port 50410" "--port 50410" &
p2=$!
try def 49152 49215 "" "" &
p3=$!
try m64 50500 50563 "--port 50500 --max-connections 64" "--port 50500 --max-connections 64" &
p4=$!
# not a bare wait: it waits for the tee above as well (bash 5.1), which hung the call
wait "$p1" "$p2" "$p3" "$p4"
try low1 49152 49152 "--port 49152 --max-connections 1" "--port 49152 --max-connections 1"
try one 50600 50600 "--port 50600 --max-connections 1" "--port 50600 --max-connections 1"
g2=("$py" "$here/gpt2_generate.py" 8)
timed g2_ncu_nocache 200 ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum -o "$out/g2nc" -f "${g2[@]}"
ncu -i "$out/g2nc.ncu-rep" --page details --csv --print-units base | gzip > "$out/g2_ncu_nocache.csv.gz"
cd "$out" && rm -f *.ncu-rep && tar czf probe9.tgz --exclude probe9.tgz . 
