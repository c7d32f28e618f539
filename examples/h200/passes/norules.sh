#!/bin/bash
# What kf's diagnosis owes to ncu's rules (issue 46: a collection by
# --metrics alone runs no rule): for every recorded ncu details page in the
# tree (tests/fixtures, examples), the diagnosis (each finding's kind and
# impact_pct) of the pages as they are and with the rules' rows left out of
# the details page. Prints "same DIR DIAGNOSIS" or "DIFF DIR" with both, and
# a count. With -m, "without" is a collection by --metrics alone instead:
# no section rows, no rules, the details page made of the raw page's
# columns that kf reads (lean-metrics.sh) as ncu writes metrics asked for
# by name, the raw page cut to them (metrics_only.py); only the outputs
# with a raw page. Runs here, no GPU: needs a built tree (make), jq and
# python3.
# Usage: examples/h200/passes/norules.sh [-m] [SCRATCH]
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
lean=
if [ "${1:-}" = -m ]; then
	lean=$(mktemp)
	bash "$here/lean-metrics.sh" >"$lean"
	shift
fi
out=${1:-$(mktemp -d)}
export PATH=$top/bin:$PATH KF_DATADIR=$top/share/kf
n=0 same=0 diff=0
while read -r rep; do
	src=$(dirname "$rep")
	[ -z "$lean" ] || [ -f "$src/ncu_raw.csv" ] || [ -f "$src/ncu_raw.csv.gz" ] || continue
	n=$((n + 1))
	for v in with without; do
		d=$out/$n/$v/job/ncu.000
		mkdir -p "$d"
		for f in "$src"/*; do
			[ -f "$f" ] || continue
			zcat -f "$f" >"$d/$(basename "$f" .gz)"
		done
		[ ! -d "$src/trace" ] || { cp -r "$src/trace" "$d/" && gunzip -rqf "$d/trace"; }
		if [ $v = without ] && [ -n "$lean" ]; then
			python3 "$here/metrics_only.py" "$d/ncu_report.csv" "$d/ncu_raw.csv" "$lean"
		# the rules' rows: those with a Rule Name, its column found by its header
		elif [ $v = without ]; then awk -F'","' '/^"ID"/ { for (i = 1; i <= NF; i++) if ($i == "Rule Name") c = i }
			!c || !/^"[0-9]/ || $c == ""' "$d/ncu_report.csv" >"$d/x" && mv "$d/x" "$d/ncu_report.csv"
		fi
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
how="without ncu's rules"
[ -z "$lean" ] || how="from --metrics alone"
echo "$n details pages: $same the same $how, $diff not"
