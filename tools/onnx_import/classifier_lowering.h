// Lowers a folded ONNX graph of a Transformer classifier (token ids in, one row of label scores out) onto the
// classifier family's blocks: token embedding, scale and positions, the encoder stack, pooling (mean, max or the
// first row), the head Linear and the output activation; the tensors under the names a classifier checkpoint
// has, for the checkpoint importer (tools/import/classifier_import.h).
#pragma once
#include "tools/onnx/onnx_fold.h"
#include "tools/onnx_import/forecaster_lowering.h"

namespace ax::onnx_import {

// True when the graph reads token ids (one or two integer inputs of rank 2): a token family's graph (a classifier's
// one input, a translator's two).
bool reads_token_ids(const onnx::Model& m);

// True when ids [length, batch] (or a forecaster's rows [length, batch, features]) are laid out sequence first
// (batch_first=False, as the translation tutorial and most time-series code write them): the second axis is named as
// a batch ("batch" in its name), or, fixed, it is 1 and the first is longer.
bool sequence_first(const onnx::ValueInfo& ids);

LoweredGraph lower_classifier(const onnx::Model& original, const onnx::FoldedGraph& folded);

}  // namespace ax::onnx_import
