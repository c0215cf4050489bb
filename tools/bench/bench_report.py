#!/usr/bin/env python3
"""The report of tools/bench/run_bench.sh as markdown, from the files the script wrote into OUT:
rows.jsonl (one `auspex bench --json` per model, weight type and port), kernels.json (`bench --kernels
--json`) and stages-f32.txt / stages-int8.txt (`bench --stages` of the seed model).

    bench_report.py OUT RUNS LOAD_BEFORE LOAD_AFTER > report.md
"""
import json, os, sys, time
out, runs, load_before, load_after = sys.argv[1:]
cpu = "unknown CPU"
with open("/proc/cpuinfo") as f:
    for line in f:
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
rows = [json.loads(l) for l in open(os.path.join(out, "rows.jsonl"))]
shape = {"tiny": "tiny (d 64, 4 heads, 2+2 layers, ff 256, window 96)",
         "mid": "mid (d 256, 8 heads, 2+2 layers, ff 1024, window 96)",
         "seed": "seed (d 512, 8 heads, 1+1 layers, ff 2048, window 100)"}
best = {r["name"]: r["bench"]["port"] for r in rows if r["dtype"] == "f32" and r["asked"] == "best"}
print("Measured on %s by `bash tools/bench/run_bench.sh` (%s, load average %s before and %s after; best port "
      "here: %s), single thread, median of %s runs:" % (cpu, time.strftime("%Y-%m-%d"), load_before, load_after,
                                                         best.get("tiny", "?"), runs))
print()
print("| model | weights | port | forward ms | forecast ms | model bytes | arena bytes |")
print("|---|---|---|---|---|---|---|")
last = None
for r in rows:
    b = r["bench"]
    first = r["name"] != last
    print("| %s | %s | %s | %.3f | %.3f | %d | %d |" % (shape[r["name"]] if first else "", r["dtype"], b["port"],
                                                       b["forward_ms"], b["forecast_ms"], b["model_bytes"],
                                                       b["arena_bytes"]))
    last = r["name"]


def find(name, dtype, asked="best"):
    """The row of a model and weight type run with the best port, `--port generic` or `--port avx2`."""
    for r in rows:
        if r["name"] == name and r["dtype"] == dtype and r["asked"] == asked:
            return r["bench"]
    return None


names = [n for n in ("tiny", "mid", "seed") if find(n, "f32")]
print()
print("Ratios from this run (the first figure's time over the second's: above 1, the second is faster):")
print("- float32 forecast over int8 forecast, best port: " + ", ".join(
    "%s %.2fx" % (n, find(n, "f32")["forecast_ms"] / find(n, "int8")["forecast_ms"]) for n in names) + ".")
print("- int8 file size as a share of the float32 file: " + ", ".join(
    "%s %.1f%%" % (n, 100.0 * find(n, "int8")["model_bytes"] / find(n, "f32")["model_bytes"]) for n in names) + ".")
print("- generic over the best port, float32 forward pass: " + ", ".join(
    "%s %.1fx" % (n, find(n, "f32", "generic")["forward_ms"] / find(n, "f32")["forward_ms"]) for n in names) + ".")
plain = [n for n in names if find(n, "int8", "avx2")]
if plain:
    print("- float32 forecast (best port) over int8 forecast on the plain AVX2 path (`--port avx2`): " + ", ".join(
        "%s %.2fx" % (n, find(n, "f32")["forecast_ms"] / find(n, "int8", "avx2")["forecast_ms"])
        for n in plain) + ".")

k = json.load(open(os.path.join(out, "kernels.json")))
p = k["peak"]
print()
wide = ""
if p.get("wide_fma_gflops_measured"):
    wide = "; %s FMA peak measured %.1f GFLOP/s, %.2fx the AVX2 one" % (
        p["wide_fma"], p["wide_fma_gflops_measured"], p["wide_fma_gflops_measured"] / p["fma_gflops_measured"])
print("Kernels (`auspex bench --kernels --json`, same run; clock %.2f GHz from dependent integer adds; AVX2 FMA "
      "peak measured %.1f GFLOP/s, theoretical %.1f; plain-AVX2 int8 multiply-add peak (`vpmaddwd` + `vpaddd`) "
      "%.1f GOP/s, %.2fx the FMA peak%s). Rate per port:"
      % (p["clock_ghz"], p["fma_gflops_measured"], p["fma_gflops_theoretical"], p["madd_gops_measured"],
         p["madd_gops_measured"] / p["fma_gflops_measured"], wide))
print()
ports = []
for r in k["results"]:
    if r["port"] not in ports:
        ports.append(r["port"])
print("| kernel | shape | unit | " + " | ".join(ports) + " |")
print("|---|---|---|" + "---|" * len(ports))
seen = []
for r in k["results"]:
    key = (r["kernel"], r["shape"])
    if key in seen:
        continue
    seen.append(key)
    rate = {x["port"]: x["rate"] for x in k["results"] if (x["kernel"], x["shape"]) == key}
    print("| %s | %s | %s | " % (key + (r["unit"],)) + " | ".join("%.2f" % rate[q] if q in rate else "-" for q in ports)
          + " |")
print()
print("Share of the measured FMA peak of the port's width (%s for the avx512 port, AVX2 for the others; the "
      "plain-AVX2 int8 product: of its multiply-add peak):" % (p.get("wide_fma") or "AVX2"))
print()
print("| kernel | shape | " + " | ".join(ports) + " |")
print("|---|---|" + "---|" * len(ports))
seen = []
for r in k["results"]:
    key = (r["kernel"], r["shape"])
    if key in seen or not r["kernel"].startswith("linear_"):
        continue
    seen.append(key)
    share = {x["port"]: x.get("peak_fraction") for x in k["results"] if (x["kernel"], x["shape"]) == key}
    print("| %s | %s | " % key + " | ".join("%.1f%%" % (100.0 * share[q]) if share.get(q) is not None else "-"
                                          for q in ports) + " |")
print()
print("int8 rate over float32 rate of the same port and shape:")
print()
print("| shape | " + " | ".join(ports) + " |")
print("|---|" + "---|" * len(ports))
shapes = []
for x in k["i8_over_f32"]:
    if x["shape"] not in shapes:
        shapes.append(x["shape"])
for sh in shapes:
    ratio = {x["port"]: x["ratio"] for x in k["i8_over_f32"] if x["shape"] == sh}
    print("| %s | " % sh + " | ".join("%.2fx" % ratio[q] if q in ratio else "-" for q in ports) + " |")
for dtype in ("f32", "int8"):
    print()
    print("Stages of one seed forward pass, %s (`auspex bench build/bench/seed-%s.axm --window 100 --horizon 24 "
          "--runs 40 --stages`, same run):" % (dtype, dtype))
    print()
    print("```")
    print(open(os.path.join(out, "stages-%s.txt" % dtype)).read().rstrip("\n"))
    print("```")
