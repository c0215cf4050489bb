#!/usr/bin/env bash
# The quantization tables of docs/quantization.md, written into that page by this run: converts the bundled forecaster to f32, f16 and int8 weights, and int8
# weights with int8 key/value caches (`--kv-cache int8`, variant int8+kv8), forecasts the held-out 24 months
# with each and prints file size, the session arena for window 48 / horizon 24 (`auspex inspect`), error
# against the truth, and distance from the float32 forecast.
# Usage (after `make`): bash models/example/quantization_report.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
out=$build/quantization
mkdir -p "$out"
report() {
ex=models/example
variants="f32 f16 int8 f32+kv8 int8+kv8"
# variant -> convert options: the weights' dtype, and +kv8 for int8 key/value caches.
convert_options() {
  case $1 in
    *+kv8) echo "--dtype ${1%+kv8} --kv-cache int8" ;;
    *) echo "--dtype $1" ;;
  esac
}
printf '| weights | file bytes | vs f32 file | arena bytes | MAE ppm | MAE vs f32 | RMSE ppm | verify: max forecast diff from f32, ppm |\n'
printf '|---|---|---|---|---|---|---|---|\n'
f32_bytes=""
f32_mae=""
for dtype in $variants; do
  # shellcheck disable=SC2046  # the options are words on purpose
  "$build/auspex" convert "$ex/forecaster.pt" --config "$ex/config.json" $(convert_options "$dtype") \
    -o "$out/$dtype.axm" >/dev/null
  arena=$("$build/auspex" inspect "$out/$dtype.axm" --window 48 --horizon 24 | awk '/^arena:/ { print $2 }')
  report=$("$build/auspex" forecast "$out/$dtype.axm" --input "$ex/history.csv" --horizon 24 \
    --truth "$ex/truth.csv" -o "$out/forecast-$dtype.csv" 2>&1)
  # MAE and RMSE at full precision from the CSVs (the forecast's report rounds them to 4 digits).
  read -r mae rmse < <(paste -d, "$out/forecast-$dtype.csv" "$ex/truth.csv" | tail -n +2 |
    awk -F, '{ d = $1 - $2; a += (d < 0 ? -d : d); s += d * d; n++ } END { printf "%.6f %.6f\n", a / n, sqrt(s / n) }')
  [ -n "$report" ]
  bytes=$(wc -c <"$out/$dtype.axm")
  if [ "$dtype" = f32 ]; then
    f32_bytes=$bytes
    f32_mae=$mae
    diff="-"
  else
    diff=$("$build/auspex" verify "$out/$dtype.axm" --against "$out/f32.axm" --input "$ex/history.csv" |
      awk '/^forecasts/ { f = 1; next } f && NF == 5 && $1 != "output" { print $2; exit }')
  fi
  awk -v d="$dtype" -v b="$bytes" -v fb="$f32_bytes" -v a="$arena" -v m="$mae" -v fm="$f32_mae" -v r="$rmse" -v x="$diff" \
    'BEGIN { printf "| %s | %d | %.1f%% | %d | %.4f | %+.3f%% | %.4f | %s |\n", d, b, 100 * b / fb, a, m, 100 * (m - fm) / fm, r, x }'
done

# One test window is a small sample: the same comparison over many forecast origins. From every 6th month,
# Jan 1980 to Jan 2000 (the held-out test window), each dtype forecasts 24 months from the 48 before; MAE
# against the series over all of them. Origins before 2000 lie in the training period (the model has seen
# those months), which does not matter for what this measures: how far quantization moves the error.
printf '\nRolling origins (every 6 months, Jan 1980 - Jan 2000; 24-month forecasts from the 48 months before):\n\n'
printf '| weights | origins | MAE ppm | MAE vs f32 | mean abs diff from f32 forecast, ppm |\n|---|---|---|---|---|\n'
series=$ex/series.csv
rows=$(($(wc -l <"$series") - 1))
first=$((12 * (1980 - 1958) - 2 + 1))   # data row of Jan 1980 (the series starts in Mar 1958), first forecast month
for dtype in $variants; do
  : >"$out/rolling-$dtype.txt"
  origin=$first
  while [ $((origin + 23)) -le "$rows" ]; do
    { echo co2; tail -n +2 "$series" | sed -n "$((origin - 48)),$((origin - 1))p"; } >"$out/rolling-history.csv"
    "$build/auspex" forecast "$out/$dtype.axm" --input "$out/rolling-history.csv" --horizon 24 \
      -o "$out/rolling-forecast.csv" >/dev/null
    paste -d, <(tail -n +2 "$out/rolling-forecast.csv") <(tail -n +2 "$series" | sed -n "$origin,$((origin + 23))p") \
      >>"$out/rolling-$dtype.txt"
    origin=$((origin + 6))
  done
done
for dtype in $variants; do
  paste -d, "$out/rolling-$dtype.txt" "$out/rolling-f32.txt" | awk -F, -v d="$dtype" '
    { e = $1 - $2; a += (e < 0 ? -e : e); f = $3 - $4; fa += (f < 0 ? -f : f); g = $1 - $3; ga += (g < 0 ? -g : g); n++ }
    END { printf "| %s | %d | %.4f | %+.3f%% | %s |\n", d, n / 24, a / n, 100 * (a - fa) / fa, d == "f32" ? "-" : sprintf("%.4f", ga / n) }'
done
}
report | tee "$out/report.md"
python3 tools/docs/generated.py write docs/quantization.md quantization "$out/report.md"
