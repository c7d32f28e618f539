#!/usr/bin/env bats
# kf-run: limits, end markers, orphans, floods, hostile input, concurrency.
load helper
bats_require_minimum_version 1.5.0

setup_file() {
	${CC:-cc} -O2 -o "$BATS_FILE_TMPDIR/rusage" "$TOP/tests/progs/rusage.c"
}

setup() {
	T=$BATS_TEST_TMPDIR
}

# A record: job ID PROGRAM [ARG...]; more fields with MORE='{"timeout":1}'.
job() {
	local id=$1
	shift
	jq -cn --arg id "$id" --argjson more "${MORE:-{\}}" \
		'{id:$id, argv:$ARGS.positional, env:{}, end_marker:null} + $more' \
		--args -- "$@"
}

# The field F (a jq path) of the record with id ID in file OUT.
field() {
	jq -cr --arg id "$2" "select(.id == \$id) | $3" "$1"
}

gone() {
	! kill -0 "$1" 2>/dev/null
}

# Wait (at most 5 s) for a file to appear.
await() {
	local i
	for i in $(seq 50); do
		[ -e "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

@test "--help prints the usage on stdout and exits 0; --version names kf-run" {
	run kf-run --help
	assert_success
	assert_line --index 0 --partial 'usage: kf-run [-klqu]'
	assert_output --partial '--pass-secrets'
	run kf-run --version
	assert_success
	assert_output --regexp '^kf-run [0-9]'
}

@test "usage errors exit 2 and name the option" {
	local args
	while IFS='|' read -r args msg; do
		# shellcheck disable=SC2086
		run kf-run $args </dev/null
		assert_equal "$status" 2
		assert_output --partial "$msg"
	done <<-'EOF'
	--bogus|unrecognized option
	-t abc|--timeout: not a number of seconds: 'abc'
	-i -1|--inactivity: not a number of seconds: '-1'
	-j 0|--jobs: expected a whole number from 1 to 4096: '0'
	--gpus 0,1 -j 3|-j 3 with 2 GPUs: jobs would share a GPU
	--gpus ,|--gpus: no GPU in ','
	--tail-size 12X|--tail-size: not a size: '12X'
	--grace|requires an argument
	EOF
}

@test "exit statuses and signals: exit_code or signal, ended_by exit, kf-run exits 0" {
	{
		job e0 sh -c 'exit 0'
		job e1 sh -c 'exit 1'
		job e42 sh -c 'echo out; echo err >&2; exit 42'
		job e255 sh -c 'exit 255'
		job segv sh -c 'kill -SEGV $$'
		job kill sh -c 'kill -KILL $$'
		job abrt sh -c 'kill -ABRT $$'
	} >"$T/in"
	run kf-run -k "$T/in"
	assert_success
	echo "$output" >"$T/out"
	run jq -c '[.id, .run.exit_code, .run.signal, .run.ended_by, .run.started]' "$T/out"
	assert_output - <<-'EOF'
	["e0",0,null,"exit",true]
	["e1",1,null,"exit",true]
	["e42",42,null,"exit",true]
	["e255",255,null,"exit",true]
	["segv",null,"SIGSEGV","exit",true]
	["kill",null,"SIGKILL","exit",true]
	["abrt",null,"SIGABRT","exit",true]
	EOF
	assert_equal "$(field "$T/out" e42 '.run.stdout')" "out"
	assert_equal "$(field "$T/out" e42 '.run.stderr')" "err"
	assert_equal "$(field "$T/out" e42 '.run.message')" "exited with status 42"
	assert_equal "$(field "$T/out" segv '.run.message')" "killed by SIGSEGV"
}

@test "timeout: a grandchild that ignores SIGTERM and holds stdout is killed and gone" {
	job t bash -c 'echo main $$; (trap "" TERM; exec sleep 60) & echo grandchild $!; sleep 60' >"$T/in"
	local t0=$SECONDS
	run kf-run -t 0.5 --grace 0.5 "$T/in"
	assert_success
	echo "$output" >"$T/out"
	[ $((SECONDS - t0)) -lt 5 ]
	assert_equal "$(field "$T/out" t '[.run.ended_by, .run.exit_code, .run.signal] | @tsv')" \
		"$(printf 'timeout\t\tSIGTERM')"
	assert_equal "$(field "$T/out" t '.run.message')" \
		"timed out after 0.5 s: ended with SIGTERM and, after the grace period, SIGKILL; killed by SIGTERM"
	run jq -e '.run.elapsed_s >= 0.5 and .run.elapsed_s < 1.5' "$T/out"
	assert_success
	main=$(field "$T/out" t '.run.stdout' | awk '/^main/ {print $2}')
	gc=$(field "$T/out" t '.run.stdout' | awk '/^grandchild/ {print $2}')
	[ -n "$main" ] && [ -n "$gc" ]
	gone "$main"
	gone "$gc"
}

@test "a program that exits leaving a setsid daemon on its stdout: exit, leftovers 1, daemon gone" {
	job d bash -c 'setsid bash -c "trap \"\" TERM; echo daemon \$\$; exec sleep 60" & sleep 0.2; exit 0' >"$T/in"
	local t0=$SECONDS
	run kf-run --drain 0.3 --grace 0.3 "$T/in"
	assert_success
	echo "$output" >"$T/out"
	[ $((SECONDS - t0)) -lt 5 ]
	assert_equal "$(field "$T/out" d '[.run.ended_by, .run.exit_code, .run.leftovers] | @tsv')" \
		"$(printf 'exit\t0\t1')"
	assert_equal "$(field "$T/out" d '.run.message')" \
		"exited with status 0; 1 process left running after it exited was ended"
	daemon=$(field "$T/out" d '.run.stdout' | awk '/^daemon/ {print $2}')
	[ -n "$daemon" ]
	gone "$daemon"
}

@test "inactivity after one line: ended_by inactivity, the line kept" {
	job i sh -c 'echo one; sleep 30' >"$T/in"
	run kf-run -i 0.4 --grace 0.3 "$T/in"
	assert_success
	echo "$output" >"$T/out"
	assert_equal "$(field "$T/out" i '[.run.ended_by, .run.stdout, .run.signal] | @tsv')" \
		"$(printf 'inactivity\tone\\n\tSIGTERM')"
	run jq -e '.run.elapsed_s >= 0.4 and .run.elapsed_s < 1.4' "$T/out"
	assert_success
}

@test "a record's own timeout applies when -t is not given; a given -t beats it" {
	MORE='{"timeout":0.3}' job r sleep 30 >"$T/in"
	run kf-run --grace 3 "$T/in"
	assert_success
	assert_equal "$(jq -r .run.ended_by <<<"$output")" timeout
	assert_equal "$(jq -r .run.message <<<"$output")" \
		"timed out after 0.3 s: ended with SIGTERM; killed by SIGTERM"
	MORE='{"timeout":100}' job r sleep 30 >"$T/in"
	run kf-run -t 0.5 --grace 3 "$T/in"
	assert_success
	assert_equal "$(jq -r .run.message <<<"$output")" \
		"timed out after 0.5 s: ended with SIGTERM; killed by SIGTERM"
}

@test "literal end marker: ended after the grace; a program exiting in the grace ends as exit" {
	{
		MORE='{"end_marker":"ALL DONE"}' job hang sh -c 'echo start; printf "xx ALL "; sleep 0.1; echo "DONE yy"; sleep 30'
		MORE='{"end_marker":"ALL DONE"}' job quits sh -c 'echo ALL DONE; sleep 0.2; exit 4'
	} >"$T/in"
	run kf-run -j 2 -k --marker-grace 0.5 --grace 0.3 "$T/in"
	assert_success
	echo "$output" >"$T/out"
	assert_equal "$(field "$T/out" hang '[.run.ended_by, .run.signal] | @tsv')" "$(printf 'end_marker\tSIGTERM')"
	assert_equal "$(field "$T/out" hang .run.message)" \
		'the end marker appeared ("ALL DONE") but the program was still running 0.5 s later: ended with SIGTERM; killed by SIGTERM'
	assert_equal "$(field "$T/out" quits '[.run.ended_by, .run.exit_code] | @tsv')" "$(printf 'exit\t4')"
	assert_equal "$(field "$T/out" quits .run.message)" "exited with status 4 after the end marker appeared"
}

@test "pytest end marker: summary lines and their variants end the run, other lines do not" {
	local line n=0
	while IFS= read -r line; do
		n=$((n + 1))
		line=$(printf '%b' "$line")
		MORE='{"end_marker":"pytest"}' job "p$n" sh -c 'printf "%s\n" "$1"; sleep 30' sh "$line"
	done >"$T/in" <<-'EOF'
	=== 3 passed, 1 failed in 2.1s ===
	=== 1 passed in 0.12s ===
	==== 2 failed, 1 error in 3.4s ====
	=== no tests ran in 0.01s ===
	======= 5 passed, 2 skipped, 1 xfailed, 3 warnings in 62.53s (0:01:02) =======
	\033[32m==== \033[32m\033[1m7 passed\033[0m\033[32m in 0.50s\033[0m\033[32m ====\033[0m\r
	4 passed in 0.03s
	EOF
	{
		MORE='{"end_marker":"pytest"}' job no1 sh -c 'echo "=== test session starts ==="; sleep 30'
		MORE='{"end_marker":"pytest"}' job no2 sh -c 'echo "=== 3 apples in 2s ==="; sleep 30'
	} >>"$T/in"
	run kf-run -j 9 -k -t 1.2 --pytest-grace 0.3 --grace 0.2 "$T/in"
	assert_success
	run jq -r '[.id, .run.ended_by] | @tsv' <<<"$output"
	assert_output - <<-EOF
	p1	end_marker
	p2	end_marker
	p3	end_marker
	p4	end_marker
	p5	end_marker
	p6	end_marker
	p7	end_marker
	no1	timeout
	no2	timeout
	EOF
}

@test "pytest marker: all passed says so in the message, in the reference's words" {
	MORE='{"end_marker":"pytest"}' job p sh -c 'echo "=== 2 passed in 0.1s ==="; sleep 30' >"$T/in"
	run kf-run --pytest-grace 0.2 --grace 0.2 "$T/in"
	assert_success
	assert_equal "$(jq -r .run.message <<<"$output")" \
		'the pytest summary appeared ("=== 2 passed in 0.1s ===") but the program was still running 0.2 s later: ended with SIGTERM; killed by SIGTERM. All tests passed but the process did not exit cleanly and had to be terminated'
}

@test "a 300 MB flood: whole count, 64 KiB tail, kf-run peak memory under 64 MB" {
	job f sh -c 'head -c 300000000 /dev/zero | tr "\0" x; printf END' >"$T/in"
	"$BATS_FILE_TMPDIR/rusage" "$T/ru" kf-run "$T/in" >"$T/out"
	assert_equal "$(jq -r '[.run.exit_code, .run.stdout_bytes, (.run.stdout | length)] | @tsv' "$T/out")" \
		"$(printf '0\t300000003\t65536')"
	assert_equal "$(jq -r '.run.stdout[-5:]' "$T/out")" "xxEND"
	read -r maxrss _ <"$T/ru"
	echo "peak RSS: $maxrss KB"
	[ "$maxrss" -lt 65536 ]
}

@test "--tail-size keeps the last bytes of each stream, cut at a character boundary" {
	job t sh -c 'printf "0123456789abcdef"; printf "ééééé" >&2' >"$T/in"
	run kf-run --tail-size 5 "$T/in"
	assert_success
	assert_equal "$(jq -r '[.run.stdout, .run.stdout_bytes, .run.stderr, .run.stderr_bytes] | @tsv' <<<"$output")" \
		"$(printf 'bcdef\t16\téé\t10')"
}

@test "binary output (NUL, invalid UTF-8, escapes) comes out as valid JSON" {
	job b printf 'a\000b\377\033[31mred\r\n' >"$T/in"
	run kf-run "$T/in"
	assert_success
	assert_equal "$(jq -c .run.stdout <<<"$output")" '"a\u0000b�\u001b[31mred\r\n"'
	assert_equal "$(jq -c .run.stdout_bytes <<<"$output")" 14
}

@test "hostile arguments reach the program literally and run nothing" {
	cd "$T"
	job h printf '%s|' '$(touch CANARY)' '; touch CANARY2' "\"q\" 'q'" $'a\nb' '`touch CANARY3`' '*' >in
	run kf-run in
	assert_success
	assert_equal "$(jq -r .run.stdout <<<"$output")" "\$(touch CANARY)|; touch CANARY2|\"q\" 'q'|a
b|\`touch CANARY3\`|*|"
	[ ! -e CANARY ] && [ ! -e CANARY2 ] && [ ! -e CANARY3 ]
}

@test "a missing program (127) and a non-executable one (126), then a good one still runs" {
	printf '#!/bin/sh\necho hi\n' >"$T/noexec"
	chmod 644 "$T/noexec"
	{
		job m no-such-program-kf arg
		job n "$T/noexec"
		job g echo good
	} >"$T/in"
	run kf-run -k "$T/in"
	assert_success
	echo "$output" >"$T/out"
	run jq -r '[.id, .run.exit_code, .run.started, .run.ended_by, .run.message] | @tsv' "$T/out"
	assert_output - <<-EOF
	m	127	false	exit	cannot run 'no-such-program-kf': command not found in PATH
	n	126	false	exit	cannot run '$T/noexec': not executable (Permission denied)
	g	0	true	exit	exited with status 0
	EOF
}

@test "the first job times out and the second still runs" {
	{
		job slow sleep 30
		job fast echo second
	} >"$T/in"
	run kf-run -t 0.3 --grace 0.2 "$T/in"
	assert_success
	run jq -r '[.id, .run.ended_by, .run.stdout] | @tsv' <<<"$output"
	assert_output "$(printf 'slow\ttimeout\t\nfast\texit\tsecond\\n')"
}

@test "-j 4 over 8 one-second jobs takes about two seconds" {
	local i
	for i in 1 2 3 4 5 6 7 8; do job "s$i" sleep 1; done >"$T/in"
	local t0 t1
	t0=$(date +%s.%N)
	run kf-run -j 4 "$T/in"
	t1=$(date +%s.%N)
	assert_success
	assert_equal "$(jq -r .run.ended_by <<<"$output" | sort | uniq -c | tr -s ' ')" " 8 exit"
	awk -v a="$t0" -v b="$t1" 'BEGIN { d = b - a; print "wall:", d; exit !(d > 1.9 && d < 3.5) }'
}

@test "SIGTERM to kf-run: running jobs end interrupted, queued ones are marked, nothing is left" {
	local i
	for i in 1 2; do
		job "r$i" bash -c 'echo main $$; (trap "" TERM; exec sleep 60) & echo grandchild $!; touch "$1"; wait' _ "$T/started.$i"
	done >"$T/in"
	job queued echo never >>"$T/in"
	kf-run -j 2 --grace 0.3 "$T/in" >"$T/out" 2>"$T/err" &
	local kfpid=$!
	await "$T/started.1"
	await "$T/started.2"
	kill -TERM "$kfpid"
	local st=0
	wait "$kfpid" || st=$?
	assert_equal "$st" 143
	run jq -r '[.id, .run.ended_by // "-", .error.kind // "-"] | @tsv' "$T/out"
	assert_line "$(printf 'r1\tinterrupted\t-')"
	assert_line "$(printf 'r2\tinterrupted\t-')"
	assert_line "$(printf 'queued\t-\tinterrupted')"
	assert_equal "$(field "$T/out" r1 .run.message)" \
		"kf-run was stopped by SIGTERM: ended with SIGTERM and, after the grace period, SIGKILL; killed by SIGTERM"
	for pid in $(jq -r '.run.stdout // empty' "$T/out" | awk '{print $2}'); do
		gone "$pid"
	done
	[ "$(jq -r '.run.stdout // empty' "$T/out" | grep -c .)" -eq 4 ]
}

@test "secrets are dropped from the environment unless --pass-secrets" {
	job s sh -c 'env | grep -E "^(MY_PASSWORD|API_SECRET_KEY|GITHUB_TOKEN|DB_USERNAME|my_token|KEEP_ME|TOKENIZER)=" | sort' >"$T/in"
	export MY_PASSWORD=p API_SECRET_KEY=s GITHUB_TOKEN=t DB_USERNAME=u my_token=l KEEP_ME=k TOKENIZER=z
	run kf-run "$T/in"
	assert_equal "$(jq -r .run.stdout <<<"$output")" "KEEP_ME=k
TOKENIZER=z"
	run kf-run --pass-secrets "$T/in"
	assert_equal "$(jq -r .run.stdout <<<"$output")" "API_SECRET_KEY=s
DB_USERNAME=u
GITHUB_TOKEN=t
KEEP_ME=k
MY_PASSWORD=p
TOKENIZER=z
my_token=l"
}

@test "the record's env goes on top of kf-run's: set, override, unset, numbers" {
	MORE='{"env":{"KF_T_NEW":"new value","KF_T_OVER":"record","KF_T_GONE":null,"KF_T_NUM":3}}' \
		job e sh -c 'echo "$KF_T_NEW|$KF_T_OVER|${KF_T_GONE-unset}|$KF_T_NUM|$KF_T_KEEP"' >"$T/in"
	KF_T_OVER=mine KF_T_GONE=there KF_T_KEEP=kept run kf-run "$T/in"
	assert_success
	assert_equal "$(jq -r .run.stdout <<<"$output")" "new value|record|unset|3|kept"
}

@test "the program's PATH comes from the record's env" {
	mkdir "$T/bin"
	printf '#!/bin/sh\necho found me\n' >"$T/bin/kf-t-tool"
	chmod +x "$T/bin/kf-t-tool"
	jq -cn --arg p "$T/bin:$PATH" '{id:"p", argv:["kf-t-tool"], env:{PATH:$p}}' >"$T/in"
	run kf-run "$T/in"
	assert_equal "$(jq -r .run.stdout <<<"$output")" "found me"
}

@test "--gpus gives concurrent jobs distinct CUDA_VISIBLE_DEVICES and ZE_AFFINITY_MASK" {
	local i
	for i in 1 2 3 4; do
		job "g$i" sh -c 'echo "$CUDA_VISIBLE_DEVICES $ZE_AFFINITY_MASK"; sleep 0.5'
	done >"$T/in"
	run kf-run --gpus 0,1,2,3 "$T/in"
	assert_success
	assert_equal "$(jq -j .run.stdout <<<"$output" | sort | tr '\n' ,)" "0 0,1 1,2 2,3 3,"
	assert_equal "$(jq -r '(.run.gpu + " " + .run.gpu) == (.run.stdout | rtrimstr("\n"))' <<<"$output" | sort -u)" true
}

@test "records come out as jobs finish, or in input order with --keep-order" {
	{
		job a sleep 0.6
		job b sleep 0.1
		job c sleep 0.3
	} >"$T/in"
	run kf-run -j 3 "$T/in"
	assert_equal "$(jq -r .id <<<"$output" | tr -d '\n')" bca
	run kf-run -j 3 --keep-order "$T/in"
	assert_equal "$(jq -r .id <<<"$output" | tr -d '\n')" abc
}

@test "bad records get error records, error records pass through, and the rest still runs" {
	{
		echo '{"id":"noargv"}'
		echo '{"id":"ints","argv":[1,2]}'
		echo '{"id":"badenv","argv":["true"],"env":["A=1"]}'
		echo '{"id":"badtimeout","argv":["true"],"timeout":"soon"}'
		echo 'not json'
		echo '{"id":"prev","error":{"stage":"kf-wrap","kind":"x","message":"m"}}'
		job ok echo fine
	} >"$T/in"
	run --separate-stderr kf-run -k <"$T/in"
	assert_equal "$status" 1
	run jq -c '[.id, .error.kind, .error.message, .run.stdout]' <<<"$output"
	assert_output - <<-'EOF'
	["noargv","bad_record","no argv",null]
	["ints","bad_record","argv is not an array of strings",null]
	["badenv","bad_record","env is not an object",null]
	["badtimeout","bad_record","timeout is not a number of seconds",null]
	[null,"bad_json","line 5:1: not JSON",null]
	["prev","x","m",null]
	["ok",null,null,"fine\n"]
	EOF
	grep -Fx "kf-run: line 1: no argv" <<<"$stderr"
	grep -Fx "kf-run: line 5:1: not JSON" <<<"$stderr"
}

@test "CRLF input and a last line without newline are read" {
	printf '{"id":"a","argv":["echo","1"]}\r\n{"id":"b","argv":["echo","2"]}' >"$T/in"
	run kf-run -k "$T/in"
	assert_success
	assert_equal "$(jq -r .run.stdout <<<"$output" | tr -d '\n')" 12
}

@test "the program's stdin is /dev/null: it cannot eat the records that follow" {
	{
		job c cat
		job d echo after
	} | {
		run kf-run -k
		assert_success
		assert_equal "$(jq -r '.id + ":" + .run.stdout' <<<"$output" | tr -d '\n')" "c:d:after"
	}
}

@test "jobs start before the input ends" {
	{
		job first touch "$T/first"
		# The next record waits on the first job having run.
		await "$T/first" && seen=yes || seen=no
		job second echo "$seen"
	} | kf-run >"$T/out"
	assert_equal "$(field "$T/out" second .run.stdout)" yes
}

@test "programs get the signal mask and ignored signals kf-run was given, not its own" {
	job s sh -c 'grep -E "^Sig(Blk|Ign)" /proc/self/status' >"$T/in"
	run kf-run "$T/in"
	assert_equal "$(jq -r .run.stdout <<<"$output")" "$(sh -c 'grep -E "^Sig(Blk|Ign)" /proc/self/status')"
}

@test "--save-output writes whole streams to output_dir, even a path with spaces and quotes" {
	local d="$T/out dir 'q' \$(x)"
	jq -cn --arg d "$d" '{id:"s", output_dir:$d, argv:["sh","-c","seq 1 20000; echo oops >&2"]}' >"$T/in"
	run kf-run --tail-size 10 --save-output "$T/in"
	assert_success
	assert_equal "$(jq -r .run.stdout <<<"$output")" "999
20000"
	cmp "$d/stdout.log" <(seq 1 20000)
	assert_equal "$(cat "$d/stderr.log")" oops
}

@test "worker: hostname, cpu_info from /proc/cpuinfo, gpu_name from nvidia-smi" {
	mkdir "$T/fake"
	cat >"$T/fake/nvidia-smi" <<-'EOF'
	#!/bin/sh
	case "$1" in
	--query-gpu=name) printf 'NVIDIA H200\nNVIDIA A100-SXM4-80GB\n' ;;
	--query-gpu=compute_cap) echo 9.0 ;;
	*) exit 9 ;;
	esac
	EOF
	chmod +x "$T/fake/nvidia-smi"
	job w true >"$T/in"
	PATH="$T/fake:$PATH" run kf-run "$T/in"
	assert_success
	assert_equal "$(jq -r '[.worker.hostname, .worker.cpu_info, .worker.gpu_name, .worker.gpu_vendor, .worker.compute_capability, (.worker.gpus | length)] | @tsv' <<<"$output")" \
		"$(printf '%s\t%s\tNVIDIA H200\tnvidia\t9.0\t2' "$(uname -n)" "$(grep -m1 '^model name' /proc/cpuinfo | sed 's/^[^:]*: *//')")"
	# With --gpus, the job's worker names the GPU it was given.
	job w2 true >>"$T/in"
	PATH="$T/fake:$PATH" run kf-run --gpus 1 "$T/in"
	assert_equal "$(jq -r .worker.gpu_name <<<"$output" | sort -u)" "NVIDIA A100-SXM4-80GB"
}

@test "worker: an Intel GPU from sysfs and lspci, the discrete one preferred; no nvidia-smi is no error" {
	mkdir -p "$T/fake" "$T/sys/class/drm/card0/device" "$T/sys/class/drm/card1/device"
	printf '#!/bin/sh\nexit 9\n' >"$T/fake/nvidia-smi"
	cat >"$T/fake/lspci" <<-'EOF'
	#!/bin/sh
	case "$2" in
	0000:00:02.0) echo '00:02.0 VGA compatible controller: Intel Corporation Lunar Lake [Intel Graphics] (rev 04)' ;;
	0000:03:00.0) echo '03:00.0 VGA compatible controller: Intel Corporation Battlemage G21 [Arc B580] (rev 01)' ;;
	esac
	EOF
	chmod +x "$T/fake/nvidia-smi" "$T/fake/lspci"
	printf 'DRIVER=xe\nPCI_SLOT_NAME=0000:00:02.0\n' >"$T/sys/class/drm/card0/device/uevent"
	echo 0x64a0 >"$T/sys/class/drm/card0/device/device"
	printf 'DRIVER=xe\nPCI_CLASS=30000\nPCI_SLOT_NAME=0000:03:00.0\n' >"$T/sys/class/drm/card1/device/uevent"
	echo 0xe20b >"$T/sys/class/drm/card1/device/device"
	echo 12884901888 >"$T/sys/class/drm/card1/device/mem_info_vram_total"
	job w true >"$T/in"
	KF_SYSFS="$T/sys" PATH="$T/fake:$PATH" run kf-run "$T/in"
	assert_success
	assert_equal "$(jq -r '[.worker.gpu_name, .worker.gpu_vendor, .worker.device_id, (.worker.gpus | length)] | @tsv' <<<"$output")" \
		"$(printf 'Intel Corporation Battlemage G21 [Arc B580]\tintel\t0xe20b\t2')"
	# No GPU at all: nulls, and still no error.
	KF_SYSFS="$T/none" PATH="$T/fake:$PATH" run kf-run "$T/in"
	assert_success
	assert_equal "$(jq -c '[.worker.gpu_name, .worker.gpus]' <<<"$output")" '[null,[]]'
}

@test "an idle kf-run uses no CPU while its job sleeps" {
	# The CPU of a job that sleeps 2 s less that of one that does not: what
	# the wait costs, without the start-up (which the sanitizers make large).
	job s sleep 0 >"$T/in0"
	job s sleep 2 >"$T/in2"
	"$BATS_FILE_TMPDIR/rusage" "$T/ru0" kf-run "$T/in0" >/dev/null
	"$BATS_FILE_TMPDIR/rusage" "$T/ru2" kf-run "$T/in2" >/dev/null
	read -r _ u0 s0 <"$T/ru0"
	read -r _ u2 s2 <"$T/ru2"
	echo "sleep 0: user $u0 sys $s0; sleep 2: user $u2 sys $s2"
	awk -v a="$u0" -v b="$s0" -v c="$u2" -v d="$s2" 'BEGIN { exit !(c + d - a - b < 0.05) }'
}

@test "output to a closed pipe: kf-run ends its jobs and stops with status 1, quietly" {
	{
		job a sh -c 'sleep 0.3; echo first'
		job b sleep 30
		job c sleep 30
	} >"$T/in"
	local t0=$SECONDS
	run bash -c 'kf-run --grace 0.2 "$1" 2>"$2" | head -c 0; echo "${PIPESTATUS[0]}"' _ "$T/in" "$T/err"
	[ $((SECONDS - t0)) -lt 10 ]
	assert_output 1
	[ ! -s "$T/err" ]
}

@test "a job wrapped with a relative -o in one directory runs there when kf-run runs elsewhere; kf-read finds its report" {
	mkdir "$T/a" "$T/b"
	printf '#!/bin/sh\necho "ran in $(pwd) PWD=$PWD"\n' >"$T/a/prog"
	chmod +x "$T/a/prog"
	(cd "$T/a" && kf-wrap ncu -o rel --tool "$TOP/tests/fake/ncu" -- ./prog) >"$T/w.json"
	cd "$T/b"
	FAKE_NCU_CSV="$FIX/ncu-h200/detailed-copy.csv" run bash -c 'kf-run "$1" | kf-read | kf-collate | kf-feedback >fb.json' _ "$T/w.json"
	assert_success
	run jq -r '.passes[0].status, .passes[0].run.exit_code, .passes[0].output_dir, .analysis.focus.throughput.dram_pct' fb.json
	assert_output "ok
0
rel/prog/ncu.000
81.32"
	run jq -r '.passes[0].run.stdout' fb.json
	assert_output --partial "ran in $T/a PWD=$T/a"
	[ -s "$T/a/rel/prog/ncu.000/ncu_report.csv" ]
	run ls "$T/b"
	assert_output "fb.json"
}

@test "--save-output writes a relative output_dir's logs under the record's cwd" {
	mkdir "$T/a" "$T/b"
	jq -cn --arg c "$T/a" '{id:"s", cwd:$c, output_dir:"o/s", argv:["sh","-c","pwd; echo oops >&2"]}' >"$T/in"
	cd "$T/b"
	run kf-run --save-output "$T/in"
	assert_success
	assert_equal "$(cat "$T/a/o/s/stdout.log")" "$T/a"
	assert_equal "$(cat "$T/a/o/s/stderr.log")" oops
	[ ! -e "$T/b/o" ]
}

@test "a cwd that does not exist, is a file or is relative: an error record, the program not run, the next job runs" {
	cd "$T"
	touch file
	for c in "$T/gone" "$T/file" rel; do
		MORE="{\"cwd\":\"$c\"}" job "x$c" touch "$T/ran"
	done >in
	job ok echo fine >>in
	run -1 --separate-stderr kf-run in
	run jq -r 'select(.error) | [.id, .error.stage, .error.kind, .error.message] | join("|")' <<<"$output"
	assert_output "x$T/gone|kf-run|bad_cwd|cwd $T/gone, where the job was wrapped and is to run, is not a directory (No such file or directory): the program was not run
x$T/file|kf-run|bad_cwd|cwd $T/file, where the job was wrapped and is to run, is not a directory (Not a directory): the program was not run
xrel|kf-run|bad_record|cwd is not an absolute path"
	[ ! -e "$T/ran" ]
	run --separate-stderr kf-run in
	run jq -r 'select(.id == "ok") | .run.stdout' <<<"$output"
	assert_output fine
}
