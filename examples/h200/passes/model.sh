#!/bin/bash
# What a collection's replay passes would be, without a GPU (issue 46):
# NVIDIA's profiler host library (libnvperf_host, CUPTI's NVPW) plans the
# passes of a set of hardware counters for a chip by name. nvpw_passes.c
# asks it for GH100 (H100, H200). A collection's passes are modelled as
# those of its hardware counters, plus one if it has SASS-patched metrics
# (smsp__sass_*, sass__*) and one if it has sampled ones (smsp__pcsamp_*,
# SourceCounters' warp states): ncu collects these in passes of their own.
# Checked first against every collection ncu counted on the H200
# (passes.tsv, passes.sh: kf's, each section left out, each metric added),
# then the collections where.sh would count on a GPU: kf's, only what kf
# reads (lean-metrics.sh) with and without sections, and kf's without the
# int1 and int8 tensor-core paths.
# libnvperf_host and its headers come from CUPTI ($CUDA_HOME, else
# /usr/local/cuda, extras/CUPTI), else from Debian's non-free libcupti12
# and libcupti-dev (CUDA 12.4), fetched once into $KF_NVPW_CACHE (default
# ~/.cache/kf-nvpw) with curl, xz and dpkg-deb.
# Usage: examples/h200/passes/model.sh
set -eu -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
cache=${KF_NVPW_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kf-nvpw}
mkdir -p "$cache"
cupti=${CUDA_HOME:-/usr/local/cuda}/extras/CUPTI
if [ -f "$cupti/include/nvperf_host.h" ]; then
	inc=$cupti/include lib=$cupti/lib64
else
	root=$cache/root inc=$cache/root/usr/include lib=$cache/root/usr/lib/x86_64-linux-gnu
	if [ ! -f "$inc/nvperf_host.h" ]; then
		mirror=http://deb.debian.org/debian
		curl -fsS "$mirror/dists/sid/non-free/binary-amd64/Packages.xz" | xz -d >"$cache/Packages"
		for p in libcupti12 libcupti-dev; do
			f=$(awk -v p="$p" '$1 == "Package:" { q = ($2 == p) } q && $1 == "Filename:" { print $2; exit }' "$cache/Packages")
			[ -n "$f" ] || { echo "model.sh: no $p in Debian's non-free" >&2; exit 1; }
			curl -fsS -o "$cache/$p.deb" "$mirror/$f"
			dpkg-deb -x "$cache/$p.deb" "$root"
		done
	fi
fi
np=$cache/nvpw_passes
cc -O1 -Wall -Wextra -o "$np" "$here/nvpw_passes.c" -I"$inc" -L"$lib" -lnvperf_host -Wl,-rpath,"$lib"

# model: the passes of the metric names on standard input
model() {
	local m hw i=0 s=0
	m=$(cat)
	hw=$({ grep -v -e '^smsp__sass' -e '^sass__' -e '^smsp__pcsamp' <<<"$m" | grep . || true; } |
		"$np" GH100 | awk '{ print $NF }')
	grep -q -e '^smsp__sass' -e '^sass__' <<<"$m" && i=1
	grep -q '^smsp__pcsamp' <<<"$m" && s=1
	echo $((hw + i + s))
}
# kf's collection as kf-wrap asks for it (collection.sh: S, all), a name a line
. "$here/collection.sh"
secs=$(printf '%s\n' "${S[@]}" | grep -vx -- --section)
kfm=$(tr , '\n' <<<"$all")
# sec NAME...: the metrics Nsight Compute's section files name
sec() {
	local s
	for s in "$@"; do
		awk -F'\t' -v s="$s" '$1 == s { print $3 }' "$top/tests/fixtures/ncu-sections/sections.tsv"
	done
}

echo "ncu's counts on the H200 (passes.tsv) against the model:"
awk -F'\t' '$2 == 0 { print $1 "\t" $3 }' "$here/passes.tsv" | while IFS=$'\t' read -r what n; do
	case $what in
	full) m=$(sec $secs; echo "$kfm") ;;
	sections) m=$(sec $secs) ;;
	metrics) m=$kfm ;;
	full-less-*)
		x=${what#full-less-}
		if grep -qx "$x" <<<"$kfm"; then
			m=$(sec $secs; grep -vx "$x" <<<"$kfm")
		else
			m=$(sec $(grep -vx "$x" <<<"$secs"); echo "$kfm")
		fi ;;
	sections+*) m=$(sec $secs; echo "${what#sections+}") ;;
	*) continue ;;
	esac
	printf '%s\t%s\t%s\n' "$n" "$(model <<<"$m")" "$what"
done | tee "$cache/check.tsv" | awk -F'\t' '{ d[$1 - $2]++; n++ }
	END { for (k in d) printf "  ncu - model = %d: %d of %d collections\n", k, d[k], n }' | sort

lean=$(bash "$here/lean-metrics.sh")
named=$(bash "$here/lean-metrics.sh" -n)
# row NAME: NAME and the model's passes of the names on standard input
row() { printf '  %s\t%s\n' "$(model)" "$1"; }
echo "passes (model)	collection"
{ sec $secs; echo "$kfm"; } | row "kf's: 8 sections and 40 metrics"
{ sec $secs; grep -v src_int1 <<<"$kfm"; } | row "kf's without the int1 tensor path"
{ sec $secs; grep -v -e src_int1 -e src_int8 <<<"$kfm"; } | row "kf's without the int1 and int8 tensor paths"
{ sec $secs; grep -v sm__ops_path_tensor <<<"$kfm"; } | row "kf's without the 7 tensor paths"
row "only what kf reads: $(wc -l <<<"$lean") metrics, no section" <<<"$lean"
{ sec SourceCounters; echo "$lean"; } | row "the same and SourceCounters"
{ sec SourceCounters SpeedOfLight LaunchStats Occupancy; echo "$lean"; } |
	row "the same and SpeedOfLight, LaunchStats, Occupancy"
row "only the names kf's code spells whole: $(wc -l <<<"$named")" <<<"$named"
grep -v -e src_int1 -e src_int8 <<<"$lean" | row "only what kf reads, without the int1 and int8 tensor paths"
