#!/bin/bash
# ncu --mode launch, then --mode attach, with a port of its own and with the
# default range: which attaches? (the fourth call; output in probe6.log)
# usage: probe6.sh OUT
out=$1
ncu --help | grep -B1 -A6 -e '--mode\b\|--hostname\|--max-connections\|--port' | head -60
prog=(python3 -c 'import time, torch; print("imp", flush=True); a = torch.ones(1 << 20, device="cuda"); b = a * 2; torch.cuda.synchronize(); print("done", float(b.sum()))')
try() {
	local name=$1 port=$2; shift 2
	timeout -k 2 35 ncu --mode launch --port "$port" --max-connections 1 "${prog[@]}" >"$out/$name.launch" 2>&1 &
	local lp=$! s=$(date +%s.%N)
	for i in $(seq 1 40); do grep -q Waiting "$out/$name.launch" && break; sleep 0.25; done
	local w=$(date +%s.%N)
	timeout -k 2 25 ncu --mode attach "$@" --port "$port" --max-connections 1 -o "$out/$name" -f --section SpeedOfLight >"$out/$name.attach" 2>&1
	local st=$? e=$(date +%s.%N)
	timeout 20 tail --pid=$lp -f /dev/null; wait $lp
	echo "$name: attach status $st, waited $(awk -v a=$s -v b=$w 'BEGIN{print b-a}') s for the launch, attach took $(awk -v a=$w -v b=$e 'BEGIN{print b-a}') s, launcher $?"
	tail -n 4 "$out/$name.launch" "$out/$name.attach" | cut -c1-200
}
try nohost 50200
try localhost 50210 --hostname localhost
try ip 50220 --hostname "$(hostname -i | awk '{print $1}')"
timeout -k 2 35 ncu --mode launch "${prog[@]}" >"$out/def.launch" 2>&1 &
sleep 6; ss -ltnup 2>/dev/null | grep -i -e ncu -e python | head; timeout -k 2 25 ncu --mode attach --hostname 127.0.0.1 -o "$out/def" -f --section SpeedOfLight > "$out/def.attach" 2>&1; echo "default ports: attach status $?"; wait; tail -n 4 "$out/def.launch" "$out/def.attach"
ss -ltnp 2>/dev/null | head -5
