#!/bin/sh
# One board's row of the Chronos-Bolt tables in docs/boards.md, from the board's firmware build tree
# (chronos_bolt_tiny.elf: chronos-bolt-tiny's shapes in int8, context 512, 64 steps, weights read in place from
# external flash). `make size` and `make stack` write the rows of every board with external flash into the
# page; the CTests docs_chronos_bolt_size and docs_chronos_bolt_stack check this board's row is there.
#   size:  image text / data / bss, the model in external flash, the working memory (.bss)
#   stack: the runtime's worst case below main (computed), of chronos_bolt_forecast alone, and the stack the run
#          painted (startup included)
#
#   chronos_bolt_rows.sh size BUILD_DIR BOARD CPU
#   chronos_bolt_rows.sh stack BUILD_DIR BOARD CPU PYTHON SOURCE_DIR TOOL_PREFIX
set -eu
if [ $# -lt 4 ]; then
    echo "usage: $0 size|stack BUILD_DIR BOARD CPU [PYTHON SOURCE_DIR TOOL_PREFIX]" >&2
    exit 2
fi
mode=$1 dir=$2 board=$3 cpu=$4
image=$dir/chronos_bolt_tiny
case $mode in
size)
    set -- $(arm-none-eabi-size "$image.elf" | tail -1)
    model=$(wc -c <"$dir/chronos_bolt/tiny/int8.axm" | tr -d ' ')
    work=$(sed -n 's/^#define CHRONOS_BOLT_WORK_BYTES \([0-9]*\).*/\1/p' "$dir/chronos_bolt/tiny/chronos_bolt_work.h")
    echo "| $board ($cpu) | $1 / $2 / $3 | $model | $work |"
    ;;
stack)
    [ $# -eq 7 ] || { echo "usage: $0 stack BUILD_DIR BOARD CPU PYTHON SOURCE_DIR TOOL_PREFIX" >&2; exit 2; }
    py=$5 src=$6 prefix=$7
    out=$("$py" "$src/tools/stack/stack_worst_case.py" --elf "$image.elf" --map "$image.map" --ci-dir "$dir" \
        --kernels "$src/runtime/kernels.h" --tool-prefix "$prefix" --show chronos_bolt_forecast) || {
        echo "$out" >&2
        exit 1
    }
    worst=$(echo "$out" | sed -n 's/^stack: .*runtime worst case \([0-9]*\) bytes.*/\1/p')
    entry=$(echo "$out" | sed -n 's/^  worst path from [^ ]*chronos_bolt_forecast (\([0-9]*\) bytes.*/\1/p' | head -n 1)
    painted=$(sed -n 's/^auspex: stack \([0-9]*\) bytes used.*/\1/p' "$image.stderr" 2>/dev/null || true)
    if [ -z "$worst" ] || [ -z "$entry" ] || [ -z "$painted" ]; then
        echo "$0: no figures for $image.elf (run its CTest chronos_bolt_tiny_matches_host first):" >&2
        echo "$out" >&2
        exit 1
    fi
    echo "| $board ($cpu) | $worst | $entry | $painted |"
    ;;
*)
    echo "$0: mode size or stack, not $mode" >&2
    exit 2
    ;;
esac
