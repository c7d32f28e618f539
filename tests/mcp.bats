#!/usr/bin/env bats
# kf-mcp, kf's MCP server: driven by the official MCP TypeScript SDK's
# client (tests/mcp/client.mjs, installed by make check from
# tests/mcp/package-lock.json) on the fake ncu and the recorded H200
# profiles, and by raw JSON-RPC lines for the protocol's errors.

load helper

H200="$TOP/examples/h200"

setup() {
	T=$BATS_TEST_TMPDIR
	cd "$T"
	CLIENT="$TOP/tests/mcp/client.mjs"
	[ -d "$TOP/tests/mcp/node_modules/@modelcontextprotocol/sdk" ] ||
		fail "no MCP SDK in tests/mcp/node_modules: run npm ci --prefix tests/mcp (make check does)"
	PATH="$TOP/tests/fake:$PATH"
	export FAKE_NCU_CSV="$FIX/ncu-h200/detailed-copy.csv"
	export KF_MCP="${KF_BIN:-$TOP/bin}/kf-mcp" KF_MCP_STDERR="$T/server.err"
	# ./k writes its arguments, one a line, to args.out.
	printf '#!/bin/sh\nprintf "%%s\\n" "$@" >"$(dirname "$0")/args.out"\necho "k ran"\n' >k
	# ./slow S FILE: writes its PID to FILE, then sleeps S seconds.
	printf '#!/bin/sh\necho $$ >"$2.tmp"\nmv "$2.tmp" "$2"\nexec sleep "$1"\n' >slow
	chmod +x k slow
}

client() {
	run --separate-stderr node "$CLIENT" "$@"
	assert_success
}

# rpc LINE...: the lines to kf-mcp, its answers in $output, stderr in $T/err.
rpc() {
	run bash -c 'printf "%s\n" "$@" | kf-mcp 2>"$T/err"' _ "$@"
}

INIT='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}'

@test "SDK client: initialize answers the newest version kf has for the SDK's newer one; the four tools and their schemas" {
	client list
	assert_equal "$(jq -c '[.asked != .protocolVersion, .protocolVersion, .server, .capabilities, .errors]' <<<"$output")" \
		'[true,"2025-06-18",{"name":"kf-mcp","title":"kf: GPU profiling feedback","version":"'"$(kf-mcp --version | cut -d' ' -f2)"'"},{"tools":{}},[]]'
	assert_equal "$(jq -c '[.tools[] | [.name, .inputSchema.required, (.outputSchema != null)]]' <<<"$output")" \
		'[["profile",["command"],true],["reread",["path"],true],["compare",["before","after"],true],["profilers",null,true]]'
	# the profiler names come from kf's descriptors, as kf-select's do
	assert_equal "$(jq -r '.tools[0].inputSchema.properties.profiler.enum | join(", ")' <<<"$output")" \
		"$(kf --help >/dev/null; kf nsys 2>&1 | sed -n "s/.*(one of \(.*\))$/\1/p")"
}

@test "SDK client: profile runs kf's pipeline on the fake ncu: the feedback, the analysis, the output directory, argv unchanged" {
	client call profile '{"command":["./k","a b","$(touch pwned)","it'"'"'s"],"id":"copy","timeout":60}'
	r=$(jq -c .result <<<"$output")
	assert_equal "$(jq -c '[.isError, .structuredContent.id, .structuredContent.profiler, .structuredContent.status, .structuredContent.output_dir, .structuredContent.analysis.focus.duration_ns, .structuredContent.analysis.status]' <<<"$r")" \
		'[false,"copy","ncu",0,"'"$T"'/kf-out/mcp/copy",131712,"ok"]'
	text=$(jq -r '.content[0].text' <<<"$r")
	[[ $text == *"Kernel: copy_k(const float4 *, float4 *, unsigned long)"* ]]
	[[ $text == *"  - DRAM Throughput: 81.3%"* ]]
	[[ $text == *"Output directory: $T/kf-out/mcp/copy"* ]]
	# the command reached the program word for word, through no shell
	assert_equal "$(cat args.out)" 'a b
$(touch pwned)
it'"'"'s'
	[ ! -e pwned ]
	# the run directory: ncu's report under RUN/ID/ncu.000, and kf's record
	[ -f kf-out/mcp/copy/copy/ncu.000/report.ncu-rep ]
	assert_equal "$(jq -c '[.id, .analysis.focus.duration_ns]' kf-out/mcp/copy/kf.json)" '["copy",131712]'
	# the same text as kf prints for the same run
	kf ncu -o "$T/by-kf" --id copy -- ./k >"$T/kf.txt"
	assert_equal "$(jq -r '.content[0].text' <<<"$r" | sed '/^Output directory: /,$d')" "$(sed 1d "$T/kf.txt")"
	# a second profile of the job gets a directory of its own
	client call profile '{"command":["./k"],"id":"copy"}'
	assert_equal "$(jq -r .result.structuredContent.output_dir <<<"$output")" "$T/kf-out/mcp/copy.2"
	# an id is a folder's name as kf-wrap makes it, never a path out of it;
	# reread says the id profile's record has
	client call profile '{"command":["./k"],"id":"../x"}'
	assert_equal "$(jq -c '.result.structuredContent | [.id, .output_dir]' <<<"$output")" '["../x","'"$T"'/kf-out/mcp/%2E.%2Fx"]'
	client call reread '{"path":"kf-out/mcp/%2E.%2Fx"}'
	assert_equal "$(jq -c '.result.structuredContent | [.id, .analysis.focus.duration_ns]' <<<"$output")" '["../x",131712]'
	client call reread '{"path":"kf-out/mcp/%2E.%2Fx/%2E.%2Fx/ncu.000"}'
	assert_equal "$(jq -c '.result.structuredContent | [.id, .analysis.focus.duration_ns]' <<<"$output")" '["../x",131712]'
}

@test "SDK client: profile with sampled_source passes kf-wrap's --sampled-source: kf's section beside ncu's, the record as any other" {
	client call profile '{"command":["./k"],"id":"s","sampled_source":true}'
	assert_equal "$(jq -c '[.result.isError, .result.structuredContent.status, .result.structuredContent.analysis.focus.duration_ns]' <<<"$output")" '[false,0,131712]'
	cmp kf-out/mcp/s/s/ncu.000/ncu_sections/KfSourceSampled.section "$TOP/share/kf/ncu_source_sampled.section"
	client call profile '{"command":["./k"],"id":"f","sampled_source":false}'
	assert_equal "$(jq -c '.result.structuredContent.status' <<<"$output")" 0
	[ ! -e kf-out/mcp/f/f/ncu.000/ncu_sections ]
	client call profile '{"command":["./k"],"sampled_source":"yes"}'
	assert_equal "$(jq -c '.error.message' <<<"$output")" '"MCP error -32602: profile: arguments.sampled_source: not a boolean"'
}

@test "SDK client: a profile that fails, and a command that does not exist, are isError results with kf's message" {
	FAKE_NCU_MODE=perm client call profile '{"command":["./k"]}'
	assert_equal "$(jq -c '[.result.isError, .result.structuredContent.status]' <<<"$output")" '[true,1]'
	assert_equal "$(jq -r '.result.content[0].text | split("\n")[0]' <<<"$output")" \
		"Profiling with ncu failed, so there are no performance numbers for this run."
	client call profile '{"command":["./no-such-program"],"output_dir":"out"}'
	assert_equal "$(jq -c '[.result.isError, .result.structuredContent.output_dir, .result.structuredContent.status]' <<<"$output")" "[true,\"$T/out\",5]"
	# kf-run looked it up before it started anything; the hint names no option MCP lacks
	jq -r '.result.content[0].text' <<<"$output" | grep -qxF "1. Nothing ran: the program $T/no-such-program ('./no-such-program' in $T) does not exist (kf-run, program_not_found); there are no performance numbers. Fix: check the program's path: $T has no no-such-program."
	# a usage error of a stage: no record, kf's own message
	client call profile '{"command":["./k"],"gpu":"NOPE"}'
	assert_equal "$(jq -c '[.result.isError, .result.structuredContent]' <<<"$output")" '[true,null]'
	[[ $(jq -r '.result.content[0].text' <<<"$output" | head -1) == "kf exited with status 2: kf-feedback: --gpu: no hardware roofs for GPU 'NOPE' (known: "* ]]
	# a working directory that is not there
	client call profile '{"command":["./k"],"cwd":"'"$T"'/nowhere"}'
	assert_equal "$(jq -c '[.result.isError, .result.content[0].text]' <<<"$output")" \
		"[true,\"cwd $T/nowhere: No such file or directory\"]"
}

@test "SDK client: reread of a recorded H200 output directory is what kf-read | kf-collate | kf-feedback says of it" {
	client call reread '{"path":"'"$H200"'/copy"}'
	replay copy ncu "$H200/copy/ncu.000" | jq -c '. + {pass:"ncu.000"}' | kf-read | kf-collate |
		kf-feedback --no-collated >"$T/hand.json"
	assert_equal "$(jq -c '.result | [.isError, .structuredContent.id, .structuredContent.output_dir, .structuredContent.status]' <<<"$output")" \
		'[false,"copy","'"$H200"'/copy",0]'
	assert_equal "$(jq -c .result.structuredContent.analysis <<<"$output")" "$(jq -c .analysis "$T/hand.json")"
	assert_equal "$(jq -r '.result.content[0].text' <<<"$output" | sed '/^Output directory: /,$d')" "$(jq -r .feedback "$T/hand.json"; echo)"
	# one pass folder, and a run directory holding the job folder, read alike
	client call reread '{"path":"ncu.000","cwd":"'"$H200"'/copy"}'
	assert_equal "$(jq -c .result.structuredContent.analysis.focus.duration_ns <<<"$output")" "$(jq -c .analysis.focus.duration_ns "$T/hand.json")"
	mkdir run && cp -r "$H200/copy" run/
	client call reread '{"path":"run"}'
	assert_equal "$(jq -c '[.result.structuredContent.id, .result.structuredContent.analysis.focus.duration_ns]' <<<"$output")" \
		"$(jq -c '["copy", .analysis.focus.duration_ns]' "$T/hand.json")"
	# not an output directory: said, and an error result
	client call reread '{"path":"'"$T"'"}'
	assert_equal "$(jq -c '[.result.isError, .result.content[0].text]' <<<"$output")" \
		"[true,\"$T is not a kf output directory: it holds no pass folder (ncu.000, unitrace.000, ...) and no job folder with one\"]"
}

@test "SDK client: reread of a .ncu-rep goes through kf ncu --import" {
	FAKE_NCU_CSV="$FIX/ncu-h200/detailed-sgemm_naive.csv"
	kf-wrap -o saved ncu --id s -- ./k | kf-run -q >/dev/null
	client call reread '{"path":"saved/s/ncu.000/report.ncu-rep"}'
	assert_equal "$(jq -c '.result | [.isError, .structuredContent.id, .structuredContent.output_dir]' <<<"$output")" \
		'[false,"report","'"$T"'/kf-out/mcp/report"]'
	jq -r '.result.content[0].text' <<<"$output" | grep -qF 'Kernel: sgemm_naive_k(const float *, const float *, float *, int)'
}

@test "SDK client: compare says what the change did, as kf-feedback --baseline does; profile with a baseline says the same" {
	client call compare '{"before":"'"$H200"'/sgemm_naive","after":"'"$H200"'/sgemm_tiled","gpu":"H200"}'
	for n in sgemm_naive sgemm_tiled; do
		replay sgemm_tiled ncu "$H200/$n/ncu.000" | jq -c '. + {pass:"ncu.000"}' | kf-read | kf-collate >"$T/$n.c"
	done
	kf-feedback --gpu H200 --no-collated "$T/sgemm_naive.c" >"$T/before.json"
	kf-feedback --gpu H200 --no-collated --baseline "$T/before.json" "$T/sgemm_tiled.c" >"$T/after.json"
	assert_equal "$(jq -c '.result | [.isError, .structuredContent.output_dir, .structuredContent.baseline, .structuredContent.analysis.delta.verdict, .structuredContent.analysis.delta.baseline]' <<<"$output")" \
		'[false,"'"$H200"'/sgemm_tiled","'"$H200"'/sgemm_naive","faster","'"$H200"'/sgemm_naive"]'
	assert_equal "$(jq -c '.result.structuredContent.analysis.delta | del(.baseline)' <<<"$output")" "$(jq -c '.analysis.delta | del(.baseline)' "$T/after.json")"
	text=$(jq -r '.result.content[0].text' <<<"$output")
	[[ $text == *"Compared with the baseline ($H200/sgemm_naive): 1.31x faster in total GPU time (3.13 ms -> 2.38 ms)."* ]]
	[[ $text != *"/before.json"* ]]
	# profile after the change, with the earlier output directory as baseline
	FAKE_NCU_CSV="$FIX/ncu-h200/detailed-sgemm_naive.csv" client call profile '{"command":["./k"],"id":"s"}'
	before=$(jq -r .result.structuredContent.output_dir <<<"$output")
	FAKE_NCU_CSV="$FIX/ncu-h200/detailed-copy.csv" client call profile '{"command":["./k"],"id":"s","baseline":"'"$before"'"}'
	assert_equal "$(jq -c '.result | [.isError, .structuredContent.baseline, .structuredContent.output_dir, .structuredContent.analysis.delta.verdict]' <<<"$output")" \
		'[false,"'"$before"'","'"$T"'/kf-out/mcp/s.2","faster"]'
	jq -r '.result.content[0].text' <<<"$output" | grep -qF "Compared with the baseline ($before): "
	# an after that is no output directory
	client call compare '{"before":"'"$H200"'/sgemm_naive","after":"'"$T"'/none"}'
	assert_equal "$(jq -c '[.result.isError, .result.content[0].text]' <<<"$output")" \
		"[true,\"after: $T/none: No such file or directory\"]"
}

@test "SDK client: a profiler that is not installed: not_started, the PATH looked in, and a fix MCP can follow (no kf-wrap option)" {
	P="${KF_BIN:-$TOP/bin}:/usr/bin:/bin"
	PATH=$P client call profile '{"command":["./k"],"profiler":"ncu"}'
	assert_equal "$(jq -c '[.result.isError, .result.structuredContent.status, .result.structuredContent.analysis.diagnosis[0].kind]' <<<"$output")" '[true,5,"not_started"]'
	assert_equal "$(jq -r '.result.content[0].text' <<<"$output" | sed -n 2p)" \
		"1. Nothing ran: the profiler ncu is not on PATH ($P) (kf-run, profiler_not_found); there are no performance numbers. Fix: install ncu, or add the folder that holds it to PATH."
	! jq -r '.result.content[0].text' <<<"$output" | grep -q -- '--tool\|tool option'
}

@test "SDK client: profilers says what this machine has and why a profiler is missing" {
	mkdir fake libexec
	printf '#!/bin/sh\ncase "$1" in\n--query-gpu=name) echo "NVIDIA H200" ;;\n--query-gpu=compute_cap) echo 9.0 ;;\n*) exit 9 ;;\nesac\n' >fake/nvidia-smi
	chmod +x fake/nvidia-smi
	# a kf-mcp of its own, with no tracer beside it or in KF_LIBEXECDIR
	mkdir bin && cp "$KF_MCP" bin/
	KF_MCP="$T/bin/kf-mcp" PATH="$T/fake:$PATH" KF_LIBEXECDIR="$T/libexec" client call profilers '{}'
	assert_equal "$(jq -c '.result | [.isError, .structuredContent.gpus, (.structuredContent.profilers[] | [.name, .available, .path, .why])]' <<<"$output")" \
		'[false,["NVIDIA H200"],["ncu",true,"'"$TOP"'/tests/fake/ncu",null],["unitrace",false,"'"$TOP"'/tests/fake/unitrace","it profiles intel GPUs and the GPU here is nvidia'"'"'s (NVIDIA H200)"],["vtune",false,"'"$TOP"'/tests/fake/vtune","it profiles intel GPUs and the GPU here is nvidia'"'"'s (NVIDIA H200)"],["trace",false,null,"kf'"'"'s tracer libkftrace.so is not built: make builds it where CUDA'"'"'s CUPTI is (CUDA_HOME)"]]'
	assert_equal "$(jq -r '.result.content[0].text' <<<"$output" | sed -n '1p;5p')" "ncu: available ($TOP/tests/fake/ncu)
GPUs: NVIDIA H200"
	# the tracer where kf's helpers are
	: >libexec/libkftrace.so
	KF_MCP="$T/bin/kf-mcp" PATH="$T/fake:$PATH" KF_LIBEXECDIR="$T/libexec" client call profilers '{}'
	assert_equal "$(jq -c '.result.structuredContent.profilers[3] | [.name, .available, .path, .why]' <<<"$output")" \
		'["trace",true,"'"$T"'/libexec/libkftrace.so",null]'
	# no GPU, no ncu on PATH
	printf '#!/bin/sh\nexit 9\n' >fake/nvidia-smi
	PATH="$T/fake:/usr/bin:/bin" KF_SYSFS="$T/none" client call profilers '{}'
	assert_equal "$(jq -c '[.result.structuredContent.gpus, .result.structuredContent.profilers[0].why]' <<<"$output")" \
		'[[],"ncu is not on PATH"]'
	assert_equal "$(jq -r '.result.content[0].text' <<<"$output" | tail -1)" "GPUs: none found"
}

@test "SDK client: progress notifications while a profile runs, one a second, counting up to the timeout" {
	client progress profile '{"command":["./slow","2.5","'"$T"'/pid"],"timeout":30}'
	# the program runs 2.5 s, so at least ticks 1 and 2; the pipeline
	# around it may add one more on a loaded machine: 1, 2, ... n, each
	# with the timeout as total and its own second in the message
	assert_equal "$(jq -c '[.result.isError, [.progress[:2][] | [.progress, .total, .message]]]' <<<"$output")" \
		'[false,[[1,30,"profile: 1 s under ncu"],[2,30,"profile: 2 s under ncu"]]]'
	assert_equal "$(jq -c '[.progress | to_entries[] | select(.value.progress != .key + 1 or .value.total != 30 or .value.message != "profile: \(.key + 1) s under ncu")] | length' <<<"$output")" 0
	assert [ "$(jq '.progress | length' <<<"$output")" -le 5 ]
	# no token, no notification: the same call through the plain path
	client call profile '{"command":["./slow","1.5","'"$T"'/pid"]}'
	assert_equal "$(jq -c '[.result.isError, .errors]' <<<"$output")" '[false,[]]'
}

@test "SDK client: a cancelled call stops its program's whole process group, is answered nothing, and the server goes on" {
	client cancel profile '{"command":["./slow","60","'"$T"'/pid"]}' "$T/pid"
	pid=$(cat "$T/pid")
	# the SDK's own error for the abort; pings answered after it; no
	# response for the cancelled id (it would be an error here)
	assert_equal "$(jq -c '[.error.code, .ping, .ping_after, .errors]' <<<"$output")" '[-32001,{},{},[]]'
	run kill -0 "$pid"
	assert_failure
	# kf-run stopped the program on kf's SIGTERM, as kf-read then said
	grep -q "kf-run was interrupted and stopped it" "$T/server.err"
}

@test "SDK client: calls run at once: profilers answers while a profile still runs" {
	client parallel profile '{"command":["./slow","3","'"$T"'/pid"]}' profilers '{}'
	assert_equal "$(jq -c '[.order, [.results[].result.isError]]' <<<"$output")" '[["profilers","profile"],[false,false]]'
}

@test "raw JSON-RPC: initialize answers a version kf has as given, an unknown one with the newest; ping" {
	rpc "$INIT" '{"jsonrpc":"2.0","id":"a","method":"initialize","params":{"protocolVersion":"2025-03-26"}}' \
		'{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"1999-01-01"}}' \
		'{"jsonrpc":"2.0","method":"notifications/initialized"}' '{"jsonrpc":"2.0","id":3,"method":"ping"}'
	assert_success
	assert_equal "$(jq -c '[.id, .result.protocolVersion // .result]' <<<"$output")" '[0,"2024-11-05"]
["a","2025-03-26"]
[2,"2025-06-18"]
[3,{}]'
}

@test "raw JSON-RPC: a line that is not JSON is -32700, and the server goes on" {
	rpc 'not json' '{"jsonrpc":"2.0","id":1,' '{"jsonrpc":"2.0","id":2,"method":"ping"}'
	assert_success
	assert_equal "$output" '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"line 1: not JSON (at byte 1)"}}
{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"line 2: not JSON (at byte 25)"}}
{"jsonrpc":"2.0","id":2,"result":{}}'
}

@test "raw JSON-RPC: what is not a request is -32600, a notification is never answered" {
	rpc '[1,2]' '"ping"' '{"jsonrpc":"1.0","id":1,"method":"ping"}' '{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}' \
		'{"jsonrpc":"2.0","id":null,"method":"ping"}' '{"jsonrpc":"2.0","id":4,"method":7}' \
		'{"jsonrpc":"2.0","method":"nothing/such"}' '{"jsonrpc":"2.0","id":9,"result":{}}' '{"jsonrpc":"2.0","id":5,"method":"ping"}'
	assert_success
	assert_equal "$(jq -c '[.id, .error.code, .error.message] | map(select(. != null))' <<<"$output")" '[-32600,"line 1: a batch (an array): send one message a line"]
[-32600,"line 2: not a JSON-RPC message (an object)"]
[1,-32600,"line 3: \"jsonrpc\" is not \"2.0\""]
[-32600,"line 4: \"id\" is neither a string nor a number"]
[-32600,"line 5: \"id\" is neither a string nor a number"]
[4,-32600,"line 6: \"method\" is not a string"]
[5]'
}

@test "raw JSON-RPC: an unknown method is -32601; unknown tools and wrong arguments are -32602" {
	rpc '{"jsonrpc":"2.0","id":1,"method":"resources/list"}' \
		'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"nmap","arguments":{}}}' \
		'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"profile","arguments":{}}}' \
		'{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"profile"}}' \
		'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"profile","arguments":{"command":"./k --fast"}}}' \
		'{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"profile","arguments":{"command":["./k",3]}}}' \
		'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"profile","arguments":{"command":["./k"],"top":1.5}}}' \
		'{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"profile","arguments":{"command":["./k"],"profiler":"nsys"}}}' \
		'{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"compare","arguments":{"before":"a","atfer":"b"}}}' \
		'{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"compare","arguments":{"before":"a"}}}' \
		'{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"profile","arguments":{"command":["./k"],"timeout":-1}}}' \
		'{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"arguments":{}}}' \
		'{"jsonrpc":"2.0","id":13,"method":"tools/call","params":[1]}' \
		'{"jsonrpc":"2.0","id":14,"method":"initialize","params":{}}' \
		'{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":"profile","arguments":{"command":["./k"],"language":"fortran"}}}' \
		'{"jsonrpc":"2.0","id":16,"method":"tools/call","params":{"name":"profile","arguments":{"command":["./k"],"profiler":"vtune"}}}'
	assert_success
	assert_equal "$(jq -c '[.id, .error.code, .error.message]' <<<"$output")" '[1,-32601,"no method '"'"'resources/list'"'"' (initialize, ping, tools/list, tools/call)"]
[2,-32602,"tools/call: no tool '"'"'nmap'"'"' (profile, reread, compare, profilers)"]
[3,-32602,"profile: arguments: \"command\" is missing (the program and its arguments, as argv (no shell))"]
[4,-32602,"profile: no arguments: it needs \"command\""]
[5,-32602,"profile: arguments.command: not an array"]
[6,-32602,"profile: arguments.command[1]: not a string"]
[7,-32602,"profile: arguments.top: not an integer"]
[8,-32602,"profile: arguments.profiler: not one of ncu, unitrace, vtune, trace"]
[9,-32602,"compare: arguments: \"after\" is missing (the output directory of the run after the change)"]
[10,-32602,"compare: arguments: \"after\" is missing (the output directory of the run after the change)"]
[11,-32602,"profile: arguments.timeout: less than 0"]
[12,-32602,"tools/call: params.name: no tool named (profile, reread, compare, profilers)"]
[13,-32602,"tools/call: params: not an object"]
[14,-32602,"initialize: params.protocolVersion: not a string"]
[15,-32602,"profile: kf-select: unknown language '"'"'fortran'"'"' (one of sycl, ocl, cuda, pytorch, triton)"]
[16,-32602,"profile: kf-select: profiler '"'"'vtune'"'"' cannot profile cuda: it allows ncu, trace"]'
}

@test "raw JSON-RPC: a line past --max-line is answered -32600 and dropped, the next one is read" {
	big=$(head -c 3000 /dev/zero | tr '\0' x)
	run bash -c 'printf "%s\n" "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"pad\":\"$1\"}}" "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}" | kf-mcp --max-line 1K' _ "$big"
	assert_success
	assert_equal "$output" '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"line 1: a message of more than 1024 bytes (--max-line): not read"}}
{"jsonrpc":"2.0","id":2,"result":{}}'
	# the default bound, 8 MiB, on a line of 64 MiB in the middle: the
	# server's memory stays bounded and it answers the line after
	run bash -c '{ echo "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"; head -c 64M /dev/zero | tr "\0" x; echo; echo "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}"; } | kf-mcp'
	assert_success
	assert_equal "$(jq -c '[.id, .error.code]' <<<"$output")" '[1,null]
[null,-32600]
[3,null]'
}

@test "raw JSON-RPC: stdout is protocol only; a call in flight at the end of input is still answered" {
	rpc "$INIT" '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"profile","arguments":{"command":["./k"]}}}'
	assert_success
	assert_equal "$(jq -c '[.id, .result.isError, .result.structuredContent.analysis.focus.duration_ns]' <<<"$output")" '[0,null,null]
[1,false,131712]'
	# every line is a JSON-RPC message; kf's own words went to stderr
	assert_equal "$(jq -r .jsonrpc <<<"$output" | sort -u)" "2.0"
	[ "$(wc -l <<<"$output")" -eq 2 ]
	# a second call with an id in flight is refused
	rpc '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"profile","arguments":{"command":["./slow","1","'"$T"'/p"]}}}' \
		'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"profilers"}}'
	assert_equal "$(jq -c '[.id, .error.code, .error.message, .result.isError]' <<<"$output")" '[1,-32600,"this id is already a call in flight",null]
[1,null,null,false]'
}

@test "kf-mcp: --help, --version, usage errors" {
	run kf-mcp --help
	assert_success
	assert_line --index 0 "usage: kf-mcp [--max-line SIZE]"
	run --separate-stderr kf-mcp stray
	assert_failure 2
	assert_equal "${stderr%%$'\n'*}" "kf-mcp: 'stray': kf-mcp takes no operands"
	run --separate-stderr kf-mcp --max-line 1Q
	assert_failure 2
}

@test "kf-mcp: bash completion offers its options" {
	run bash -c 'source "$TOP/completion/kf.bash"; COMP_WORDS=(kf-mcp --m); COMP_CWORD=1; _kf; printf "%s\n" "${COMPREPLY[@]}"'
	assert_success
	assert_output "--max-line"
}

@test "raw JSON-RPC: SIGTERM to kf-mcp stops its calls' programs, answers nothing more and exits 1" {
	mkfifo in
	kf-mcp <in >out 2>err 3>&- &
	srv=$!
	exec 5>in
	printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"profile","arguments":{"command":["./slow","60","'"$T"'/pid"]}}}' >&5
	for _ in $(seq 100); do [ -f pid ] && break; sleep 0.1; done
	prog=$(cat pid)
	kill -TERM "$srv"
	status=0
	wait "$srv" || status=$?
	exec 5>&-
	assert_equal "$status" 1
	run kill -0 "$prog"
	assert_failure
	assert_equal "$(cat out)" ""
}
