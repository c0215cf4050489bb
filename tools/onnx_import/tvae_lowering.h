// Lowers a folded ONNX graph of a Transformer-VAE (rows in; the reconstruction, z_mean and z_log_var out, as
// forward(x) returns them in eval mode) onto the tvae family's blocks: the input Linear and positions, the encoder
// stack, the mean over its rows into z_mean and z_log_var, z_mean embedded and repeated over the rows as the
// decoder's memory, the decoder fed the sequence shifted right after a zero row through the same input Linear, and
// the output Linear; the tensors under the names the family's checkpoint has (tools/import/tvae_import.h).
#pragma once
#include "tools/onnx/onnx_fold.h"
#include "tools/onnx_import/forecaster_lowering.h"

namespace ax::onnx_import {

// One graph input of rows [batch, rows, features] and three outputs.
bool is_tvae_graph(const onnx::Model& m);

LoweredGraph lower_tvae(const onnx::Model& original, const onnx::FoldedGraph& folded);

}  // namespace ax::onnx_import
