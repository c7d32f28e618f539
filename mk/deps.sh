#!/bin/sh
# Check the Debian packages kf needs; install the missing ones when root,
# else print the exact command and fail.
#   deps.sh build   what building needs
#   deps.sh check   what the test suite needs as well
set -u
need="libcjson-dev libcsv-dev pkg-config make gcc"
if [ "${1:-build}" = check ]; then
	need="$need bats bats-assert bats-support jq mandoc clang libclang-rt-14-dev parallel chromium"
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
[ -z "$missing" ] && exit 0

cmd="apt-get install -y$missing"
if [ "$(id -u)" -eq 0 ]; then
	echo "kf: installing:$missing" >&2
	if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive $cmd -qq; } >&2; then
		echo "kf: could not install:$missing" >&2
		exit 1
	fi
	exit 0
fi
echo "kf: missing packages:$missing" >&2
echo "kf: run as root:  apt-get update && $cmd" >&2
exit 1
