#!/bin/bash
# examples/h200/newcomer/try.sh OUT: issue 45's first hour on the H200, as the
# README's "Getting started" says it, on a program of the user's own (a
# small PyTorch model written here, not one of kf's): build, bin/ on PATH,
# kf trace, kf ncu --top 3, kf reread, the live output, and the commands that
# cannot start (a profiler not installed, a program not there). Each step's
# status, wall seconds, stdout and stderr go to OUT/STEP.{out,err}, and a
# line per step to OUT/steps.tsv; OUT/live.tsv has the seconds at which each
# of the program's own lines reached kf's stderr.
set -u
out=${1:?usage: try.sh OUT}
mkdir -p "$out"
out=$(cd "$out" && pwd)
top=$(pwd)
bash examples/h200/fail/build.sh >"$out/build.log" 2>&1 || { tail "$out/build.log"; exit 1; }
export PATH=$top/bin:$PATH:/usr/local/cuda/bin
work=$(mktemp -d)
cd "$work" || exit 1
cat >train.py <<'P'
# a user's program: a small conv net's forward and backward, FP32, with a
# line of progress a second
import sys, time, torch, torch.nn as nn
net = nn.Sequential(nn.Conv2d(3, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
                    nn.Conv2d(64, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
                    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10)).cuda()
x = torch.randn(64, 3, 64, 64, device="cuda")
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for step in range(4):
    for _ in range(5):
        opt.zero_grad()
        net(x).sum().backward()
        opt.step()
    torch.cuda.synchronize()
    print(f"step {step} done", flush=True)
    time.sleep(1)
P
# seconds from A to B (now), two decimals
since() { awk -v a="$1" -v b="${2:-$(date +%s.%N)}" 'BEGIN { printf "%.2f", b - a }'; }
: >"$out/steps.tsv"
step() {
	local name=$1 s e rc
	shift
	s=$(date +%s.%N)
	timeout -k 5 120 "$@" >"$out/$name.out" 2>"$out/$name.err"
	rc=$?
	e=$(date +%s.%N)
	printf '%s\t%s\t%s\t%s\n' "$name" "$rc" "$(since "$s" "$e")" "$*" | tee -a "$out/steps.tsv"
}
step trace kf trace -- python3 train.py
step ncu_top kf ncu --top 3 --clock-control none -- python3 train.py
step reread kf reread kf-out/python3
step reread_json kf --json reread kf-out/python3
step no_unitrace kf unitrace -- true
step no_program kf ncu -- ./no-such-program
step no_program_trace kf trace -- /nonexistent/prog
step ncu_usage kf ncu
# the program's lines as they reach kf's stderr
s=$(date +%s.%N)
kf trace -o live -- python3 train.py 2>&1 >/dev/null | while IFS= read -r l; do
	printf '%s\t%s\n' "$(since "$s")" "$l"
done >"$out/live.tsv"
printf 'live\t-\t%s\t%s\n' "$(since "$s")" "kf trace -o live -- python3 train.py" | tee -a "$out/steps.tsv"
ls -R kf-out live >"$out/tree.txt" 2>&1
tar czf "$out/kf-out.tar.gz" --exclude='*.ncu-rep' kf-out live
