#!/usr/bin/env bash
# CTest "consumer": auspex used from outside its own targets, twice: installed (cmake --install, then
# find_package(auspex) in tests/consumer) and as a subdirectory (add_subdirectory). Both a C-only program
# and a C++ program forecast the bundled example; their forecasts must equal the CLI's to the printed digit.
# The installed headers must each compile alone and leave the ports' internals out.
# The installed CLI (bin/auspex) converts the model and makes the forecast they are compared with.
# Usage: run_consumer.sh SOURCE_DIR BUILD_DIR WORK_DIR
set -euo pipefail
src=$1 build=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
# The installed headers are the public surface (AUSPEX_PUBLIC_HEADERS): each compiles on its own, so none
# includes a header left out; and none of the ports' internals is among them.
include="$work/prefix/include/auspex"
for h in $(cd "$include" && find . -name '*.h' | sed 's|^\./||' | sort); do
    echo "#include \"$h\"" | ${CXX:-c++} -std=c++17 -fsyntax-only -I"$include" -x c++ - ||
        { echo "installed header $h does not compile on its own"; exit 1; }
done
for internal in ports/generic ports/avx2 ports/x86 ports/neon ports/mcu runtime/float_math.h runtime/attention.h; do
    [ ! -e "$include/$internal" ] || { echo "internal $internal is installed"; exit 1; }
done
[ -f "$include/api/auspex.h" ] && [ -f "$include/models/forecaster/forecaster.h" ] && [ -f "$include/ports/ports.h" ] ||
    { echo "a public header is missing from $include"; exit 1; }
cli="$work/prefix/bin/auspex"
version=$("$cli" --version)
[[ $version == "auspex "[0-9]* ]] || { echo "installed bin/auspex --version printed: $version"; exit 1; }
"$cli" convert "$src/models/example/forecaster.pt" --config "$src/models/example/config.json" \
    -o "$work/model.axm" >/dev/null
tail -n +2 "$src/models/example/history.csv" > "$work/history.txt"
rows=$(wc -l < "$work/history.txt")
"$cli" forecast "$work/model.axm" --input "$src/models/example/history.csv" --horizon 24 \
    -o "$work/cli.csv" >/dev/null
tail -n +2 "$work/cli.csv" > "$work/cli.txt"

same_as_cli() {  # the CLI prints 9 significant digits too: equal text, or a last-digit rounding difference
    paste "$1" "$work/cli.txt" | awk -v what="$2" '
        { d = $1 - $2; if (d < 0) d = -d; m = ($2 < 0 ? -$2 : $2); if (d > 2e-7 * m) { bad = 1; print what ": row " NR ": " $1 " vs CLI " $2 } }
        END { if (NR != 24) { print what ": " NR " rows, want 24"; exit 1 } exit bad }'
}

for mode in installed subdirectory; do
    b="$work/build-$mode"
    if [ $mode = installed ]; then
        cmake -S "$src/tests/consumer" -B "$b" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
    else
        cmake -S "$src/tests/consumer" -B "$b" -DAUSPEX_SOURCE="$src" >/dev/null
    fi
    cmake --build "$b" -j 2 >/dev/null
    "$b/consumer_c" "$work/model.axm" "$work/history.txt" "$rows" 24 > "$work/c-$mode.txt"
    "$b/consumer_cpp" "$work/model.axm" "$work/history.txt" "$rows" 24 > "$work/cpp-$mode.txt"
    cmp "$work/c-$mode.txt" "$work/cpp-$mode.txt"
    same_as_cli "$work/c-$mode.txt" "C program ($mode)"
    echo "ok: $mode: C and C++ consumers forecast 24 steps, equal to the CLI"
done
