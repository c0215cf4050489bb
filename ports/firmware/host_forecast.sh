#!/bin/sh
# The host's forecast of a model on the generic kernel port, as the text a firmware prints: one row per
# line, %.9g, comma-separated values only (the CSV header line and the time column, if the history has them,
# left out; a ';' or tab separated history's forecast rewritten with ',' and '.').
#
#   host_forecast.sh AUSPEX MODEL.axm HISTORY.csv OUT [auspex forecast options: --window S --horizon H ...]
set -eu
if [ $# -lt 4 ]; then
    echo "usage: $0 AUSPEX MODEL.axm HISTORY.csv OUT [--window S] [--horizon H]" >&2
    exit 2
fi
auspex=$1 model=$2 history=$3 out=$4
shift 4
tmp="$out.tmp"
"$auspex" forecast "$model" --input "$history" --port generic "$@" >"$tmp"
awk '
    function number(f) { return f ~ /^[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$/ }
    NR == 1 { sep = index($0, ";") ? ";" : index($0, "\t") ? "\t" : "," }
    {
        line = $0
        if (sep != ",") { gsub(",", ".", line); gsub(sep, ",", line) }
        n = split(line, f, ",")
    }
    NR == 1 && !number(f[n]) { next }          # the header line
    {
        if (timed == "") timed = !number(f[1]) # a time column first
        row = ""
        for (i = timed ? 2 : 1; i <= n; ++i) row = row (row == "" ? "" : ",") f[i]
        print row
    }' "$tmp" >"$out"
rm -f "$tmp"
