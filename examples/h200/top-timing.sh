#!/bin/bash
# How long kf-wrap ncu takes on real models, with and without --top 3:
# each job runs kf-wrap ncu | kf-run | kf-read | kf-collate | kf-feedback
# end to end, and a shim given as --tool times every ncu step. Prints each
# job's wall time and its focus and top rule; leaves the records, the
# feedback and steps.tsv (job, start, seconds, ncu's arguments) in $W.
# Needs an NVIDIA GPU, ncu, PyTorch and timm (PERFORMANCE.md, "Profiling
# in seconds").
#   bash examples/h200/top-timing.sh [JOB ...]   (default: every job)
# JOB: plain rn-top rn-full vit-top vit-full tf-top tf-full
set -u
R=$(cd "$(dirname "$0")/../.." && pwd)
export PATH=$R/bin:$PATH PYTHONUNBUFFERED=1
W=${W:-/tmp/kf-top-timing}
mkdir -p "$W/out"
cat >"$W/tncu" <<SH
#!/bin/sh
s=\$(date +%s.%N); ncu "\$@"; rc=\$?; e=\$(date +%s.%N)
printf '%s\t%s\t%s\t%s\n' "\$KFJOB" "\$s" "\$(awk -v a=\$s -v b=\$e 'BEGIN{printf "%.2f", b-a}')" "\$*" >>"$W/steps.tsv"
exit \$rc
SH
chmod +x "$W/tncu"
secs() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}'; }
job() {	# job ID KF-WRAP-ARG ... -- CMD
	local id=$1 s
	shift
	export KFJOB=$id
	s=$(date +%s.%N)
	kf-wrap ncu --id "$id" -o "$W/out" --tool "$W/tncu" --clock-control none "$@" |
		kf-run --timeout 900 --inactivity 300 | kf-read | kf-collate | kf-feedback >"$W/$id.json"
	echo "== $id: $(secs "$s") s; $(jq -c '[.analysis.focus.name[0:60], .analysis.rules[0].name,
		.analysis.rules[0].speedup]' "$W/$id.json")"
	kf-feedback --text <"$W/$id.json" >"$W/$id.feedback.txt"
}
plain() {
	local s
	s=$(date +%s.%N)
	"$@" >/dev/null 2>&1
	echo "== alone: $*: $(secs "$s") s"
}
M=$R/examples/torch
[ $# -eq 0 ] && set -- plain rn-top vit-top tf-top rn-full vit-full tf-full
for j in "$@"; do
	case $j in
	plain) for m in resnet18 vit transformer; do plain python3 "$M/$m.py"; done ;;
	rn-top) job rn-top --top 3 -- python3 "$M/resnet18.py" ;;
	rn-full) job rn-full -- python3 "$M/resnet18.py" ;;
	vit-top) job vit-top --top 3 --profile-from-start off -- python3 "$M/vit.py" ;;
	vit-full) job vit-full --profile-from-start off -- python3 "$M/vit.py" ;;
	tf-top) job tf-top --top 3 -- python3 "$M/transformer.py" ;;
	tf-full) job tf-full -- python3 "$M/transformer.py" ;;
	*) echo "top-timing.sh: no job $j" >&2; exit 2 ;;
	esac
done
