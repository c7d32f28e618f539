#!/bin/bash
# parallel.sh [-S LOGINS | --sshloginfile FILE] [-j N] [-o DIR] [-g "GPU ..."]
#             [--return] [-k] [-w ARG] [-r ARG] [-f ARG] JOBS   (or -h: this text)
# Run the jobs of JOBS (one JSON object per line) across hosts with GNU
# parallel: each job goes, on its standard input, to one host, which runs
# kf-pipeline on it; the final records come back on standard output.
#
#   -S LOGINS           hosts as GNU parallel takes them ("h1,4/h2,:"; ":" is
#                       this machine); --sshloginfile FILE: one per line
#   -j N                jobs at a time on each host (default: one per CPU)
#   -o DIR              where each host keeps the outputs (default kf-out),
#                       under DIR/SEQ/ID/PASS, SEQ being the job's number
#   --return            run each job on a host in a directory of its own
#                       there, bring DIR/SEQ back after the job and remove
#                       that directory (output_dir in the records then
#                       names the local copy); keep DIR relative
#   -g "GPU ..."        each host's GPUs; a job holds one while kf-run runs
#   -k                  records in the order of JOBS
#   -w, -r, -f ARG      one more argument to kf-wrap, kf-run, kf-feedback
#
# The hosts need kf's programs on PATH (make install), rsync, and the jobs'
# programs at the same path as here; kf-pipeline and
# kf-gpu-lock are sent along (--basefile) and removed at the end. The
# job's JSON travels on standard input, never in a command line. GNU
# parallel's own settings apply: PARALLEL_SSH (the ssh command), ~/.parallel.
set -eu
here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
par=() pipe=() out=kf-out ret=0
case ${1:-} in
-h | --help) sed -n '2,/^set -eu/{/^set -eu/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"; exit 0 ;;
esac
while [ $# -gt 0 ]; do
	case $1 in
	-S|--sshlogin) par+=(--sshlogin "$2"); shift 2 ;;
	--sshloginfile|--slf) par+=(--sshloginfile "$2"); shift 2 ;;
	-j) par+=(--jobs "$2"); shift 2 ;;
	-k) par+=(--keep-order); shift ;;
	-o) out=$2; shift 2 ;;
	--return) ret=1; shift ;;
	-g) pipe+=(-g "$2"); shift 2 ;;
	-w|-r|-f) pipe+=("$1" "$2"); shift 2 ;;
	--) shift; break ;;
	-*) echo "parallel.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || { echo "usage: parallel.sh [-S logins | --sshloginfile file] [-j n] [-o dir] [--return] [-g \"gpu ...\"] [-k] [-w|-r|-f arg] jobs" >&2; exit 2; }
jobs=$1
[ -r "$jobs" ] || { echo "parallel.sh: cannot read $jobs" >&2; exit 2; }
# With --return, a job on a host runs in a directory of its own there
# (--workdir ...), which --cleanup removes once DIR/SEQ is back here; a
# job on this machine (":") runs here, where its outputs belong.
if [ $ret -eq 1 ]; then
	par+=(--workdir ... --return "$out/{#}")
fi
# The scripts travel as /tmp/kf-parallel.XXXXXX/NAME, a fresh path on
# every host: --cleanup removes them there, which must never hit the
# scripts themselves on a host that shares this file system.
stage=$(mktemp -d /tmp/kf-parallel.XXXXXX)
trap 'rm -rf "$stage"' EXIT
cp "$here/kf-pipeline" "$here/kf-gpu-lock" "$stage/"
# {#}: the job's sequence number, so that jobs of the same id on different
# hosts never write over each other when brought back.
# shellcheck disable=SC2016
parallel --will-cite --pipe -N 1 --recend '\n' "${par[@]}" --cleanup \
	--basefile "$stage/kf-pipeline" --basefile "$stage/kf-gpu-lock" \
	-q /bin/sh -c '[ "${PARALLEL_SSHLOGIN:-:}" != : ] || cd "$0" || exit 2; exec "$@"' "$PWD" \
	"$stage/kf-pipeline" -o "$out/{#}" "${pipe[@]}" <"$jobs"
