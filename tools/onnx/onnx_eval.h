// The host reference evaluator: runs an ONNX graph op by op in float32 (float64 graphs cast) on this machine, for
// comparing with PyTorch and, later, with the lowered model. It is not the device path: nothing here runs on a
// board. An op it cannot evaluate is refused naming the op type, the node's name and its inputs.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "tools/onnx/onnx_model.h"
#include "tools/onnx/onnx_ops.h"

namespace ax::onnx {

using Values = std::map<std::string, Tensor>;

// True when the evaluator computes this node's op type (default domain only).
bool is_evaluable(const Node& n);

// One node's outputs for its inputs (nullptr for an input left out). ToolError naming the node otherwise.
std::vector<Tensor> evaluate_node(const Node& n, const Inputs& inputs, int64_t opset);

// The graph's inputs fed by the caller checked against their declarations (every one given, no other, the
// rank and fixed dimensions as declared); ToolError naming the first that is not.
void check_fed_inputs(const Model& m, const Values& fed);

// Every graph output for the fed inputs, by name.
Values run_graph(const Model& m, const Values& fed);

}  // namespace ax::onnx
