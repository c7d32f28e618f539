#!/usr/bin/env bats
# kf-wrap ncu's chain (libexec/kf/kf-ncu): a kept report and its pages, and
# --top K: a timing run over every launch, kf-read --profiler ncu --select, a detailed
# run of one launch of each top kernel. tests/fake/ncu replays recorded H200
# CSVs and applies ncu's launch filters to them.

load helper

H200="$FIX/ncu-h200"
PAGES="$FIX/ncu-h200-pages"
TOPFIX="$FIX/ncu-h200-top"
FAKE="$TOP/tests/fake/ncu"
MULTI_SGEMM='sgemm_naive_k(const float *, const float *, float *, int)'
MULTI_COPY='copy_k(const float4 *, float4 *, unsigned long)'

setup() {
	T=$BATS_TEST_TMPDIR
	export FAKE_NCU_ARGV="$T/ncu-argv"
	export FAKE_NCU_RAW="$PAGES/sgemm_naive/ncu_raw.csv"
	export FAKE_NCU_SOURCE="$PAGES/sgemm_naive/ncu_source.csv"
	# the outputs under a path with spaces, quotes and a dollar
	O="$T/o u t 'q' \"\$(x)\""
	cd "$T" || exit 1
}

# chain ID [KF-WRAP OPTION ...] -- CMD: kf-wrap | kf-run | kf-read | kf-collate
# | kf-feedback into $T/ID.json, with the fake ncu; the run's record in
# $T/ID.run.
chain() {
	local id=$1
	shift
	kf-wrap ncu --id "$id" -o "$O" --tool "$FAKE" "$@" | kf-run -q -t 60 >"$T/$id.run"
	# kf-feedback exits 1 for a failed profile, and says why in the record
	kf-read <"$T/$id.run" 2>/dev/null | kf-collate | kf-feedback >"$T/$id.json" || [ $? -eq 1 ]
}

# The argv of the fake ncu's Nth run (from 1), one argument a line.
ncu_run() {
	awk -v n="$1" '$0 == "===" { i++; next } i == n - 1' "$FAKE_NCU_ARGV"
}

@test "--profiler ncu --select 2 on bench multi's details page: sgemm_naive_k (3.13 ms) and copy_k (2 launches) by function name, fma_k left out" {
	cp "$H200/detailed-multi.csv" "$T/t.csv"
	run kf-read --profiler ncu --select 2 "$T/t.csv"
	assert_success
	assert_output "$(printf '%s\n' --kernel-name-base function --kernel-id '::regex:^(sgemm_naive_k|copy_k)$:1' \
		--launch-count 2 --kill yes)"
	run jq -c '[.top, .chosen, (.filter | length)]' "$T/ncu_top.json"
	assert_output '[2,["'"$MULTI_SGEMM"'","'"$MULTI_COPY"'"],8]'
	run kf-read --profiler ncu --select 2 --launch-ids "$T/t.csv"
	assert_output "$(printf '2\n0')"
}

@test "--profiler ncu --select 3 on ResNet-18's real timing run and its mangled export: the filter measured to profile exactly the top 3" {
	cp "$TOPFIX/resnet18.timing1.csv" "$T/ncu_timing.csv"
	cp "$TOPFIX/resnet18.timing2-mangled.csv" "$T/ncu_timing_mangled.csv"
	run kf-read --profiler ncu --select 3 "$T/ncu_timing.csv"
	assert_success
	assert_output "$(printf '%s\n' --kernel-name-base mangled --kernel-id \
		'::regex:^(_ZN5cudnn26bn_fw_inf_1C11_kernel_NCHWIffLb1ELi1EEEvT0_S1_17cudnnTensorStructPKT_S2_PS3_S2_PKS1_S8_S8_S8_S1_|_ZN5cudnn19engines_precompiled16nchwToNhwcKernelIfffLb0ELb1EL21cudnnKernelDataType_t0EEEvNS0_18nchw2nhwc_params_tIT1_EEPKT_PT0_|sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x64x32_stage5_warpsize2x2x1_g1_tensor16x8x8_execute_kernel__5x_cudnn)$:1' \
		--launch-count 3 --kill yes)"
	# the first launches of the three: IDs 5, 35 and 10
	run kf-read --profiler ncu --select 3 --launch-ids "$T/ncu_timing.csv"
	assert_output "$(printf '5\n35\n10')"
	# without the mangled export: function names, as measured (18 launches)
	rm "$T/ncu_timing_mangled.csv"
	run kf-read --profiler ncu --select 3 --no-write "$T/ncu_timing.csv"
	assert_line '::regex:^(bn_fw_inf_1C11_kernel_NCHW|nchwToNhwcKernel|sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x64x32_stage5_warpsize2x2x1_g1_tensor16x8x8_execute_kernel__5x_cudnn)$:1'
}

@test "--profiler ncu --select: a mangled name with a colon cannot go into --kernel-id: --kernel-name, one launch per launch configuration" {
	cp "$FIX/ncu-h200-nvtx/metrics-only.csv" "$T/ncu_timing.csv"
	sed 's/scale_k(float \*, int)/a:b(float *, int)/' "$T/ncu_timing.csv" >"$T/ncu_timing_mangled.csv"
	run kf-read --profiler ncu --select 1 --no-write "$T/ncu_timing.csv"
	assert_success
	assert_output "$(printf '%s\n' --kernel-name-base mangled --kernel-name 'regex:^(a:b\(float \*, int\))$' \
		--filter-mode per-launch-config --launch-count 1)"
}

@test "--profiler ncu --select on a real --metrics gpu__time_duration.sum log; --no-write writes no ncu_top.json" {
	cp "$FIX/ncu-h200-nvtx/metrics-only.csv" "$T/t.csv"
	run kf-read --profiler ncu --select 3 --no-write "$T/t.csv"
	assert_success
	assert_line '::regex:^(scale_k)$:1'
	[ ! -e "$T/ncu_top.json" ]
}

@test "--profiler ncu --select leaves out framework machinery from share/kf/machinery.tsv" {
	mkdir -p "$T/share"
	cp "$KF_DATADIR"/* "$T/share/"
	printf '# test table\n*sgemm_naive_k*\tTest\ta kernel set aside\n' >"$T/share/machinery.tsv"
	cp "$H200/detailed-multi.csv" "$T/t.csv"
	KF_DATADIR="$T/share" run kf-read --profiler ncu --select 2 "$T/t.csv"
	assert_success
	assert_line '::regex:^(copy_k|fma_k)$:1'
}

@test "--profiler ncu --select: no kernel, an unreadable file and a bad K fail with a message" {
	run kf-read --profiler ncu --select 2 "$H200/detailed-none.csv"
	assert_failure 1
	assert_output --partial 'no kernel launch with a duration (0 launches, 0 kernels'
	run kf-read --profiler ncu --select 2 "$T/absent.csv"
	assert_failure 1
	assert_output --partial "cannot read $T/absent.csv"
	run kf-read --profiler ncu --select 0 "$H200/detailed-multi.csv"
	assert_failure 2
	run kf-read --profiler ncu --select 2
	assert_failure 2
	run kf-read --no-write
	assert_failure 2
}

@test "--profiler ncu --select: a cut-off last line, NUL bytes, a stray quote and a path with spaces and quotes" {
	d="$T/a b \"q\" 'c'"
	mkdir -p "$d"
	# the last launch (copy_k, ID 3) cut inside its Duration row; a NUL in fma_k's name
	head -c -300 "$H200/detailed-multi.csv" | sed 's/fma_k(/fma_k\x00(/; 5s/^/"unclosed /' >"$d/t.csv"
	run kf-read --profiler ncu --select 3 --no-write "$d/t.csv"
	assert_success
	assert_line '::regex:^(sgemm_naive_k|copy_k|fma_k)$:1'
}

@test "--profiler ncu --select: a 2 MB kernel name gives a filter argument of its first 4096 bytes and .*, which still matches it" {
	long="k$(head -c 2000000 /dev/zero | tr '\0' x)(int)"
	{
		echo '"ID","Process ID","Process Name","Host Name","Kernel Name","Section Name","Metric Name","Metric Unit","Metric Value"'
		echo '"0","1","p","h","'"$long"'","Command line profiler metrics","gpu__time_duration.sum","us","1.5"'
		echo '"1","1","p","h","small(int)","Command line profiler metrics","gpu__time_duration.sum","ns","1,000"'
	} >"$T/t.csv"
	run kf-read --profiler ncu --select 2 --no-write "$T/t.csv"
	assert_success
	re=$(sed -n 4p <<<"$output")
	[ "${#re}" -eq $((10 + 4096 + 2 + 1 + 5 + 4)) ]
	[[ "${re: -13}" == 'x.*|small)$:1' ]]
	re=${re#::regex:}
	[[ "$long" =~ ${re%:1} ]]
}

@test "real --top outputs of ResNet-18 (H200): every launch ranked, bn_fw_inf focused, the rule the full run gives it" {
	cp -r "$TOPFIX/resnet18-top" "$T/rn"
	kf-read --profiler ncu --select 3 "$T/rn/ncu_timing.csv" >/dev/null
	replay rn ncu "$T/rn" | kf-read | kf-collate | kf-feedback >"$T/rn.json"
	run jq -c '[.collated.kernel_count, .collated.timing.launches, .collated.timing.kernel_count,
		.collated.timing.missing, .analysis.focus.name[0:38], .analysis.rules[0].name, .analysis.rules[0].speedup]' "$T/rn.json"
	assert_output '[3,241,20,[],"void cudnn::bn_fw_inf_1C11_kernel_NCHW","LaunchConfiguration",50]'
	run jq -r .feedback "$T/rn.json"
	assert_line --partial 'A timing run measured all 241 kernel launches ('
	assert_line 'Why this kernel: it has the most GPU time of the program'"'"'s 20 kernels: 14.5%, 359.6 µs over 40 launches.'
	assert_line --partial 'The numbers below are from its launch profiled in detail (ID 0, '
}

@test "real --top outputs of the transformer (H200): the three kernels chosen are the three profiled" {
	cp -r "$TOPFIX/transformer-top" "$T/tf"
	run kf-read --profiler ncu --select 3 "$T/tf/ncu_timing.csv"
	assert_line '::regex:^(nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_bias_TNT|nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_gelubias_TNT|cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x64_4x1x1_cga1x1x1_kernel0_0)$:1'
	replay tf ncu "$T/tf" | kf-read | kf-collate | kf-feedback >"$T/tf.json"
	run jq -c '[.collated.kernel_count, .collated.timing.launches, .collated.timing.missing,
		([.collated.timing.kernels[] | select(.detailed)] | length), .analysis.focus.name, .analysis.rules[0].name]' "$T/tf.json"
	assert_output '[3,61,[],3,"nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_bias_TNT","MemoryL2Compression"]'
}

@test "real ViT-Small outputs (H200, --profile-from-start off): --top 3 gives the focus kernel and top rule of every launch in detail" {
	cp -r "$TOPFIX/vit-top" "$T/top"
	mkdir "$T/full"
	gzip -dc "$TOPFIX/vit-full/ncu_report.csv.gz" >"$T/full/ncu_report.csv"
	replay top ncu "$T/top" | kf-read | kf-collate | kf-feedback >"$T/top.json"
	replay full ncu "$T/full" | kf-read | kf-collate | kf-feedback >"$T/full.json"
	q='[.analysis.focus.name, .analysis.rules[0].name, .analysis.rules[0].speedup]'
	want='["sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x64x8_stage3_warpsize2x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas","LaunchConfiguration",40.91]'
	run jq -c "$q" "$T/top.json"
	assert_output "$want"
	run jq -c "$q" "$T/full.json"
	assert_output "$want"
	# every launch: 126 timed in one, 126 profiled in the other; the
	# focus's share of the GPU time agrees to a tenth of a point
	run jq -c '[.collated.timing.launches, .collated.kernel_count, (.analysis.focus.share_pct * 10 | round)]' "$T/top.json"
	assert_output '[126,3,382]'
	run jq -c '[.collated.kernel_count, (.analysis.focus.share_pct * 10 | round)]' "$T/full.json"
	assert_output '[126,384]'
}

@test "kf-wrap ncu --top 2: timing run, then one launch each of the top 2 kernels; ranking from every launch" {
	export FAKE_NCU_TIMING="$H200/detailed-multi.csv" FAKE_NCU_CSV="$H200/detailed-multi.csv"
	chain multi --top 2 -a --clock-control -a none -a --set -a full -- /bin/echo ran
	# details: 2 launches (copy_k's two share one launch configuration); timing: all 4
	run bash -c 'kf-read <"$1" | jq -c "[.run.exit_code, .run.ended_by, .data.kernel_count, .data.timing.launches,
		.data.timing.kernel_count, .data.timing.top, .data.timing.missing]"' _ "$T/multi.run"
	assert_output '[0,"exit",2,4,3,2,[]]'
	run jq -c '[.analysis.focus.name, (.analysis.ranking | tostring | contains("fma_k")), .analysis.missing_from_details]' "$T/multi.json"
	assert_output '["'"$MULTI_SGEMM"'",true,[]]'
	run jq -r .feedback "$T/multi.json"
	assert_line 'A timing run measured all 4 kernel launches (3.62 ms of GPU time in 3 kernels); the details below come from a second run that profiled the 2 kernels with the most GPU time (2 launches).'
	assert_line 'Why this kernel: it has the most GPU time of the program'"'"'s 3 kernels: 86.5%, 3.13 ms over 1 launch.'
	# the timing run: the user's options but not --set; the detailed run: --set full and the filter
	run ncu_run 1
	assert_output "$(printf '%s\n' -o "$O/multi/ncu.000/timing" -f --metrics gpu__time_duration.sum \
		--clock-control none /bin/echo ran)"
	# its exports, by name and mangled (the fake mangles: _Zf...), side by side
	run bash -c 'for i in 2 3; do awk -v n=$i '"'"'$0 == "===" { i++; next } i == n - 1'"'"' "$1" | tr "\n" " "; echo; done | sort' _ "$FAKE_NCU_ARGV"
	assert_line --index 0 "-i $O/multi/ncu.000/timing.ncu-rep --page details --csv --print-units base "
	assert_line --index 1 "-i $O/multi/ncu.000/timing.ncu-rep --page details --csv --print-units base --print-kernel-base mangled "
	# the detailed run: one launch of each, and ncu ends the program after the 2
	run ncu_run 4
	assert_line '::regex:^(_Zfsgemm_naive_k_const_float____const_float____float____int_|_Zfcopy_k_const_float4____float4____unsigned_long_)$:1'
	[[ "$output" == *$'\n--launch-count\n2\n--kill\nyes\n'* ]]
	assert_line --index 0 -- -o
	assert_line --index 1 "$O/multi/ncu.000/report"
	assert_line -- 'full'
	for f in report.ncu-rep ncu_report.csv ncu_raw.csv ncu_source.csv timing.ncu-rep ncu_timing.csv \
	    ncu_timing_mangled.csv ncu_top.json; do
		[ -s "$O/multi/ncu.000/$f" ]
	done
	# the source page: one export for each of the 2 launches, side by side,
	# joined (the fake's source page is the same whatever the launch)
	run bash -c 'grep -A1 -x -e --launch-skip "$1" | grep -x "[0-9]*" | sort | tr "\n" " "' _ "$FAKE_NCU_ARGV"
	assert_output '0 1 '
	cmp "$O/multi/ncu.000/ncu_source.csv" <(cat "$FAKE_NCU_SOURCE" "$FAKE_NCU_SOURCE")
	[ "$(grep -c '^===$' "$FAKE_NCU_ARGV")" -eq 8 ]
}

@test "--top: ncu ends the detailed run once its launches are profiled (exit 0); the program's status is the timing run's" {
	export FAKE_NCU_TIMING="$H200/detailed-multi.csv" FAKE_NCU_CSV="$H200/detailed-multi.csv"
	chain st --top 2 -- sh -c 'echo ran; exit 3'
	run jq -c '[.run.exit_code, (.run.stdout | contains("Trying to shutdown target application")),
		(.run.stdout | contains("NCU_DONE"))]' "$T/st.run"
	assert_output '[3,true,true]'
	run jq -c '[.collated.kernel_count, .collated.timing.launches]' "$T/st.json"
	assert_output '[2,4]'
	# a program that ends well in the timing run: 0, whatever the detailed run saw
	chain ok --top 2 -- /bin/echo ran
	run jq -c .run.exit_code "$T/ok.run"
	assert_output 0
}

@test "--top 3 through the chain on ResNet-18's recorded runs: 241 launches timed, the first launch of each of the top 3 detailed" {
	# the detailed run replays the 13 launches a per-launch-config run recorded
	export FAKE_NCU_TIMING="$TOPFIX/resnet18.timing1.csv" FAKE_NCU_CSV="$TOPFIX/filter.mangled-plc1.csv"
	chain rn --top 3 -- /bin/echo ran
	run bash -c 'kf-read <"$1" | jq -c "[.run.exit_code, .data.kernel_count, [.data.kernels[].id], .data.timing.launches, .data.timing.missing]"' _ "$T/rn.run"
	assert_output '[0,3,[0,1,2],241,[]]'
	run jq -r .analysis.focus.name "$T/rn.json"
	assert_output 'void cudnn::bn_fw_inf_1C11_kernel_NCHW<float, float, 1, 1>(T2, T2, cudnnTensorStruct, const T1 *, cudnnTensorStruct, T1 *, cudnnTensorStruct, const T2 *, const T2 *, const T2 *, const T2 *, T2)'
}

@test "--top: the user's kernel filter (-k) narrows the timing run; the detailed run takes kf's filter instead" {
	export FAKE_NCU_TIMING="$H200/detailed-multi.csv" FAKE_NCU_CSV="$H200/detailed-multi.csv"
	chain k --top 2 -a -k -a 'regex:copy|fma' -- /bin/echo ran
	run bash -c 'kf-read <"$1" | jq -c "[.data.timing.launches, .data.timing.chosen, [.data.kernels[].name]]"' _ "$T/k.run"
	assert_output '[3,["'"$MULTI_COPY"'","fma_k(float *, int)"],["'"$MULTI_COPY"'","fma_k(float *, int)"]]'
	run ncu_run 1
	assert_line 'regex:copy|fma'
	run ncu_run 4
	refute_line 'regex:copy|fma'
	assert_line --partial 'regex:^(_Zfcopy_k'
}

@test "--top: a chosen kernel the detailed run did not run is named in the feedback" {
	# the second run launches copy_k only (bench copy's recorded report)
	export FAKE_NCU_TIMING="$H200/detailed-multi.csv" FAKE_NCU_CSV="$H200/detailed-copy.csv"
	chain gone --top 2 -- /bin/echo ran
	run jq -c '[.collated.timing.missing, .analysis.missing_from_details, .analysis.focus.name]' "$T/gone.json"
	assert_output '[["'"$MULTI_SGEMM"'"],["'"$MULTI_SGEMM"'"],"'"$MULTI_COPY"'"]'
	run jq -r .feedback "$T/gone.json"
	assert_output --partial 'these kernels chosen from the timing run did not run in the detailed run'
	assert_output --partial "so they have no details: $MULTI_SGEMM."
	# one launch of the two: ncu never reached --launch-count 2, so the
	# program ran to its end
	run jq -c '.run.stdout | contains("Trying to shutdown")' "$T/gone.run"
	assert_output false
}

@test "--top: a timing run that profiled nothing ends the chain; kf-read says why from its output" {
	export FAKE_NCU_MODE=none FAKE_NCU_CSV="$H200/detailed-multi.csv"
	chain none --top 3 -- /bin/echo ran
	run jq -c '[.run.exit_code, (.run.stderr | contains("timing run failed"))]' "$T/none.run"
	assert_output '[1,true]'
	run bash -c 'kf-read <"$1"; echo "rc=$?"' _ "$T/none.run"
	assert_line --partial '"kind":"no_kernels"'
	assert_line 'rc=1'
	[ "$(grep -c '^===$' "$FAKE_NCU_ARGV")" -eq 1 ]
}

@test "without --top: one run into report.ncu-rep, then the details, raw and source pages; NCU_DONE" {
	export FAKE_NCU_CSV="$H200/detailed-multi.csv"
	chain all -- /bin/echo ran
	run jq -c '[.run.exit_code, .run.ended_by, (.run.stdout | contains("NCU_DONE")), .data.kernel_count, has("timing")]' \
		<(kf-read <"$T/all.run")
	assert_output '[0,"exit",true,4,false]'
	d="$O/all/ncu.000"
	cmp "$d/ncu_raw.csv" "$FAKE_NCU_RAW"
	cmp "$d/ncu_source.csv" <(cat "$FAKE_NCU_SOURCE" "$FAKE_NCU_SOURCE" "$FAKE_NCU_SOURCE")
	[ "$(grep -c '^===$' "$FAKE_NCU_ARGV")" -eq 6 ]
	# the source page: the first launch of each of the 3 kernels with the most
	# time, sgemm_naive_k (ID 2), copy_k (ID 0), fma_k (ID 1), one export
	# each; the exports run side by side, so their order in the log is any
	skips=
	for i in 2 3 4 5 6; do
		run ncu_run $i
		[ "${lines[3]}" = source ] || continue
		assert_line -- '--print-source'
		assert_line --index 7 -- '--launch-skip'
		skips="$skips ${lines[8]}"
	done
	[ "$(printf '%s\n' $skips | sort | tr '\n' ' ')" = "0 1 2 " ]
}

@test "a failed raw or source export leaves that file out and the run whole; a failed details export fails it" {
	export FAKE_NCU_CSV="$H200/detailed-copy.csv" FAKE_NCU_EXPORT_FAIL=source
	chain src -- /bin/echo ran
	run jq -c '[.run.exit_code, (.run.stderr | contains("export failed")), .data.kernel_count]' <(kf-read <"$T/src.run")
	assert_output '[0,true,1]'
	[ ! -e "$O/src/ncu.000/ncu_source.csv" ]
	export FAKE_NCU_EXPORT_FAIL=details
	chain det -- /bin/echo ran
	run jq -c '[.run.exit_code, .error.kind]' <(kf-read <"$T/det.run")
	assert_output '[3,"profiler_error"]'
}

@test "a damaged ncu_timing.csv (no durations, NUL bytes, a cut row) is data: timing with 0 launches, the details still read" {
	mkdir -p "$T/d"
	cp "$H200/detailed-copy.csv" "$T/d/ncu_report.csv"
	printf '"ID","Process ID","Kernel Name","Metric Name","Metric Unit","Metric Value"\n"0","1","k\0(int)","gpu__time_duration.sum","furlong","5"\n"1","1","k(int)","gpu__time' >"$T/d/ncu_timing.csv"
	replay d ncu "$T/d" | kf-read >"$T/d.json"
	run jq -c '[.data.kernel_count, .data.timing.launches, .data.timing.truncated, .data.timing.notes]' "$T/d.json"
	assert_output '[1,0,true,["1 CSV row without a launch duration skipped"]]'
	run bash -c 'kf-collate <"$1" | kf-feedback --text' _ "$T/d.json"
	assert_success
	assert_line "Note: the timing run's ncu_timing.csv holds no launch duration, so the ranking covers only the 1 launch profiled in detail."
	assert_line 'Kernel: copy_k(const float4 *, float4 *, unsigned long)'
}

@test "kf-read reads an output_dir with only ncu_report.csv exported from a report, and one with the other pages beside it" {
	mkdir -p "$T/only" "$T/pages"
	cp "$PAGES/sgemm_naive/ncu_report.csv" "$T/only/"
	cp "$PAGES/sgemm_naive/"*.csv "$T/pages/"
	a=$(replay s ncu "$T/only" | kf-read | jq -c 'del(.output_dir)')
	# the pages add each launch's roofline inputs and source lines, nothing else
	b=$(replay s ncu "$T/pages" | kf-read | jq -c 'del(.output_dir)
		| del(.data.kernels[].roofline_inputs, .data.kernels[].source, .data.raw_page, .data.source_page)')
	[ "$a" = "$b" ]
	run jq -c '[.data.kernel_count, .data.kernels[0].name, .data.kernels[0].metrics["GPU Speed Of Light Throughput"].Duration.value, has("error")]' <<<"$a"
	assert_output '[1,"sgemm_naive_k(const float *, const float *, float *, int)",3.13,false]'
}

@test "kf-wrap ncu: options that decide where ncu writes are refused; -f and --import-source are kf-ncu's" {
	for a in -o --export --log-file --page -i --csv; do
		run kf-wrap ncu -a "$a" -a x -- ./k
		assert_failure 1
		assert_output --partial '"kind":"bad_option"'
	done
	run kf-wrap ncu --top 3 -a -f -a --import-source -a no -a --nvtx -- ./k
	assert_success
	run jq -c '.argv[5:]' <<<"$output"
	assert_output '["--nvtx","-+","--set","detailed","--nvtx","--","./k"]'
	run kf-wrap ncu --top -1 -- ./k
	assert_failure 2
	run kf-wrap ncu -o "$T/a
b" -- ./k
	assert_failure 1
	assert_output --partial '"kind":"output_dir"'
}

@test "kf-ncu: usage errors exit 2 and run nothing" {
	for args in "ncu d 0 sel -- ./k" "ncu d x sel -+ -- ./k" "ncu d 0 sel -+ --" "ncu d 0 sel -+ ./k"; do
		# shellcheck disable=SC2086
		run "$KF_LIBEXECDIR/kf-ncu" $args
		assert_failure 2
		assert_output --partial 'usage: kf-ncu'
	done
	run "$KF_LIBEXECDIR/kf-ncu" "$FAKE" "$T/a
b" 0 sel -+ -- ./k
	assert_failure 2
	assert_output --partial 'DIR may not hold a line end'
	[ ! -e "$FAKE_NCU_ARGV" ]
}
