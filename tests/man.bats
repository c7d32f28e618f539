#!/usr/bin/env bats
# Every program has a lint-clean mdoc page with EXIT STATUS and EXAMPLES, and
# answers --help, --version and usage errors the same way.

load helper

PROGS="kf-select kf-wrap kf-run kf-read kf-collate kf-feedback kf-report kf kf-mcp"

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

# The example blocks of FILE, one line each, a line of one RS (\036) after
# each block: a man page's .Bd -literal blocks with its escapes undone, or
# the README's indented ones.
doc_blocks() {
	case $1 in
	*.md) awk '/^    / { sub(/^    /, ""); print; b = 1; next } b { print "\036"; b = 0 }
		END { if (b) print "\036" }' "$1" ;;
	*) awk '/^\.Bd -literal/ { b = 1; next } /^\.Ed/ { if (b) print "\036"; b = 0; next }
		b { gsub(/\\e/, "\\"); gsub(/\\&/, ""); gsub(/\\\(dq/, "\""); print }' "$1" ;;
	esac
}

# glob_match TEXT PATTERN: TEXT is PATTERN, where "..." stands for anything.
glob_match() {
	local t=$1 p=$2 piece first=1
	while [[ $p == *...* ]]; do
		piece=${p%%...*}
		if ((first)); then
			[[ $t == "$piece"* ]] || return 1
			t=${t:${#piece}}
		else
			[[ $t == *"$piece"* ]] || return 1
			t=${t#*"$piece"}
		fi
		p=${p#*...}
		first=0
	done
	if ((first)); then [[ $t == "$p" ]]; else [[ $t == *"$p" ]]; fi
}

# check_example FILE CMD SHOWN: CMD prints SHOWN (a line that starts with a
# blank goes on the line before; a line "..." stands for any more lines).
check_example() {
	local -a want=() got=()
	local l i
	while IFS= read -r l; do
		if [[ $l == " "* && ${#want[@]} -gt 0 ]]; then
			want[-1]+=${l#"${l%%[! ]*}"}
		else
			want+=("$l")
		fi
	done <<<"$3"
	mapfile -t got < <(bash -c "$2" 2>&1)
	for ((i = 0; i < ${#want[@]}; i++)); do
		[[ ${want[i]} == ... ]] && return 0
		glob_match "${got[i]-}" "${want[i]}" ||
			fail "$1: \$ $2
printed line $((i + 1)): ${got[i]-(nothing)}
shown:        ${want[i]}"
	done
	((${#got[@]} == ${#want[@]})) || fail "$1: \$ $2: ${#got[@]} lines, ${#want[@]} shown"
}

@test "the examples of the man pages and the README that show their output print it" {
	cd "$BATS_TEST_TMPDIR"
	ln -s "$TOP/examples" examples
	n=0
	for f in "$TOP"/man/*.1 "$TOP/man/kf.7" "$TOP/README.md"; do
		cmd= out= state=
		while IFS= read -r line; do
			if [[ $line == $'\036' || $line == '$ '* ]]; then
				if [[ -n $cmd && -n $out ]]; then
					check_example "${f##*/}" "$cmd" "${out%$'\n'}"
					n=$((n + 1))
				fi
				cmd= out= state=
				[[ $line == $'\036' ]] && continue
				cmd=${line#'$ '} state=cmd
			elif [[ $state == cmd ]]; then
				cmd+=$'\n'$line
			elif [[ $state == out ]]; then
				out+=$line$'\n'
			fi
			# a command ends where it parses and does not go on (| or \)
			if [[ $state == cmd ]] && bash -n -c "$cmd" 2>/dev/null &&
				[[ $cmd != *'|' && $cmd != *'\' ]]; then
				state=out
			fi
		done < <(doc_blocks "$f")
	done
	# kf-select's two, kf-wrap's hostile id, kf-feedback's shares, the README's two records, kf-mcp's ping
	[ "$n" -eq 7 ] || fail "$n examples with their output"
}

@test "the README's records and feedback, shown without a \$, are those of a real run (examples/h200/copy.json, read again)" {
	kf-read "$TOP/examples/h200/copy.json" >"$T/read.json"
	# every "name":value shown is a field of the real records
	jq -r '.. | objects | to_entries[] | select(.value | type != "object" and type != "array") |
		"\"\(.key)\":\(.value | tojson)"' "$TOP/examples/h200/copy.json" "$T/read.json" | sort -u >"$T/have"
	awk '/^## One record at each stage/ { on = 1; next } /^## / { on = 0 } on' "$TOP/README.md" |
		awk '/^    / { if (!inb) { inb = 1; cmd = ($1 == "$") } if (!cmd) print substr($0, 5); next } { inb = 0 }' >"$T/shown"
	grep -oE '"[A-Za-z_0-9 ()/.-]+":("([^"\\]|\\.)*"|-?[0-9][0-9.e+-]*|true|false|null)' "$T/shown" |
		grep -vF '...' | sort -u >"$T/pairs"
	[ "$(wc -l <"$T/pairs")" -gt 30 ]
	run comm -23 "$T/pairs" "$T/have"
	assert_output ""
	# every line of the feedback text shown is in the real text
	jq -r .feedback "$TOP/examples/h200/copy.json" | tr '\n' ' ' >"$T/text"
	grep -vE '^ *[{"]|^ *\.\.\.$|^$' "$T/shown" | sed 's/^ *//' >"$T/lines"
	[ "$(wc -l <"$T/lines")" -gt 8 ]
	while IFS= read -r l; do
		grep -qF -- "$l" "$T/text" || fail "not in the feedback of examples/h200/copy.json: $l"
	done <"$T/lines"
}
