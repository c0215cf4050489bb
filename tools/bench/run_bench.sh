#!/usr/bin/env bash
# The README's speed and size figures, measured in one run on this machine: makes the benchmark-shaped
# forecasters (make_bench_models.py), converts each to f32, f16 and int8, and runs `auspex bench` on each
# with the best port and with the generic port, then the kernel benchmark. Usage (after `make`):
#   bash tools/bench/run_bench.sh [BUILD_DIR] [RUNS]
# Ratios are what to compare: this machine may be shared, so absolute milliseconds move from run to run.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
runs=${2:-30}
out=$build/bench
auspex=$build/auspex
python3 tools/bench/make_bench_models.py "$out" >/dev/null

# name:window
shapes="tiny:96 mid:96 seed:100"
printf '%-5s %-5s %-9s %10s %10s %12s %10s\n' model dtype port forward_ms forecast_ms model_bytes arena_bytes
for spec in $shapes; do
  name=${spec%%:*}
  window=${spec#*:}
  for dtype in f32 f16 int8; do
    "$auspex" convert "$out/$name.safetensors" --config "$out/$name.json" --dtype "$dtype" -o "$out/$name-$dtype.axm" >/dev/null
    # The best port for every dtype; generic for f32 (the port speed-up); for int8 also plain avx2 when the
    # CPU has AVX-VNNI (the best port is then avx2-vnni, which differs in the int8 products only).
    for port in best generic avx2; do
      [ "$port" = generic ] && [ "$dtype" != f32 ] && continue
      [ "$port" = avx2 ] && { [ "$dtype" != int8 ] || ! grep -qw avx_vnni /proc/cpuinfo; } && continue
      port_flag=""
      [ "$port" != best ] && port_flag="--port $port"
      # shellcheck disable=SC2086
      json=$("$auspex" bench "$out/$name-$dtype.axm" --window "$window" --horizon 24 --runs "$runs" --json $port_flag)
      python3 - "$name" "$dtype" "$port" "$json" <<'PY'
import json, sys
name, dtype, port, text = sys.argv[1:]
j = json.loads(text)
print("%-5s %-5s %-9s %10.3f %10.3f %12d %10d" % (name, dtype, j.get("port", port), j["forward_ms"], j["forecast_ms"],
                                                  j["model_bytes"], j["arena_bytes"]))
PY
    done
  done
done
echo
"$auspex" bench --kernels
