#!/usr/bin/env bats
# The single-op PyTorch sweep (examples/h200/ops): its program, jobs and
# expected verdicts name the same ops, and check.sh judges kf's verdicts
# against expected.tsv, here on records made from recorded H200 profiles
# (tests/fixtures/ncu-h200-defects) under the names of the ops they match.
load helper

OPS="$TOP/examples/h200/ops"
DFIX="$FIX/ncu-h200-defects"

# record JOB OP: the final record of defect fixture JOB as $T/recs/OP.json
# (-n: without its source page, as cuBLAS and PyTorch kernels have none).
record() {
	local nolines=
	[ "$1" = -n ] && { nolines=1; shift; }
	local d="$BATS_TEST_TMPDIR/pages/$2" f
	mkdir -p "$d" "$BATS_TEST_TMPDIR/recs"
	for f in "$DFIX/$1"/*.csv.gz; do
		gzip -dc "$f" >"$d/$(basename "$f" .gz)"
	done
	[ -z "$nolines" ] || rm -f "$d/ncu_source.csv"
	replay "$2" ncu "$d" | kf-read | kf-collate | kf-feedback >"$BATS_TEST_TMPDIR/recs/$2.json"
}

@test "ops: ops.py, jobs.jsonl and expected.tsv name the same ops, each job one op profiled alone" {
	local a b c
	a=$(grep -o '^    "[a-z0-9_]*":' "$OPS/ops.py" | tr -d ' ":')
	b=$(jq -r .id "$OPS/jobs.jsonl")
	c=$(grep -v '^#' "$OPS/expected.tsv" | cut -f1)
	[ "$a" = "$b" ] || fail "ops.py and jobs.jsonl differ: $(diff <(echo "$a") <(echo "$b"))"
	[ "$a" = "$c" ] || fail "ops.py and expected.tsv differ: $(diff <(echo "$a") <(echo "$c"))"
	[ "$(echo "$a" | wc -l)" -ge 20 ]
	run jq -r 'select(.cmd != ["python3", "examples/h200/ops/ops.py", .id] or
		(.profiler_args | index("--profile-from-start")) == null or .language != "pytorch") | .id' "$OPS/jobs.jsonl"
	assert_output ''
	run awk -F'\t' '!/^#/ && NF != 5 { print NR": "NF" fields" }' "$OPS/expected.tsv"
	assert_output ''
}

@test "ops: check.sh says ok where kf's first kernel-level finding is the expected one, and why not where it is not" {
	record gemm-fp32 gemm_fp32
	record gemm-bf16 gemm_bf16
	record gemm-decode decode_gemm_bf16
	record -n atomic index_add_one_row_fp32
	# the bf16 GEMM's record under the name of the FP32 one: on the tensor pipe
	cp "$BATS_TEST_TMPDIR/recs/gemm_bf16.json" "$BATS_TEST_TMPDIR/recs/gemm_fp16.json"
	record gemm-bf16 conv2d_fp32
	run sh "$OPS/check.sh" "$BATS_TEST_TMPDIR/recs"
	assert_failure 1
	assert_line "$(printf 'gemm_fp32\tcompute_bound/fma\tcompute_bound/fma\tok')"
	assert_line "$(printf 'gemm_bf16\tcompute_bound/tensor\tcompute_bound/tensor\tok')"
	assert_line "$(printf 'gemm_fp16\tcompute_bound/tensor\tcompute_bound/tensor\tok')"
	assert_line "$(printf 'decode_gemm_bf16\tmemory_bound/dram\tmemory_bound/dram\tok')"
	assert_line "$(printf 'index_add_one_row_fp32\tatomic_contention/l2\tatomic_contention/l2\tok')"
	assert_line "$(printf 'conv2d_fp32\tcompute_bound/fma\tcompute_bound/tensor\twrong: the unit is not fma')"
	assert_line --partial "$(printf 'gelu_fp32\tmemory_bound/dram\t-\tmissing: no ')"
	assert_line --index -1 "5 of $(grep -vc '^#' "$OPS/expected.tsv") ops as expected"
	# a fix that does not say what expected.tsv asks
	jq -c '.analysis.diagnosis[0].fix = "fewer instructions"' "$BATS_TEST_TMPDIR/recs/gemm_fp32.json" >"$BATS_TEST_TMPDIR/f.json"
	mv "$BATS_TEST_TMPDIR/f.json" "$BATS_TEST_TMPDIR/recs/gemm_fp32.json"
	run sh "$OPS/check.sh" "$BATS_TEST_TMPDIR/recs"
	assert_line "$(printf 'gemm_fp32\tcompute_bound/fma\tcompute_bound/fma\twrong: the fix does not say "tensor cores"')"
}

@test "ops: check.sh passes when every op is as expected, and says how it was called wrong" {
	mkdir -p "$BATS_TEST_TMPDIR/one"
	record gemm-decode decode_gemm_bf16
	printf 'decode_gemm_bf16\tmemory_bound\tdram\t-\tstreams the weight\n' >"$BATS_TEST_TMPDIR/one.tsv"
	run sh "$OPS/check.sh" "$BATS_TEST_TMPDIR/recs" "$BATS_TEST_TMPDIR/one.tsv"
	assert_success
	assert_output "$(printf 'decode_gemm_bf16\tmemory_bound/dram\tmemory_bound/dram\tok\n1 of 1 ops as expected')"
	run sh "$OPS/check.sh"
	assert_failure 2
	assert_output 'usage: check.sh DIR [EXPECTED]'
	run sh "$OPS/check.sh" "$BATS_TEST_TMPDIR/none"
	assert_failure 2
	assert_output "check.sh: $BATS_TEST_TMPDIR/none: no such directory"
}
