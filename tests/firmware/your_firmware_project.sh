#!/bin/sh
# CTest "your_firmware_project": the documented "your own firmware" project (apps/your-firmware)
# as a user runs it. Copied out of the tree, with a sensor log as loggers write it (a timestamp column, a
# header, 526 hourly rows): convert, `auspex header --history` (the model's stored window, the horizon set
# here), configure with the Cortex-M toolchain file, build, run both images under qemu; each must print the
# host's forecast of the same log bit for bit. With KNOWN_DIR (a folder with model.pt, config.json,
# history.csv and future.csv of a model whose decoder reads a plan and calendar columns), the same project
# then forecasts that model with `auspex header --future` writing model_future.h, as the host does with the
# same plan.
#
#   your_firmware_project.sh SOURCE_DIR HOST_AUSPEX BOARD QEMU_MACHINE WORK_DIR [KNOWN_DIR HORIZON]
set -eu
if [ $# -ne 5 ] && [ $# -ne 7 ]; then
    echo "usage: $0 SOURCE_DIR HOST_AUSPEX BOARD QEMU_MACHINE WORK_DIR [KNOWN_DIR HORIZON]" >&2
    exit 2
fi
src=$1 auspex=$2 board=$3 machine=$4 work=$5 known=${6:-} known_horizon=${7:-}
rm -rf "$work" && mkdir -p "$work"
cp -r "$src/apps/your-firmware" "$work/project"

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
[ -n "$known" ] || exit 0

# A model reading inputs known ahead: the plan's rows are matched to the forecast's steps by timestamp.
"$auspex" convert "$known/model.pt" --config "$known/config.json" --dtype int8 --kv-cache int8 \
    -o "$work/known.axm" >/dev/null
"$auspex" header "$work/known.axm" -o "$work/project/model.h" --history "$known/history.csv" \
    --future "$known/future.csv" --horizon "$known_horizon" >"$work/header_known.txt"
cat "$work/header_known.txt"
grep -q "model_future.h: model_future\[" "$work/header_known.txt"
sh "$src/ports/firmware/host_forecast.sh" "$auspex" "$work/known.axm" "$known/history.csv" "$work/expected_known.txt" \
    --horizon "$known_horizon" --future "$known/future.csv"
cmake --build "$work/build" -j 2 >"$work/build_known.log" || { tail -30 "$work/build_known.log"; exit 1; }
for api in cpp c; do
    sh "$src/ports/firmware/qemu_run.sh" "$machine" "$work/build/forecast_$api.elf" "$work/expected_known.txt"
done
echo "ok: your own firmware project (C++ and C API) on $board forecasts with a plan as the host does"
