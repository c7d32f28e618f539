#!/usr/bin/env bats
# Every program has a lint-clean mdoc page with EXIT STATUS and EXAMPLES, and
# answers --help, --version and usage errors the same way.

load helper

PROGS="kf-select kf-wrap kf-run kf-read kf-collate kf-feedback kf-report kf"

@test "every man page is clean under mandoc -Tlint" {
	for p in $PROGS; do
		run mandoc -Tlint -Wwarning "$TOP/man/$p.1"
		assert_success
		assert_output ""
	done
	run mandoc -Tlint -Wwarning "$TOP/man/kf.7"
	assert_success
	assert_output ""
}

@test "every man page has EXIT STATUS and EXAMPLES sections" {
	for p in $PROGS; do
		grep -qx '.Sh EXIT STATUS' "$TOP/man/$p.1" || fail "$p.1 has no EXIT STATUS"
		grep -qx '.Sh EXAMPLES' "$TOP/man/$p.1" || fail "$p.1 has no EXAMPLES"
	done
	grep -qx '.Sh EXAMPLES' "$TOP/man/kf.7"
}

@test "kf.7 names every fixed field of the record contract" {
	for f in id cmd language arch profiler pass group mode output_dir argv env end_marker \
		run exit_code signal ended_by elapsed_s stdout stderr message worker hostname \
		gpu_name cpu_info data passes collated feedback analysis name bound error stage kind; do
		grep -q "Li $f\b" "$TOP/man/kf.7" || fail "kf.7 does not name $f"
	done
}

@test "--help prints the usage on standard output with status 0" {
	for p in $PROGS; do
		run "$p" --help
		assert_success
		assert_line --index 0 --partial "usage: $p"
	done
}

@test "--version prints the program's name and version" {
	for p in $PROGS; do
		run "$p" --version
		assert_success
		assert_output --regexp "^$p [0-9]+\.[0-9]+\.[0-9]+$"
	done
}

@test "an unknown option is a usage error: status 2, usage on standard error" {
	for p in $PROGS; do
		run --separate-stderr "$p" --no-such-option
		[ "$status" -eq 2 ] || fail "$p exited $status"
		assert_output ""
		[[ "$stderr" == *"usage: $p"* ]] || fail "$p: no usage on stderr: $stderr"
	done
}
