#include "tools/onnx_import/lower_graph.h"

#include "tools/onnx_import/classifier_lowering.h"
#include "tools/onnx_import/seq2seq_lowering.h"
#include "tools/onnx_import/tvae_lowering.h"

namespace ax::onnx_import {

LoweredGraph lower_graph(const onnx::Model& original, const onnx::FoldedGraph& folded) {
    if (!reads_token_ids(original))
        return is_tvae_graph(original) ? lower_tvae(original, folded) : lower_forecaster(original, folded);
    return original.fed_inputs().size() == 2 ? lower_seq2seq(original, folded) : lower_classifier(original, folded);
}

}  // namespace ax::onnx_import
