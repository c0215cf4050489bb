#!/bin/sh
# The host's forecast of a model on the generic kernel port, as the text a firmware prints: one row per
# line, %.9g, the CSV header line (if the history has one) left out.
#
#   host_forecast.sh AUSPEX MODEL.axm HISTORY.csv HORIZON OUT
set -eu
if [ $# -ne 5 ]; then
    echo "usage: $0 AUSPEX MODEL.axm HISTORY.csv HORIZON OUT" >&2
    exit 2
fi
tmp="$5.tmp"
"$1" forecast "$2" --input "$3" --horizon "$4" --port generic >"$tmp"
awk 'NR == 1 && /[^-+0-9.eE,]/ { next } { print }' "$tmp" >"$5"
rm -f "$tmp"
