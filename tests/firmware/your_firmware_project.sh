#!/bin/sh
# CTest "your_firmware_project": the documented "your own firmware" project (ports/firmware/your-firmware)
# as a user runs it. Copied out of the tree, with a sensor log as loggers write it (a timestamp column, a
# header, 526 hourly rows): convert, `auspex header --history` (the model's stored window, the horizon set
# here), configure with the Cortex-M toolchain file, build, run both images under qemu; each must print the
# host's forecast of the same log bit for bit.
#
#   your_firmware_project.sh SOURCE_DIR HOST_AUSPEX BOARD QEMU_MACHINE WORK_DIR
set -eu
if [ $# -ne 5 ]; then
    echo "usage: $0 SOURCE_DIR HOST_AUSPEX BOARD QEMU_MACHINE WORK_DIR" >&2
    exit 2
fi
src=$1 auspex=$2 board=$3 machine=$4 work=$5
rm -rf "$work" && mkdir -p "$work"
cp -r "$src/ports/firmware/your-firmware" "$work/project"

# The log: the example's series with an hourly timestamp per row.
awk 'NR == 1 { print "time,co2"; next }
     { h = NR - 2; printf "2024-03-%02dT%02d:00:00,%s\n", 1 + int(h / 24), h % 24, $0 }' \
    "$src/models/example/series.csv" >"$work/log.csv"

"$auspex" convert "$src/models/example/forecaster.pt" --config "$src/models/example/config.json" \
    --dtype int8 --kv-cache int8 -o "$work/model.axm" >/dev/null
"$auspex" header "$work/model.axm" -o "$work/project/model.h" --history "$work/log.csv" --horizon 12 \
    >"$work/header.txt"
cat "$work/header.txt"
grep -q "the last 48 rows of $work/log.csv (the model's training window)" "$work/header.txt"
sh "$src/ports/firmware/host_forecast.sh" "$auspex" "$work/model.axm" "$work/log.csv" "$work/expected.txt" \
    --horizon 12

cmake -S "$work/project" -B "$work/build" -DCMAKE_TOOLCHAIN_FILE="$src/ports/toolchains/arm-none-eabi.cmake" \
    -DAUSPEX_FIRMWARE_BOARD="$board" -DAUSPEX_SOURCE="$src" >"$work/configure.log"
cmake --build "$work/build" -j 2 >"$work/build.log" || { tail -30 "$work/build.log"; exit 1; }
for api in cpp c; do
    sh "$src/ports/firmware/qemu_run.sh" "$machine" "$work/build/forecast_$api.elf" "$work/expected.txt"
done
echo "ok: your own firmware project (C++ and C API) on $board forecasts a timestamped log as the host does"
