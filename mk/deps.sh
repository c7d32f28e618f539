#!/bin/sh
# Check the Debian packages kf needs; install the missing ones when root,
# else print the exact command and fail.
#   deps.sh build   what building needs
#   deps.sh check   what the test suite needs as well, and the MCP test
#                   client's npm packages (tests/mcp: npm ci, from its lockfile)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
mcp=${KF_MCP_CLIENT_DIR:-$top/tests/mcp}
need="libcjson-dev libcsv-dev pkg-config make gcc"
if [ "${1:-build}" = check ]; then
	need="$need bats bats-assert bats-support jq mandoc clang libclang-rt-14-dev parallel chromium nodejs"
	# Debian's npm, unless npm came with nodejs (NodeSource's does).
	command -v npm >/dev/null 2>&1 || need="$need npm"
	# The real engines of slurm.bats and parallel-hosts.bats, which run only
	# as root (elsewhere they skip, saying why).
	if [ "$(id -u)" -eq 0 ]; then
		need="$need slurm-wlm munge openssh-server openssh-client iproute2 rsync"
	fi
fi

missing=""
for p in $need; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) || st=""
	case "$st" in
	*"install ok installed"*) ;;
	*) missing="$missing $p" ;;
	esac
done
# tests/mcp.bats drives kf-mcp with the official MCP SDK's client, an npm
# package: installed from the lockfile where it is not yet.
npm_ci() {
	[ "${1:-build}" = check ] || return 0
	[ -d "$mcp/node_modules/@modelcontextprotocol/sdk" ] && return 0
	echo "kf: installing the MCP test client's packages: npm ci --prefix $mcp" >&2
	if ! npm ci --prefix "$mcp" --no-audit --no-fund >&2; then
		echo "kf: could not install them: run  npm ci --prefix $mcp" >&2
		return 1
	fi
}

if [ -z "$missing" ]; then
	npm_ci "${1:-build}"
	exit
fi

cmd="apt-get install -y$missing"
if [ "$(id -u)" -eq 0 ]; then
	echo "kf: installing:$missing" >&2
	if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive $cmd -qq; } >&2; then
		echo "kf: could not install:$missing" >&2
		exit 1
	fi
	npm_ci "${1:-build}"
	exit
fi
echo "kf: missing packages:$missing" >&2
echo "kf: run as root:  apt-get update && $cmd" >&2
exit 1
