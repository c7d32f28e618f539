#!/usr/bin/env bats
# The libFuzzer targets (fuzz/): each one replays its seed corpus and every
# crashing input ever found (fuzz/regress/), then fuzzes for a few seconds.
# Needs clang and libFuzzer (Debian: clang, libclang-rt-14-dev).

load helper

TARGETS="record ncu ncuraw ncusource utcsv unitrace chrome vtune report trace mcp"

setup_file() {
	local rt
	command -v clang >/dev/null || skip "clang is not installed"
	rt=$(clang --print-runtime-dir 2>/dev/null)
	[ -f "$rt/libclang_rt.fuzzer-x86_64.a" ] ||
		ls "$rt"/libclang_rt.fuzzer*.a >/dev/null 2>&1 ||
		skip "libFuzzer is not installed (Debian: libclang-rt-14-dev)"
	cd "$TOP" && make --no-print-directory -s -f fuzz/fuzz.mk build >&3 2>&1 ||
		{ echo "# building the fuzz targets failed" >&3; return 1; }
}

# fuzz_target NAME: replay the corpus and regress inputs, then fuzz briefly
# with a fixed seed into a scratch corpus (the committed one is not touched).
fuzz_target() {
	local t=$1 n regress
	[ -x "$TOP/fuzz/build/fuzz_$t" ] || skip "fuzz/build/fuzz_$t was not built"
	cd "$TOP"
	regress=$(ls -d "fuzz/regress/$t" 2>/dev/null || true)
	n=$(find "fuzz/corpus/$t" $regress -type f | wc -l)
	[ "$n" -gt 0 ]
	mkdir -p "$BATS_TEST_TMPDIR/corpus"
	# A fixed seed and a count, so that every run tries the same inputs;
	# the time limit only guards a very slow machine.
	run "fuzz/build/fuzz_$t" -seed=1 -runs=$((n + 2000)) -max_total_time=10 \
		-max_len=4096 -timeout=20 -rss_limit_mb=2048 -close_fd_mask=2 \
		-artifact_prefix="$BATS_TEST_TMPDIR/" \
		"$BATS_TEST_TMPDIR/corpus" "fuzz/corpus/$t" $regress
	[ "$status" -eq 0 ] || { echo "$output" | grep -v '^#' | tail -n 40; false; }
	# The seeds and regress inputs were all run before fuzzing.
	assert_output --regexp "INFO: +[0-9]+ files found in fuzz/corpus/$t"
	refute_output --partial 'ERROR: '
	assert_output --regexp 'Done [0-9]+ runs'
}

@test "fuzz_record: record lines through kf_parse_line, kf-collate and kf-feedback survive their corpus and regress inputs" {
	fuzz_target record
}

@test "fuzz_ncu: ncu_report.csv through ncu_read and the ncu feedback survives its corpus and regress inputs" {
	fuzz_target ncu
}

@test "fuzz_ncuraw: ncu_raw.csv beside a details page through ncu_read and the ncu feedback survives its corpus and regress inputs" {
	fuzz_target ncuraw
}

@test "fuzz_ncusource: ncu_source.csv beside a details page through ncu_read and the ncu feedback survives its corpus and regress inputs" {
	fuzz_target ncusource
}

@test "fuzz_utcsv: unitrace metrics files through unitrace_csv_read survive their corpus and regress inputs" {
	fuzz_target utcsv
}

@test "fuzz_unitrace: unitrace output directories through unitrace_read, collate and feedback survive their corpus and regress inputs" {
	fuzz_target unitrace
}

@test "fuzz_chrome: Chrome traces through kf_chrome_read survive their corpus and regress inputs" {
	fuzz_target chrome
}

@test "fuzz_vtune: VTune reports through vtune_read and the vtune feedback survive their corpus and regress inputs" {
	fuzz_target vtune
}

@test "fuzz_trace: kf trace files through trace_read, collate and feedback survive their corpus and regress inputs" {
	fuzz_target trace
}

@test "fuzz_mcp: kf-mcp's lines of bounded length through kf_rpc_next and kf_schema_check survive their corpus and regress inputs" {
	fuzz_target mcp
}

@test "fuzz_report: record lines through kf-report's page make only its own elements and attributes" {
	fuzz_target report
}

@test "every fuzz target has a seed corpus and the committed corpus stays small" {
	local t size
	cd "$TOP"
	for t in $TARGETS; do
		[ -f "fuzz/fuzz_$t.c" ]
		[ "$(find "fuzz/corpus/$t" -type f | wc -l)" -ge 3 ]
	done
	size=$(du -sk fuzz/corpus | cut -f1)
	[ "$size" -lt 2048 ]
}
