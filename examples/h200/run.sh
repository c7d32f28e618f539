#!/bin/sh
# The real pipeline on a machine with an NVIDIA GPU and Nsight Compute:
# every example profiled with kf-wrap ncu | kf-run | kf-read | kf-collate |
# kf-feedback. Outputs go to examples/h200/<job>/ncu.000/, the final records
# to examples/h200/<job>.json and the feedback to examples/h200/<job>.feedback.txt.
# Run from anywhere: sh examples/h200/run.sh [JOB ...]
set -u
cd "$(dirname "$0")/../.."
PATH="$PWD/bin:$PATH"
OUT=examples/h200
ARCH=${ARCH:-sm_90}

[ -x examples/cuda/bench ] || nvcc -O3 -arch="$ARCH" -lineinfo -o examples/cuda/bench \
	examples/cuda/bench.cu || exit 1

job() {
	id=$1
	shift
	rm -rf "$OUT/$id"
	kf-wrap ncu --id "$id" -o "$OUT" -a --clock-control -a none "$@" |
		kf-run --timeout 900 --inactivity 600 |
		kf-read | kf-collate | kf-feedback > "$OUT/$id.json"
	kf-feedback --text < "$OUT/$id.json" > "$OUT/$id.feedback.txt"
	echo "== $id: $(head -c 300 "$OUT/$id.feedback.txt" | tr '\n' ' ')"
}

want() { [ -z "$SELECTED" ] && return 0; for w in $SELECTED; do [ "$w" = "$1" ] && return 0; done; return 1; }
SELECTED="$*"
for k in copy fma sgemm_naive sgemm_tiled transpose_naive reduce_atomic softmax; do
	want "$k" && job "$k" -- examples/cuda/bench "$k"
done
want multi-nvtx && job multi-nvtx -a --nvtx -- examples/cuda/bench multi
want sgemm_tiled-full && job sgemm_tiled-full -a --set -a full -- examples/cuda/bench sgemm_tiled
want resnet18-full && job resnet18-full -a --set -a full -a --launch-skip -a 60 \
	-a --launch-count -a 120 -- python3 examples/torch/resnet18.py
want transformer && job transformer -a --launch-skip -a 40 -a --launch-count -a 80 \
	-- python3 examples/torch/transformer.py
want triton-softmax && job triton-softmax -- python3 examples/triton/softmax.py
# --top: every launch timed, one launch of each of the top 3 kernels in detail
want resnet18-top && job resnet18-top --top 3 -- python3 examples/torch/resnet18.py
want transformer-top && job transformer-top --top 3 -- python3 examples/torch/transformer.py
want vit-top && job vit-top --top 3 --profile-from-start off -- python3 examples/torch/vit.py
want missing && job missing -- /tmp/does-not-exist
want none && job none -- examples/cuda/bench none
exit 0
