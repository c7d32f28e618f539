# Shared set-up for every bats file: PATH to the built programs, bats-assert,
# fixtures, and a scratch directory per test.
bats_require_minimum_version 1.5.0
load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'

TOP="$(cd "$BATS_TEST_DIRNAME/.." && pwd)"
FIX="$TOP/tests/fixtures"
# KF_BIN: where the programs are (make O=DIR builds them into DIR/bin).
PATH="${KF_BIN:-$TOP/bin}:$PATH"
KF_DATADIR="$TOP/share/kf"
KF_LIBEXECDIR="$TOP/libexec/kf"
export TOP FIX PATH KF_DATADIR KF_LIBEXECDIR

# A replay record for saved profiler output: replay ID PROFILER DIR [PASS]
replay() {
	jq -cn --arg id "$1" --arg p "$2" --arg d "$3" --arg pass "${4:-}" \
		'{id:$id, profiler:$p, output_dir:$d} + (if $pass == "" then {} else {pass:$pass} end)'
}
