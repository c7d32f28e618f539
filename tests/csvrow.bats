#!/usr/bin/env bats
# lib/core/csvrow.c: the fast splitter kf-read uses gives libcsv's rows.
load helper
bats_require_minimum_version 1.5.0

setup_file() {
	${CC:-cc} -std=c11 -O2 -D_GNU_SOURCE -I"$TOP/lib/core" -o "$BATS_FILE_TMPDIR/csvrow_diff" \
		"$TOP/tests/progs/csvrow_diff.c" "$TOP/lib/core/csvrow.c" "$TOP/lib/core/buf.c" \
		"$TOP/lib/core/mem.c" "$TOP/lib/core/err.c" -lcsv
}

@test "random lines (quotes, blanks, CR, NUL, rows across lines, fields reused): the same rows as libcsv" {
	for seed in 1 2 3; do
		run "$BATS_FILE_TMPDIR/csvrow_diff" 100000 "$seed"
		assert_success
		assert_output ''
	done
}
