#!/usr/bin/python3
"""auspex against ONNX Runtime on the same forecasters, in one run on this machine; writes the table into
docs/performance.md ("Against ONNX Runtime").

    /usr/bin/python3 tools/bench/compare_onnxruntime.py [BUILD_DIR] [--ort-node DIR] [--threads N] [--runs N]
        [--rounds N] [--models tiny,mid,seed] [--no-doc]

For each shape (those of make_bench_models.py), builds the time-series tutorial's forecaster in PyTorch
with random weights from a fixed seed, saves its state_dict, converts it with `auspex convert` (f32 and
int8, each proven against PyTorch's output with --check-*), exports it to ONNX and quantizes that to int8
as ONNX Runtime's quantize_dynamic(per_channel=True) does (with ONNX Runtime's own quantizer when its
Python package is there, else with onnx_int8.py). Then times, at --threads N threads each (default 1), the
forward pass and the 24-step forecast: `auspex bench --json` (key/value cache) and ONNX Runtime (whose
exported graph has no cache, so each step reruns the model on the longer decoder input, as its users do).
ONNX Runtime's outputs are checked against PyTorch's before it is timed: within 1e-3 in float32, within a
sanity bound in int8. Both are measured in --rounds rounds one after the other (a shared machine's load
changes within a minute); the table gives the median round and the ratios' range. Compare the ratios of one
run, not absolute times across machines.

ONNX Runtime is the npm package onnxruntime-node run by Node.js (ort_time.js) when --ort-node names the
folder it was installed into (npm install --ignore-scripts onnxruntime-node), else the Python onnxruntime
package. Needs Debian's python3-torch and python3-onnx (and nodejs and npm for onnxruntime-node); without
them it prints what is missing and how to install it, and exits 0 without measuring.
"""
import argparse
import importlib.util
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
# name: d_model, nhead, layers (encoder = decoder), dim_feedforward, window; 24 decoder rows / steps.
SHAPES = {
    "tiny": (64, 4, 2, 256, 96),
    "mid": (256, 8, 2, 1024, 96),
    "seed": (512, 8, 1, 2048, 100),
}
HORIZON = 24
# Largest |ONNX Runtime - PyTorch| accepted before timing. Float32: the same arithmetic in another order.
# Int8: a sanity bound, as a fraction of the largest |output| (at least 1), that a wrong scale, axis or zero
# point exceeds; int8 weights and activations move these outputs by about half of it (auspex's int8 as well).
F32_BOUND = 1e-3
INT8_SANITY = 0.1
PYTHON_PACKAGES = (("numpy", "python3-numpy"), ("torch", "python3-torch"), ("onnx", "python3-onnx"))
NPM_INSTALL = "mkdir -p DIR && cd DIR && npm install --ignore-scripts onnxruntime-node"


def have(module):
    try:
        return importlib.util.find_spec(module) is not None
    except ImportError:  # a parent package that is missing
        return False


def missing_prerequisites(ort_node):
    """What this run needs and does not find: (names, Debian packages, further steps)."""
    names = [m for m, _ in PYTHON_PACKAGES if not have(m)]
    debian = [p for m, p in PYTHON_PACKAGES if not have(m)]
    steps = []
    need_node = ort_node is not None or not have("onnxruntime")
    if need_node and shutil.which("node") is None:
        names.append("node")
        debian += ["nodejs", "npm"]
    if ort_node is None and not have("onnxruntime"):
        names.append("ONNX Runtime")
        steps.append("%s, then pass --ort-node DIR (or install ONNX Runtime's Python package)" % NPM_INSTALL)
    elif ort_node is not None and not os.path.isdir(os.path.join(ort_node, "node_modules", "onnxruntime-node")):
        names.append("onnxruntime-node in " + ort_node)
        steps.append(NPM_INSTALL.replace("DIR", ort_node))
    return names, debian, steps


def build_model(torch, d_model, nhead, layers, ff, seed):
    nn = torch.nn

    class Forecaster(nn.Module):
        def __init__(self):
            super().__init__()
            self.embedding_src = nn.Linear(1, d_model)
            self.embedding_tgt = nn.Linear(1, d_model)
            positions = torch.arange(128, dtype=torch.float32)[:, None]
            freq = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32) * (-math.log(10000.0) / d_model))
            pe = torch.zeros(128, d_model)
            pe[:, 0::2] = torch.sin(positions * freq)
            pe[:, 1::2] = torch.cos(positions * freq)
            self.register_buffer("pe", pe[None])
            self.encoder = nn.TransformerEncoder(
                nn.TransformerEncoderLayer(d_model, nhead, ff, dropout=0.0, batch_first=True), layers)
            self.decoder = nn.TransformerDecoder(
                nn.TransformerDecoderLayer(d_model, nhead, ff, dropout=0.0, batch_first=True), layers)
            self.generator = nn.Linear(d_model, 1)

        def forward(self, src, tgt):
            s, t = src.shape[1], tgt.shape[1]
            causal = torch.triu(torch.full((t, t), float("-inf")), diagonal=1)
            # The tutorial's memory mask: decoder row i sees encoder rows 0..i.
            memory_mask = torch.triu(torch.full((t, s), float("-inf")), diagonal=1)
            memory = self.encoder(self.embedding_src(src) + self.pe[:, :s])
            out = self.decoder(self.embedding_tgt(tgt) + self.pe[:, :t], memory, tgt_mask=causal,
                               memory_mask=memory_mask)
            return self.generator(out)

    torch.manual_seed(seed)
    model = Forecaster()
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() > 1:
                # nn.TransformerEncoder/Decoder deep-copy one layer: without this every layer has the same
                # matrices, which the ONNX export stores once (a cache advantage no trained model gives).
                nn.init.xavier_uniform_(p)
            else:  # LayerNorms and biases away from their initial 1 and 0
                p.add_(0.05 * torch.randn_like(p))
    model.eval()
    return model


def forecast(np, run, src):
    """The forecast without a key/value cache: step k feeds src and [src's last value, y1, ..., y(k-1)] and keeps
    the output's last row. run(src, dec) -> output, all numpy arrays [1, rows, 1]."""
    dec = src[:, -1:, :]
    for _ in range(HORIZON):
        dec = np.concatenate([dec, run(src, dec)[:, -1:, :]], axis=1)
    return dec[:, 1:, :]


def median_ms(fn, runs):
    fn()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


class PythonOrt:
    """ONNX Runtime's Python package, in this process."""

    def __init__(self, threads):
        import onnxruntime
        self.ort = onnxruntime
        self.threads = threads
        self.name = "ONNX Runtime %s (Python package)" % onnxruntime.__version__

    def measure(self, model, io, runs, forecast_runs):
        import numpy as np
        options = self.ort.SessionOptions()
        options.intra_op_num_threads = self.threads
        options.inter_op_num_threads = 1
        options.execution_mode = self.ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = self.ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        session = self.ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
        src, tgt = io["src"], io["tgt"]

        def run(s, t):
            return session.run(None, {"src": s, "tgt": t})[0]

        # ONNX Runtime must compute the model it is timed on.
        diff = {"forward": float(np.abs(run(src, tgt) - io["out"]).max()),
                "forecast": float(np.abs(forecast(np, run, src) - io["forecast"]).max())}
        for what, d in diff.items():
            if not d <= io["bounds"][what]:
                sys.exit("compare_onnxruntime: %s: ONNX Runtime's %s differs from PyTorch's by up to %g (bound %g)"
                         % (model, what, d, io["bounds"][what]))
        return (median_ms(lambda: run(src, tgt), runs), median_ms(lambda: forecast(np, run, src), forecast_runs), diff)


class NodeOrt:
    """The npm package onnxruntime-node, run by Node.js through ort_time.js."""

    def __init__(self, threads, folder):
        self.threads = threads
        self.folder = os.path.abspath(folder)
        self.name = None  # ort_time.js reports the version

    def measure(self, model, io, runs, forecast_runs):
        job = {"ort_node": self.folder, "model": model, "horizon": HORIZON, "threads": self.threads, "runs": runs,
               "forecast_runs": forecast_runs, "bounds": io["bounds"],
               "src": {"file": io["files"]["src"], "shape": list(io["src"].shape)},
               "tgt": {"file": io["files"]["tgt"], "shape": list(io["tgt"].shape)},
               "expect": {"forward": io["files"]["out"], "forecast": io["files"]["forecast"]}}
        base = os.path.splitext(model)[0]
        with open(base + ".job.json", "w") as f:
            json.dump(job, f, indent=1)
        r = subprocess.run(["node", os.path.join(HERE, "ort_time.js"), base + ".job.json"], capture_output=True,
                           text=True)
        if r.returncode != 0:
            sys.exit("compare_onnxruntime: ONNX Runtime (onnxruntime-node) failed on %s:\n%s%s"
                     % (model, r.stdout, r.stderr))
        result = json.loads(r.stdout.strip().splitlines()[-1])
        self.name = "ONNX Runtime %s (onnxruntime-node, Node.js %s)" % (result["ort_version"], result["node"])
        return result["forward_ms"], result["forecast_ms"], result["max_abs_diff"]


def quantizer():
    """(quantize(src, dst), how the table names it)."""
    if have("onnxruntime") and have("onnxruntime.quantization"):
        from onnxruntime.quantization import QuantType, quantize_dynamic

        def quantize(src, dst):
            quantize_dynamic(src, dst, per_channel=True, weight_type=QuantType.QInt8)
        return quantize, "ONNX Runtime's quantize_dynamic(per_channel=True, weight_type=QInt8)"
    import onnx_int8
    return onnx_int8.quantize_file, ("the graph rewritten as quantize_dynamic(per_channel=True, weight_type=QInt8) "
                                     "does, by tools/bench/onnx_int8.py")


def products(path):
    """What of a graph's matrix products is integer and what is left in float."""
    import onnx
    graph = onnx.load(path).graph
    weights = {t.name for t in graph.initializer}
    count = {}
    for node in graph.node:
        if node.op_type in ("MatMulInteger", "MatMul", "Gemm"):
            kind = node.op_type if node.op_type == "MatMulInteger" else "float %s%s" % (
                node.op_type, " on a weight" if node.input[1] in weights else "")
            count[kind] = count.get(kind, 0) + 1
    return ", ".join("%d %s" % (n, kind) for kind, n in sorted(count.items()))


def save_csv(np, path, array):
    np.savetxt(path, array, delimiter=",", fmt="%.9g")


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def auspex_convert(auspex, base):
    """The f32 and int8 conversions, each proven against PyTorch's output."""
    for dtype in ("f32", "int8"):
        subprocess.run([auspex, "convert", base + ".pt", "--config", base + ".json", "--dtype", dtype, "-o",
                        "%s.%s.axm" % (base, dtype), "--check-input", base + ".src.csv", "--check-target",
                        base + ".tgt.csv", "--check-output", base + ".out.csv"], check=True, capture_output=True)


def auspex_times(auspex, base, window, threads, runs):
    """{dtype: (port, forward ms, forecast ms)} for the f32 and int8 conversions."""
    times = {}
    for dtype in ("f32", "int8"):
        r = subprocess.run([auspex, "bench", "%s.%s.axm" % (base, dtype), "--window", str(window), "--horizon",
                            str(HORIZON), "--runs", str(runs), "--threads", str(threads), "--json"], check=True,
                           capture_output=True, text=True)
        b = json.loads(r.stdout.strip().splitlines()[-1])
        times[dtype] = (b.get("port", "?"), b["forward_ms"], b["forecast_ms"])
    return times


def spread(values):
    """The median of values and, for more than one, their range: '0.812 (0.790-0.840)'."""
    v = sorted(values)
    text = "%.3f" % v[len(v) // 2]
    return text if len(v) == 1 else "%s (%.3f-%.3f)" % (text, v[0], v[-1])


def command_line(args):
    words = ["/usr/bin/python3 tools/bench/compare_onnxruntime.py"]
    if args.ort_node is not None:
        words.append("--ort-node DIR")
    if args.threads != 1:
        words.append("--threads %d" % args.threads)
    if args.runs != 20:
        words.append("--runs %d" % args.runs)
    if args.rounds != 3:
        words.append("--rounds %d" % args.rounds)
    if args.models != "tiny,mid,seed":
        words.append("--models " + args.models)
    return " ".join(words)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("build", nargs="?", default="build", help="build folder holding auspex (default: build)")
    ap.add_argument("--ort-node", metavar="DIR", help="folder where `npm install --ignore-scripts onnxruntime-node` "
                    "was run: ONNX Runtime from npm, run by Node.js (default: the Python onnxruntime package)")
    ap.add_argument("--threads", type=int, default=1, help="threads for both, auspex and ONNX Runtime (default 1)")
    ap.add_argument("--runs", type=int, default=20, help="timed runs per figure (default 20)")
    ap.add_argument("--rounds", type=int, default=3, help="rounds of measuring both, one after the other, so that a "
                    "change in the machine's load reaches both alike (default 3): medians over the rounds, and "
                    "the ratios' range")
    ap.add_argument("--models", default="tiny,mid,seed", help="comma-separated shapes (tiny, mid, seed)")
    ap.add_argument("--no-doc", action="store_true", help="print the table only; leave docs/performance.md")
    args = ap.parse_args()
    names = [n for n in args.models.split(",") if n]
    for n in names:
        if n not in SHAPES:
            sys.exit("compare_onnxruntime: unknown model %s (known: %s)" % (n, ", ".join(SHAPES)))
    if not 1 <= args.threads <= 256:
        sys.exit("compare_onnxruntime: --threads takes 1..256, not %d" % args.threads)
    if args.runs < 1:
        sys.exit("compare_onnxruntime: --runs takes 1 or more, not %d" % args.runs)
    if args.rounds < 1:
        sys.exit("compare_onnxruntime: --rounds takes 1 or more, not %d" % args.rounds)
    auspex = os.path.join(args.build, "auspex")
    if not os.access(auspex, os.X_OK):
        sys.exit("compare_onnxruntime: no %s: build it first (make demo)" % auspex)
    missing, debian, steps = missing_prerequisites(args.ort_node)
    if missing:
        print("compare_onnxruntime: skipped: %s not found. Install with:" % ", ".join(missing))
        for line in (["apt-get install " + " ".join(debian)] if debian else []) + steps:
            print("  " + line)
        if steps:
            print("  (npm's --ignore-scripts: the package's install script fetches GPU extras from outside npm's "
                  "registry and fails; its CPU binaries are in the package)")
        if any(p.startswith("python3-") for p in debian) and sys.executable != "/usr/bin/python3":
            print("  (Debian's python3-* packages are for /usr/bin/python3; this is %s)" % sys.executable)
        return 0
    import numpy as np
    import torch

    runtime = NodeOrt(args.threads, args.ort_node) if args.ort_node is not None else PythonOrt(args.threads)
    quantize, quantized_by = quantizer()
    torch.set_num_threads(1)  # PyTorch only computes the references
    forecast_runs = max(3, args.runs // 4)
    work = tempfile.mkdtemp(prefix="auspex-ort-")
    rows = []
    for seed, name in enumerate(names):
        d_model, nhead, layers, ff, window = SHAPES[name]
        model = build_model(torch, d_model, nhead, layers, ff, seed)
        gen = torch.Generator().manual_seed(100 + seed)
        src = torch.randn(1, window, 1, generator=gen)
        tgt = torch.randn(1, HORIZON, 1, generator=gen)
        with torch.no_grad():
            out = model(src, tgt)
            expected = forecast(np, lambda s, t: model(torch.from_numpy(s), torch.from_numpy(t)).numpy(), src.numpy())
        base = os.path.join(work, name)
        torch.save(model.state_dict(), base + ".pt")
        with open(base + ".json", "w") as f:
            json.dump({"arch": "forecaster", "nhead": nhead, "positional_encoding": "sinusoidal",
                       "memory_mask": "tril", "window": window}, f)
        for tag, t in (("src", src), ("tgt", tgt), ("out", out)):
            save_csv(np, "%s.%s.csv" % (base, tag), t[0].numpy())
        # Exported outside torch.no_grad(): the encoder layer's fused inference path has no ONNX export.
        torch.onnx.export(model, (src, tgt), base + ".onnx", input_names=["src", "tgt"], output_names=["out"],
                          dynamic_axes={"tgt": {1: "rows"}, "out": {1: "rows"}}, opset_version=14)
        quantize(base + ".onnx", base + ".q8.onnx")
        print("compare_onnxruntime: %s int8 graph: %s" % (name, products(base + ".q8.onnx")), file=sys.stderr)
        io = {"src": src.numpy(), "tgt": tgt.numpy(), "out": out.numpy(), "forecast": expected, "files": {}}
        for tag in ("src", "tgt", "out", "forecast"):  # ort_time.js reads them
            io["files"][tag] = "%s.%s.f32" % (base, tag)
            io[tag].astype("<f4").tofile(io["files"][tag])
        scale = max(1.0, float(np.abs(io["out"]).max()), float(np.abs(io["forecast"]).max()))
        auspex_convert(auspex, base)
        # Per round: ORT's {dtype: (forward, forecast)} and auspex's {dtype: (port, forward, forecast)}.
        rounds = []
        for _ in range(args.rounds):
            ort = {}
            for dtype, model_file, bound in (("f32", base + ".onnx", F32_BOUND),
                                             ("int8", base + ".q8.onnx", INT8_SANITY * scale)):
                io["bounds"] = {"forward": bound, "forecast": bound}
                forward_ms, forecast_ms, diff = runtime.measure(model_file, io, args.runs, forecast_runs)
                ort[dtype] = (forward_ms, forecast_ms)
                print("compare_onnxruntime: %s ORT %s: max |ORT - PyTorch| forward %.2g, forecast %.2g (bound %.2g)"
                      % (name, dtype, diff["forward"], diff["forecast"], bound), file=sys.stderr)
            rounds.append((ort, auspex_times(auspex, base, window, args.threads, args.runs)))
        for dtype in ("f32", "int8"):
            for i, what in enumerate(("forward", "forecast")):
                ours = [a[dtype][1 + i] for _, a in rounds]
                f32 = [o["f32"][i] for o, _ in rounds]
                q8 = [o["int8"][i] for o, _ in rounds]
                rows.append((name, dtype, what, rounds[0][1][dtype][0], ours, f32, q8,
                             [a / b for a, b in zip(ours, f32)], [a / b for a, b in zip(ours, q8)]))
        print("compare_onnxruntime: %s measured" % name, file=sys.stderr)

    threads = "one thread each" if args.threads == 1 else "%d threads each" % args.threads
    lines = ["Measured on %s by `%s` (%s; %s, CPU execution provider; int8: %s; PyTorch %s; %s; %d round%s of "
             "both one after the other, each the median of %d runs, %d for ONNX Runtime's forecasts; times and "
             "ratios: their median over the rounds, the ratios' range in brackets):"
             % (cpu_name(), command_line(args), time.strftime("%Y-%m-%d"), runtime.name, quantized_by,
                torch.__version__, threads, args.rounds, "" if args.rounds == 1 else "s", args.runs, forecast_runs),
             "", "| model | auspex weights | what | auspex port | auspex ms | ORT f32 ms | ORT int8 ms "
             "| auspex / ORT f32 | auspex / ORT int8 |", "|---|---|---|---|---|---|---|---|---|"]
    for name, dtype, what, port, ms, f32, q8, by_f32, by_q8 in rows:
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |"
                     % (name, dtype, what, port, "%.3f" % sorted(ms)[len(ms) // 2],
                        "%.3f" % sorted(f32)[len(f32) // 2],
                        "%.3f" % sorted(q8)[len(q8) // 2], spread(by_f32), spread(by_q8)))
    table = "\n".join(lines) + "\n"
    print(table, end="")
    if not args.no_doc:
        path = os.path.join(work, "table.md")
        with open(path, "w") as f:
            f.write(table)
        block = "onnxruntime" if args.threads == 1 else "onnxruntime-threads"
        subprocess.run([sys.executable, os.path.join(ROOT, "tools", "docs", "generated.py"), "write",
                        os.path.join(ROOT, "docs", "performance.md"), block, path], check=True)
    shutil.rmtree(work)  # kept when a run fails, for a look at what was checked
    return 0


if __name__ == "__main__":
    sys.exit(main())
