// The lowering a folded ONNX graph takes: a token family's (classifier) when it reads token ids, else the
// forecaster's.
#pragma once
#include "tools/onnx/onnx_fold.h"
#include "tools/onnx_import/forecaster_lowering.h"

namespace ax::onnx_import {

LoweredGraph lower_graph(const onnx::Model& original, const onnx::FoldedGraph& folded);

}  // namespace ax::onnx_import
