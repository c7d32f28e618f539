#!/usr/bin/env bats
# mk/deps.sh, behind make demo and make check: missing Debian packages are
# installed with apt-get as root, and otherwise named in the exact command.

load helper

setup() {
	fake=$BATS_TEST_TMPDIR/fake
	mkdir -p "$fake"
	# dpkg-query that knows only the packages listed in $INSTALLED.
	cat > "$fake/dpkg-query" <<'SH'
#!/bin/sh
for p; do :; done
case " $INSTALLED " in
*" $p "*) printf 'install ok installed' ;;
*) echo "dpkg-query: no packages found matching $p" >&2; exit 1 ;;
esac
SH
	printf '#!/bin/sh\necho "$FAKE_UID"\n' > "$fake/id"
	printf '#!/bin/sh\necho "apt-get $*" >> "$APT_LOG"\n' > "$fake/apt-get"
	printf '#!/bin/sh\necho "npm $*" >> "$NPM_LOG"\n' > "$fake/npm"
	chmod +x "$fake"/*
	export APT_LOG=$BATS_TEST_TMPDIR/apt.log NPM_LOG=$BATS_TEST_TMPDIR/npm.log
	# The MCP test client's packages, installed (a test removes them).
	export KF_MCP_CLIENT_DIR=$BATS_TEST_TMPDIR/mcp
	mkdir -p "$KF_MCP_CLIENT_DIR/node_modules/@modelcontextprotocol/sdk"
}

@test "nothing missing: deps.sh says nothing and succeeds" {
	INSTALLED="libcjson-dev libcsv-dev pkg-config make gcc" FAKE_UID=1000 PATH="$fake:$PATH" \
		run sh "$TOP/mk/deps.sh" build
	assert_success
	assert_output ""
}

@test "not root: the exact apt-get line for the missing packages, status 1" {
	INSTALLED="pkg-config make gcc" FAKE_UID=1000 PATH="$fake:$PATH" run sh "$TOP/mk/deps.sh" build
	assert_failure 1
	assert_output --partial "kf: missing packages: libcjson-dev libcsv-dev"
	assert_output --partial "apt-get update && apt-get install -y libcjson-dev libcsv-dev"
	[ ! -e "$APT_LOG" ]
}

@test "root: apt-get installs exactly the missing packages" {
	INSTALLED="libcjson-dev libcsv-dev pkg-config make gcc bats jq mandoc" FAKE_UID=0 PATH="$fake:$PATH" \
		run sh "$TOP/mk/deps.sh" check
	assert_success
	run cat "$APT_LOG"
	assert_line --index 0 "apt-get update -qq"
	assert_line --index 1 "apt-get install -y bats-assert bats-support clang libclang-rt-14-dev parallel chromium nodejs slurm-wlm munge openssh-server openssh-client iproute2 rsync -qq"
	[ ! -e "$NPM_LOG" ]
}

@test "check: the MCP test client's packages are installed with npm ci from the lockfile where missing" {
	rm -r "$KF_MCP_CLIENT_DIR/node_modules"
	INSTALLED="libcjson-dev libcsv-dev pkg-config make gcc bats bats-assert bats-support jq mandoc clang libclang-rt-14-dev parallel chromium nodejs" \
		FAKE_UID=1000 PATH="$fake:$PATH" run sh "$TOP/mk/deps.sh" check
	assert_success
	assert_output "kf: installing the MCP test client's packages: npm ci --prefix $KF_MCP_CLIENT_DIR"
	run cat "$NPM_LOG"
	assert_output "npm ci --prefix $KF_MCP_CLIENT_DIR --no-audit --no-fund"
	# make demo builds only: no npm
	rm "$NPM_LOG"
	INSTALLED="libcjson-dev libcsv-dev pkg-config make gcc" FAKE_UID=1000 PATH="$fake:$PATH" \
		run sh "$TOP/mk/deps.sh" build
	assert_success
	[ ! -e "$NPM_LOG" ]
	# the lockfile the real one installs from is committed beside the client
	jq -e '.packages["node_modules/@modelcontextprotocol/sdk"].version' "$TOP/tests/mcp/package-lock.json"
}

@test "not root: the cluster tests' engines are not asked for (those tests skip)" {
	INSTALLED="libcjson-dev libcsv-dev pkg-config make gcc bats bats-assert bats-support jq mandoc clang libclang-rt-14-dev parallel chromium nodejs" \
		FAKE_UID=1000 PATH="$fake:$PATH" run sh "$TOP/mk/deps.sh" check
	assert_success
	assert_output ""
}

@test "make check needs the test tools; make demo only what building needs" {
	grep -q '^check: deps-check' "$TOP/Makefile"
	grep -q '^demo: deps-build' "$TOP/Makefile"
	run make -C "$TOP" --no-print-directory -n deps-check NODEPS=
	assert_output "sh mk/deps.sh check"
	run make -C "$TOP" --no-print-directory -n deps-build NODEPS=
	assert_output "sh mk/deps.sh build"
}
