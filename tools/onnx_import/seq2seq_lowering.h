// Lowers a folded ONNX graph of a Transformer translator (source and target token ids in, one row of target-vocabulary
// logits per target token out, batch first) onto the seq2seq family's blocks: both sides' token embeddings, scale and
// positions, the encoder and decoder stacks, the generator; the tensors under the names a translator checkpoint has,
// for its importer (tools/import/seq2seq_import.h).
#pragma once
#include "tools/onnx/onnx_fold.h"
#include "tools/onnx_import/forecaster_lowering.h"

namespace ax::onnx_import {

LoweredGraph lower_seq2seq(const onnx::Model& original, const onnx::FoldedGraph& folded);

}  // namespace ax::onnx_import
