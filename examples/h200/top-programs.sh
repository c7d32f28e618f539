#!/bin/bash
# kf-wrap ncu --top 3 on programs no one here wrote, as a new user would
# (issue 26): GPT-2 generation through Hugging Face transformers, ResNet-50
# training steps in bf16, two torch.multiprocessing workers, and a Flax CNN
# jitted by XLA (as is, and with the environment kf-wrap(1) tells JAX users
# to set). Each job runs kf-wrap ncu | kf-run | kf-read | kf-collate |
# kf-feedback with a shim as --tool that times every ncu step; every run
# with --clock-control none. Leaves in $W: out/ID/ncu.000 (the reports
# removed), ID.json, ID.feedback.txt, steps.tsv (job, start, seconds, ncu's
# arguments) and log.txt. Stops starting jobs after $BUDGET s (380).
#   bash examples/h200/top-programs.sh [JOB ...]
# JOB: mp rn50 gpt2 jax jax-noprealloc jax-fixed (default: all, in that order)
set -u
R=$(cd "$(dirname "$0")/../.." && pwd)
P=${P:-$R/examples/top}
export PATH=$R/bin:$PATH PYTHONUNBUFFERED=1
W=${W:-/tmp/kf-top-programs}
BUDGET=${BUDGET:-380}
T0=$(date +%s)
mkdir -p "$W/out"
cat >"$W/tncu" <<SH
#!/bin/sh
s=\$(date +%s.%N); ncu "\$@"; rc=\$?; e=\$(date +%s.%N)
printf '%s\t%s\t%s\t%s\n' "\$KFJOB" "\$s" "\$(awk -v a=\$s -v b=\$e 'BEGIN{printf "%.2f", b-a}')" "\$*" >>"$W/steps.tsv"
exit \$rc
SH
chmod +x "$W/tncu"
log() { echo "$*" | tee -a "$W/log.txt"; }
job() {	# job ID TIMEOUT KF-WRAP-ARG ... -- CMD
	local id=$1 t=$2 s left
	shift 2
	left=$((BUDGET - ($(date +%s) - T0)))
	if [ "$left" -lt 40 ]; then
		log "== $id: skipped, ${left}s of the budget left"
		return
	fi
	[ "$t" -gt "$left" ] && t=$left
	export KFJOB=$id
	s=$(date +%s.%N)
	kf-wrap ncu --id "$id" -o "$W/out" --tool "$W/tncu" -a --clock-control -a none "$@" |
		kf-run -q --timeout "$t" --inactivity "$t" >"$W/$id.run"
	kf-read <"$W/$id.run" 2>>"$W/$id.stderr" | kf-collate | kf-feedback >"$W/$id.json"
	kf-feedback --text <"$W/$id.json" >"$W/$id.feedback.txt"
	log "== $id: $(awk -v a="$s" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}') s (limit $t); $(jq -c '[.run.exit_code, .run.ended_by, .collated.kernel_count, .collated.timing.launches, .collated.timing.process_count, .collated.timing.missing, .collated.timing.detailed_run.status, .analysis.focus.name[0:70]]' "$W/$id.json" 2>&1)"
	rm -f "$W/out/$id"/ncu.000/*.ncu-rep
}
[ $# -eq 0 ] && set -- mp jax rn50 jax-fixed gpt2 jax-noprealloc
# the detailed run's own limit, so that a hang shows as one
export KF_NCU_DETAIL_TIMEOUT=${KF_NCU_DETAIL_TIMEOUT:-40}
for j in "$@"; do
	case $j in
	mp) job mp 60 --top 3 -- python3 "$P/two_procs.py" ;;
	rn50) job rn50 100 --top 3 -- python3 "$P/resnet50_train.py" ;;
	gpt2) job gpt2 120 --top 3 -- python3 "$P/gpt2.py" ;;
	jax) job jax 90 --top 3 -- python3 "$P/flax_cnn.py" ;;
	jax-noprealloc) job jax-noprealloc 90 --top 3 -- \
		env XLA_PYTHON_CLIENT_PREALLOCATE=false python3 "$P/flax_cnn.py" ;;
	jax-fixed) job jax-fixed 90 --top 3 -- \
		env XLA_PYTHON_CLIENT_PREALLOCATE=false XLA_FLAGS=--xla_gpu_autotune_level=0 \
		python3 "$P/flax_cnn.py" ;;
	*) echo "top-programs.sh: no job $j" >&2; exit 2 ;;
	esac
done
log "== total $(($(date +%s) - T0)) s"
