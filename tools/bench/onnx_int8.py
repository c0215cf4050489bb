#!/usr/bin/python3
"""An ONNX graph quantized to int8 the way ONNX Runtime's quantize_dynamic(per_channel=True,
weight_type=QInt8) rewrites it, with the onnx package alone (Debian's python3-onnx), for machines where
ONNX Runtime's Python quantizer cannot be installed.

    /usr/bin/python3 tools/bench/onnx_int8.py IN.onnx OUT.onnx

Every MatMul whose second input is a 2-D initializer (a weight [K, N]) becomes
    x -> DynamicQuantizeLinear -> xq (uint8), x_scale, x_zero_point
    MatMulInteger(xq, Wq, x_zero_point, W_zero_point) -> int32 -> Cast to float -> * (x_scale * W_scale)
with Wq int8, symmetric per output column: W_scale[n] = max|W[:, n]| / 127, Wq = round(W / W_scale)
(ties to even) in [-127, 127], zero points 0. As in ONNX Runtime's dynamic mode: only MatMuls with a
constant weight (not attention's products of two activations), no Gemm, and one DynamicQuantizeLinear per
activation however many MatMuls read it. ONNX Runtime fuses the pattern into its integer GEMM at load time.
"""
import sys

import numpy as np
import onnx
from google.protobuf.message import DecodeError  # onnx's own dependency
from onnx import TensorProto, helper, numpy_helper


def column_scales(w):
    """Per-column symmetric int8 scales of w [K, N] and the quantized weight."""
    absmax = np.abs(w).max(axis=0).astype(np.float32)
    scale = (absmax / np.float32(127.0)).astype(np.float32)
    scale[scale == 0] = 1.0  # an all-zero column: any scale gives 0
    q = np.clip(np.round(w / scale), -127, 127).astype(np.int8)
    return scale, q


def quantize_model(model):
    """Rewrites model's graph in place; returns how many MatMuls were quantized."""
    graph = model.graph
    weights = {t.name: t for t in graph.initializer}
    nodes, added = [], []
    activations = {}  # float activation -> (xq, x_scale, x_zero_point) of its DynamicQuantizeLinear
    count = 0
    for node in graph.node:
        w = weights.get(node.input[1]) if node.op_type == "MatMul" else None
        if w is None or len(w.dims) != 2 or w.data_type != TensorProto.FLOAT:
            nodes.append(node)
            continue
        count += 1
        x, y, wname = node.input[0], node.output[0], node.input[1]
        if x not in activations:
            activations[x] = (x + "_quantized", x + "_scale", x + "_zero_point")
            nodes.append(helper.make_node("DynamicQuantizeLinear", [x], list(activations[x]), x + "_QuantizeLinear"))
        xq, xs, xzp = activations[x]
        scale, q = column_scales(numpy_helper.to_array(w).astype(np.float32))
        added += [numpy_helper.from_array(q, wname + "_quantized"),
                  numpy_helper.from_array(scale, wname + "_scale"),
                  numpy_helper.from_array(np.zeros(q.shape[1], np.int8), wname + "_zero_point")]
        acc = y + "_MatMulInteger"
        nodes += [
            helper.make_node("MatMulInteger", [xq, wname + "_quantized", xzp, wname + "_zero_point"], [acc]),
            helper.make_node("Cast", [acc], [acc + "_float"], to=TensorProto.FLOAT),
            helper.make_node("Mul", [xs, wname + "_scale"], [y + "_scales"]),
            helper.make_node("Mul", [acc + "_float", y + "_scales"], [y]),
        ]
    del graph.node[:]
    graph.node.extend(nodes)
    graph.initializer.extend(added)
    # The float weights that only the quantized MatMuls read are gone from the file.
    read = {i for n in graph.node for i in n.input} | {o.name for o in graph.output}
    kept = [t for t in graph.initializer if t.name in read]
    del graph.initializer[:]
    graph.initializer.extend(kept)
    return count


def quantize_file(src, dst):
    try:
        model = onnx.load(src)
    except (OSError, DecodeError) as e:
        sys.exit("onnx_int8: cannot read %s as an ONNX model: %s" % (src, e))
    opset = max((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), default=0)
    if opset < 11:
        sys.exit("onnx_int8: %s is opset %d; DynamicQuantizeLinear needs opset 11 or later" % (src, opset))
    count = quantize_model(model)
    onnx.checker.check_model(model)
    onnx.save(model, dst)
    return count


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    count = quantize_file(sys.argv[1], sys.argv[2])
    if count == 0:
        sys.exit("onnx_int8: %s has no MatMul with a constant 2-D float weight" % sys.argv[1])
    print("%s: %d MatMuls quantized" % (sys.argv[2], count))
    return 0


if __name__ == "__main__":
    sys.exit(main())
