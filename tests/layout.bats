#!/usr/bin/env bats
# lib/ncu in layers (lib/README.md): no file over 1,000 lines, and no two
# files that call each other, directly or round a circle.

load helper

# "FILE CALLEE" for each function of lib/ncu that FILE calls and another
# file of lib/ncu defines (a definition: a name at the start of a line,
# after a line that is its type and not static).
calls() {
	awk '
	FNR == 1 { prev = "" }
	/^[a-z_][a-z_0-9]*\(/ && prev !~ /^static/ && prev ~ /^[a-z]/ {
		n = $0; sub(/\(.*/, "", n); def[n] = FILENAME
	}
	{ prev = $0 }
	END { for (n in def) print n, def[n] }' "$TOP"/lib/ncu/*.c > "$BATS_TEST_TMPDIR/defs"
	local f n d
	for f in "$TOP"/lib/ncu/*.c; do
		while read -r n d; do
			[ "$d" = "$f" ] && continue
			grep -q "\\b$n(" "$f" && echo "${f##*/} ${d##*/}"
		done < "$BATS_TEST_TMPDIR/defs"
	done | sort -u
}

@test "lib/ncu: no file over 1,000 lines" {
	run bash -c 'wc -l "$TOP"/lib/ncu/*.c "$TOP"/lib/ncu/*.h | awk "\$2 != \"total\" && \$1 > 1000"'
	assert_success
	assert_output ""
}

@test "lib/ncu: the calls between files have no circle" {
	calls > "$BATS_TEST_TMPDIR/edges"
	# the chain's files call their parts, and feedback its parts: the
	# edges are there to be checked
	grep -qx 'ncu_chain.c ncu_detail.c' "$BATS_TEST_TMPDIR/edges"
	grep -qx 'ncu_feedback.c ncu_rules.c' "$BATS_TEST_TMPDIR/edges"
	# tsort says "input contains a loop" when the graph has a circle
	run tsort "$BATS_TEST_TMPDIR/edges"
	assert_success
	refute_output --partial loop
}
