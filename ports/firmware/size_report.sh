#!/bin/sh
# Code and memory of the runtime and the example firmware on each Cortex-M target, from arm-none-eabi-size
# and the linker map: a markdown table (make size writes it into docs/boards.md).
#  - runtime library: every object of libauspex_runtime.a (all model families, all kernels);
#  - runtime linked: the part of it --gc-sections keeps in forecast.elf (what a forecaster firmware pays);
#  - forecast.elf / forecast_c.elf: whole images (text includes the int8 model and newlib's printf);
#  - arena: the static session arena in .bss (the header's figure, computed on the 64-bit host, which is
#    the board's exact need: the on-board tests check the two are equal).
#
#   size_report.sh FIRMWARE_DIR BOARD...      (FIRMWARE_DIR/BOARD holds each board's build tree)
set -eu
if [ $# -lt 2 ]; then
    echo "usage: $0 FIRMWARE_DIR BOARD..." >&2
    exit 2
fi
dir=$1
shift
size=arm-none-eabi-size

# text data bss of the runtime archive members that a map file shows linked into an image.
linked_runtime() {
    awk '
        function hex(s,   i, c, v) {
            v = 0; s = tolower(s); sub(/^0x/, "", s)
            for (i = 1; i <= length(s); ++i) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c }
            return v
        }
        function add(section, n) {
            if (section ~ /^\.(comment|ARM\.attributes|debug|note|gnu\.attributes)/) return  # not loaded
            if (section ~ /^\.bss/ || section == "COMMON") bss += n
            else if (section ~ /^\.data/) data += n
            else if (section ~ /^\.rodata/) { text += n; rodata += n }
            else text += n
        }
        /^Linker script and memory map/ { on = 1; next }
        !on { next }
        /^ \.[^ ]*$/ { pending = $1; next }
        $NF ~ /libauspex_runtime\.a\(/ {
            if (NF == 4 && $1 ~ /^\./ && $2 ~ /^0x/) add($1, hex($3))
            else if (NF == 3 && $1 ~ /^0x/ && pending != "") add(pending, hex($2))
        }
        { if (!($0 ~ /^ \.[^ ]*$/)) pending = "" }
        END { printf "%d %d %d %d\n", text, data, bss, rodata }
    ' "$1"
}

echo "| target | runtime library: text | runtime linked in forecast.elf: text / data / bss | forecast.elf: text / data / bss | int8 model | arena (.bss) | forecast_c.elf: text / data / bss |"
echo "|---|---|---|---|---|---|---|"
for board in "$@"; do
    b=$dir/$board
    cpu=$(sed -n 's/^AUSPEX_CORTEX_M_CPU:[A-Z]*=//p' "$b/CMakeCache.txt")
    lib=$($size -t "$b/libauspex_runtime.a" | tail -1 | awk '{ print $1 }')
    set -- $(linked_runtime "$b/forecast.map")
    linked="$1 / $2 / $3 (read-only data $4)"
    set -- $($size "$b/forecast.elf" | tail -1)
    fc="$1 / $2 / $3"
    set -- $($size "$b/forecast_c.elf" | tail -1)
    fcc="$1 / $2 / $3"
    model=$(sed -n 's/^#define EXAMPLE_MODEL_SIZE \([0-9]*\).*/\1/p' "$b/generated/example_model.h")
    arena=$(sed -n 's/^#define EXAMPLE_MODEL_ARENA_BYTES \([0-9]*\).*/\1/p' "$b/generated/example_model.h")
    echo "| $cpu ($board) | $lib | $linked | $fc | $model | $arena | $fcc |"
done
echo
echo "Sizes in bytes, -Os, -fno-exceptions -fno-rtti, --gc-sections; newlib with semihosting (rdimon)."
echo "Heap used by the runtime: 0 (no allocator symbol in any runtime object; see make test-firmware)."
