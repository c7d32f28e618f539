#!/bin/bash
# What kf's diagnosis owes to ncu's rules (issue 46: a collection by
# --metrics alone runs no rule): for every recorded ncu details page in the
# tree (tests/fixtures, examples), the diagnosis (each finding's kind and
# impact_pct) of the pages as they are and with the rules' rows left out of
# the details page. Prints "same DIR DIAGNOSIS" or "DIFF DIR" with both, and
# a count. Runs here, no GPU: needs a built tree (make) and jq.
# Usage: examples/h200/passes/norules.sh [SCRATCH]
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
out=${1:-$(mktemp -d)}
export PATH=$top/bin:$PATH KF_DATADIR=$top/share/kf
n=0 same=0 diff=0
while read -r rep; do
	src=$(dirname "$rep")
	n=$((n + 1))
	for v in with without; do
		d=$out/$n/$v/job/ncu.000
		mkdir -p "$d"
		for f in "$src"/*; do
			[ -f "$f" ] || continue
			zcat -f "$f" >"$d/$(basename "$f" .gz)"
		done
		[ ! -d "$src/trace" ] || { cp -r "$src/trace" "$d/" && gunzip -rqf "$d/trace"; }
		# the rules' rows: those with a Rule Name, its column found by its header
		[ $v = with ] || awk -F'","' '/^"ID"/ { for (i = 1; i <= NF; i++) if ($i == "Rule Name") c = i }
			!c || !/^"[0-9]/ || $c == ""' "$d/ncu_report.csv" >"$d/x" && mv "$d/x" "$d/ncu_report.csv"
		kf --json reread "$out/$n/$v/job" 2>/dev/null |
			jq -c '[.analysis.diagnosis[]? | [.kind, .impact_pct]]' >"$out/$n/$v.diag"
	done
	if cmp -s "$out/$n/with.diag" "$out/$n/without.diag"; then
		same=$((same + 1))
		echo "same ${src#"$top"/} $(cat "$out/$n/with.diag")"
	else
		diff=$((diff + 1))
		printf 'DIFF %s\n  with:    %s\n  without: %s\n' "${src#"$top"/}" \
			"$(cat "$out/$n/with.diag")" "$(cat "$out/$n/without.diag")"
	fi
done < <(find "$top/tests/fixtures" "$top/examples" \( -name ncu_report.csv -o -name ncu_report.csv.gz \) | sort)
echo "$n details pages: $same the same without ncu's rules, $diff not"
