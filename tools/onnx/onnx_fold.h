// Constant and shape folding for given input shapes: what a graph computes from its inputs once every value that
// depends only on weights, constants or the inputs' shapes (the Shape/Gather/Unsqueeze/Concat/... chains that
// torch.onnx.export writes for reshape sizes, causal masks, position slices) is computed ahead. What remains is the
// compute graph a lowering has to explain.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "tools/onnx/onnx_eval.h"

namespace ax::onnx {

using Shapes = std::map<std::string, std::vector<int64_t>>;

struct FoldedGraph {
    // The graph that remains: its nodes (in the original order) and the constants they read as initializers.
    // Valid for the input shapes it was folded for.
    Model model;
    size_t folded_nodes = 0;                  // nodes computed ahead (or unused)
    std::map<std::string, size_t> op_counts;  // op type -> remaining nodes
    // Remaining nodes the reference evaluator cannot compute (indices into model.graph.nodes), and why.
    std::vector<std::pair<size_t, std::string>> not_evaluable;
    Shapes shapes;  // every value whose shape is known for these input shapes, outputs included
};

// Folds `m` for the fed inputs' shapes (every fed input must be given; see check_fed_inputs).
FoldedGraph fold_graph(const Model& m, const Shapes& input_shapes);

// The declared shape of each fed input, a dynamic dimension taken from `dims` by its name, else 1 for the first
// axis (a batch) and `dynamic_default` for the others. ToolError when a name in `dims` is no input's dimension.
Shapes input_shapes(const Model& m, const std::map<std::string, int64_t>& dims, int64_t dynamic_default = 8);

// Deterministic values of a shape for a fed input: float inputs a smooth pattern in [-1, 1], integer ones zeros.
Tensor probe_tensor(const ValueInfo& v, const std::vector<int64_t>& shape);

}  // namespace ax::onnx
