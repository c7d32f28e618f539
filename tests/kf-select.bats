#!/usr/bin/env bats
# kf-select: the language x profiler x arch table, row by row, and its errors.

load helper

# A job from LANG PROFILER ARCH ("-" leaves the field out).
job() {
	jq -cn --arg l "$1" --arg p "${2:--}" --arg a "${3:--}" \
		'{id:"j", cmd:["./k"], language:$l}
		 + (if $p == "-" then {} else {profiler:$p} end)
		 + (if $a == "-" then {} else {arch:$a} end)'
}

# What kf-select made of one job: "pass/group/mode ..." or "ERROR kind".
sel() {
	job "$@" | kf-select 2>/dev/null |
		jq -r 'if .error then "ERROR \(.error.kind)"
		       else "\(.pass)/\(.group // "-")/\(.mode)" end' | paste -sd' '
}

UNITRACE="unitrace.000/ComputeBasic/query unitrace.001/MemoryProfile/query unitrace.002/VectorEngineProfile/query"
SAMPLING="unitrace.000/ComputeBasic/sampling unitrace.001/MemoryProfile/sampling unitrace.002/VectorEngineProfile/sampling"
NCU="ncu.000/-/query"
VTUNE="vtune.000/-/query"

@test "sycl: unitrace by default (3 query passes), vtune allowed, ncu refused" {
	[ "$(sel sycl - bmg)" = "$UNITRACE" ]
	[ "$(sel sycl - -)" = "$UNITRACE" ]
	[ "$(sel sycl unitrace -)" = "$UNITRACE" ]
	[ "$(sel sycl vtune pvc)" = "$VTUNE" ]
	[ "$(sel sycl ncu H100)" = "ERROR no_profiler" ]
}

@test "ocl: vtune by default, unitrace allowed as 3 sampling passes, ncu refused" {
	[ "$(sel ocl - -)" = "$VTUNE" ]
	[ "$(sel ocl vtune lnl)" = "$VTUNE" ]
	[ "$(sel ocl unitrace lnl)" = "$SAMPLING" ]
	[ "$(sel ocl ncu -)" = "ERROR no_profiler" ]
}

@test "cuda: ncu only, whatever the arch" {
	[ "$(sel cuda - -)" = "$NCU" ]
	[ "$(sel cuda - lnl)" = "$NCU" ]
	[ "$(sel cuda ncu sm_90)" = "$NCU" ]
	[ "$(sel cuda unitrace -)" = "ERROR no_profiler" ]
	[ "$(sel cuda vtune -)" = "ERROR no_profiler" ]
}

@test "pytorch and triton: ncu for every NVIDIA arch form" {
	local lang arch
	for lang in pytorch triton; do
		for arch in Maxwell Pascal Volta Turing Ampere Ada Hopper Blackwell native \
		    A100 A6000 L4 L40S H100 H200 GB200 B200 "NVIDIA H200" "NVIDIA RTX A6000" \
		    "GeForce RTX 4090" "RTX 3060" "H100-SXM5-80GB" sm_90 sm_100a sm80 \
		    compute_86 "sm 8.0" "cc 8.6" "compute capability 9.0" "8.9"; do
			[ "$(sel $lang - "$arch")" = "$NCU" ] || { echo "$lang $arch"; return 1; }
		done
	done
}

@test "pytorch and triton: unitrace for every Intel arch form" {
	local lang arch
	for lang in pytorch triton; do
		for arch in lnl ptl bmg b580 dg2 pvc acm mtl arl "Arc B580" "Intel Arc A770" \
		    "Data Center GPU Max 1550" "Flex 170" "Intel(R) Core(TM) Ultra 7 258V" \
		    "Intel Corporation Battlemage G21 [Arc B580]" "Panther Lake" Xe2-LPG; do
			[ "$(sel $lang - "$arch")" = "$UNITRACE" ] || { echo "$lang $arch"; return 1; }
		done
	done
}

@test "pytorch and triton: the other profiler when asked, vtune refused" {
	[ "$(sel pytorch ncu lnl)" = "$NCU" ]
	[ "$(sel triton unitrace H100)" = "$UNITRACE" ]
	[ "$(sel pytorch vtune lnl)" = "ERROR no_profiler" ]
	[ "$(sel triton vtune H100)" = "ERROR no_profiler" ]
}

@test "the arch table tells the vendor, and no false friends" {
	vendor() { job pytorch - "$1" | kf-select 2>/dev/null | jq -r '.vendor // "none"' | head -1; }
	[ "$(vendor hopper)" = nvidia ]
	[ "$(vendor 'NVIDIA GH200 480GB')" = nvidia ]
	[ "$(vendor 'Genuine Intel(R) 0000')" = intel ]
	[ "$(vendor 'Intel(R) Graphics [0x7d51]')" = intel ]
	# "arch" is not "Arc", "a1000" is not "A100", "smart" is not sm_XX
	[ "$(vendor arch)" = none ]
	[ "$(vendor a1000)" = none ]
	[ "$(vendor smart)" = none ]
}

@test "matching ignores case: language, profiler and arch" {
	[ "$(sel SYCL VTUNE -)" = "$VTUNE" ]
	[ "$(sel CuDa NCU -)" = "$NCU" ]
	[ "$(sel PyTorch - hOpPeR)" = "$NCU" ]
	[ "$(sel Triton - SM_90)" = "$NCU" ]
	[ "$(sel OCL Unitrace LNL)" = "$SAMPLING" ]
	job CUDA ncu - | kf-select | jq -e '.profiler == "ncu" and .language == "CUDA"
		and .profile_language == "cuda"'
}

@test "an arch the table does not know: unitrace as the reference does, with a warning" {
	run bash -c "$(declare -f job); job pytorch - tpu-v5 | kf-select"
	assert_success
	assert_output --partial '"pass":"unitrace.000"'
	assert_output --partial "kf-select: line 1: job j: arch 'tpu-v5' is neither a known NVIDIA nor a known Intel name"
	[ "$(echo "$output" | grep -c '"pass"')" -eq 3 ]
}

@test "pytorch without arch or profiler is an error; --arch gives the default" {
	run bash -c "$(declare -f job); job pytorch - - | kf-select 2>/dev/null"
	assert_failure 1
	echo "$output" | jq -e '.error.kind == "no_arch" and (.error.hint | contains("ncu, unitrace"))'
	[ "$(job pytorch - - | kf-select --arch H200 | jq -r .pass)" = ncu.000 ]
	# the job's own arch wins over --arch
	[ "$(job pytorch - lnl | kf-select --arch H200 | jq -r .pass | head -1)" = unitrace.000 ]
}

@test "an unknown pair is one error record that lists the allowed profilers" {
	run bash -c "$(declare -f job); job cuda unitrace - | kf-select"
	assert_failure 1
	assert_output --partial "kf-select: line 1: job j: profiler 'unitrace' cannot profile cuda: it allows ncu"
	[ "$(job ocl ncu - | kf-select 2>/dev/null | jq -r .error.message)" = \
		"job j: profiler 'ncu' cannot profile ocl: it allows vtune, unitrace" ]
	[ "$(job sycl ncu - | kf-select 2>/dev/null | jq -r .error.hint)" = \
		'give "profiler" one of: unitrace, vtune' ]
	[ "$(job sycl ncu - | kf-select 2>/dev/null | wc -l)" -eq 1 ]
	job sycl ncu - | kf-select 2>/dev/null | jq -e '.error.stage == "kf-select" and .id == "j"'
}

@test "an unknown language is an error that lists the languages" {
	[ "$(job fortran - - | kf-select 2>/dev/null | jq -r .error.message)" = \
		"job j: unknown language 'fortran' (one of sycl, ocl, cuda, pytorch, triton)" ]
	[ "$(job fortran - - | kf-select 2>/dev/null | jq -r .error.kind)" = unknown_language ]
}

@test "reference_language: pytorch means the job's language, anything else is profiled" {
	ref() { jq -cn --arg r "$1" '{id:"j", cmd:["./k"], language:"sycl"} + (if $r == "-" then {} else {reference_language:$r} end)' |
		kf-select 2>/dev/null | jq -r '"\(.pass) \(.profile_language // .error.kind)"' | head -1; }
	[ "$(ref -)" = "unitrace.000 sycl" ]
	[ "$(ref Pytorch)" = "unitrace.000 sycl" ]
	[ "$(ref pytorch)" = "unitrace.000 sycl" ]
	[ "$(ref cuda)" = "ncu.000 cuda" ]
	[ "$(ref ocl)" = "vtune.000 ocl" ]
	[ "$(ref cobol)" = "null unknown_language" ]
}

@test "one record per pass, keys in order, the job's fields copied" {
	jq -cn '{id:"mm", cmd:"./mm --n 4096", language:"sycl", arch:"bmg", note:{x:[1,2]}}' |
		kf-select > "$BATS_TEST_TMPDIR/out"
	[ "$(jq -r .pass "$BATS_TEST_TMPDIR/out" | paste -sd,)" = unitrace.000,unitrace.001,unitrace.002 ]
	[ "$(jq -r .passes_total "$BATS_TEST_TMPDIR/out" | paste -sd,)" = 3,3,3 ]
	[ "$(jq -c .note "$BATS_TEST_TMPDIR/out" | sort -u)" = '{"x":[1,2]}' ]
	[ "$(jq -r .cmd "$BATS_TEST_TMPDIR/out" | sort -u)" = "./mm --n 4096" ]
	[ "$(jq -r .vendor "$BATS_TEST_TMPDIR/out" | sort -u)" = intel ]
}

@test "--profiler forces the profiler; an unknown name is a usage error" {
	[ "$(job sycl unitrace - | kf-select --profiler vtune | jq -r .pass)" = vtune.000 ]
	run kf-select --profiler perf </dev/null
	assert_failure 2
	assert_output --partial "--profiler: unknown profiler 'perf' (one of ncu, unitrace, vtune, trace)"
}

@test "missing or mistyped fields are error records, the other jobs still flow" {
	printf '%s\n' \
		'{"cmd":["./k"],"language":"cuda"}' \
		'{"id":"a","language":"cuda"}' \
		'{"id":"b","cmd":[],"language":"cuda"}' \
		'{"id":"c","cmd":["./k",3],"language":"cuda"}' \
		'{"id":"d","cmd":["./k"]}' \
		'{"id":"e","cmd":["./k"],"language":"cuda","arch":7}' \
		'not json' \
		'{"id":"ok","cmd":["./k"],"language":"cuda"}' \
		'{"id":"f","cmd":{"sh":1},"language":"cuda"}' \
		'{"id":"old","error":{"stage":"x","kind":"y","message":"z"}}' \
		'{"id":42,"cmd":"./k","language":"cuda"}' > "$BATS_TEST_TMPDIR/jobs"
	run kf-select "$BATS_TEST_TMPDIR/jobs"
	assert_failure 1
	[ "$(grep -c '^{' <<<"$output")" -eq 11 ]
	kinds=$(grep '^{' <<<"$output" | jq -r '.error.kind // .pass' | paste -sd' ')
	[ "$kinds" = "bad_record bad_record bad_record bad_record bad_record bad_record bad_json ncu.000 bad_record y ncu.000" ]
	assert_output --partial 'line 1: no "id": every job needs a name'
	assert_output --partial 'line 2: job a: no "cmd"'
	assert_output --partial 'line 4: job c: "cmd"[1] is not a string'
	assert_output --partial 'line 5: job d: no "language" (one of sycl, ocl, cuda, pytorch, triton)'
	assert_output --partial 'line 6: "arch" is not a string'
	assert_output --partial 'line 7:1: not JSON'
	# a number id becomes its string
	[ "$(grep '^{' <<<"$output" | tail -1 | jq -r .id)" = 42 ]
}

@test "clean input exits 0; NUL bytes and CRLF lines" {
	printf '{"id":"a","cmd":["./k"],"language":"cuda"}\r\n{"id":"b",\0"cmd":1}\n' > "$BATS_TEST_TMPDIR/j"
	run kf-select "$BATS_TEST_TMPDIR/j"
	assert_failure 1
	assert_output --partial '"id":"a","cmd":["./k"],"language":"cuda","profiler":"ncu"'
	assert_output --partial 'j: line 2:11: not JSON: the line holds a NUL byte'
	run bash -c "$(declare -f job); job cuda - - | kf-select"
	assert_success
}

@test "--list-arch prints the table; --help, --version and bad options" {
	run kf-select --list-arch
	assert_success
	assert_line "h200	nvidia	gpu	H200"
	assert_line "bmg	intel	codename	Battlemage"
	assert_line "native	nvidia	family	native"
	run kf-select --help
	assert_success
	assert_line --index 0 --partial "usage: kf-select"
	run kf-select --version
	assert_success
	assert_output --regexp '^kf-select [0-9]'
	run kf-select --bogus
	assert_failure 2
}
