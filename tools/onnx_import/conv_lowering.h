// The Time-Series-Library's TokenEmbedding in a folded ONNX graph: the window's rows turned to channels
// (Transpose(0, 2, 1)), padded circularly by one step on each side (a Concat of the last step, the window and the
// first step, as torch.cat([h[..., -1:], h, h[..., :1]], -1) exports), a Conv of kernel 3 without bias, and the
// Transpose back. Lowered onto the forecaster's token_conv input embedding (the checkpoint importer folds the
// kernel into an input Linear over three neighbouring rows).
#pragma once
#include <optional>
#include <string>

#include "tools/checkpoint/checkpoint.h"
#include "tools/onnx_import/graph_view.h"

namespace ax::onnx_import {

struct TokenConv {
    tools::HostTensor weight;  // [d_model, columns, 3], as nn.Conv1d holds it
    std::string output;        // [batch, rows, d_model]
    std::string node;          // the Conv's name
};

// The token convolution reading `x` [batch, rows, columns], or nothing (marks nothing then). ToolError for a
// convolution of another form (a bias, a kernel other than 3, padding other than circular by one, strides).
std::optional<TokenConv> token_conv_from(GraphView& g, const std::string& x);

}  // namespace ax::onnx_import
