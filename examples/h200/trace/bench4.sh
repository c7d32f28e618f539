#!/bin/bash
# The tracer on the H200, fourth call: where the time of `kf ncu --top 3`
# goes (every ncu call logged with its start and end, the programs' phases
# stamped), what ncu costs a program that it profiles nothing of, the
# detailed run with less collected, and the ranking of GPT-2 by three
# timings (kf's tracer, ncu's timing run, PyTorch's profiler).
# usage: bench4.sh KF_PREFIX OUT   (KF_PREFIX holds bin/ share/ libexec/ lib/)
kf=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
real_ncu=$(command -v ncu)
export BENCH_STAMPS=1
mkdir -p "$out/wrap"
exec > >(tee -a "$out/bench4.log") 2>&1

# An ncu first on PATH that logs each call: start, end, status, arguments.
cat >"$out/wrap/ncu" <<EOS
#!/bin/bash
s=\$(date +%s.%N)
"$real_ncu" "\$@"
rc=\$?
e=\$(date +%s.%N)
printf 'NCU %s %s %s rc=%d %s\n' "\${BENCH_RUN:-}" "\$s" "\$e" "\$rc" "\$*" | cut -c1-600 >>"$out/ncu_calls.log"
exit \$rc
EOS
chmod +x "$out/wrap/ncu"
export PATH=$out/wrap:$PATH

rn() { echo "$py" "$here/resnet50_train.py" 3; }
g2() { echo "$py" "$here/gpt2_generate.py" 8; }

timed warmup 120 $py -c 'import torch, transformers, torchvision; torch.zeros(1).cuda(); print("warm")'
small=(-c 'import torch; torch.zeros(1).cuda(); print("small")')
timed small_plain 60 $py "${small[@]}"
timed small_ncu_cold 90 ncu --clock-control none --metrics gpu__time_duration.sum -o "$runs/small" -f $py "${small[@]}"
timed small_ncu_warm 90 ncu --clock-control none --metrics gpu__time_duration.sum -o "$runs/small" -f $py "${small[@]}"
# Does a run with -o also write a page with --csv --page details --log-file?
timed small_ncu_page 90 ncu --clock-control none --set basic -o "$runs/small2" -f --csv --page details \
	--log-file "$runs/small_page.csv" $py "${small[@]}"
echo "page lines: $(wc -l <"$runs/small_page.csv" 2>/dev/null)"; ls -la "$runs"/small2* 2>&1

timed resnet_plain_1 120 $(rn)
traced resnet_traced_1 120 $(rn)
timed resnet_ncu_nomatch 150 ncu --clock-control none --kernel-name regex:^NOMATCH$ -o "$runs/nomatch" -f $(rn)
timed resnet_kf_1 240 kf ncu --top 3 -a --clock-control -a none -o "$runs/rk1" -- $(rn)
timed resnet_plain_2 120 $(rn)
timed resnet_kf_2 240 kf ncu --top 3 -a --clock-control -a none -o "$runs/rk2" -- $(rn)
d=$(dirname "$(find "$runs/rk2" -name ncu_top.json | head -1)")
mapfile -t filt < <($py -c 'import json,sys; print("\n".join(json.load(open(sys.argv[1]))["filter"]))' "$d/ncu_top.json")
met=$(grep -v -e "^#" -e "^$" "$kf/share/kf/ncu_metrics.txt" | paste -sd, -)
echo "filter: ${filt[*]}"
timed resnet_detail_kf 150 ncu --clock-control none -o "$runs/dk" -f --import-source yes "${filt[@]}" \
	--set detailed --metrics "$met" $(rn)
timed resnet_detail_nosrc 150 ncu --clock-control none -o "$runs/dn" -f "${filt[@]}" \
	--set detailed --metrics "$met" $(rn)
timed resnet_detail_sol 150 ncu --clock-control none -o "$runs/ds" -f "${filt[@]}" \
	--section SpeedOfLight $(rn)
timed resnet_plain_3 120 $(rn)

timed gpt2_plain_1 120 $(g2)
traced gpt2_traced_1 120 $(g2)
traced gpt2_traced_2 120 $(g2)
timed gpt2_plain_2 120 $(g2)
timed gpt2_kf_1 240 kf ncu --top 3 -a --clock-control -a none -o "$runs/gk1" -- $(g2)
timed gpt2_kineto 120 $py "$here/kineto_kernels.py" "$out/gpt2_kineto.json" "$here/gpt2_generate.py" 8
timed gpt2_ncu_timing 150 ncu --clock-control none --metrics gpu__time_duration.sum --csv --print-units base \
	--print-kernel-base mangled --log-file "$out/gpt2_ncu_timing.csv" $(g2)
kf-read <<<"{\"id\":\"g\",\"profiler\":\"trace\",\"output_dir\":\"$runs/gpt2_traced_1.trace\"}" >"$out/gpt2_trace.json"
$py "$here/rank3.py" "$out/gpt2_trace.json" "$out/gpt2_ncu_timing.csv" "$out/gpt2_kineto.json"
grep TIME "$out/bench4.log"
cat "$out/ncu_calls.log"
for f in "$out"/runs/*/*/ncu.000/ncu_detailed.json; do echo "$f: $(cat "$f")"; done
pack
