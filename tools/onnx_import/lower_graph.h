// The lowering a folded ONNX graph takes: a classifier's when it reads one input of token ids, a translator's
// for two, a Transformer-VAE's for one input of rows and three outputs, else the forecaster's.
#pragma once
#include "tools/onnx/onnx_fold.h"
#include "tools/onnx_import/forecaster_lowering.h"

namespace ax::onnx_import {

LoweredGraph lower_graph(const onnx::Model& original, const onnx::FoldedGraph& folded);

}  // namespace ax::onnx_import
