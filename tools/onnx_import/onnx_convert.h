// `auspex convert MODEL.onnx`: the graph read and folded for concrete shapes (tools/onnx/), lowered onto the
// forecaster's blocks (forecaster_lowering.h), imported by the checkpoint importer from the tensors and facts the
// lowering gives (so a model converted from its ONNX export and from its state_dict is the same model), proven
// against the graph itself (the host reference evaluator on deterministic inputs against the lowered model run
// teacher-forced), and written by the same writer.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tools/axm/axm_writer.h"
#include "tools/convert/converter.h"
#include "tools/onnx/onnx_eval.h"
#include "tools/onnx_import/lowered_graph.h"

namespace ax::onnx_import {

// The lowered, imported float32 model before the proof (options.config_path may be empty: the graph's facts
// then stand alone and only what they cannot tell is missing). *graph_output gets the evaluator's output for
// the proof's inputs, *pair_src/*pair_tgt those inputs (model units, one row per time step).
struct OnnxImport {
    tools::AxmModel model;
    tools::Table src, tgt, want;              // the proof's inputs and the graph's output for them
    std::vector<int32_t> tokens, tgt_tokens;  // a token family's proof inputs (a translator's target ids too)
    // What a failed proof needs to name the first block that differs: the graph, the values fed to it, the
    // lowering (tensors and block boundaries) and the config it was imported with.
    onnx::Model graph;
    onnx::Values fed;
    LoweredGraph lowered;
    tools::ConvertConfig config;
};

// When the proof fails: the first block of the stacks whose output, recomputed on the host from the lowered tensors
// and the graph's own value at the block's input, differs from the graph's value at its end ("encoder layer 1
// (ONNX value V): ..."), or what the blocks' agreement leaves (the input block or the head).
std::string first_block_that_differs(const OnnxImport& imported);
OnnxImport import_onnx(const tools::ConvertOptions& options);

// The proof: the lowered model against the graph's output on the proof's inputs; ToolError naming the largest
// difference when it is beyond the conversion check's tolerance.
tools::ConversionProof prove_against_graph(const OnnxImport& imported, const std::string& model_path);

// import_onnx, prove_against_graph, then calibration/quantization/writing as for a checkpoint.
std::vector<uint8_t> convert_onnx(tools::ConvertOptions options, tools::ConversionProof* proof = nullptr);

}  // namespace ax::onnx_import
