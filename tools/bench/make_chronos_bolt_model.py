"""Writes a seeded Chronos-Bolt checkpoint as a published directory (config.json with model_type t5 and its
chronos_config, model.safetensors with the Hugging Face key set) for the firmware and the benchmarks, with
Python's standard library only (no PyTorch): the firmware build makes it at build time, so no multi-megabyte
weights are ever committed. The values are seeded, uniform, scaled by 1/sqrt(fan_in) like the published
initialization; what the board is checked against is the host's forecast of the same file, not PyTorch's.

  tiny:  chronos-bolt-tiny's shapes (d_model 256, d_ff 1024, d_kv 64, 4 heads, 4+4 layers: 8.65M parameters)
  small: the same structure scaled down (d_model 64, d_ff 256, d_kv 16, 4 heads, 2+2 layers)

Beside them, context.csv: a context of 512 values (a daily cycle of 24 steps, a trend and seeded noise) to
forecast from.

  python3 tools/bench/make_chronos_bolt_model.py SHAPE OUT_DIR [SEED]
"""
import array
import json
import math
import os
import random
import struct
import sys

SHAPES = {
    "tiny": dict(d_model=256, d_ff=1024, d_kv=64, heads=4, layers=4),
    "small": dict(d_model=64, d_ff=256, d_kv=16, heads=4, layers=2),
}
QUANTILES = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
CONTEXT, PATCH, HORIZON, BUCKETS, MAX_DISTANCE = 512, 16, 64, 32, 128


def config(d_model, d_ff, d_kv, heads, layers):
    return {
        "architectures": ["ChronosBoltModelForForecasting"],
        "chronos_config": {"context_length": CONTEXT, "input_patch_size": PATCH, "input_patch_stride": PATCH,
                           "prediction_length": HORIZON, "quantiles": QUANTILES, "use_reg_token": True},
        "chronos_pipeline_class": "ChronosBoltPipeline",
        "d_ff": d_ff, "d_kv": d_kv, "d_model": d_model, "decoder_start_token_id": 0, "dense_act_fn": "relu",
        "dropout_rate": 0.1, "eos_token_id": 1, "feed_forward_proj": "relu", "is_encoder_decoder": True,
        "is_gated_act": False, "layer_norm_epsilon": 1e-06, "model_type": "t5", "num_decoder_layers": layers,
        "num_heads": heads, "num_layers": layers, "pad_token_id": 0, "reg_token_id": 1,
        "relative_attention_max_distance": MAX_DISTANCE, "relative_attention_num_buckets": BUCKETS,
        "torch_dtype": "float32", "vocab_size": 2,
    }


class Values:
    """Uniform values from seeded random bytes (a byte at a time: fast enough for 8.65M of them)."""

    def __init__(self, seed):
        self.rng = random.Random(seed)

    def uniform(self, n, bound, centre=0.0):
        raw = array.array("b", self.rng.randbytes(n))
        step = bound / 128.0
        return array.array("f", [centre + v * step for v in raw])


def tensors(d_model, d_ff, d_kv, heads, layers, seed):
    v = Values(seed)
    inner = heads * d_kv
    out = {}

    def lin(name, o, i, bias=False):
        out[name + ".weight"] = ([o, i], v.uniform(o * i, 1.0 / i ** 0.5))
        if bias:
            out[name + ".bias"] = ([o], v.uniform(o, 0.1))

    def norm(name):
        out[name + ".weight"] = ([d_model], v.uniform(d_model, 0.1, 1.0))

    out["shared.weight"] = ([2, d_model], v.uniform(2 * d_model, 1.0))
    for side in ("encoder", "decoder"):
        for i in range(layers):
            b = f"{side}.block.{i}.layer"
            for m in "qkv":
                lin(f"{b}.0.SelfAttention.{m}", inner, d_model)
            lin(f"{b}.0.SelfAttention.o", d_model, inner)
            if i == 0:
                out[f"{b}.0.SelfAttention.relative_attention_bias.weight"] = ([BUCKETS, heads],
                                                                             v.uniform(BUCKETS * heads, 1.0))
            norm(f"{b}.0.layer_norm")
            ff_at = 1
            if side == "decoder":
                for m in "qkv":
                    lin(f"{b}.1.EncDecAttention.{m}", inner, d_model)
                lin(f"{b}.1.EncDecAttention.o", d_model, inner)
                norm(f"{b}.1.layer_norm")
                ff_at = 2
            lin(f"{b}.{ff_at}.DenseReluDense.wi", d_ff, d_model)
            lin(f"{b}.{ff_at}.DenseReluDense.wo", d_model, d_ff)
            norm(f"{b}.{ff_at}.layer_norm")
        norm(f"{side}.final_layer_norm")
    for name, i, o in (("input_patch_embedding", 2 * PATCH, d_model),
                       ("output_patch_embedding", d_model, len(QUANTILES) * HORIZON)):
        lin(f"{name}.hidden_layer", d_ff, i, bias=True)
        lin(f"{name}.output_layer", o, d_ff, bias=True)
        lin(f"{name}.residual_layer", o, i, bias=True)
    return out


def write_safetensors(path, named):
    header, offset = {"__metadata__": {"format": "pt"}}, 0
    for name, (shape, values) in named.items():
        size = len(values) * 4
        header[name] = {"dtype": "F32", "shape": shape, "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path + ".tmp", "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for _, values in named.values():
            if sys.byteorder != "little":
                values.byteswap()
            f.write(values.tobytes())
    os.replace(path + ".tmp", path)


def write_context(path, seed):
    rng = random.Random(seed)
    with open(path, "w") as f:
        f.write("value\n")
        for t in range(CONTEXT):
            f.write("%.4f\n" % (50 + 8 * math.sin(2 * math.pi * t / 24) + 0.02 * t + rng.uniform(-1, 1)))


def main():
    if len(sys.argv) not in (3, 4) or sys.argv[1] not in SHAPES:
        sys.exit(__doc__)
    shape, out = SHAPES[sys.argv[1]], sys.argv[2]
    seed = int(sys.argv[3]) if len(sys.argv) == 4 else 41
    os.makedirs(out, exist_ok=True)
    write_safetensors(os.path.join(out, "model.safetensors"), tensors(seed=seed, **shape))
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(config(**shape), f, indent=2)
        f.write("\n")
    write_context(os.path.join(out, "context.csv"), seed)


if __name__ == "__main__":
    main()
