#!/usr/bin/env bats
# A newcomer's first hour (issue 45): every trip met on a fresh clone, each
# one here as the user meets it.
load helper
bats_require_minimum_version 1.5.0

setup() {
	T=$BATS_TEST_TMPDIR
	cd "$T"
}

@test "kf ncu with no command: kf's usage, not kf-wrap's, status 2, nothing made" {
	for words in "ncu" "ncu --" "ncu --top 3" "ncu -o out"; do
		# shellcheck disable=SC2086
		run --separate-stderr kf $words
		assert_equal "$status" 2
		assert_output ""
		assert_equal "$stderr" "kf-wrap: ncu: no command to profile: put it after --, as in kf ncu [options] -- CMD [ARG ...]
usage: kf [--json] [-n N] [-t S] [-i S] [--no-collated] [--gpu NAME] PROFILER [options] -- CMD [ARG ...]
       kf [options] ncu --import FILE.ncu-rep"
	done
	[ ! -e kf-out ] && [ ! -e out ]
	# kf-wrap run by itself keeps its own usage
	run --separate-stderr kf-wrap ncu
	assert_equal "$status" 2
	assert_equal "$(sed -n 2p <<<"$stderr")" "usage: kf-wrap [-u] [-o dir] [--tool path] [-a arg] [--sudo] [profiler's kf-wrap options]"
}
