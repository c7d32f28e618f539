
@test "records re-read anywhere: kf-wrap's output_dir is absolute, the record re-read from another directory" {
	cd "$T"
	mkdir w elsewhere
	printf '#!/bin/sh\necho ran\n' >w/k
	chmod +x w/k
	(cd w && PATH="$TOP/tests/fake:$PATH" FAKE_NCU_CSV="$FIX/ncu-h200/detailed-copy.csv" \
		kf-wrap ncu -o rel --id j -- ./k | PATH="$TOP/tests/fake:$PATH" FAKE_NCU_CSV="$FIX/ncu-h200/detailed-copy.csv" kf-run >../run.json)
	run jq -r .output_dir run.json
	assert_output "$T/w/rel/j/ncu.000"
	run jq -r '.argv | index("'"$T/w/rel/j/ncu.000"'") != null' run.json
	assert_output true
	cd elsewhere
	run bash -c 'kf-read ../run.json | kf-collate | kf-feedback | jq -r "[.analysis.status, .analysis.focus.duration_ns] | @tsv"'
	assert_output $'ok\t131712'
}

@test "a relative output_dir in a replay record still reads from where it is run (fixtures replayed from the repository)" {
	cd "$TOP"
	run bash -c 'jq -cn "{id:\"r\", profiler:\"ncu\", output_dir:\"tests/fixtures/ncu-h200-pages\"}" | kf-read | jq -r ".output_dir, (.error.kind // \"none\")"'
	assert_line --index 0 tests/fixtures/ncu-h200-pages
}
