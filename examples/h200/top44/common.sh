# examples/h200/top44/common.sh: what the H200 scripts beside it share,
# sourced by each (bash). Needs T0 (the script's start, date +%s), BUDGET
# (its seconds), out (its output folder) and top (the tree's root); SKIP_LOG,
# where set, gets a line "SKIP NAME" for each step skipped.

# left: the seconds of the budget left.
left() { echo $((BUDGET - ($(date +%s) - T0))); }

# step NAME NEED: 0 when NEED seconds of the budget are left, else says so.
step() {
	local l
	l=$(left)
	if [ "$l" -lt "$2" ]; then
		echo "SKIP $1: $l s of the budget left, it needs about $2"
		[ -z "${SKIP_LOG:-}" ] || echo "SKIP $1" >>"$SKIP_LOG"
		return 1
	fi
	echo "== $1 ($l s of the budget left)"
}

# ops_jobs FILE: a sweep's jobs, one per op of examples/h200/sweep/ops.py's
# OPS (read without importing torch), each call inside its own profiler range.
ops_jobs() {
	local sw=$top/examples/h200/sweep/ops.py op
	for op in $(python3 -c 'import ast, sys
t = ast.parse(open(sys.argv[1]).read())
print(" ".join(next(ast.literal_eval(n.value) for n in t.body
    if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "OPS")))' "$sw"); do
		jq -cn --arg op "$op" --arg py "$sw" \
			'{id: $op, cmd: ["python3", $py, $op], language: "cuda", arch: "H200", profiler: "ncu",
			  profiler_args: ["--profile-from-start", "off", "--clock-control", "none"]}'
	done >"$1"
}

# fused_jobs FILE: six problems of examples/h200/levers/, an op and its
# elementwise and normalisation tail, one step inside the profiler range.
fused_jobs() {
	local lv=$top/examples/h200/levers p
	for p in progs/conv_relu_bias progs/conv_inorm_div progs/conv_gn_chain progs/linear_tail_bf16 \
		heldout/convt_sum_gelu heldout/attn_naive_bf16; do
		jq -cn --arg id "${p##*/}" --arg h "$lv/harness.py" --arg p "$lv/$p.py" \
			'{id: $id, cmd: ["python3", $h, $p, "--steps", "1"], language: "cuda", arch: "H200",
			  profiler: "ncu", profiler_args: ["--profile-from-start", "off", "--clock-control", "none"]}'
	done >"$1"
}

# kb_jobs LEVEL FILE: a sweep's jobs, one per KernelBench problem of
# examples/h200/kernelbench/LEVEL/ (level1: single ops, level2: an op and
# its elementwise and normalisation tail), built as KernelBench's harness
# builds it (kb.py), its forward pass inside its own profiler range.
kb_jobs() {
	local kb=$top/examples/h200/kernelbench p
	for p in "$kb/$1"/*.py; do
		jq -cn --arg id "$1-$(basename "$p" .py | cut -d_ -f1)" --arg k "$kb/kb.py" --arg p "$p" \
			'{id: $id, cmd: ["python3", $k, $p], language: "cuda", arch: "H200",
			  profiler: "ncu", profiler_args: ["--profile-from-start", "off", "--clock-control", "none"]}'
	done >"$2"
}

# plain NAME JOBS N J NEED: the jobs' programs (three-word commands) alone, without kf or ncu, J at
# a time (xargs -P), if NAME is in PLAN: the floor under any sweep of them
# at -jJ. Appends "NAME plain -jJ N WALL A-PROBLEM" to out/walls.tsv and
# keeps each program's own set-up and range seconds (kb.py's stderr).
plain() {
	local name=$1 jobs=$2 n=$3 j=$4 s e
	case " $PLAN " in *" $name "*) ;; *) return 0 ;; esac
	step "$name" "$5" || return 0
	mkdir -p "$out/$name"
	s=$(date +%s.%N)
	# each job's argv, NUL-separated (kb_jobs' commands have three words)
	jq -j '.cmd | if length == 3 then map(. + "\u0000") | add else error("plain: not 3 words") end' "$jobs" |
		timeout 300 xargs -0 -n3 -P"$j" env -- >/dev/null 2>"$out/$name/stderr.log"
	e=$(date +%s.%N)
	awk -v nm="$name" -v s="$s" -v e="$e" -v n="$n" -v j="$j" \
		'BEGIN { printf "%s\tplain\t-j%d\t%d problems\t%.1f s\t%.2f s a problem\n", nm, j, n, e - s, (e - s) / n }' |
		tee -a "$out/walls.tsv"
	grep '^kb.py' "$out/$name/stderr.log" | sed 's|.*/||'
}

# sweep NAME JOBS N RANGE J NEED: pipelines/sweep.mk over JOBS (N problems)
# into out/NAME at -jJ with RANGE=RANGE, GATE=1 where NAME has "gate" and
# WRAP_FLAGS="--top K" where NAME ends in _topK (kf's tracer times each
# program, then ncu details its K kernels with the most time), and
# --sampled-source among them where NAME has "_ss_" (kf's collection less
# ncu's per-instruction execution counts),
# if NAME is in PLAN and NEED seconds are left. Appends "NAME RANGE GATE -jJ
# N WALL A-PROBLEM" to out/walls.tsv, then prints `make times`, the summary
# (id status share verdict) and each job's ncu_range.log and range_unseen.
sweep() {
	local name=$1 jobs=$2 n=$3 range=$4 j=$5 s e gate=0 k wf='' ev=(env)
	local mk=(make -s -f "$out/kf/share/kf/pipelines/sweep.mk" GPUS=0 LOCKDIR="$out/locks"
		KF="$out/kf/bin" RUN_FLAGS="--timeout 120")
	case " $PLAN " in *" $name "*) ;; *) return 0 ;; esac
	case $name in *gate*) gate=1 ;; esac
	case $name in *_noearly*) ev=(env KF_NCU_EARLY=0) ;; *_early*) ev=(env KF_NCU_EARLY=1) ;; esac
	case $name in *_top[0-9]*) k=${name##*_top} && wf="--top ${k%%[!0-9]*}" ;; esac
	case $name in *_ss_*) wf="${wf:+$wf }--sampled-source" ;; esac
	[ -z "$wf" ] || mk+=("WRAP_FLAGS=$wf")
	step "$name" "$6" || return 0
	s=$(date +%s.%N)
	"${ev[@]}" timeout 300 "${mk[@]}" JOBS="$jobs" OUT="$out/$name" RANGE="$range" GATE="$gate" -j"$j" >"$out/$name.make.log" 2>&1
	e=$(date +%s.%N)
	awk -v nm="$name" -v s="$s" -v e="$e" -v n="$n" -v r="$range" -v j="$j" \
		-v g="$gate" 'BEGIN { printf "%s\tRANGE=%s GATE=%d\t-j%d\t%d problems\t%.1f s\t%.2f s a problem\n", nm, r, g, j, n, e - s, (e - s) / n }' |
		tee -a "$out/walls.tsv"
	"${mk[@]}" JOBS="$jobs" OUT="$out/$name" RANGE="$range" GATE="$gate" times >/dev/null 2>&1
	{ column -t -s $'\t' "$out/$name/times.tsv" 2>/dev/null || cat "$out/$name/times.tsv"; }
	cut -f1,3,5,6 "$out/$name/summary.tsv" | cut -c1-160
	find "$out/$name/runs" -name ncu_range.log | sort | while read -r f; do
		echo "RANGELOG $f: $(tr '\n' ' ' <"$f" | cut -c1-300)"
	done 2>/dev/null | sed "s|$out/||" | head -30
	grep -l range_unseen "$out/$name"/*.json 2>/dev/null | sed 's/^/RANGE_UNSEEN /'
}

# pack NAME: what comes back from out (at most 16 MiB a file): NAME.tar.gz of
# out without the build, the locks, reports and the raw and source pages
# (else its records, tables and logs alone), then out emptied of all but
# NAME.tar.gz, run.log and table.txt.
pack() {
	(cd "$out" && find . -name '*.ncu-rep' -delete
	 tar czf "$1.tar.gz" --exclude=./kf --exclude=./locks --exclude="./$1.tar.gz" \
		--exclude='ncu_raw.csv' --exclude='ncu_source.csv' --exclude='*.kft' . 2>/dev/null
	 if [ "$(stat -c %s "$1.tar.gz")" -gt 15000000 ]; then
		find . -path ./kf -prune -o -type f \( -name '*.json' -o -name '*.tsv' -o -name '*.log' \
			-o -name '*.txt' -o -name '*.out' -o -name '*.stamped' \) -print | tar czf "$1.tar.gz" -T -
	 fi
	 find . -mindepth 1 -maxdepth 1 ! -name run.log ! -name table.txt ! -name "$1.tar.gz" -exec rm -rf {} +)
}
