# Hand-made VTune hotspots reports, for vtune-read.bats and vtune-feedback.bats.

V="$FIX/vtune"
HDR=$(sed -n 2p "$FIX/vtune/sycl-latency/vtune_hotspots_pass0.tsv")

# A report row: row NAME CELL... (tab-separated)
row() {
	local IFS=$'\t'
	printf '%s\n' "$*"
}

# A folder holding the report printed by the commands given: mk DIR < text
mk() {
	mkdir -p "$BATS_TEST_TMPDIR/$1"
	cat >"$BATS_TEST_TMPDIR/$1/vtune_hotspots_pass0.tsv"
}
