#!/bin/bash
# lean-metrics.sh: the metrics kf reads, one a line, as ncu names them: the
# columns of every raw page recorded in the tree (kf's collection on the
# H200) that kf's ncu reader, diagnosis and roofline name (a string literal
# of lib/ncu/*.c or lib/analysis/*.c, as itself, as the base of a column,
# or as a prefix ending in _), and share/kf/ncu_metrics.txt's. For where.sh
# (passes of only these) and norules.sh -m (kf's diagnosis from only these).
# With -n, only the names kf's code and ncu_metrics.txt spell whole (no
# column taken by a prefix, none from the recorded pages).
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
named() {
	# derived__ names are the section files' own sums, which --metrics cannot ask for
	grep -oh '"[a-z0-9][a-z0-9]*__[a-z][a-z0-9_.]*"' "$top"/lib/ncu/*.c "$top"/lib/analysis/*.c | tr -d '"' |
		grep -v '^derived__'
	grep -v '^#' "$top/share/kf/ncu_metrics.txt" | grep .
}
if [ "${1:-}" = -n ]; then
	named | grep -v '_$' | sort -u
	exit
fi
awk 'FILENAME == "-" { r[$0] = 1; next }
	{ c = $0; ok = (c in r)
	  for (x in r) if (!ok && (index(c, x ".") == 1 || (x ~ /_$/ && index(c, x) == 1))) ok = 1
	  if (ok) print c }' - <(find "$top/tests/fixtures" "$top/examples" -name 'ncu_raw.csv*' -exec zcat -f {} + 2>/dev/null |
		grep '^"ID"' | tr -d '"' | tr ',' '\n' | grep '__' | sort -u) < <(named) | sort -u
