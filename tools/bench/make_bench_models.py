"""Writes the benchmark-shaped forecasters that docs/performance.md's speed figures use, as safetensors files with
their converter configs, into the folder given (default build/bench). Random weights (uniform, scaled by
1/sqrt(fan_in)): latency does not depend on the values. Python's standard library only, no PyTorch.

  seed: d_model 512, 8 heads, 1+1 layers, ff 2048 (window 100, 24 decoder rows)
  tiny: d_model 64, 4 heads, 2+2 layers, ff 256 (window 96, 24 decoder rows)
  mid:  d_model 256, 8 heads, 2+2 layers, ff 1024

The tensor names are those of tests/fixtures/forecaster_model.py's Forecaster (nn.TransformerEncoder /
nn.TransformerDecoder with embedding_src, embedding_tgt and generator Linears); tools/bench/run_bench.sh
converts and measures them."""
import array
import json
import os
import random
import struct
import sys

SHAPES = {
    "seed": dict(d_model=512, nhead=8, dim_feedforward=2048, num_encoder_layers=1, num_decoder_layers=1),
    "tiny": dict(d_model=64, nhead=4, dim_feedforward=256, num_encoder_layers=2, num_decoder_layers=2),
    "mid": dict(d_model=256, nhead=8, dim_feedforward=1024, num_encoder_layers=2, num_decoder_layers=2),
}


def linear(tensors, rng, name, out_features, in_features):
    bound = 1.0 / in_features ** 0.5
    tensors[name + ".weight"] = ([out_features, in_features],
                                 [rng.uniform(-bound, bound) for _ in range(out_features * in_features)])
    tensors[name + ".bias"] = ([out_features], [rng.uniform(-bound, bound) for _ in range(out_features)])


def attention(tensors, rng, name, d):
    bound = (6.0 / (4 * d)) ** 0.5  # xavier_uniform over [3d, d], as nn.MultiheadAttention
    tensors[name + ".in_proj_weight"] = ([3 * d, d], [rng.uniform(-bound, bound) for _ in range(3 * d * d)])
    tensors[name + ".in_proj_bias"] = ([3 * d], [0.0] * (3 * d))
    linear(tensors, rng, name + ".out_proj", d, d)


def norm(tensors, name, d):
    tensors[name + ".weight"] = ([d], [1.0] * d)
    tensors[name + ".bias"] = ([d], [0.0] * d)


def forecaster_tensors(rng, d_model, dim_feedforward, num_encoder_layers, num_decoder_layers, **_):
    d, ff = d_model, dim_feedforward
    t = {}
    linear(t, rng, "embedding_src", d, 1)
    linear(t, rng, "embedding_tgt", d, 1)
    linear(t, rng, "generator", 1, d)
    for i in range(num_encoder_layers):
        p = "encoder.layers.%d." % i
        attention(t, rng, p + "self_attn", d)
        linear(t, rng, p + "linear1", ff, d)
        linear(t, rng, p + "linear2", d, ff)
        norm(t, p + "norm1", d)
        norm(t, p + "norm2", d)
    for i in range(num_decoder_layers):
        p = "decoder.layers.%d." % i
        attention(t, rng, p + "self_attn", d)
        attention(t, rng, p + "multihead_attn", d)
        linear(t, rng, p + "linear1", ff, d)
        linear(t, rng, p + "linear2", d, ff)
        for k in (1, 2, 3):
            norm(t, p + "norm%d" % k, d)
    return t


def write_safetensors(path, tensors):
    header, blobs, offset = {}, [], 0
    for name in sorted(tensors):
        shape, values = tensors[name]
        blob = array.array("f", values)
        if sys.byteorder != "little":
            blob.byteswap()
        data = blob.tobytes()
        header[name] = {"dtype": "F32", "shape": shape, "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for data in blobs:
            f.write(data)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "build/bench"
    os.makedirs(out, exist_ok=True)
    for name, shape in SHAPES.items():
        rng = random.Random(name)
        write_safetensors(os.path.join(out, name + ".safetensors"), forecaster_tensors(rng, **shape))
        config = {"arch": "forecaster", "nhead": shape["nhead"], "activation": "relu", "norm_first": False,
                  "layer_norm_eps": 1e-5, "positional_encoding": "sinusoidal", "memory_mask": "tril"}
        with open(os.path.join(out, name + ".json"), "w") as f:
            json.dump(config, f, indent=2)
        print("wrote", os.path.join(out, name + ".safetensors"))


if __name__ == "__main__":
    main()
