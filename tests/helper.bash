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
# kf-ncu times --top with the tracer beside it when one was built (where
# CUDA is): tests name the one they replay, so that they run alike there.
KF_TRACE_LIB="$TOP/tests/fake/no-such-tracer.so"
export TOP FIX PATH KF_DATADIR KF_LIBEXECDIR KF_TRACE_LIB

# A replay record for saved profiler output: replay ID PROFILER DIR [PASS]
replay() {
	jq -cn --arg id "$1" --arg p "$2" --arg d "$3" --arg pass "${4:-}" \
		'{id:$id, profiler:$p, output_dir:$d} + (if $pass == "" then {} else {pass:$pass} end)'
}

# unpack_pages DIR NAME: an ncu job's recorded pages (DIR/*.csv.gz) into
# $BATS_TEST_TMPDIR/NAME.
unpack_pages() {
	local d="$BATS_TEST_TMPDIR/$2" f
	mkdir -p "$d"
	for f in "$1"/*.csv.gz; do
		gzip -dc "$f" >"$d/$(basename "$f" .gz)"
	done
}

# replay_pages NAME DIR: those pages through kf-read | kf-collate |
# kf-feedback as job NAME, into $BATS_TEST_TMPDIR/NAME.json.
replay_pages() {
	unpack_pages "$2" "$1"
	replay "$1" ncu "$BATS_TEST_TMPDIR/$1" | kf-read | kf-collate | kf-feedback >"$BATS_TEST_TMPDIR/$1.json"
}

# ut_replay ID DIR [WORKER-JSON]: the replay records of a unitrace fixture,
# one a pass-NNN-GROUP folder of DIR, as pass unitrace.NNN.
ut_replay() {
	local d n
	for d in "$2"/pass-*; do
		n=${d##*/pass-}
		jq -cn --arg id "$1" --arg d "$d" --arg p "unitrace.${n%%-*}" --argjson w "${3:-null}" \
			'{id:$id, profiler:"unitrace", pass:$p, output_dir:$d} + (if $w == null then {} else {worker:$w} end)'
	done
}

# fb NAME FILE [kf-feedback options]: feedback for a replay of ncu report
# FILE, the final record in $BATS_TEST_TMPDIR/NAME.json; text NAME and
# an NAME JQ read it (a test file may define its own).
fb() {
	local name=$1 file=$2
	shift 2
	mkdir -p "$BATS_TEST_TMPDIR/$name"
	cp "$file" "$BATS_TEST_TMPDIR/$name/ncu_report.csv"
	replay "$name" ncu "$BATS_TEST_TMPDIR/$name" | kf-read 2>/dev/null | kf-collate |
		kf-feedback "$@" >"$BATS_TEST_TMPDIR/$name.json"
}

text() {
	jq -r .feedback "$BATS_TEST_TMPDIR/$1.json"
}

an() {
	jq -c ".analysis | $2" "$BATS_TEST_TMPDIR/$1.json"
}

# kf_metrics: the --metrics list kf-wrap ncu adds (share/kf/ncu_metrics.txt).
kf_metrics() {
	grep -v '^#' "$KF_DATADIR/ncu_metrics.txt" | grep . | paste -sd, -
}

# kf_sections: the --section arguments kf-wrap ncu adds
# (share/kf/ncu_sections.txt), as JSON array items ("--section","A",...);
# kf_sections_words: the same as words.
kf_sections() {
	grep -v '^#' "$KF_DATADIR/ncu_sections.txt" | grep . | sed 's/.*/"--section","&"/' | paste -sd, -
}
kf_sections_words() {
	grep -v '^#' "$KF_DATADIR/ncu_sections.txt" | grep . | sed 's/^/--section /' | paste -sd' ' -
}
