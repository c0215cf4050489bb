// Lowers a folded ONNX graph of a Transformer forecaster onto the forecaster's blocks: the tensors under the
// module names a checkpoint of nn.Transformer has (so the checkpoint importer, tools/import/forecaster_import.h,
// reads them as it reads a state_dict) and the config facts the graph shows (heads, norm placement, activation,
// LayerNorm eps, masks, positions, embedding scale, head). A node no block explains is refused by name.
#pragma once
#include <string>
#include <vector>

#include "tools/onnx/onnx_fold.h"
#include "tools/onnx_import/lowered_graph.h"

namespace ax::onnx_import {

LoweredGraph lower_forecaster(const onnx::Model& original, const onnx::FoldedGraph& folded);

}  // namespace ax::onnx_import
