#!/usr/bin/env bash
# The speed figures of docs/performance.md, measured in one run on this machine and written into that page:
# makes the benchmark-shaped forecasters (make_bench_models.py), converts each to f32, f16 and int8, runs
# `auspex bench` on each with the best port and with the generic port, times the stages of one forward pass
# of the largest, then runs the kernel benchmark. Usage (after `make demo` or `make test`):
#   bash tools/bench/run_bench.sh [BUILD_DIR] [RUNS]
# Ratios are what to compare: a shared machine moves absolute milliseconds from run to run.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
runs=${2:-30}
out=$build/bench
auspex=$build/auspex
mkdir -p "$out"
python3 tools/bench/make_bench_models.py "$out" >/dev/null
load_before=$(cut -d' ' -f1 /proc/loadavg)

# name:window
shapes="tiny:96 mid:96 seed:100"
: >"$out/rows.jsonl"
for spec in $shapes; do
  name=${spec%%:*}
  window=${spec#*:}
  for dtype in f32 f16 int8; do
    "$auspex" convert "$out/$name.safetensors" --config "$out/$name.json" --dtype "$dtype" -o "$out/$name-$dtype.axm" >/dev/null
    # The best port for every dtype; generic for f32 (the port speed-up); for int8 also plain avx2 when the
    # CPU has AVX-VNNI (the best port then differs from avx2 in the int8 products).
    for port in best generic avx2; do
      [ "$port" = generic ] && [ "$dtype" != f32 ] && continue
      [ "$port" = avx2 ] && { [ "$dtype" != int8 ] || ! grep -qw avx_vnni /proc/cpuinfo; } && continue
      port_flag=""
      [ "$port" != best ] && port_flag="--port $port"
      # shellcheck disable=SC2086
      json=$("$auspex" bench "$out/$name-$dtype.axm" --window "$window" --horizon 24 --runs "$runs" --json $port_flag)
      printf '{"name": "%s", "dtype": "%s", "asked": "%s", "bench": %s}\n' "$name" "$dtype" "$port" "$json" >>"$out/rows.jsonl"
    done
  done
done
for dtype in f32 int8; do
  "$auspex" bench "$out/seed-$dtype.axm" --window 100 --horizon 24 --runs 40 --stages >"$out/stages-$dtype.txt"
done
"$auspex" bench --kernels --json >"$out/kernels.json"
load_after=$(cut -d' ' -f1 /proc/loadavg)

python3 tools/bench/bench_report.py "$out" "$runs" "$load_before" "$load_after" >"$out/report.md"
cat "$out/report.md"
python3 tools/docs/generated.py write docs/performance.md bench "$out/report.md"
