#!/usr/bin/env python3
"""auspex against ONNX Runtime on the same forecasters, in one run on this machine; writes the table into
docs/performance.md ("Against ONNX Runtime").

    python3 tools/bench/compare_onnxruntime.py [BUILD_DIR] [--runs N] [--models tiny,mid,seed] [--no-doc]

For each shape (those of make_bench_models.py), builds the time-series tutorial's forecaster in PyTorch
with random weights from a fixed seed, saves its state_dict, converts it with `auspex convert` (f32 and
int8, each proven against PyTorch's output with --check-*), exports it to ONNX and quantizes that with
ONNX Runtime's quantize_dynamic(per_channel=True). Then times, single-threaded, the forward pass and the
24-step forecast: `auspex bench --json` (key/value cache) and ONNX Runtime (whose exported graph has no
cache, so each step reruns the model on the longer decoder input, as its users do). Medians; compare the
ratios of one run, not absolute times across machines.

Needs Debian's python3-torch and the onnxruntime and onnx packages; without them it prints what is
missing and how to install it, and exits 0 without measuring.
"""
import argparse
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# name: d_model, nhead, layers (encoder = decoder), dim_feedforward, window; 24 decoder rows / steps.
SHAPES = {
    "tiny": (64, 4, 2, 256, 96),
    "mid": (256, 8, 2, 1024, 96),
    "seed": (512, 8, 1, 2048, 100),
}
HORIZON = 24
INSTALL = ("apt-get install python3-torch python3-numpy; python3 -m pip install onnxruntime onnx "
           "(in a virtual environment made with --system-site-packages, so that Debian's torch stays visible)")


def missing_peers():
    missing = []
    for module in ("numpy", "torch", "onnxruntime", "onnx"):
        try:
            __import__(module)
        except ImportError:
            missing.append(module)
    return missing


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
    with torch.no_grad():  # LayerNorms and biases away from their initial 1 and 0
        for name, p in model.named_parameters():
            if p.dim() == 1:
                p.add_(0.05 * torch.randn_like(p))
    model.eval()
    return model


def median_ms(fn, runs):
    fn()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def ort_times(np, ort, path, src, tgt, runs):
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])

    def forward():
        session.run(None, {"src": src, "tgt": tgt})

    def forecast():
        dec = src[:, -1:, :]
        for _ in range(HORIZON):
            out = session.run(None, {"src": src, "tgt": dec})[0]
            dec = np.concatenate([dec, out[:, -1:, :]], axis=1)

    return median_ms(forward, runs), median_ms(forecast, max(3, runs // 4))


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


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("build", nargs="?", default="build", help="build folder holding auspex (default: build)")
    ap.add_argument("--runs", type=int, default=20, help="timed runs per figure (default 20)")
    ap.add_argument("--models", default="tiny,mid,seed", help="comma-separated shapes (tiny, mid, seed)")
    ap.add_argument("--no-doc", action="store_true", help="print the table only; leave docs/performance.md")
    args = ap.parse_args()
    names = [n for n in args.models.split(",") if n]
    for n in names:
        if n not in SHAPES:
            sys.exit("compare_onnxruntime: unknown model %s (known: %s)" % (n, ", ".join(SHAPES)))
    auspex = os.path.join(args.build, "auspex")
    if not os.access(auspex, os.X_OK):
        sys.exit("compare_onnxruntime: no %s: build it first (make demo)" % auspex)
    missing = missing_peers()
    if missing:
        print("compare_onnxruntime: skipped: %s not installed. Install with: %s" % (", ".join(missing), INSTALL))
        return 0
    import numpy as np
    import onnxruntime as ort
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    torch.set_num_threads(1)
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
        base = os.path.join(work, name)
        torch.save(model.state_dict(), base + ".pt")
        with open(base + ".json", "w") as f:
            json.dump({"arch": "forecaster", "nhead": nhead, "positional_encoding": "sinusoidal",
                       "memory_mask": "tril", "window": window}, f)
        for tag, t in (("src", src), ("tgt", tgt), ("out", out)):
            save_csv(np, "%s.%s.csv" % (base, tag), t[0].numpy())
        torch.onnx.export(model, (src, tgt), base + ".onnx", input_names=["src", "tgt"], output_names=["out"],
                          dynamic_axes={"tgt": {1: "rows"}, "out": {1: "rows"}}, opset_version=14)
        quantize_dynamic(base + ".onnx", base + ".q8.onnx", per_channel=True, weight_type=QuantType.QInt8)
        src_np, tgt_np = src.numpy(), tgt.numpy()
        # ONNX Runtime must compute the model it is timed on.
        ort_out = ort.InferenceSession(base + ".onnx", providers=["CPUExecutionProvider"]).run(
            None, {"src": src_np, "tgt": tgt_np})[0]
        if not np.allclose(ort_out, out.numpy(), rtol=1e-3, atol=1e-4):
            sys.exit("compare_onnxruntime: ONNX Runtime's output for %s differs from PyTorch's" % name)
        ort_f32 = ort_times(np, ort, base + ".onnx", src_np, tgt_np, args.runs)
        ort_q8 = ort_times(np, ort, base + ".q8.onnx", src_np, tgt_np, args.runs)
        for dtype in ("f32", "int8"):
            axm = "%s.%s.axm" % (base, dtype)
            subprocess.run([auspex, "convert", base + ".pt", "--config", base + ".json", "--dtype", dtype, "-o", axm,
                            "--check-input", base + ".src.csv", "--check-target", base + ".tgt.csv",
                            "--check-output", base + ".out.csv"], check=True, capture_output=True)
            r = subprocess.run([auspex, "bench", axm, "--window", str(window), "--horizon", str(HORIZON), "--runs",
                                str(args.runs), "--json"], check=True, capture_output=True, text=True)
            b = json.loads(r.stdout.strip().splitlines()[-1])
            for i, what in enumerate(("forward", "forecast")):
                ms = b[what + "_ms"]
                rows.append((name, dtype, what, b.get("port", "?"), ms, ort_f32[i], ort_q8[i]))
        print("compare_onnxruntime: %s measured" % name, file=sys.stderr)

    lines = ["Measured on %s by `python3 tools/bench/compare_onnxruntime.py` (%s; ONNX Runtime %s, CPU execution "
             "provider; PyTorch %s; one thread each; median of %d runs, %d for ONNX Runtime's forecasts):"
             % (cpu_name(), time.strftime("%Y-%m-%d"), ort.__version__, torch.__version__, args.runs,
                max(3, args.runs // 4)), "",
             "| model | auspex weights | what | auspex port | auspex ms | ORT f32 ms | ORT int8 ms | auspex / ORT f32 "
             "| auspex / ORT int8 |", "|---|---|---|---|---|---|---|---|---|"]
    for name, dtype, what, port, ms, f32, q8 in rows:
        lines.append("| %s | %s | %s | %s | %.3f | %.3f | %.3f | %.3f | %.3f |"
                     % (name, dtype, what, port, ms, f32, q8, ms / f32, ms / q8))
    table = "\n".join(lines) + "\n"
    print(table, end="")
    if not args.no_doc:
        path = os.path.join(work, "table.md")
        with open(path, "w") as f:
            f.write(table)
        subprocess.run([sys.executable, os.path.join(ROOT, "tools", "docs", "generated.py"), "write",
                        os.path.join(ROOT, "docs", "performance.md"), "onnxruntime", path], check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
