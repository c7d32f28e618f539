#!/bin/sh
# examples/h200/ops/check.sh DIR [EXPECTED]: each op's verdict in DIR/ID.json
# (a sweep's final records) against what it must be limited by (EXPECTED,
# default expected.tsv beside this script). Prints one tab-separated line a
# op:
#   id  expected  got  verdict
# where expected and got are kind/unit and the first kernel-level finding of
# analysis.diagnosis is what is checked (its fix too, where expected.tsv
# names a phrase it must hold); verdict is ok, wrong (what is wrong said
# after it) or missing (no record, or a record without a kernel-level
# finding: its error's kind). The last line counts them. Exit status 0 when
# every op is as expected, 1 when one is not, 2 on a usage error.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: check.sh DIR [EXPECTED]" >&2; exit 2; }
dir=$1
expected=${2:-$here/expected.tsv}
[ -d "$dir" ] || { echo "check.sh: $dir: no such directory" >&2; exit 2; }
[ -r "$expected" ] || { echo "check.sh: $expected: cannot read" >&2; exit 2; }

tab=$(printf '\t')
n=0 ok=0
while IFS="$tab" read -r id kind unit fix why; do
	case $id in '#'*|'') continue ;; esac
	n=$((n + 1))
	rec=$dir/$id.json
	if [ ! -r "$rec" ]; then
		printf '%s\t%s/%s\t-\tmissing: no %s\n' "$id" "$kind" "$unit" "$rec"
		continue
	fi
	got=$(jq -r --arg kind "$kind" --arg unit "$unit" --arg fix "$fix" -s '
		(.[0].analysis.diagnosis // []) as $d
		| ([$d[] | select(.kernel != null)][0]) as $f
		| if $f == null then
			"-\tmissing: \(.[0].error.kind // .[0].analysis.status // "no kernel-level finding")"
		  else
			"\($f.kind)/\($f.unit // "-")\t" +
			([ (if ($kind | split("|") | index($f.kind)) == null
			    then "the kind is not \($kind)" else empty end),
			   (if $unit != "-" and (($unit | split("|") | index($f.unit // "-")) == null)
			    then "the unit is not \($unit)" else empty end),
			   (if $fix != "-" and (($f.fix // "") | contains($fix) | not)
			    then "the fix does not say \"\($fix)\"" else empty end)
			 ] | if length == 0 then "ok" else "wrong: " + join("; ") end)
		  end' "$rec")
	printf '%s\t%s/%s\t%s\n' "$id" "$kind" "$unit" "$got"
	case $got in *"${tab}ok") ok=$((ok + 1)) ;; esac
done <"$expected"
printf '%d of %d ops as expected\n' "$ok" "$n"
[ "$ok" -eq "$n" ]
