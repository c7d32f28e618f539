#!/usr/bin/env bats
# kf-read for ncu: real H200 captures, public samples, failures and damage.

load helper

H200="$FIX/ncu-h200"
PUB="$FIX/public-samples"

# report NAME FILE: a directory NAME whose ncu_report.csv is a copy of FILE.
report() {
	mkdir -p "$BATS_TEST_TMPDIR/$1"
	cp "$2" "$BATS_TEST_TMPDIR/$1/ncu_report.csv"
	printf '%s\n' "$BATS_TEST_TMPDIR/$1"
}

# read_fixture NAME FILE: kf-read a replay of FILE into $BATS_TEST_TMPDIR/NAME.json
read_fixture() {
	local d
	d=$(report "$1" "$2")
	replay "$1" ncu "$d" | kf-read >"$BATS_TEST_TMPDIR/$1.json"
}

k() {
	jq -c "$2" "$BATS_TEST_TMPDIR/$1.json"
}

# input ID DIR: a replay record in a file; prints its path.
input() {
	replay "$1" ncu "$2" >"$BATS_TEST_TMPDIR/$1.in"
	printf '%s\n' "$BATS_TEST_TMPDIR/$1.in"
}

# data FILTER INPUT: kf-read INPUT (stderr dropped) through jq -c FILTER.
data() {
	kf-read "$2" 2>/dev/null | jq -c "$1"
}

@test "copy_k: DRAM Throughput is 81.32 % with its unit, under its section" {
	read_fixture copy "$H200/detailed-copy.csv"
	run k copy '.data.kernels[0].metrics["GPU Speed Of Light Throughput"]["DRAM Throughput"]'
	assert_output '{"unit":"%","value":81.32}'
	run k copy '.data.kernels[0].metrics["GPU Speed Of Light Throughput"].Duration'
	assert_output '{"unit":"ns","value":131712}'
	run k copy '.data.kernels[0].metrics["GPU Speed Of Light Throughput"]["DRAM Frequency"].value'
	assert_output '3198898607.06'
}

@test "copy_k: identity of the launch (ids, names, block and grid as numbers, cc as text)" {
	read_fixture copy "$H200/detailed-copy.csv"
	run k copy '.data.kernels[0] | [.id, .process_id, .process_name, .host, .name, .context, .stream, .block, .grid, .device, .cc]'
	assert_output '[0,540,"bench","127.0.0.1","copy_k(const float4 *, float4 *, unsigned long)",1,7,[256,1,1],[1056,1,1],0,"9.0"]'
	run k copy '.data | [.format, .kernel_count, .truncated, .notes]'
	assert_output '["details",1,false,[]]'
}

@test "copy_k: non-numeric metric values stay text, separators are removed from numbers" {
	read_fixture copy "$H200/detailed-copy.csv"
	run k copy '.data.kernels[0].metrics["Launch Statistics"] | [.["Function Cache Configuration"].value, .["Enabled TPC IDs"].value, .["Grid Size"].value, .Threads]'
	assert_output '["CachePreferNone","all",1056,{"unit":"thread","value":270336}]'
}

@test "copy_k: rules keep section identifier, type, text and speedup (null when none)" {
	read_fixture copy "$H200/detailed-copy.csv"
	run k copy '[.data.kernels[0].rules[] | [.section, .name, .type, .speedup_type, .speedup]]'
	assert_output '[["SpeedOfLight","SOLBottleneck","INF",null,null],["SpeedOfLight_RooflineChart","SOLFPRoofline","INF",null,null],["ComputeWorkloadAnalysis","HighPipeUtilization","OPT","local",93.83],["MemoryWorkloadAnalysis_Chart","MemoryL2Compression","OPT","global",28.7]]'
	run k copy '.data.kernels[0].rules[0].description'
	assert_output --partial 'Start by analyzing DRAM in the Memory Workload Analysis section.'
}

@test "copy_k: ncu's warning lines become messages, ==PROF== lines do not" {
	read_fixture copy "$H200/detailed-copy.csv"
	run k copy '.data.messages'
	assert_output '[{"level":"warning","text":"Note: Running with unmodified GPU clocks. If not controlled otherwise, profiling results may be inconsistent.","source":"log","count":1}]'
}

@test "multi: four launches in file order with their durations" {
	read_fixture multi "$H200/detailed-multi.csv"
	run k multi '[.data.kernels[] | [.id, (.name | split("(")[0]), .metrics["GPU Speed Of Light Throughput"].Duration.value]]'
	assert_output '[[0,"copy_k",132640],[1,"fma_k",222944],[2,"sgemm_naive_k",3129408],[3,"copy_k",132640]]'
}

@test "resnet18: 80 launches of one process, each with its own ID" {
	read_fixture resnet "$H200/detailed-resnet18-plain.csv"
	run k resnet '.data | [.kernel_count, (.kernels | length), ([.kernels[].id] | unique | length), ([.kernels[].process_id] | unique)]'
	assert_output '[80,80,80,[482]]'
	run k resnet '[.data.kernels[].name] | unique | length'
	assert_output '16'
}

@test "sh -c: two target processes in one log" {
	read_fixture sh "$H200/detailed-sh-copy.csv"
	run k sh '[.data.kernels[] | [.id, .process_id, .metrics["GPU Speed Of Light Throughput"]["DRAM Throughput"].value]]'
	assert_output '[[0,2176,81.54],[1,2206,0.1]]'
}

@test "full set: more sections, a rule seen twice kept twice, the metrics warning kept" {
	read_fixture full "$H200/full-sgemm_naive.csv"
	run k full '.data.kernels[0].metrics | has("Scheduler Statistics"), has("Warp State Statistics"), has("PM Sampling")'
	assert_output $'true\ntrue\ntrue'
	run k full '[.data.kernels[0].rules[] | select(.name == "CPIStall") | .type]'
	assert_output '["OPT","INF"]'
	run k full '.data.messages[1].text'
	assert_output --partial 'Unable to access the following 6 metrics'
}

@test "import of a saved report: auto units (Ghz, ms) as written" {
	read_fixture import "$H200/import-details-sgemm.csv"
	run k import '.data.kernels[0].metrics["GPU Speed Of Light Throughput"] | [.["DRAM Frequency"], .Duration]'
	assert_output '[{"unit":"Ghz","value":3.2},{"unit":"ms","value":3.13}]'
}

@test "base units: values as printed" {
	read_fixture base "$H200/base-units-copy.csv"
	run k base '.data.kernels[0].metrics["GPU Speed Of Light Throughput"] | [.["DRAM Frequency"].value, .Duration.value, .["DRAM Throughput"].value]'
	assert_output '[3198349113.86,131808,81.26]'
}

@test "raw page: metric names as columns, units row, and the Speed Of Light names filled in" {
	read_fixture raw "$H200/raw-copy.csv"
	run k raw '.data | [.format, .kernel_count, .kernels[0].id, .kernels[0].block, (.kernels[0].metrics.raw | length), .kernels[0].metrics.raw["gpu__time_duration.sum"], .kernels[0].rules]'
	assert_output '["raw",1,0,[256,1,1],1124,{"unit":"ns","value":131936},[]]'
	run k raw '.data.kernels[0].metrics["GPU Speed Of Light Throughput"] | [.Duration.value, .["DRAM Throughput"].value, .["Compute (SM) Throughput"].value, .["L2 Cache Throughput"].value]'
	assert_output '[131936,81.17,6.16,87.62]'
}

@test "CSV on stdout mixed with the program's output" {
	read_fixture stdout "$H200/stdout-csv-copy.txt"
	run k stdout '.data | [.kernel_count, .kernels[0].metrics["GPU Speed Of Light Throughput"]["DRAM Throughput"].value, (.messages | length)]'
	assert_output '[1,80.52,1]'
}

@test "public sample, CC 7.5 import: a Numba name with commas and brackets" {
	read_fixture nsightful "$PUB/ncu/nsightful_copy_blocked_details_cc75.csv"
	run k nsightful '.data.kernels[0] | [.cc, .block, (.name | startswith("copy_blocked[v1,cw51")), (.name | endswith("long long)")), .metrics["GPU Speed Of Light Throughput"].Duration.value]'
	assert_output '["7.5",[256,1,1],true,true,21058944]'
}

@test "public sample, CC 10.0 stdout: numbers without separators, program output skipped" {
	read_fixture superbench "$PUB/ncu/superbench_cublaslt_ncu_stdout_cc100.log"
	run k superbench '.data | [.kernel_count, .kernels[0].cc, .kernels[0].grid, .kernels[0].metrics["GPU Speed Of Light Throughput"]["DRAM Frequency"].value, (.kernels[0].rules | length), .notes]'
	assert_output '[1,"10.0",[9,32,1],3995313115.4,8,[]]'
}

@test "crash: the complete report is kept, with the program's status and a note" {
	read_fixture crash "$H200/detailed-crash.csv"
	run k crash '.data | [.kernel_count, .app_exit_code, .truncated, .kernels[0].name]'
	assert_output '[1,6,false,"fma_k(float *, int)"]'
	run k crash '.data.notes[0]'
	assert_output --partial 'exited with status 6'
	run k crash '.error'
	assert_output 'null'
}

@test "none: no kernels profiled is an error record that says what to try, status 1" {
	run kf-read "$(input none "$(report none "$H200/detailed-none.csv")")"
	assert_failure 1
	run jq -r '.error | .kind, .message, .hint' <<<"${lines[-1]}"
	assert_line -n 0 'no_kernels'
	assert_line -n 1 --partial '==WARNING== No kernels were profiled.'
	assert_line -n 2 --partial '--target-processes all'
}

@test "missing program: no log file; ncu's ==ERROR== from the run's stdout names the path" {
	mkdir -p "$BATS_TEST_TMPDIR/missing"
	jq -cn --arg d "$BATS_TEST_TMPDIR/missing" --rawfile so "$H200/detailed-missing.stdout" \
		'{id:"m", profiler:"ncu", output_dir:$d, run:{exit_code:1, stdout:$so, stderr:""}}' >"$BATS_TEST_TMPDIR/in"
	run kf-read "$BATS_TEST_TMPDIR/in"
	assert_failure 1
	run jq -r '.error | .kind, .message' <<<"${lines[-1]}"
	assert_line -n 0 'program_not_found'
	assert_line -n 1 --partial "'/tmp/does-not-exist' does not exist or is not an executable"
}

@test "ncu not found: exit status 127 and no ncu message" {
	mkdir -p "$BATS_TEST_TMPDIR/nf"
	jq -cn --arg d "$BATS_TEST_TMPDIR/nf" '{id:"n", profiler:"ncu", output_dir:$d, run:{exit_code:127, stdout:"", stderr:"kf-run: ncu: not found"}}' >"$BATS_TEST_TMPDIR/in"
	run kf-read "$BATS_TEST_TMPDIR/in"
	assert_failure 1
	run jq -r '.error | .kind, .hint' <<<"${lines[-1]}"
	assert_line -n 0 'profiler_not_found'
	assert_line -n 1 'install NVIDIA Nsight Compute, or add the folder that holds ncu to PATH'
}

@test "no permission for the counters: ERR_NVGPUCTRPERM and how to allow it" {
	mkdir -p "$BATS_TEST_TMPDIR/perm"
	printf '%s\n' '==PROF== Connected to process 77 (/tmp/bench)' \
		'==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters on the target device 0. For instructions on enabling permissions and to get more information see https://developer.nvidia.com/ERR_NVGPUCTRPERM' \
		'==PROF== Disconnected from process 77' '==WARNING== No kernels were profiled.' \
		>"$BATS_TEST_TMPDIR/perm/ncu_report.csv"
	replay p ncu "$BATS_TEST_TMPDIR/perm" >"$BATS_TEST_TMPDIR/in"
	run kf-read "$BATS_TEST_TMPDIR/in"
	assert_failure 1
	run jq -r '.error | .kind, .hint' <<<"${lines[-1]}"
	assert_line -n 0 'no_permission'
	assert_line -n 1 --partial 'NVreg_RestrictProfilingToAdminUsers=0'
	assert_line -n 1 --partial 'sudo -E'
}

@test "no report in output_dir: no_report, and the records around it still flow" {
	good=$(report good "$H200/detailed-copy.csv")
	mkdir -p "$BATS_TEST_TMPDIR/empty"
	{ replay a ncu "$good"; replay b ncu "$BATS_TEST_TMPDIR/empty"; replay c ncu "$good"; } >"$BATS_TEST_TMPDIR/in"
	run kf-read "$BATS_TEST_TMPDIR/in"
	assert_failure 1
	[ "${#lines[@]}" -eq 4 ]	# 3 records, and the warning on stderr
	run data '[.id, .error.kind, .data.kernel_count]' "$BATS_TEST_TMPDIR/in"
	assert_output $'["a",null,1]\n["b","no_report",null]\n["c",null,1]'
}

@test "a file that is not ncu's CSV: no_csv (the reference's own test input)" {
	in=$(input kfref "$(report kfref "$PUB/kernelfoundry-tests/test_profiler_feedback.ncu_report.csv")")
	run data '.error.kind, .error.hint' "$in"
	assert_line -n 0 '"no_csv"'
	assert_line -n 1 --partial -- '--csv'
}

@test "truncated mid-row: the complete launches are kept and the cut is said" {
	mkdir -p "$BATS_TEST_TMPDIR/cut"
	head -c 31000 "$H200/detailed-multi.csv" >"$BATS_TEST_TMPDIR/cut/ncu_report.csv"
	in=$(input t "$BATS_TEST_TMPDIR/cut")
	run kf-read "$in"
	assert_success
	run data '.data | [.kernel_count, [.kernels[].id], .truncated]' "$in"
	assert_output '[2,[0,1],true]'
	run data '.data.notes[-1]' "$in"
	assert_output --partial 'launch at line 156 (sgemm_naive_k'
}

@test "truncated at a line end inside a launch: its sections stop early, it is left out" {
	mkdir -p "$BATS_TEST_TMPDIR/cutl"
	head -n 200 "$H200/detailed-multi.csv" >"$BATS_TEST_TMPDIR/cutl/ncu_report.csv"
	run data '.data | [.kernel_count, .truncated, .notes[0]]' "$(input t "$BATS_TEST_TMPDIR/cutl")"
	assert_output '[2,true,"the last kernel launch (line 156) stops after section \"Launch Statistics\" where the others go on to \"Occupancy\": the report was cut off"]'
}

@test "truncated before the first launch is complete: an error record" {
	mkdir -p "$BATS_TEST_TMPDIR/cut0"
	head -c 2000 "$H200/detailed-copy.csv" >"$BATS_TEST_TMPDIR/cut0/ncu_report.csv"
	replay t ncu "$BATS_TEST_TMPDIR/cut0" >"$BATS_TEST_TMPDIR/in"
	run kf-read "$BATS_TEST_TMPDIR/in"
	assert_failure 1
	run jq -r '.error.kind' <<<"${lines[-1]}"
	assert_output 'truncated'
}

@test "CRLF line ends give the same data as LF" {
	mkdir -p "$BATS_TEST_TMPDIR/crlf"
	sed 's/$/\r/' "$H200/detailed-multi.csv" >"$BATS_TEST_TMPDIR/crlf/ncu_report.csv"
	lf=$(replay t ncu "$(report lf "$H200/detailed-multi.csv")" | kf-read | jq -c .data)
	crlf=$(replay t ncu "$BATS_TEST_TMPDIR/crlf" | kf-read | jq -c .data)
	[ -n "$lf" ]
	[ "$lf" = "$crlf" ]
}

@test "NUL bytes inside values are dropped and counted" {
	mkdir -p "$BATS_TEST_TMPDIR/nul"
	sed '/"DRAM Throughput"/s/"81\.32"/"81.\x0032"/' "$H200/detailed-copy.csv" >"$BATS_TEST_TMPDIR/nul/ncu_report.csv"
	run data '.data | [.kernels[0].metrics["GPU Speed Of Light Throughput"]["DRAM Throughput"].value, .notes]' "$(input t "$BATS_TEST_TMPDIR/nul")"
	assert_output '[81.32,["1 NUL byte dropped"]]'
}

@test "NVTX columns before Kernel Name are read by header name" {
	mkdir -p "$BATS_TEST_TMPDIR/nvtx"
	sed -e 's/"Host Name","Kernel Name"/"Host Name","thread Domain:Push\/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg","Id:Domain:Start\/Stop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg","Kernel Name"/' \
		-e 's/"127\.0\.0\.1","copy_k/"127.0.0.1","<default domain>:copy_range:none:none:none:none:none:none","","copy_k/' \
		"$H200/detailed-copy.csv" >"$BATS_TEST_TMPDIR/nvtx/ncu_report.csv"
	run data '.data.kernels[0] | [.name, .nvtx["thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg"], .metrics["GPU Speed Of Light Throughput"]["DRAM Throughput"].value, (.rules | length)]' "$(input t "$BATS_TEST_TMPDIR/nvtx")"
	assert_output '["copy_k(const float4 *, float4 *, unsigned long)","<default domain>:copy_range:none:none:none:none:none:none",81.32,4]'
}

@test "2020 layout (12 columns, Kernel Time, nsecond): read by header name" {
	mkdir -p "$BATS_TEST_TMPDIR/old"
	printf '%s\n' '"ID","Process ID","Process Name","Host Name","Kernel Name","Kernel Time","Context","Stream","Section Name","Metric Name","Metric Unit","Metric Value"' \
		'"0","4242","app","host","add_kernel","2020-May-29 12:02:46","1","7","GPU Speed Of Light","Duration","nsecond","5120"' \
		'"0","4242","app","host","add_kernel","2020-May-29 12:02:46","1","7","GPU Speed Of Light","SM [%]","%","12.5"' \
		>"$BATS_TEST_TMPDIR/old/ncu_report.csv"
	run data '.data.kernels[0] | [.id, .time, .block, .metrics["GPU Speed Of Light"].Duration]' "$(input t "$BATS_TEST_TMPDIR/old")"
	assert_output '[0,"2020-May-29 12:02:46",null,{"unit":"nsecond","value":5120}]'
}

@test "a quoted field spanning lines is one field; a stray quote loses no ncu row" {
	mkdir -p "$BATS_TEST_TMPDIR/ml"
	{
		sed -n '1,4p' "$H200/detailed-copy.csv"
		echo '"oops, the program printed a quote'
		sed -n '5,14p' "$H200/detailed-copy.csv"
		printf '%s\n' '"0","540","bench","127.0.0.1","copy_k(const float4 *, float4 *, unsigned long)","1","7","(256, 1, 1)","(1056, 1, 1)","0","9.0","SpeedOfLight","","","","TwoLines","INF","first line' 'second line","",""'
	} >"$BATS_TEST_TMPDIR/ml/ncu_report.csv"
	run data '.data | [(.kernels[0].metrics["GPU Speed Of Light Throughput"] | length), .kernels[0].rules[-1].description, .notes]' "$(input t "$BATS_TEST_TMPDIR/ml")"
	assert_output '[10,"first line\nsecond line",["1 CSV row not from ncu'"'"'s table skipped (the first at line 6)"]]'
}

@test "an output_dir with spaces, quotes and \$(...) in its name" {
	d="$BATS_TEST_TMPDIR/a b \"c\" \$(touch x) 'q'"
	mkdir -p "$d"
	cp "$H200/detailed-copy.csv" "$d/ncu_report.csv"
	run data '.data.kernels[0].metrics["GPU Speed Of Light Throughput"]["DRAM Throughput"].value' "$(input t "$d")"
	assert_output '81.32'
	[ ! -e x ] && [ ! -e "$BATS_TEST_TMPDIR/x" ]
}

@test "a 4 MiB line of program output before the header is skipped" {
	mkdir -p "$BATS_TEST_TMPDIR/huge"
	{ head -c 4194304 /dev/zero | tr '\0' x; echo; cat "$H200/detailed-copy.csv"; } >"$BATS_TEST_TMPDIR/huge/ncu_report.csv"
	run data '.data | [.kernel_count, .notes]' "$(input t "$BATS_TEST_TMPDIR/huge")"
	assert_output '[1,[]]'
}

@test "real --nvtx capture: the push/pop ranges of each launch, metrics by header name" {
	read_fixture nvtx "$FIX/ncu-h200-nvtx/nvtx-detailed.csv"
	run k nvtx '[.data.kernels[] | [.id, .name, [.nvtx.ranges[] | .domain + "/" + .name + "/" + .kind], .metrics["GPU Speed Of Light Throughput"].Duration.value]]'
	assert_output '[[0,"scale_k(float *, int)",["<default domain>/outer/push_pop","<default domain>/inner/push_pop"],4736],[1,"scale_k(float *, int)",["<default domain>/outer/push_pop"],4992]]'
	run k nvtx '.data.kernels[1].nvtx["thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg"]'
	assert_output '"477  \"<default domain>:outer:none:none:none:none:none:none\" "'
}

@test "real --nvtx raw page: ranges and metrics" {
	read_fixture nvtxraw "$FIX/ncu-h200-nvtx/nvtx-raw.csv"
	run k nvtxraw '[.data.format, [.data.kernels[] | [(.nvtx.ranges | length), .metrics.raw["gpu__time_duration.sum"].value]]]'
	assert_output '["raw",[[2,4736],[1,4736]]]'
}

@test "real --metrics capture: the section ncu names, and the known metrics filed by display name" {
	read_fixture mo "$FIX/ncu-h200-nvtx/metrics-only.csv"
	run k mo '[.data.kernels[] | [.metrics["Command line profiler metrics"]["gpu__time_duration.sum"].value, .metrics["GPU Speed Of Light Throughput"]["DRAM Throughput"].value]]'
	assert_output '[[5408,16.21],[4704,18.61]]'
}
