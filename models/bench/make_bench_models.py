"""Writes the benchmark-shaped forecasters (random weights; latency does not depend on them) that the
README's speed figures use, into the folder given (default build/bench):

  seed: d_model 512, 8 heads, 1+1 layers, ff 2048 (window 100, 24 decoder rows)
  tiny: d_model 64, 4 heads, 2+2 layers, ff 256 (window 96, 24 decoder rows)
  mid:  d_model 256, 8 heads, 2+2 layers, ff 1024

Run with Debian's /usr/bin/python3 (torch). Then see models/bench/README.md for the commands."""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tests", "fixtures"))
from forecaster_model import Forecaster  # noqa: E402

SHAPES = {
    "seed": dict(d_model=512, nhead=8, dim_feedforward=2048, num_encoder_layers=1, num_decoder_layers=1),
    "tiny": dict(d_model=64, nhead=4, dim_feedforward=256, num_encoder_layers=2, num_decoder_layers=2),
    "mid": dict(d_model=256, nhead=8, dim_feedforward=1024, num_encoder_layers=2, num_decoder_layers=2),
}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "build/bench"
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    for name, shape in SHAPES.items():
        model = Forecaster(n_features=1, memory_mask="tril", **shape).eval()
        torch.save(model.state_dict(), os.path.join(out, name + ".pt"))
        config = {"arch": "forecaster", "nhead": shape["nhead"], "activation": "relu", "norm_first": False,
                  "layer_norm_eps": 1e-5, "positional_encoding": "sinusoidal", "memory_mask": "tril"}
        with open(os.path.join(out, name + ".json"), "w") as f:
            json.dump(config, f, indent=2)
        print("wrote", os.path.join(out, name + ".pt"))


if __name__ == "__main__":
    main()
