#!/usr/bin/env bash
# The README's quantization table: converts the bundled forecaster to f32, f16 and int8, forecasts the
# held-out 24 months with each and prints file size, error against the truth, and distance from the float32
# forecast. Usage (after `make`): bash models/example/quantization_report.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
out=$build/quantization
mkdir -p "$out"
ex=models/example
printf '| weights | file bytes | vs f32 file | MAE ppm | MAE vs f32 | RMSE ppm | verify: max forecast diff from f32, ppm |\n'
printf '|---|---|---|---|---|---|---|\n'
f32_bytes=""
f32_mae=""
for dtype in f32 f16 int8; do
  "$build/auspex" convert "$ex/forecaster.pt" --config "$ex/config.json" --dtype "$dtype" -o "$out/$dtype.axm" >/dev/null
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
  awk -v d="$dtype" -v b="$bytes" -v fb="$f32_bytes" -v m="$mae" -v fm="$f32_mae" -v r="$rmse" -v x="$diff" \
    'BEGIN { printf "| %s | %d | %.1f%% | %.4f | %+.3f%% | %.4f | %s |\n", d, b, 100 * b / fb, m, 100 * (m - fm) / fm, r, x }'
done
