#!/bin/bash
# Issue 34, first call: why ncu's detailed run fails where the program's
# own run is clean. The CUDA-graph MLP under `kf ncu --top 3` (its detailed
# run held by ncu --mode launch, then attached to), then by hand: ncu's
# launch and attach with no filter, with kf's filters and --kill, with
# them and no --kill. The Flax CNN with XLA's command buffers off (held,
# then after the timing run). Wall seconds, logs under OUT.
# usage: probe1.sh KF_PREFIX OUT
kf=$1 out=$2
here=$(cd "$(dirname "$0")/../trace" && pwd)
. "$here/common.sh"
exec > >(tee -a "$out/probe1.log") 2>&1
g=("$py" "$here/graph_mlp.py")
f=("$py" "$(cd "$here/../../top" && pwd)/flax_cnn.py")
show() { # DIR: what kf-ncu left
	local d
	d=$(ls -d "$1"/*/ncu.000 2>/dev/null | head -1)
	echo "--- $1: $d"; ls "$d" 2>/dev/null | tr '\n' ' '; echo
	cat "$d/ncu_detailed.json" 2>/dev/null
	[ -f "$d/ncu_launch.log" ] && tail -5 "$d/ncu_launch.log"
	for j in "$1"/*.json "$runs/$2.out"; do [ -f "$j" ] && grep -a -o '"exit_code":[^,]*\|"ended_by":"[a-z_]*"' "$j" | sort | uniq -c; done
	grep -a -E '==ERROR==|==WARNING==|kf-ncu:|Segmentation|Error|error' "$runs/$2.out" | sort | uniq -c | head -20
}
warm
timed graph_plain_1 60 "${g[@]}"
timed graph_kf_1 200 kf ncu --top 3 -a --clock-control -a none -o "$runs/graph_kf_1" --json -- "${g[@]}"
show "$runs/graph_kf_1" graph_kf_1
d=$(ls -d "$runs"/graph_kf_1/*/ncu.000 | head -1)
mapfile -t sel < <(python3 -c 'import json,sys; [print(a) for a in json.load(open(sys.argv[1]))["filter"]]' "$d/ncu_top.json")
echo "filters: ${sel[*]}"
for v in nofilter kill nokill; do
	case $v in
	nofilter) extra=() ;;
	kill) extra=("${sel[@]}") ;;
	nokill) extra=(); for a in "${sel[@]}"; do [ "$a" = yes ] && [ "${extra[-1]}" = --kill ] && { unset 'extra[-1]'; continue; }; extra+=("$a"); done ;;
	esac
	p=$((51000 + RANDOM % 2000 * 2))
	ncu --mode launch --port $p --max-connections 2 "${g[@]}" >"$runs/held_$v.out" 2>&1 &
	h=$!
	sleep 6
	timed "attach_$v" 120 ncu --mode attach --hostname 127.0.0.1 --port $p --max-connections 2 \
		--clock-control none -o "$runs/att_$v" -f "${extra[@]}"
	wait $h; echo "held program status: $?"
	tail -4 "$runs/held_$v.out"
	ls -l "$runs/att_$v.ncu-rep" 2>/dev/null
done
timed graph_seq_1 200 env KF_NCU_OVERLAP=0 kf ncu --top 3 -a --clock-control -a none -o "$runs/graph_seq_1" --json -- "${g[@]}"
show "$runs/graph_seq_1" graph_seq_1
timed flax_plain_1 100 "${f[@]}"
export XLA_FLAGS=--xla_gpu_enable_command_buffer= KF_NCU_DETAIL_TIMEOUT=100
timed flax_kfcb_1 200 kf ncu --top 3 -a --clock-control -a none -o "$runs/flax_kfcb_1" --json -- "${f[@]}"
show "$runs/flax_kfcb_1" flax_kfcb_1
timed flax_seqcb_1 200 env KF_NCU_OVERLAP=0 kf ncu --top 3 -a --clock-control -a none -o "$runs/flax_seqcb_1" --json -- "${f[@]}"
show "$runs/flax_seqcb_1" flax_seqcb_1
unset XLA_FLAGS
timed flax_plain_2 100 "${f[@]}"
grep TIME "$out/probe1.log"
pack
