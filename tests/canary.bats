#!/usr/bin/env bats
# No code from input: shell syntax planted in every string that reaches a
# command line (id, cmd elements, output directory, profiler arguments,
# environment values, the tool's path) is passed on literally, through
# kf-select | kf-wrap | kf-run with the fake profilers of tests/fake; no
# CANARY file ever appears. Only cmd given as a string is a shell command,
# as documented (sh -c).

load helper

setup() {
	T=$BATS_TEST_TMPDIR
	# Every evil string, each of which would create CANARY if a shell saw it.
	E1='$(touch CANARY)'
	E2='`touch CANARY`'
	E3=';touch CANARY'
	E4="'; touch CANARY; '"
	E5='"; touch CANARY; "'
	E6='|touch CANARY'
	E7='&& touch CANARY'
	E8=$'\ntouch CANARY\n'
	EVIL="$E1 $E2 $E3"
	# The tools live in a directory whose name is evil too.
	TOOLS="$T/tools $E1 $E2"
	mkdir -p "$TOOLS" "$T/work"
	cp "$TOP/tests/fake/ncu" "$TOP/tests/fake/unitrace" "$TOP/tests/fake/vtune" "$TOOLS/"
	# The profiled program: writes its arguments and one variable, NUL
	# separated, to the file named by KF_CANARY_OUT.
	cat >"$TOOLS/prog" <<-'EOF'
	#!/bin/sh
	{ for a in "$@"; do printf '%s\0' "$a"; done; printf 'ENV=%s\0' "${KF_CANARY_ENV-unset}"; } >"$KF_CANARY_OUT"
	EOF
	chmod +x "$TOOLS/prog"
	export KF_CANARY_OUT="$T/got" KF_CANARY_ENV="$E1$E8$E4"
	cd "$T/work"
}

no_canary() {
	local found
	found=$(find "$T" "$TOP" -maxdepth 6 -name CANARY 2>/dev/null | head -n 5)
	[ -z "$found" ] || { echo "CANARY created: $found"; false; }
}

# The arguments the program got, one per line (NULs made newlines; the
# evil strings with a newline are checked by count).
got_args() {
	tr '\0' '\n' <"$T/got"
}

# A job whose id and every cmd element are evil.
job() {
	jq -cn --arg lang "$1" --arg prog "$TOOLS/prog" --arg e1 "$E1" --arg e2 "$E2" \
		--arg e3 "$E3" --arg e4 "$E4" --arg e5 "$E5" --arg e6 "$E6" --arg e7 "$E7" \
		--arg e8 "$E8" --arg id "job $EVIL" \
		'{id:$id, cmd:[$prog,$e1,$e2,$e3,$e4,$e5,$e6,$e7,$e8,"a b"], language:$lang,
		  arch:"H200"}'
}

expected_args() {
	printf '%s\0' "$E1" "$E2" "$E3" "$E4" "$E5" "$E6" "$E7" "$E8" "a b" "ENV=$KF_CANARY_ENV"
}

@test "ncu: evil id, cmd elements, output dir, profiler arguments, env and tool path reach the program and ncu literally" {
	export FAKE_NCU_CSV="$FIX/ncu-h200/detailed-copy.csv" FAKE_NCU_ARGV="$T/ncu-argv"
	out="$T/out $E1 $E4"
	job cuda | kf-select | kf-wrap -o "$out" --tool "$TOOLS/ncu" -a "--evil=$E1" -a "--evil2=$E5" \
		>"$T/wrapped"
	kf-run -q -t 60 <"$T/wrapped" | kf-read >"$T/read"
	no_canary
	cmp <(expected_args) "$T/got"
	# ncu got the evil arguments and its log file in the evil directory.
	grep -qxF -- "--evil=$E1" "$T/ncu-argv"
	grep -qxF -- "--evil2=$E5" "$T/ncu-argv"
	jq -e --arg o "$out" --arg id "job $EVIL" \
		'.id == $id and (.output_dir | startswith($o + "/")) and .run.exit_code == 0 and
		 .data.kernel_count == 1' "$T/read" >/dev/null
	[ -f "$(jq -r .output_dir "$T/read")/ncu_report.csv" ]
}

@test "unitrace: evil strings reach the program literally, in all three passes" {
	export KF_FAKE_SCENARIO="$FIX/unitrace/bmg-stream-slm" KF_FAKE_LOG="$T/ut-log"
	job sycl | kf-select --profiler unitrace |
		kf-wrap -o "$T/out $E2" --tool "$TOOLS/unitrace" -a "--evil=$E1" >"$T/wrapped"
	[ "$(wc -l <"$T/wrapped")" -eq 3 ]
	kf-run -q -t 60 <"$T/wrapped" | kf-read >"$T/read"
	no_canary
	cmp <(expected_args) "$T/got"
	[ "$(grep -cxF "arg: --evil=$E1" "$T/ut-log")" -eq 3 ]
	[ "$(jq -s 'map(select(.run.exit_code == 0 and .data.rows > 0)) | length' "$T/read")" -eq 3 ]
}

@test "vtune: evil strings reach the program and vtune literally" {
	export FAKE_VTUNE_SCENARIO=sycl-latency FAKE_VTUNE_FIXTURES="$FIX/vtune"
	job sycl | kf-select --profiler vtune |
		kf-wrap -o "$T/out $E3" --tool "$TOOLS/vtune" -a "$E7" >"$T/wrapped"
	kf-run -q -t 60 <"$T/wrapped" | kf-read >"$T/read"
	no_canary
	cmp <(expected_args) "$T/got"
	d=$(jq -r .output_dir "$T/read")
	grep -qxF -- "$E7" "$d/vtune_result/collect.args"
	jq -e '.run.exit_code == 0 and (.data.kernels | length) == 4' "$T/read" >/dev/null
}

@test "kf-run: evil argv elements, env values and output_dir are passed as they are" {
	jq -cn --arg p "$TOOLS/prog" --arg e1 "$E1" --arg e8 "$E8" --arg d "$T/o $E1" \
		--arg v "$E2$E6" \
		'{id:"r", argv:[$p,$e1,$e8], env:{KF_CANARY_ENV:$v}, output_dir:$d}' |
		kf-run -q -t 20 >"$T/ran"
	no_canary
	cmp <(printf '%s\0' "$E1" "$E8" "ENV=$E2$E6") "$T/got"
	jq -e '.run.exit_code == 0' "$T/ran" >/dev/null
}

@test "kf-wrap's command-line form: the command after -- and the tool path are never shell-interpreted" {
	export FAKE_NCU_CSV="$FIX/ncu-h200/detailed-copy.csv"
	kf-wrap ncu -o "$T/o" --tool "$TOOLS/ncu" --id "$E1" -- "$TOOLS/prog" "$E1" "$E4" |
		kf-run -q -t 20 >"$T/ran"
	no_canary
	cmp <(printf '%s\0' "$E1" "$E4" "ENV=$KF_CANARY_ENV") "$T/got"
	jq -e --arg id "$E1" '.id == $id and .run.exit_code == 0' "$T/ran" >/dev/null
}

@test "cmd as a string is the documented sh -c; the same text as an array element is one literal argument" {
	jq -cn '{id:"s", cmd:"touch SHELL_RAN", language:"cuda"}' | kf-select >"$T/s"
	jq -e '.cmd == "touch SHELL_RAN"' "$T/s" >/dev/null
	kf-wrap -o "$T/o" <"$T/s" | jq -c '.argv' >"$T/argv"
	# The string becomes sh -c STRING at the end of argv, and only there.
	jq -e '.[-3:] == ["sh", "-c", "touch SHELL_RAN"] or .[-3:] == ["/bin/sh", "-c", "touch SHELL_RAN"]' \
		"$T/argv" >/dev/null
	jq -cn '{id:"s", argv:["sh","-c","touch SHELL_RAN"]}' | kf-run -q -t 20 >/dev/null
	[ -f SHELL_RAN ]
	rm SHELL_RAN
	jq -cn --arg p "$TOOLS/prog" '{id:"a", argv:[$p, "touch CANARY; touch CANARY2"]}' |
		kf-run -q -t 20 >/dev/null
	no_canary
	[ ! -e CANARY2 ]
	cmp <(printf '%s\0' "touch CANARY; touch CANARY2" "ENV=$KF_CANARY_ENV") "$T/got"
}
