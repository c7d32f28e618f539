#!/bin/sh
# examples/regen.sh [DEST]: every recorded example made again from its
# recorded profiler output with the programs of this build (bin/), no GPU
# needed; `make examples` runs it. DEST (default: examples) receives
#   h200/JOB.json, h200/JOB.feedback.txt        from examples/h200/JOB/ncu.000
#   h200/ops/OP.json, .feedback.txt, summary.tsv, check.tsv
#                                               from h200/ops/runs/ (once recorded)
#   h200-chain/JOB.json, .feedback.txt          from examples/h200-chain/JOB/ncu.000
#   h200-sweep/JOB.json, .feedback.txt, summary.tsv   from h200-sweep/runs/
#   h200-pages/KERNEL.feedback.txt              from tests/fixtures/ncu-h200-pages/KERNEL
#   h200-defects/JOB.feedback.txt               from tests/fixtures/ncu-h200-defects/JOB
#   report.html                                 kf-report of h200-chain and h200
# A final record is remade from its own recorded fields (the job, the
# worker, the pass's output_dir and run): kf-read | kf-collate |
# kf-feedback. A failed job keeps its recorded error (it was read with the
# run's whole output, which the record no longer holds): only its feedback
# is made again. The output holds no absolute path and no time of this run,
# so that a second run changes nothing; tests/examples.bats compares a run
# into a temporary DEST with what is committed.
set -eu
cd "$(dirname "$0")/.."
top=$PWD
dest=${1:-examples}
PATH="$top/bin:$top/pipelines:$PATH"
KF_DATADIR="$top/share/kf"
LC_ALL=C
export PATH KF_DATADIR LC_ALL

# remake FILE OUT: FILE's final record made again into OUT.
remake() {
	if jq -e '.error' "$1" >/dev/null; then
		jq -c 'del(.feedback, .analysis)' "$1" | kf-feedback >"$2.tmp" || true
	else
		jq -c 'del(.feedback, .analysis, .collated, .passes) +
			(.passes[0] | del(.status))' "$1" |
			kf-read 2>/dev/null | kf-collate | kf-feedback >"$2.tmp" || true
	fi
	mv "$2.tmp" "$2"
}

# records DIR: DIR/*.json made again into DEST/DIR, with their texts.
records() {
	mkdir -p "$dest/$1"
	for f in examples/$1/*.json; do
		id=${f##*/}
		id=${id%.json}
		remake "$f" "$dest/$1/$id.json"
		kf-feedback --text <"$dest/$1/$id.json" >"$dest/$1/$id.feedback.txt" || true
	done
}

records h200
# the single-op sweep, once its records are recorded (examples/h200/ops/run.sh)
if ls examples/h200/ops/*.json >/dev/null 2>&1; then
	records h200/ops
	kf-sweep-summary "$dest/h200/ops" $(jq -r .id examples/h200/ops/jobs.jsonl) \
		>"$dest/h200/ops/summary.tsv"
	sh examples/h200/ops/check.sh "$dest/h200/ops" >"$dest/h200/ops/check.tsv" || true
fi
records h200-chain
records h200-sweep
# the sweep's summary, in the order of its jobs
kf-sweep-summary "$dest/h200-sweep" $(jq -r .id examples/jobs.jsonl) \
	>"$dest/h200-sweep/summary.tsv"

mkdir -p "$dest/h200-pages"
for d in tests/fixtures/ncu-h200-pages/*/; do
	k=${d%/}
	k=${k##*/}
	jq -cn --arg id "$k" --arg d "${d%/}" '{id: $id, profiler: "ncu", output_dir: $d}' |
		kf-read 2>/dev/null | kf-collate | kf-feedback --text \
		>"$dest/h200-pages/$k.feedback.txt" || true
done

# the defect kernels' pages are gzipped: unpacked into a scratch folder
# named as the job, whose path the texts never print
mkdir -p "$dest/h200-defects"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for d in tests/fixtures/ncu-h200-defects/*/; do
	k=${d%/}
	k=${k##*/}
	ls "$d"*.csv.gz >/dev/null 2>&1 || continue
	mkdir -p "$scratch/$k"
	for f in "$d"*.csv.gz; do
		gzip -dc "$f" >"$scratch/$k/$(basename "$f" .gz)"
	done
	jq -cn --arg id "$k" --arg d "$scratch/$k" '{id: $id, profiler: "ncu", output_dir: $d}' |
		kf-read 2>/dev/null | kf-collate | kf-feedback --text |
		sed 1d >"$dest/h200-defects/$k.feedback.txt" || true
done

kf-report -T 'kf report: examples/h200 and h200-chain (real H200 captures)' \
	"$dest"/h200-chain/*.json "$dest"/h200/*.json >"$dest/report.html" || true
