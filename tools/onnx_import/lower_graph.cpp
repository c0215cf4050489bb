#include "tools/onnx_import/lower_graph.h"

#include "tools/onnx_import/classifier_lowering.h"

namespace ax::onnx_import {

LoweredGraph lower_graph(const onnx::Model& original, const onnx::FoldedGraph& folded) {
    return reads_token_ids(original) ? lower_classifier(original, folded) : lower_forecaster(original, folded);
}

}  // namespace ax::onnx_import
