# Shared set-up for every bats file: PATH to the built programs, bats-assert,
# fixtures, and a scratch directory per test.
load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'

TOP="$(cd "$BATS_TEST_DIRNAME/.." && pwd)"
FIX="$TOP/tests/fixtures"
# KF_BIN: where the programs are (make O=DIR builds them into DIR/bin).
PATH="${KF_BIN:-$TOP/bin}:$PATH"
KF_DATADIR="$TOP/share/kf"
KF_LIBEXECDIR="$TOP/libexec/kf"
export TOP FIX PATH KF_DATADIR KF_LIBEXECDIR

# Run a command with stdin from a string: run_in "input" cmd args...
run_in() {
	local input=$1
	shift
	run bash -c '"$@" <<<"$KF_INPUT"' _ "$@"
}

# A replay record for saved profiler output: replay ID PROFILER DIR [PASS]
replay() {
	jq -cn --arg id "$1" --arg p "$2" --arg d "$3" --arg pass "${4:-}" \
		'{id:$id, profiler:$p, output_dir:$d} + (if $pass == "" then {} else {pass:$pass} end)'
}
