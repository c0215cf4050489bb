// The Transformer layers recomputed on the host (sums in double) from the tensors a lowering gave, under their
// checkpoint module names: what names the first block whose output differs from the graph's when the converter's
// proof fails (the lowered model alone shows only the final output).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/format.h"
#include "tools/checkpoint/checkpoint.h"

namespace ax::onnx_import {

struct LayerOptions {
    bool norm_first = false;
    format::Activation activation = format::Activation::relu;
    float eps = 1e-5f;
    int64_t heads = 1;
    bool causal = false;       // the layer's self-attention
    bool memory_tril = false;  // a decoder layer's attention over the memory: row i sees memory rows 0..i
    // Source keys that are padding (a padding mask made from the ids): masked in an encoder layer's self-attention
    // and a decoder layer's attention over the memory; empty when none are.
    std::vector<bool> padded_source;
    // Target keys that are padding: masked in a decoder layer's self-attention (a translator's tgt_key_padding_mask).
    std::vector<bool> padded_target;
    // Residual attention (PatchTST's res_attention): an encoder layer adds the previous layer's pre-softmax scores.
    bool residual_attention = false;
};

// One encoder layer (memory null) or decoder layer under `prefix` ("transformer.encoder.layers.0.") on x
// (rows x d, row-major); returns its output. ToolError when a tensor it needs is missing. With residual attention,
// *scores holds the previous encoder layer's pre-softmax scores (empty before the first) and gets this layer's.
std::vector<float> reference_layer(const tools::TensorMap& t, const std::string& prefix, const LayerOptions& o,
                                   const std::vector<float>& x, size_t rows, const std::vector<float>* memory,
                                   size_t memory_rows, std::vector<double>* scores = nullptr);

}  // namespace ax::onnx_import
