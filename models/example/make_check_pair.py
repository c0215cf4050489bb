#!/usr/bin/python3
"""Writes the example's check pair for `auspex convert --check-*` from the committed checkpoint:
check_src.csv and check_tgt.csv (one encoder and one decoder input, model units: the normalized history
window and, teacher-forced, the normalized last history month followed by the first 23 held-out months)
and check_out.csv (what the PyTorch module's forward(src, tgt) returns for them, eval mode).

train_example.py calls this after training; run it alone to remake the files (Debian's python, torch 1.13):
    /usr/bin/python3 models/example/make_check_pair.py
"""
import json
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "tests", "fixtures"))
from forecaster_model import Forecaster, normalize  # noqa: E402


def write_check_pair(model, history, truth, normalization, here=HERE):
    """model: the trained Forecaster; history, truth: [rows, F] raw units."""
    model.eval()
    z_hist, _ = normalize(history, normalization)
    last = np.asarray(history, dtype=np.float32)[-1]
    scale = np.asarray(normalization["scale"], dtype=np.float32)
    z_truth = ((np.asarray(truth, dtype=np.float32) - last) / scale).astype(np.float32)
    src = z_hist
    tgt = np.concatenate([z_hist[-1:], z_truth[:len(truth) - 1]]).astype(np.float32)
    with torch.no_grad():
        out = model(torch.from_numpy(src)[None], torch.from_numpy(tgt)[None])[0].numpy()
    for name, values in (("check_src.csv", src), ("check_tgt.csv", tgt), ("check_out.csv", out)):
        np.savetxt(os.path.join(here, name), values, delimiter=",", fmt="%.9g")
        assert np.array_equal(np.loadtxt(os.path.join(here, name), delimiter=",", dtype=np.float32,
                                         ndmin=2), values)


def main():
    from train_example import MODEL_ARGS, read_column  # noqa: E402
    model = Forecaster(**MODEL_ARGS)
    model.load_state_dict(torch.load(os.path.join(HERE, "forecaster.pt")))
    with open(os.path.join(HERE, "config.json")) as f:
        normalization = json.load(f)["normalization"]
    history = read_column(os.path.join(HERE, "history.csv"))[:, None]
    truth = read_column(os.path.join(HERE, "truth.csv"))[:, None]
    write_check_pair(model, history, truth, normalization)


if __name__ == "__main__":
    main()
