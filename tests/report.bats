#!/usr/bin/env bats
# kf-report: the page as headless Chromium renders it (its DOM, a
# screenshot), from real final records (tests/fixtures/report: kf-feedback's
# output for H200 captures of examples/; transformer.json without
# "collated", which kf-report does not read) and records made from them with
# the fields other stages add (roof, source_lines, delta) or hostile strings.

load helper

R="$FIX/report"
UT="$FIX/unitrace/bmg-gemm-xmx"

setup() {
	T=$BATS_TEST_TMPDIR
	command -v chromium >/dev/null || fail "no chromium (mk/deps.sh check installs it)"
}

# chromium FILE ARGS...: headless, offline, a fresh profile.
chrome() {
	local f=$1
	shift
	chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run \
		--user-data-dir="$T/chromium" "$@" "file://$f" 2>/dev/null
}

# The DOM Chromium built from the page FILE, one line.
dom() {
	chrome "$1" --dump-dom | tr '\n' ' '
}

# How often the extended regex RE matches in the text on standard input.
count() {
	grep -oE "$1" | wc -l
}

# The first <figure class="CLASS">...</figure> of the DOM on standard input.
figure() {
	perl -ne 'print $1 if m{(<figure class="'"$1"'">.*?</figure>)}'
}

# The DOM on standard input without its text and attribute values: the
# elements and attribute names alone.
skeleton() {
	perl -pe 's/>[^<]*</></g; s/"[^"]*"/""/g'
}

# text as Chromium writes it in the DOM: & < > escaped.
esc() {
	sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' <<<"$1"
}

# The unitrace pipeline on the B580 GEMM capture, as kf-feedback leaves it.
unitrace_final() {
	ut_replay gemm "$UT" '{"gpu_name":"Intel(R) Arc(TM) B580 Graphics"}' |
		kf-read 2>/dev/null | kf-collate 2>/dev/null | kf-feedback
}

@test "a sweep: one index row per job, the failed one with its reason, status 0" {
	run --separate-stderr kf-report -T 'H200 sweep' "$R/copy.json" "$R/missing.json" "$R/sgemm_naive.json"
	assert_success
	[ -z "$stderr" ]
	echo "$output" >"$T/r.html"
	dom "$T/r.html" >"$T/dom"
	[ "$(count '<tr class="ok">' <"$T/dom")" -eq 2 ]
	# the missing program was never started: its own status, not "failed"
	[ "$(count '<tr class="not-started">' <"$T/dom")" -eq 1 ]
	grep -q '<p class="counts">3 jobs: 2 ok, 1 not started.</p>' "$T/dom"
	grep -q '<title>H200 sweep</title>' "$T/dom"
	reason=$(jq -r '.analysis.error | "\(.kind): \(.message)"' "$R/missing.json")
	grep -qF "<td class=\"reason\" colspan=\"4\">$(esc "$reason")</td>" "$T/dom"
	hint=$(jq -r '.analysis.error.hint' "$R/missing.json")
	grep -qF "<b>What to do:</b> $(esc "$hint")</p>" "$T/dom"
}

@test "numbers come from the records: copy_k's time per launch and its GPU time, to 4 digits" {
	kf-report "$R/copy.json" >"$T/r.html"
	dom "$T/r.html" >"$T/dom"
	ns=$(jq '.analysis.focus.duration_ns' "$R/copy.json")
	[ "$ns" = 131680 ]
	grep -qF '<td class="time num">131.7 µs</td>' "$T/dom"
	[ "$(jq -r '.analysis.focus | "\(.time_ns) \(.time_label)"' "$R/copy.json")" = "131680 duration" ]
	grep -qF '<dd class="focus-time">131.7 µs (duration)</dd>' "$T/dom"
	total=$(jq '.analysis.ranking.kernels[0].total_ns' "$R/copy.json")
	[ "$total" = 263232 ]
	figure time <"$T/dom" | grep -qF '>263.2 µs · 100.0%</text>'
	# the Speed Of Light throughputs, as kf-feedback rounded them
	for k in compute_sm_pct dram_pct l2_pct; do
		v=$(jq ".analysis.focus.throughput.$k" "$R/copy.json")
		figure pct <"$T/dom" | grep -qF ">$(printf '%.1f' "$v")%</text>" || fail "$k $v"
	done
}

@test "GPU time by kernel: --ranking 3 draws three kernels and the rest summed" {
	kf-report --ranking 3 "$R/transformer.json" >"$T/r.html"
	dom "$T/r.html" >"$T/dom"
	figure time <"$T/dom" >"$T/time"
	[ "$(count '<g class="row">' <"$T/time")" -eq 4 ]
	[ "$(count '<rect class="bar"' <"$T/time")" -eq 3 ]
	[ "$(count '<rect class="rest"' <"$T/time")" -eq 1 ]
	read -r rest pct < <(jq -r '.analysis.ranking | (.total_ns - ([.kernels[:3][].total_ns] | add)) as $r |
		"\($r) \($r * 100 / .total_ns)"' "$R/transformer.json")
	[ "$rest" = 92032 ]
	grep -qF ">all other kernels</text>" "$T/time"
	grep -qF ">$(printf '%.4g µs · %.1f%%' "$(awk -v r="$rest" 'BEGIN { print r / 1000 }')" "$pct")</text>" "$T/time"
}

@test "--top N, kf-report's old name of --ranking N: the same page, and a warning" {
	run --separate-stderr kf-report --top 3 "$R/transformer.json"
	assert_success
	assert_equal "$stderr" "kf-report: --top is now --ranking; the old name will go"
	assert_equal "$output" "$(kf-report --ranking 3 "$R/transformer.json")"
}

@test "kernel names with <, > and & are escaped and come back as the same text" {
	kf-report "$R/transformer.json" >"$T/r.html"
	dom "$T/r.html" >"$T/dom"
	name=$(jq -r '.analysis.ranking.kernels[2].name' "$R/transformer.json")
	[[ $name == *"<"*">"* ]]
	grep -qF "<title>$(esc "$name")</title>" "$T/dom"
	# the page's own markup only: one table of rules, no element made of a name
	[ "$(count '<unnamed' <"$T/dom")" -eq 0 ]
	[ "$(count '&lt;unnamed&gt;' <"$T/dom")" -ge 2 ]
}

@test "roofline from the core's analysis.focus.roof: roofs, ridge, the focus and another kernel as points" {
	jq -c '.analysis.focus.roof = {x_unit:"FLOP/byte", y_unit:"FLOP/s", memory_peak:4.8e12,
		compute_peaks:[{name:"fp32", peak:6.7e13, ridge:13.96}], bound:"memory",
		points:[{label:"", intensity:0.0735, performance:1.5e11, pct_of_roof:42.5}]}
		| .analysis.kernels[1].roof = {points:[{label:"", intensity:3.2, performance:2.5e12}]}' \
		"$R/transformer.json" >"$T/in.json"
	kf-report "$T/in.json" >"$T/r.html"
	dom "$T/r.html" >"$T/dom"
	figure roofline <"$T/dom" >"$T/roof"
	[ "$(count '<circle class="pt focus"' <"$T/roof")" -eq 1 ]
	[ "$(count '<circle class="pt"' <"$T/roof")" -eq 1 ]
	[ "$(count '<line class="roof"' <"$T/roof")" -eq 2 ]
	[ "$(count '<line class="ridge"' <"$T/roof")" -eq 1 ]
	grep -qF '>fp32 peak 67 TFLOP/s, ridge 13.96</text>' "$T/roof"
	grep -qF '>memory 4.8 TB/s</text>' "$T/roof"
	grep -qF ': 150 GFLOP/s at 0.0735 FLOP/byte, 42.5% of the roof</li>' "$T/roof"
	grep -qF ': 2.5 TFLOP/s at 3.2 FLOP/byte</li>' "$T/roof"
	grep -qF 'Arithmetic intensity (FLOP/byte)' "$T/roof"
	grep -qF 'Performance (FLOP/s)' "$T/roof"
	grep -qF '<td class="bound">memory</td>' "$T/dom"
}

@test "ncu without roof: the H200's roofs from gpus.json, no points, and it says so" {
	kf-report "$R/copy.json" >"$T/r.html"
	dom "$T/r.html" >"$T/dom"
	figure roofline <"$T/dom" >"$T/roof"
	[ "$(count '<circle' <"$T/roof")" -eq 0 ]
	[ "$(count '<line class="roof"' <"$T/roof")" -eq 2 ]
	tf=$(jq '.gpus[] | select(.name == "NVIDIA H200 141GB") | .roofs.FP32_TFLOPS.value' "$KF_DATADIR/gpus.json")
	bw=$(jq '.gpus[] | select(.name == "NVIDIA H200 141GB") | .roofs.GPU_MEMORY_BYTE_READ.value' "$KF_DATADIR/gpus.json")
	grep -qF ">FP32 peak $tf TFLOP/s, ridge $(printf '%.4g' "$(bc -l <<<"$tf * 1000 / $bw")")</text>" "$T/roof"
	grep -qF 'holds no achieved FLOP/s' "$T/roof"
}

@test "unitrace: each ALU of the focus kernel against the B580's instruction roofs" {
	unitrace_final >"$T/in.json"
	kf-report "$T/in.json" >"$T/r.html"
	dom "$T/r.html" >"$T/dom"
	figure roofline <"$T/dom" >"$T/roof"
	[ "$(count '<circle class="pt focus"' <"$T/roof")" -eq "$(jq '.analysis.focus.alus | length' "$T/in.json")" ]
	alu2=$(jq '.gpus[] | select(.name == "Intel Arc B580") | .roofs.XVE_INST_EXECUTED_ALU2_ALL.value' "$KF_DATADIR/gpus.json")
	grep -qF ">ALU2 peak $alu2 Ginst/s, ridge 0.5</text>" "$T/roof"
	grep -qF '>ALU1/ALU0 peak 456 Ginst/s, ridge 1</text>' "$T/roof"
	ipn=$(jq '.analysis.focus.alus[] | select(.name == "ALU2") | .inst_per_ns' "$T/in.json")
	grep -qF "(focus ALU2): $(printf '%.4g' "$ipn") Ginst/s" "$T/roof"
	grep -qF '<td class="bound">compute</td>' "$T/dom"
}

@test "VTune: no roofline data, the diagnosis's first finding in the index" {
	jq -cn --arg d "$FIX/vtune/sycl-gemm-xmx" '{id:"vt", profiler:"vtune", pass:"vtune.000", output_dir:$d}' |
		kf-read | kf-collate | kf-feedback >"$T/in.json"
	kf-report "$T/in.json" >"$T/r.html"
	dom "$T/r.html" >"$T/dom"
	grep -qF 'No roofline data in this record.' "$T/dom"
	kind=$(jq -r '.analysis.diagnosis[0].kind // "none" | gsub("_"; " ")' "$T/in.json")
	if [ "$kind" = none ]; then
		grep -qF '<td class="finding none">no finding</td>' "$T/dom"
	else
		grep -qF "<td class=\"finding\"><b>$kind" "$T/dom"
	fi
	grep -qF "<td class=\"bound\">$(jq -r .analysis.focus.limiter.bound "$T/in.json")</td>" "$T/dom"
}

@test "before and after: analysis.delta's speedup in the index, both times drawn" {
	jq -c '.analysis.delta = {total_gpu_time_ns:{before:526464, after:263232},
		focus_duration_ns:{before:263360, after:131680}, speedup:2, verdict:"faster"}' \
		"$R/copy.json" >"$T/in.json"
	kf-report "$T/in.json" >"$T/r.html"
	dom "$T/r.html" >"$T/dom"
	grep -qF '<td class="speedup num">2× faster</td>' "$T/dom"
	figure delta <"$T/dom" >"$T/delta"
	[ "$(count '<rect class="bar"' <"$T/delta")" -eq 2 ]
	[ "$(count '<rect class="after"' <"$T/delta")" -eq 2 ]
	grep -qF '>526.5 µs</text>' "$T/delta"
	grep -qF '>131.7 µs</text>' "$T/delta"
}

@test "hot source lines: file:line, stall share and the code as text" {
	jq -c '.analysis.focus.source_lines = [
		{file:"copy.cu", line:12, text:"  out[i] = in[i]; // a < b && c > d", stall_pct:71.5},
		{file:"copy.cu", line:11, text:"if (i < n)", stall_pct:9.25}]' "$R/copy.json" >"$T/in.json"
	kf-report --lines 1 "$T/in.json" >"$T/r.html"
	dom "$T/r.html" >"$T/dom"
	[ "$(count '<td class="where">' <"$T/dom")" -eq 1 ]
	grep -qF '<td class="where"><span title="copy.cu">copy.cu</span>:12</td><td class="num">71.5%</td><td><pre><code>  out[i] = in[i]; // a &lt; b &amp;&amp; c &gt; d</code></pre></td>' "$T/dom"
}

@test "a crafted record cannot inject markup: no element, attribute or style of its own" {
	jq -c '.id = "</a></td><script>alert(1)</script><img src=x onerror=alert(2)>"
		| .worker.gpu_name = "<object data=x></object>"
		| .analysis.focus.name = "k<T>&<img src=x onerror=alert(3)>"
		| .analysis.ranking.kernels[0].name = "\"><svg onload=alert(4)>"
		| .analysis.rules[0].name = "<iframe src=javascript:alert(5)>"
		| .analysis.rules[0].description = "</td></tr></table><script>alert(6)</script>"
		| .analysis.focus.source_lines = [{file:"\"><a href=x>", line:1,
			text:"</code></pre><style>body{display:none}</style>", stall_pct:1}]
		| .analysis.delta = {speedup:2, verdict:"<b onclick=alert(7)>x</b>",
			focus: {name: "k", "<img src=x onerror=alert(10)>_pct": {before: 1, after: 2}}}
		| .analysis.focus.launch = {"<script>alert(11)</script>_count": 3}' \
		"$R/copy.json" >"$T/in.json"
	jq -c '(.error, .analysis.error) |= (.message = "<script>alert(8)</script>" | .kind = "<u>k</u>")' \
		"$R/missing.json" >>"$T/in.json"
	kf-report -T '</title><script>alert(9)</script>' "$T/in.json" >"$T/r.html"
	dom "$T/r.html" >"$T/dom"
	skeleton <"$T/dom" >"$T/skel"
	[ "$(count '<(script|img|iframe|object|u)[ >]' <"$T/skel")" -eq 0 ]
	[ "$(count '<style>' <"$T/skel")" -eq 1 ]
	[ "$(count ' on[a-z]+=' <"$T/skel")" -eq 0 ]
	[ "$(count '<a ' <"$T/skel")" -eq 2 ]	# the two index links
	# speedups, time and percentages; the GPU "<object ...>" is none kf
	# knows: no roofs
	[ "$(count '<svg ' <"$T/skel")" -eq 3 ]
	grep -qF 'No roofline data in this record.' "$T/dom"
	grep -qF '<title>"&gt;&lt;svg onload=alert(4)&gt;</title>' "$T/dom"
	grep -qF '&lt;/a&gt;&lt;/td&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;</a>' "$T/dom"
	grep -qF '&lt;script&gt;alert(8)&lt;/script&gt;' "$T/dom"
	# a member's name shown in words (launch statistics, a compared metric)
	# is escaped as any other text (found by fuzz_report)
	grep -qF '>&lt;script&gt;alert(11)&lt;/script&gt; count</td>' "$T/dom"
	grep -qF '>&lt;img src=x onerror=alert(10)&gt;, %</td>' "$T/dom"
}

@test "NUL bytes, invalid UTF-8 and control bytes become U+FFFD" {
	jq -c '.id = "a\u0000b\u0001c"' "$R/copy.json" | sed 's/a\\u0000b/a\xff\xfe\\u0000b/' >"$T/in.json"
	F=$'\xef\xbf\xbd'	# U+FFFD
	kf-report "$T/in.json" >"$T/r.html"
	iconv -f UTF-8 -t UTF-8 "$T/r.html" >/dev/null
	dom "$T/r.html" >"$T/dom"
	grep -qF "<a href=\"#job-1\">a${F}${F}${F}b${F}c</a>" "$T/dom"
}

@test "bad lines: not JSON, no analysis, truncated; the records around them are drawn, status 1" {
	{
		cat "$R/copy.json"
		echo 'not json'
		echo '{"id":"raw","profiler":"ncu"}'
		cat "$R/sgemm_naive.json"
		echo '{"id":"f","profiler":"ncu","analysis":{"status":"failed"}}'
		head -c 500 "$R/copy.json"
	} >"$T/in.json"
	run --separate-stderr kf-report "$T/in.json"
	assert_failure 1
	echo "$output" >"$T/r.html"
	[[ $stderr == *'line 2:1: not JSON'* ]]
	[[ $stderr == *'line 3: no "analysis" object: run kf-feedback first'* ]]
	dom "$T/r.html" >"$T/dom"
	[ "$(count '<tr class="ok">' <"$T/dom")" -eq 2 ]
	[ "$(count '<tr class="failed">' <"$T/dom")" -eq 4 ]
	grep -qF 'bad_record: no "analysis" object: run kf-feedback first' "$T/dom"
	grep -qF '>failed: analysis.status is "failed", with no error object</td>' "$T/dom"
}

@test "operands with spaces and quotes in their names; usage errors are status 2" {
	cp "$R/copy.json" "$T/a b'c\".json"
	run kf-report "$T/a b'c\".json"
	assert_success
	[[ $output == *'<a href="#job-1">copy</a>'* ]]
	run kf-report --ranking 0
	[ "$status" -eq 2 ]
	run kf-report "$T/none.json"
	[ "$status" -ne 0 ]
}

@test "the page loads nothing and has no script: one file, a screenshot of it" {
	kf-report "$R"/*.json >"$T/r.html"
	! grep -qiE '<script|src=|href="(https?:|//)|@import|url\(' "$T/r.html"
	chrome "$T/r.html" --window-size=1280,1600 --hide-scrollbars --screenshot="$T/shot.png" >/dev/null
	[ "$(head -c 8 "$T/shot.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
	[ "$(stat -c %s "$T/shot.png")" -gt 10000 ]
}

@test "printable: Chromium prints the index and each job from a new page" {
	kf-report "$R/copy.json" "$R/missing.json" "$R/sgemm_naive.json" >"$T/r.html"
	chrome "$T/r.html" --no-pdf-header-footer --print-to-pdf="$T/r.pdf" >/dev/null
	[ "$(head -c 5 "$T/r.pdf")" = "%PDF-" ]
	pages=$(grep -ao '/Count [0-9]*' "$T/r.pdf" | awk '{ if ($2 > m) m = $2 } END { print m + 0 }')
	[ "$pages" -ge 4 ] || fail "$pages pages for the index and 3 jobs"
}

@test "hostile numbers: an infinite time and a roof 600 decades wide draw finite shapes" {
	jq -c '.analysis.ranking.kernels[0].total_ns = 1e999
		| .analysis.focus.roof = {x_unit:"FLOP/byte", y_unit:"FLOP/s", memory_peak:1e9,
			compute_peaks:[{name:"fp32", peak:1e12}],
			points:[{intensity:1e300, performance:1e-300}]}' "$R/copy.json" >"$T/in.json"
	kf-report "$T/in.json" >"$T/r.html"
	! grep -qiE '"-?(inf|nan)' "$T/r.html"
	[ "$(grep -o '<line class="grid"' "$T/r.html" | wc -l)" -le 18 ]
	dom "$T/r.html" >"$T/dom"
	[ "$(count '<circle class="pt focus"' <"$T/dom")" -eq 1 ]
}

@test "a roof without peaks takes the H200's from gpus.json; pct_of_roof in the legend" {
	jq -c '.analysis.focus.roof = {x_unit:"FLOP/byte", y_unit:"FLOP/s", bound:"memory",
		points:[{intensity:0.0735, performance:1.5e11, pct_of_roof:42.5}]}' "$R/copy.json" >"$T/in.json"
	kf-report "$T/in.json" >"$T/r.html"
	dom "$T/r.html" >"$T/dom"
	figure roofline <"$T/dom" >"$T/roof"
	bw=$(jq '.gpus[] | select(.name == "NVIDIA H200 141GB") | .roofs.GPU_MEMORY_BYTE_READ.value' "$KF_DATADIR/gpus.json")
	grep -qF ">memory $(awk -v b="$bw" 'BEGIN { printf "%.4g", b / 1000 }') TB/s</text>" "$T/roof"
	grep -qF '>FP32 peak 67 TFLOP/s, ridge' "$T/roof"
	grep -qF ': 150 GFLOP/s at 0.0735 FLOP/byte, 42.5% of the roof</li>' "$T/roof"
	[ "$(count '<circle class="pt focus"' <"$T/roof")" -eq 1 ]
}

@test "hostile lines (an array, a raw NUL, 100000 '[', a 24 MB line) are failed rows, the jobs around them drawn" {
	{
		cat "$R/copy.json"
		echo '[1,2]'
		printf '{"id":"a\0b"}\n'
		awk 'BEGIN { for (i = 0; i < 100000; i++) printf "["; print "" }'
		awk 'BEGIN { s = "0123456789abcdef"; for (i = 0; i < 16; i++) s = s s
			printf "{\"id\": "; for (i = 0; i < 24; i++) printf "%s", s; print "" }'
		cat "$R/sgemm_naive.json"
	} >"$T/in.json"
	run --separate-stderr kf-report "$T/in.json"
	assert_failure 1
	echo "$output" >"$T/r.html"
	[ "$(grep -c '^<tr class="ok">' "$T/r.html")" -eq 2 ]
	# The line of '[' after the NUL is skipped with it (kf.7: to the next
	# line that begins with {).
	[ "$(grep -c '^<tr class="failed">' "$T/r.html")" -eq 3 ]
	grep -qF "<td class=\"reason\" colspan=\"4\">bad_json: $T/in.json: line 2:1: not a JSON object</td>" "$T/r.html"
	grep -qF "<td class=\"reason\" colspan=\"4\">bad_json: $T/in.json: line 3:9: not JSON: the line holds a NUL byte (lines 3-4 skipped, to the next line that begins with {)</td>" "$T/r.html"
	[ "$(wc -c <"$T/r.html")" -lt 200000 ]
	[[ $stderr == *'line 5:1: not JSON: the value is not closed before line 6, which begins with {'* ]]
}

@test "real roof (sgemm_naive, raw page): the focus point, the fp32 roof and ridge, the L1 limit" {
	f="$R/roof-sgemm_naive.json"
	kf-report "$f" >"$T/r.html"
	dom "$T/r.html" >"$T/dom"
	figure roofline <"$T/dom" >"$T/roof"
	read -r flops ai pct peak ridge bw < <(jq -r '.analysis.focus.roof |
		[.achieved_flops, .arithmetic_intensity, .pct_of_roof, .peak_flops, .ridge,
		 .peak_dram_bytes_per_s] | map(tostring) | join(" ")' "$f")
	exp=$(awk -v f="$flops" -v a="$ai" -v p="$pct" 'BEGIN { printf ": %.4g TFLOP/s at %.3g FLOP/byte, %.3g%% of the roof</li>", f / 1e12, a, p }')
	[ "$exp" = ": 5.487 TFLOP/s at 374 FLOP/byte, 8.2% of the roof</li>" ]
	grep -qF "$exp" "$T/roof"
	grep -qF ">fp32 peak $(awk -v p="$peak" -v r="$ridge" 'BEGIN { printf "%.4g TFLOP/s, ridge %.4g", p / 1e12, r }')</text>" "$T/roof"
	grep -qF ">memory $(awk -v b="$bw" 'BEGIN { printf "%.4g", b / 1e12 }') TB/s</text>" "$T/roof"
	[ "$(count '<circle class="pt focus"' <"$T/roof")" -eq 1 ]
	grep -qF '<td class="bound">compute</td>' "$T/dom"
	[ "$(jq -c '.analysis.focus.limiter | [.unit, .pct, .metric]' "$f")" = '["l1",99.443494,"roof.limiter_pct"]' ]
	grep -qF '<dd class="limiter" title="roof.limiter_pct">L1 at 99.4% of its peak</dd>' "$T/dom"
}

@test "real roof without FLOPs (transpose_naive): no point, and why; the hot lines with their main stall" {
	f="$R/roof-transpose_naive.json"
	kf-report --lines 3 "$f" >"$T/r.html"
	dom "$T/r.html" >"$T/dom"
	figure roofline <"$T/dom" >"$T/roof"
	[ "$(jq '.analysis.focus.roof.achieved_flops' "$f")" = 0 ]
	[ "$(count '<circle' <"$T/roof")" -eq 0 ]
	grep -qF 'did no floating-point work (0 FLOP/s)' "$T/roof"
	[ "$(count '<td class="where">' <"$T/dom")" -eq 3 ]
	# the file as the text names it (bench.cu), its path the tooltip
	jq -r '.analysis.focus.source_lines[0:3][] | "\(.file)\t\(.line)\t\(.stall_pct)\t\(.stalls[0].reason)\t\(.text)"' "$f" |
	while IFS=$'\t' read -r file line st why text; do
		grep -qF "<td class=\"where\"><span title=\"$file\">bench.cu</span>:$line</td><td class=\"num\">$(printf '%.1f' "$st")% <span class=\"stall\">$why</span>" "$T/dom" ||
			fail "no row for $file:$line"
	done
}

@test "real baseline (sgemm naive -> tiled): speedup, times, the focus metrics, the kernels and rules" {
	f="$R/delta-sgemm.json"
	kf-report "$f" >"$T/r.html"
	dom "$T/r.html" >"$T/dom"
	sp=$(jq '.analysis.delta.speedup' "$f")
	grep -qF "<td class=\"speedup num\">$(printf '%.3g' "$sp")× faster</td>" "$T/dom"
	grep -qF '<td class="speedup num">1.31× faster</td>' "$T/dom"
	figure delta <"$T/dom" >"$T/delta"
	for ns in $(jq '.analysis.delta.total_gpu_time_ns | .before, .after' "$f"); do
		grep -qF ">$(awk -v n="$ns" 'BEGIN { printf "%.4g", n / 1e6 }') ms</text>" "$T/delta" || fail "no $ns ns"
	done
	n=$(jq '[.analysis.delta.focus | paths(objects | select(has("before")))] | length' "$f")
	[ "$(perl -ne 'print $1 if m{(<table class="delta-metrics">.*?</table>)}' "$T/dom" | grep -o '<tr>' | wc -l)" -eq $((n + 1)) ]
	read -r b a < <(jq -r '.analysis.delta.focus.throughput.compute_sm_pct | "\(.before) \(.after)"' "$f")
	grep -qF "<td class=\"metric\" title=\"throughput/compute_sm_pct\">Compute (SM), %</td><td class=\"num\">$b</td><td class=\"num\">$a</td>" "$T/dom"
	# every metric by its label, none by its JSON key
	grep -qF '>achieved occupancy, %</td>' "$T/dom"
	grep -qF '>registers per thread</td>' "$T/dom"
	! grep -qE '<td class="metric"[^>]*>[a-z_]+[./][a-z_]+' "$T/dom"
	grep -qF '<td>faster</td>' "$T/dom"
	grep -qF '<li>changed: HighPipeUtilization</li>' "$T/dom"
}

@test "the diagnosis's first finding in the index, the first three in the job's section" {
	jq -c '.analysis.diagnosis = [
		{kind:"uncoalesced_global", unit:"l2", kernel:"copy_k", file:"/home/u/src/copy.cu", line:12,
		 impact_pct:33.9, kernel_impact_pct:40.2, impact_basis:"gpu_time",
		 evidence:[{metric:"l2_excessive_sectors", value:58720256, unit:null}],
		 what:"Stores of line 12 touch 4.0 sectors per request where 1 would do.", fix:"Write through shared memory."},
		{kind:"memory_bound", unit:"dram", kernel:"copy_k", file:null, line:null, impact_pct:null,
		 evidence:[], what:"DRAM at 81.1% of its peak.", fix:null},
		{kind:"launch_bound", unit:null, kernel:null, file:null, line:null, impact_pct:3,
		 impact_basis:"traced_window", evidence:[], what:"a", fix:null},
		{kind:"low_occupancy", unit:null, kernel:"copy_k", file:null, line:null, impact_pct:1,
		 evidence:[], what:"b", fix:null}]' "$R/copy.json" >"$T/in.json"
	kf-report "$T/in.json" >"$T/r.html"
	dom "$T/r.html" >"$T/dom"
	grep -qF '<th>first finding</th></tr>' "$T/dom"
	grep -qF '<td class="finding"><b>uncoalesced global (L2)</b><br><span class="impact"><span title="/home/u/src/copy.cu">copy.cu</span>:12 · 33.9% of the GPU time (40.2% of the kernel'"'"'s)</span><br><span class="what" title="Stores of line 12 touch 4.0 sectors per request where 1 would do.">Stores of line 12 touch 4.0 sectors per request where 1 would do.</span></td>' "$T/dom"
	[ "$(perl -ne 'print $1 if m{<ol class="diagnosis">(.*?)</ol>}' "$T/dom" | grep -o '<li>' | wc -l)" -eq 3 ]
	grep -qF '<li><b>memory bound (DRAM)</b>: DRAM at 81.1% of its peak.</li>' "$T/dom"
	# each stake in its unit: the traced window for idle time
	grep -qF '<li><b>launch bound</b> <span class="impact">3.0% of the traced window</span>: a</li>' "$T/dom"
	grep -qF '<span class="fix"><b>Fix:</b> Write through shared memory.</span>' "$T/dom"
	# no rule of the profiler in its place
	! grep -qF 'MemoryL2Compression</td>' "$T/dom"
	# a record without findings says so
	kf-report "$R/copy.json" | grep -qF '<td class="finding none">no finding</td>'
}

@test "the speedup column only when a job was compared with a baseline" {
	kf-report "$R/copy.json" "$R/sgemm_naive.json" >"$T/r.html"
	! grep -qF 'class="speedup' "$T/r.html"
	! grep -qF '>speedup</th>' "$T/r.html"
	[ "$(perl -0ne 'print $1 if m{<table class="index"><thead>(.*?)</thead>}s' "$T/r.html" | grep -oE '<th[ >]' | wc -l)" -eq 8 ]
	kf-report "$R/copy.json" "$R/delta-sgemm.json" "$R/missing.json" >"$T/r.html"
	dom "$T/r.html" >"$T/dom"
	grep -qF '<th class="num">speedup</th></tr>' "$T/dom"
	[ "$(count '<td class="speedup num">' <"$T/dom")" -eq 3 ]
	grep -qF '<td class="speedup num">1.31× faster</td>' "$T/dom"
}

@test "no baseline for a record: the reason, no speedup" {
	jq -c '.analysis.delta = {status:"no_baseline", message:"base.json has no record with id <copy>"}' \
		"$R/copy.json" >"$T/in.json"
	kf-report "$T/in.json" >"$T/r.html"
	dom "$T/r.html" >"$T/dom"
	grep -qF '<p class="delta none">No comparison with a baseline: base.json has no record with id &lt;copy&gt;</p>' "$T/dom"
	grep -qF '<td class="speedup num"></td>' "$T/dom"
	[ "$(count '<figure class="delta">' <"$T/dom")" -eq 0 ]
}

@test "--gpus-file: a GPU kf does not know gets its roofs from the file" {
	jq -c '.worker.gpu_name = "Acme X1"' "$R/copy.json" >"$T/in.json"
	kf-report "$T/in.json" >"$T/r.html"
	grep -qF 'No roofline data in this record.' "$T/r.html"
	jq -n '{gpus: [{name: "Acme X1", vendor: "nvidia", roofs: {
		GPU_MEMORY_BYTE_READ: {value: 1000, source: "measured"},
		FP32_TFLOPS: {value: 10, source: "measured"}}}]}' >"$T/gpus.json"
	kf-report --gpus-file "$T/gpus.json" "$T/in.json" >"$T/r.html"
	dom "$T/r.html" >"$T/dom"
	figure roofline <"$T/dom" >"$T/roof"
	grep -qF '>FP32 peak 10 TFLOP/s, ridge 10</text>' "$T/roof"
	grep -qF '>memory 1 TB/s</text>' "$T/roof"
}

@test "--gpus-file that cannot be read or holds no GPUs: status 2 and why, no page" {
	run --separate-stderr kf-report --gpus-file "$T/no such.json" "$R/copy.json"
	[ "$status" -eq 2 ]
	assert_output ""
	[ "$stderr" = "kf-report: cannot read GPU roofs $T/no such.json: No such file or directory" ]
	echo '{}' >"$T/g.json"
	run --separate-stderr kf-report --gpus-file "$T/g.json" "$R/copy.json"
	[ "$status" -eq 2 ]
	[ "$stderr" = "kf-report: GPU roofs $T/g.json: no \"gpus\" array of {\"name\", \"roofs\"}" ]
}

@test "a sweep with baselines: the speedups as one chart above the index, coloured by verdict" {
	{
		cat "$R/delta-sgemm.json"
		jq -c '.id = "copy2" | .analysis.delta = {status:"ok", speedup:0.76, verdict:"slower"}' "$R/copy.json"
		jq -c '.analysis.delta = {status:"ok", speedup:1.01, verdict:"unchanged"}' "$R/transformer.json"
		cat "$R/missing.json"
	} >"$T/in.json"
	kf-report "$T/in.json" >"$T/r.html"
	dom "$T/r.html" >"$T/dom"
	figure speedups <"$T/dom" >"$T/sp"
	[ "$(count '<g class="row">' <"$T/sp")" -eq 3 ]
	sp=$(jq -r 'select(.id == "sgemm") | .analysis.delta.speedup' "$T/in.json")
	grep -qF ">1. sgemm</text><rect class=\"bar\"" "$T/sp"
	grep -qF ">$(printf '%.3g' "$sp")×</text>" "$T/sp"
	grep -qF '>2. copy2</text><rect class="slower"' "$T/sp"
	grep -qF '>0.76×</text>' "$T/sp"
	grep -qF '>3. transformer</text><rect class="rest"' "$T/sp"
	[ "$(count '<line class="one"' <"$T/sp")" -eq 1 ]
	# above the index
	perl -ne 'exit !(m{<figure class="speedups">.*<table class="index">})' "$T/dom"
}

@test "more than 60 jobs with a baseline: the first 60 drawn, the index has all" {
	jq -c '.analysis.delta = {status:"ok", speedup:1.5, verdict:"faster"}' "$R/copy.json" >"$T/one"
	for i in $(seq 70); do sed "s/\"id\":\"copy\"/\"id\":\"c$i\"/" "$T/one"; done >"$T/in.json"
	kf-report "$T/in.json" >"$T/r.html"
	[ "$(tr "\n" " " <"$T/r.html" | figure speedups | grep -o '<g class="row">' | wc -l)" -eq 60 ]
	grep -qF 'The first 60 of 70 jobs with a baseline; the index has them all.' "$T/r.html"
	[ "$(grep -c '^<tr class="ok">' "$T/r.html")" -eq 70 ]
}

@test "an ALU name from a unitrace record is escaped in the roofline's labels (found by fuzz_report)" {
	unitrace_final | jq -c '.analysis.focus.roof.points[0].label = "<i>A</i>"' >"$T/in.json"
	kf-report "$T/in.json" >"$T/r.html"
	dom "$T/r.html" >"$T/dom"
	[ "$(skeleton <"$T/dom" | count '<i>')" -eq 0 ]
	figure roofline <"$T/dom" | grep -qF '>1 focus &lt;i&gt;A&lt;/i&gt;</text>'
}

@test "real runs that did not end well (abort, hang, killed): never ok; the index and the section say how they ended" {
	kf-report "$R/cap-abort.json" "$R/cap-hang.json" "$R/cap-jax-jit.json" >"$T/r.html"
	dom "$T/r.html" >"$T/dom"
	# the program crashed, the program hung (its records are older than the
	# program_failed finding: judged by their runs, as kf-feedback does)
	grep -qF '<td class="status st-program-failed">program failed<br><span class="run">exit 6</span></td>' "$T/dom"
	grep -qF '<td class="status st-program-failed">program failed<br><span class="run">inactivity</span></td>' "$T/dom"
	grep -qF '<p class="counts">3 jobs: 2 program failed, 1 failed.</p>' "$T/dom"
	grep -qF '<td class="status st-failed">failed<br><span class="run">inactivity</span></td>' "$T/dom"
	for j in abort hang; do
		m=$(jq -r '(.run // .passes[0].run).message' "$R/cap-$j.json")
		grep -qF "<dt>Run</dt><dd>$(esc "$m")</dd>" "$T/dom" || fail "$j: $m"
	done
	m=$(jq -r '(.run // .passes[0].run).message' "$R/cap-jax-jit.json")
	[[ $m == "no output for 60 s"* ]]
	grep -qF "<p class=\"run\"><b>The run:</b> $(esc "$m")</p>" "$T/dom"
	[ "$(count '<tr class="failed">' <"$T/dom")" -eq 1 ]
}

@test "the focus kernel's launch statistics, from analysis.focus.launch and occupancy" {
	f="$R/roof-transpose_naive.json"
	kf-report "$f" >"$T/r.html"
	dom "$T/r.html" >"$T/dom"
	jq -c '.analysis.focus | [.launch.block, .launch.grid, .launch.registers_per_thread, .launch.waves_per_sm, .occupancy.achieved_pct]' "$f" |
		grep -qx '\[\[32,8,1\],\[256,1024,1\],16,248.24,74.73\]'
	grep -qF '<td class="stat" title="block">block</td><td class="num">32 × 8 × 1 (256)</td>' "$T/dom"
	grep -qF '<td class="stat" title="grid">grid</td><td class="num">256 × 1024 × 1 (262144)</td>' "$T/dom"
	grep -qF '<td class="stat" title="registers_per_thread">registers per thread</td><td class="num">16</td>' "$T/dom"
	grep -qF '<td class="stat" title="waves_per_sm">waves per sm</td><td class="num">248.2</td>' "$T/dom"
	grep -qF '<td class="stat" title="achieved_pct">achieved occupancy, %</td><td class="num">74.73</td>' "$T/dom"
	[ "$(perl -ne 'print $1 if m{<table class="launch">(.*?)</table>}' "$T/dom" | grep -o '<tr>' | wc -l)" -eq \
		"$(jq '.analysis.focus | (.launch | length) + (.occupancy | length)' "$f")" ]
	# a record without them has no such table
	jq -c 'del(.analysis.focus.launch, .analysis.focus.occupancy)' "$f" | kf-report >"$T/r2.html"
	! grep -qF 'Launch statistics' "$T/r2.html"
}

@test "warp stalls on the hot lines: each reason's share of the kernel's samples, summed over the lines" {
	f="$R/roof-transpose_naive.json"
	kf-report "$f" >"$T/r.html"
	dom "$T/r.html" >"$T/dom"
	figure stalls <"$T/dom" >"$T/st"
	cover=$(jq '[.analysis.focus.source_lines[].stall_pct] | add' "$f")
	grep -qF ">Warp stalls: 5 hot lines, $(printf '%.1f' "$cover")% of the samples</text>" "$T/st"
	# drain: most of line 81's 50.97% of the samples, and some of the other lines'
	want=$(jq '[.analysis.focus.source_lines[] | .stall_pct * ((.stalls[] | select(.reason == "drain") | .pct_of_line) // 0) / 100] | add' "$f")
	grep -qF ">$(printf '%.1f' "$want")%</text>" "$T/st"
	[ "$(printf '%.1f' "$want")" = 50.8 ]
	# the reasons in order, at most 8 and the rest summed
	[ "$(count '<rect class="bar"' <"$T/st")" -eq 8 ]
	[ "$(count '<rect class="rest"' <"$T/st")" -eq 1 ]
	[ "$(perl -ne 'print "$1\n" while m{<text class="lab name"[^>]*>([^<]*)</text>}g' "$T/st" | head -n 3 | paste -sd' ')" = "drain long_sb short_sb" ]
}

@test "hot lines: the excess L2 sectors and their share of the line's sectors" {
	f="$R/roof-transpose_naive.json"
	kf-report "$f" >"$T/r.html"
	dom "$T/r.html" >"$T/dom"
	grep -qF '>excess L2 sectors</th>' "$T/dom"
	read -r ex all < <(jq -r '.analysis.focus.source_lines[] | select(.l2_excessive_sectors > 0) | "\(.l2_excessive_sectors) \(.l2_sectors)"' "$f")
	[ "$ex" = 58720256 ]
	grep -qF "<td class=\"num excess\">58.7 M ($(awk -v e="$ex" -v a="$all" 'BEGIN { printf "%.0f", 100 * e / a }')%)</td>" "$T/dom"
	[ "$(count '<td class="num excess">0</td>' <"$T/dom")" -eq 4 ]
	# lines without sector counts: no such column
	jq -c '.analysis.focus.source_lines |= map(del(.l2_excessive_sectors))' "$f" | kf-report >"$T/r2.html"
	! grep -qF 'excess L2' "$T/r2.html"
}
