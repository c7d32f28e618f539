#!/usr/bin/env bats
# lib/core/json.c: what a stage keeps as text (kf_json_parse_keep) is exactly
# what the writer would write, so passing it on changes no byte.
load helper
bats_require_minimum_version 1.5.0

setup_file() {
	local cjson
	cjson=$(pkg-config --cflags --libs libcjson 2>/dev/null || echo "-I/usr/include/cjson -lcjson")
	# shellcheck disable=SC2086
	${CC:-cc} -std=c11 -O2 -D_GNU_SOURCE -I"$TOP/lib/core" -o "$BATS_FILE_TMPDIR/keep_diff" \
		"$TOP/tests/progs/keep_diff.c" "$TOP/lib/core/json.c" "$TOP/lib/core/num.c" \
		"$TOP/lib/core/buf.c" "$TOP/lib/core/mem.c" "$TOP/lib/core/err.c" $cjson -lm
}

@test "random numbers, strings and nesting: kept as text exactly when written the same" {
	for seed in 1 2 3; do
		run "$BATS_FILE_TMPDIR/keep_diff" 100000 "$seed"
		assert_success
		assert_output ''
	done
}

@test "kf-feedback reads ncu's metric sections and rules lazily and writes the record byte for byte" {
	mkdir "$BATS_TEST_TMPDIR/out"
	cp "$FIX/ncu-h200/detailed-resnet18-plain.csv" "$BATS_TEST_TMPDIR/out/ncu_report.csv"
	replay r ncu "$BATS_TEST_TMPDIR/out" | kf-read | kf-collate >"$BATS_TEST_TMPDIR/col.json"
	kf-feedback "$BATS_TEST_TMPDIR/col.json" >"$BATS_TEST_TMPDIR/fb.json"
	# kf-feedback adds its members at the end: the rest is kf-collate's bytes.
	head -c -2 "$BATS_TEST_TMPDIR/col.json" >"$BATS_TEST_TMPDIR/prefix"
	run cmp -n "$(stat -c %s "$BATS_TEST_TMPDIR/prefix")" "$BATS_TEST_TMPDIR/prefix" "$BATS_TEST_TMPDIR/fb.json"
	assert_success
	run jq -r '.analysis.focus.duration_ns, .analysis.rules[0].name' "$BATS_TEST_TMPDIR/fb.json"
	assert_output $'33344\nLaunchConfiguration'
	kf-feedback --focus longest "$BATS_TEST_TMPDIR/col.json" >"$BATS_TEST_TMPDIR/fbl.json"
	run jq -r '.analysis.focus.duration_ns, .analysis.rules[0].name' "$BATS_TEST_TMPDIR/fbl.json"
	assert_output $'97152\nTheoreticalOccupancy'
}
