# examples/h200/passes/collection.sh, sourced (bash) by cost.sh and where.sh
# with top set (the tree's root): kf's collection as ncu's arguments, S (a
# --section for each of share/kf/ncu_sections.txt) and all (the metrics of
# share/kf/ncu_metrics.txt, comma-separated), as kf-wrap asks for them.
S=()
for s in $(grep -v '^#' "$top/share/kf/ncu_sections.txt" | grep .); do S+=(--section "$s"); done
all=$(grep -v '^#' "$top/share/kf/ncu_metrics.txt" | grep . | paste -sd,)
