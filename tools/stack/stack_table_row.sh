#!/bin/sh
# One board's row of the worst-case stack table in docs/boards.md, from the board's firmware build tree:
# the runtime's worst case below the caller's frame through the C++ API (forecast.elf), of a forecast alone
# (ForecastSession::forecast), through the C API (forecast_c.elf), of auspex_forecast alone, of every
# family's entry points (stack_families.elf), and of the signature check of signed models (stack_signature.elf). `make stack` writes the rows of every board into the page;
# the CTest docs_stack_table checks this board's row is there.
#   stack_table_row.sh PYTHON SOURCE_DIR BUILD_DIR BOARD CPU TOOL_PREFIX
set -eu
if [ $# -ne 6 ]; then
    echo "usage: $0 PYTHON SOURCE_DIR BUILD_DIR BOARD CPU TOOL_PREFIX" >&2
    exit 2
fi
py=$1 src=$2 dir=$3 board=$4 cpu=$5 prefix=$6

# figures IMAGE [ENTRY]: the image's runtime worst case and, with ENTRY, the worst path from ENTRY.
figures() {
    out=$("$py" "$src/tools/stack/stack_worst_case.py" --elf "$dir/$1.elf" --map "$dir/$1.map" --ci-dir "$dir" \
        --kernels "$src/runtime/kernels.h" --tool-prefix "$prefix" ${2:+--show "$2"}) || {
        echo "$out" >&2
        exit 1
    }
    worst=$(echo "$out" | sed -n 's/^stack: .*runtime worst case \([0-9]*\) bytes.*/\1/p')
    entry=""
    [ -z "${2:-}" ] || entry=$(echo "$out" | sed -n "s/^  worst path from [^ ]*$2 (\([0-9]*\) bytes.*/\1/p" | head -n 1)
    if [ -z "$worst" ] || { [ -n "${2:-}" ] && [ -z "$entry" ]; }; then
        echo "$0: no figure for $1.elf${2:+ / $2} in the stack tool's output:" >&2
        echo "$out" >&2
        exit 1
    fi
    echo "$worst${entry:+ | $entry}"
}
cxx=$(figures forecast ForecastSession::forecast)
c=$(figures forecast_c auspex_forecast)
families=$(figures stack_families)
signature=$(figures stack_signature)
echo "| $board ($cpu) | $cxx | $c | $families | $signature |"
