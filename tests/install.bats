#!/usr/bin/env bats
# make install honours PREFIX, DESTDIR and MANPREFIX; the installed programs
# find their data and helper scripts; make uninstall removes what it put there.

load helper

# One build of its own (O=), so that installing never relinks the bin/ that
# the rest of the suite runs (perhaps a SAN=1 build).
setup_file() {
	make -C "$TOP" --no-print-directory all NODEPS=1 O="$BATS_FILE_TMPDIR/build" >/dev/null
}

inst() {
	make -C "$TOP" --no-print-directory "$@" NODEPS=1 O="$BATS_FILE_TMPDIR/build"
}

@test "make install into DESTDIR puts programs, data, helpers and man pages in place" {
	d=$BATS_TEST_TMPDIR/root
	run inst install DESTDIR="$d" PREFIX=/opt/kf MANPREFIX=/opt/kf/man
	assert_success
	# where it went, and what PATH lacks
	assert_line "kf: installed the programs in $d/opt/kf/bin, the man pages in $d/opt/kf/man (man 7 kf: the record format)"
	assert_line 'kf: /opt/kf/bin is not on PATH: export PATH=/opt/kf/bin:$PATH'
	PATH=/opt/kf/bin:$PATH run inst install DESTDIR="$d" PREFIX=/opt/kf MANPREFIX=/opt/kf/man
	refute_line --partial 'is not on PATH'
	for p in kf-select kf-wrap kf-run kf-read kf-collate kf-feedback kf-report kf kf-mcp; do
		[ -x "$d/opt/kf/bin/$p" ] || fail "no $p"
		[ -f "$d/opt/kf/man/man1/$p.1" ] || fail "no $p.1"
	done
	[ -f "$d/opt/kf/man/man7/kf.7" ]
	[ -f "$d/opt/kf/share/kf/gpus.json" ]
	[ -x "$d/opt/kf/libexec/kf/kf-vtune" ]
	[ -x "$d/opt/kf/libexec/kf/kf-unitrace-ocl" ]
	[ -x "$d/opt/kf/libexec/kf/kf-unitrace" ]
}

@test "installed programs find gpus.json and kf-vtune beside them, without KF_DATADIR" {
	d=$BATS_TEST_TMPDIR/root
	inst install DESTDIR="$d" PREFIX=/usr >/dev/null
	unset KF_DATADIR KF_LIBEXECDIR
	run "$d/usr/bin/kf-wrap" vtune --tool /bin/true -o "$BATS_TEST_TMPDIR/out" -- /bin/true
	assert_success
	[ "$(jq -r '.argv[0]' <<<"$output")" = "$d/usr/bin/../libexec/kf/kf-vtune" ]
}

@test "make uninstall removes every installed file" {
	d=$BATS_TEST_TMPDIR/root
	inst install DESTDIR="$d" PREFIX=/usr >/dev/null
	run inst uninstall DESTDIR="$d" PREFIX=/usr
	assert_success
	run find "$d" -type f
	assert_output ""
}

@test "installed kf-ncu (PREFIX/libexec/kf) finds PREFIX/share/kf without KF_DATADIR: framework machinery is never chosen for the detailed run" {
	d=$BATS_TEST_TMPDIR/root
	inst install DESTDIR="$d" PREFIX=/opt/kf >/dev/null
	unset KF_DATADIR KF_LIBEXECDIR
	cd "$BATS_TEST_TMPDIR"
	printf '#!/bin/sh\necho hi\n' >prog
	chmod +x prog
	export KF_TRACE_LIB=/nonexistent FAKE_NCU_TIMING="$FIX/ncu-h200-jax/jit-timing.csv" \
		FAKE_NCU_CSV="$FIX/ncu-h200-jax/jit-timing.csv"
	"$d/opt/kf/bin/kf-wrap" ncu --id x -o out --tool "$TOP/tests/fake/ncu" --top 2 -- ./prog |
		"$d/opt/kf/bin/kf-run" -q -t 60 >x.run
	# XLA's autotuning launches (DelayKernel, RedzoneAllocatorKernel, ...)
	# are machinery.tsv's; the two kernels with the most time after them
	run jq -c .chosen out/x/ncu.000/ncu_top.json
	assert_output '["sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x32_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas","triton_softmax_2"]'
	refute [ "$(jq -r .run.stderr x.run | grep -c 'machinery.tsv')" -gt 0 ]
}
