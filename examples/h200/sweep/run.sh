#!/bin/bash
# examples/h200/sweep/run.sh PREFIX OUT: issue 36 on one H200. A make sweep
# (pipelines/sweep.mk, GPUS=0) over the single-op PyTorch problems of ops.py,
# each profiled with --profile-from-start off around one call:
#   a) today's default: --set detailed plus the 14 metrics of old, -j1,
#      the GPU held for the whole job (OVERLAP=0)
#   b) kf's default now: share/kf/ncu_sections.txt and ncu_metrics.txt,
#      -j3 with the GPU held for ncu's profiled run only (OVERLAP=1)
#   c) three of the problems alone, each as in b), to compare their
#      numbers with the same problems in sweep b)
# Each ncu call is timed by a shim given as --tool (profiled run or export,
# start and end); ops.py stamps its start-up, and runs twice without ncu
# first (the program's own start-up, against which a job's shows ncu's); kf's stages are timed again
# on each job's pages afterwards. Prints the per-job breakdown, replay
# passes (ncu's "- N passes"), seconds per problem and a last short table.
# Leaves four files in OUT: run.log (all it printed), table.txt (the last
# table), sections.tar.gz (the H200's ncu section files) and sweep.tar.gz
# (each sweep's records, feedback, logs, pages and summary, the ncu
# timings, the breakdowns; no .ncu-rep). Needs PREFIX from `make PREFIX=... install` of this tree,
# PyTorch, ncu on PATH (or /usr/local/cuda/bin). About 7-8 minutes; N=10
# runs the first 10 problems only.
set -u
export LC_ALL=C
kf=$(cd "$1" && pwd) out=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
exec > >(tee "$out/run.log") 2>&1
export PATH=$kf/bin:$PATH:/usr/local/cuda/bin LD_LIBRARY_PATH=$kf/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
pipes=$kf/share/kf/pipelines
ncu=$(command -v ncu) || { echo "run.sh: no ncu" >&2; exit 2; }
# the op names of ops.py's OPS, without importing torch; N: the first N
ops=$(python3 -c 'import ast, sys
t = ast.parse(open(sys.argv[1]).read())
print(" ".join(next(ast.literal_eval(n.value) for n in t.body
    if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "OPS")))' "$here/ops.py" |
	tr ' ' '\n' | head -n "${N:-20}" | paste -sd' ')
[ -n "$ops" ] || { echo "run.sh: no ops in $here/ops.py" >&2; exit 2; }
echo "ops: $ops"
ncu --version | tail -1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c 'import torch; print("torch", torch.__version__)'

# The shim: each ncu call timed, "NCUT ID KIND START END" into $NCUT_LOG
# (KIND: run, launch, attach or export:PAGE; ID the job, from ncu's -o or
# -i folder .../ID/ncu.000, else the program's last argument: ops.py's op).
shim=$out/ncu-shim
cat >"$shim" <<EOS
#!/bin/bash
kind=run d= p=details
a=("\$@")
for ((i = 0; i < \${#a[@]}; i++)); do
	case \${a[i]} in
	-i) kind=export d=\${a[i+1]} ;;
	-o) d=\${a[i+1]} ;;
	--page) p=\${a[i+1]} ;;
	--mode) kind=\${a[i+1]} ;;
	esac
done
[ "\$kind" = export ] && kind=export:\$p
if [ -n "\$d" ]; then d=\${d%/*}; d=\${d%/*}; id=\${d##*/}; else id=\${a[\${#a[@]}-1]}; fi
s=\$(date +%s.%N)
"$ncu" "\$@"
rc=\$?
echo "NCUT \$id \$kind \$s \$(date +%s.%N)" >>"\$NCUT_LOG"
exit \$rc
EOS
chmod +x "$shim"
old_metrics=$(awk '/^# What the detailed set collected beside/ { exit } !/^#/ && NF' "$kf/share/kf/ncu_metrics.txt" | paste -sd, -)

jobs() {
	local op
	for op in $ops; do
		jq -cn --arg op "$op" --arg py "$here/ops.py" \
			'{id: $op, cmd: ["python3", $py, $op], language: "cuda", arch: "H200", profiler: "ncu",
			  profiler_args: ["--profile-from-start", "off", "--clock-control", "none"]}'
	done
}
jobs >"$out/jobs.jsonl"

# warm: the imports and ncu once, so no measured run pays the first start.
python3 -c 'import torch; torch.zeros(1).cuda(); print("warm")'
ncu --clock-control none --metrics gpu__time_duration.sum python3 -c 'import torch; print(torch.ones(4, device="cuda").sum().item())' >/dev/null 2>&1

# sweep NAME J OVERLAP WRAP_FLAGS...: the sweep, timed.
sweep() {
	local name=$1 j=$2 ov=$3 lim=$4 s e
	shift 4
	rm -rf "${out:?}/$name"
	: >"$out/$name.ncut"
	s=$(date +%s.%N)
	NCUT_LOG=$out/$name.ncut timeout "$lim" make -s -f "$pipes/sweep.mk" JOBS="$out/jobs.jsonl" OUT="$out/$name" \
		-j"$j" GPUS=0 OVERLAP="$ov" LOCKDIR="$out/locks" KF="$kf/bin" \
		RUN_FLAGS="--timeout 120" WRAP_FLAGS="--tool $shim $*" >"$out/$name.make.log" 2>&1
	e=$(date +%s.%N)
	echo "$name $(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.1f", e - s }')" >>"$out/walls"
	echo "== $name: $(awk -v s="$s" -v e="$e" -v n="$(wc -l <"$out/jobs.jsonl")" 'BEGIN { printf "%.1f s, %.2f s a problem", e - s, (e - s) / n }')"
	cut -f1-6 "$out/$name/summary.tsv"
}

# breakdown NAME: per job, seconds from ncu's first start to the last
# export's end (job), the program's start-up to its first CUDA call (ops.py's
# "imported" stamp less that start: the imports; ncu's own start is in it),
# the wait before the profiled part (b: the attach's start less the stamp;
# the GPU lock is taken there), the profiled part (ncu's run or attach after
# the stamp: building the inputs, warm-up, the replay passes of the profiled
# call, the program's end), ncu's replay passes ("- N passes"), the exports
# (first start to last end) and kf's three stages (run again on the job's
# pages).
breakdown() {
	local name=$1 id d st ks ke passes
	printf '%-12s %6s %7s %6s %7s %6s %7s %6s %s\n' job job_s startup wait profile passes exports kf_s focus
	for id in $ops; do
		d=$out/$name/runs/$id/$id/ncu.000
		st=$(jq -r '.. | strings' "$out/$name/$id.json" 2>/dev/null | grep -o 'STAMP [a-z]* [0-9.]*' | awk '{ print $2 "=" $3 }' | paste -sd' ')
		passes=$(jq -r '.. | strings' "$out/$name/$id.json" 2>/dev/null | grep -o '[0-9]* passes' | awk '{ s += $1 } END { print s + 0 }')
		ks=$(date +%s.%N)
		jq -cn --arg d "$d" --arg id "$id" '{id: $id, profiler: "ncu", output_dir: $d}' |
			kf-read 2>/dev/null | kf-collate | kf-feedback >/dev/null
		ke=$(date +%s.%N)
		awk -v id="$id" -v st="$st" -v ks="$ks" -v ke="$ke" -v passes="$passes" \
		    -v focus="$(jq -r '.analysis.focus.name // "-" | .[0:40]' "$out/$name/$id.json" 2>/dev/null)" '
			$1 == "NCUT" && $2 == id {
				if (t0 == "" || $4 < t0) t0 = $4
				if ($3 == "run" || $3 == "attach") { gs = $4; ge = $5 }
				if ($3 ~ /^export/) { if (es == "" || $4 < es) es = $4; if ($5 > ee) ee = $5 }
			}
			END {
				n = split(st, a, " ")
				for (i = 1; i <= n; i++) { split(a[i], kv, "="); t[kv[1]] = kv[2] }
				b = ("imported" in t) ? t["imported"] : gs
				w = gs > b ? gs - b : 0
				p = ge - (gs > b ? gs : b)
				printf "%-12s %6.2f %7.2f %6.2f %7.2f %6d %7.2f %6.3f %s\n", id, ee - t0, b - t0, w, p, passes, ee - es, ke - ks, focus
			}' "$out/$name.ncut"
	done
}

# The program alone, twice, without ncu: its start-up to the "imported"
# stamp and its whole run, so that a job's start-up under ncu shows ncu's own.
for _ in 1 2; do
	st=$(date +%s.%N)
	python3 "$here/ops.py" gelu >"$out/plain.out" 2>&1
	en=$(date +%s.%N)
	awk -v s="$st" -v e="$en" '$1 == "STAMP" && $2 == "imported" { i = $3 }
		END { printf "plain program (ops.py gelu, no ncu): start-up to first CUDA call %.2f s, whole run %.2f s\n", i - s, e - s }' "$out/plain.out"
done | tee "$out/plain.txt"
: >"$out/walls"
sweep a_today 1 0 330 -a --set -a detailed -a --metrics -a "$old_metrics"
sweep b_new 3 1 180
for name in a_today b_new; do
	echo "== breakdown $name"
	breakdown "$name" | tee "$out/$name.breakdown"
done

# c) alone: the same problems one at a time, compared with sweep b.
alone=$(for op in gemm_bf16 softmax layernorm; do case " $ops " in *" $op "*) echo "$op" ;; esac; done | paste -sd' ')
[ -n "$alone" ] || alone=$(echo "$ops" | cut -d' ' -f1-2)
echo "== alone vs in sweep b (focus kernel time, ns; limiter)"
for op in $alone; do
	grep "\"id\":\"$op\"" "$out/jobs.jsonl" >"$out/alone-$op.jsonl"
	rm -rf "$out/alone-$op"
	timeout 60 make -s -f "$pipes/sweep.mk" JOBS="$out/alone-$op.jsonl" OUT="$out/alone-$op" GPUS=0 \
		LOCKDIR="$out/locks" KF="$kf/bin" RUN_FLAGS="--timeout 120" >"$out/alone-$op.make.log" 2>&1
	for w in "alone-$op" b_new; do
		echo "$op $w $(jq -c '[.analysis.focus.name[0:40], .analysis.focus.time_ns, .analysis.focus.limiter.unit // .analysis.focus.limiter, (.analysis.diagnosis | length)]' "$out/$w/$op.json" 2>/dev/null)"
	done
done | tee "$out/alone.txt"

# the H200's own section files, to check tests/fixtures/ncu-sections against
secdir=$(dirname "$(readlink -f "$ncu")")/sections
[ -d "$secdir" ] || secdir=$(find /usr/local/cuda/ -maxdepth 2 -type d -path "*/nsight-compute*/sections" 2>/dev/null | head -1)
[ -n "$secdir" ] && tar czf "$out/sections.tar.gz" -C "$(dirname "$secdir")" sections

{
	echo "sweep      wall_s  s/problem  passes  jobs_ok  mean_job_s"
	for name in a_today b_new; do
		w=$(awk -v n="$name" '$1 == n { print $2 }' "$out/walls")
		np=$(wc -l <"$out/jobs.jsonl")
		ok=$(awk -F'\t' 'NR > 1 && $3 == "ok"' "$out/$name/summary.tsv" 2>/dev/null | wc -l)
		p=$(awk 'NR > 1 { s += $6 } END { print s + 0 }' "$out/$name.breakdown")
		js=$(awk 'NR > 1 { s += $2; n++ } END { printf "%.2f", n ? s / n : 0 }' "$out/$name.breakdown")
		printf '%-10s %6.1f %10.2f %7d %4d/%d %10s\n' "$name" "$w" "$(awk -v w="$w" -v n="$np" 'BEGIN { print w / n }')" "$p" "$ok" "$np" "$js"
	done
	echo "same facts a vs b (focus kernel, launches profiled, limiter unit and bound, diagnosis"
	echo "findings, hot lines), then the focus kernel's time in a and b (ns):"
	facts='[.analysis.focus.name, .analysis.focus.launches, (.collated.kernels | length),
		.analysis.focus.limiter.unit, .analysis.focus.limiter.bound, [.analysis.diagnosis[]?.kind],
		[.analysis.focus.source_lines[]?.line]]'
	for id in $ops; do
		fa=$(jq -c "$facts" "$out/a_today/$id.json" 2>/dev/null)
		fb=$(jq -c "$facts" "$out/b_new/$id.json" 2>/dev/null)
		ta=$(jq -r '.analysis.focus.time_ns' "$out/a_today/$id.json" 2>/dev/null)
		tb=$(jq -r '.analysis.focus.time_ns' "$out/b_new/$id.json" 2>/dev/null)
		if [ -z "$fa" ] || [ -z "$fb" ] || [ "$(jq -r '.[0]' <<<"$fa")" = null ]; then
			echo "  $id MISSING: a=$fa b=$fb"
		elif [ "$fa" = "$fb" ]; then
			echo "  $id same  $ta $tb"
		else
			echo "  $id DIFFERS: a=$fa b=$fb"
		fi
	done
} | tee "$out/table.txt"

# What comes back: run.log, table.txt, sections.tar.gz and sweep.tar.gz
# (everything else, without the .ncu-rep reports).
(cd "$out" && find a_today b_new alone-* -name '*.ncu-rep' -delete 2>/dev/null
 tar czf sweep.tar.gz a_today b_new alone-* ./*.ncut ./*.make.log ./*.breakdown alone.txt walls \
	jobs.jsonl ncu-shim plain.txt plain.out 2>/dev/null &&
 rm -rf a_today b_new alone-* locks ./*.ncut ./*.make.log ./*.breakdown alone.txt walls jobs.jsonl ncu-shim plain.txt plain.out)
ls -la "$out"
