// A folded ONNX graph (tools/onnx/onnx_fold.h) seen the way a lowering reads it: who produces and who reads each
// value, which values are constants, and which nodes a recognised block has explained so far. Recognisers mark
// the nodes they explain; whatever is left unexplained at the end is refused by name.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tools/onnx/onnx_fold.h"

namespace ax::onnx_import {

class GraphView {
public:
    explicit GraphView(const onnx::FoldedGraph& folded);

    const onnx::Graph& graph() const { return folded_.model.graph; }
    const onnx::Node& node(size_t index) const { return graph().nodes[index]; }
    // The node computing `value`, or -1 for a graph input or a constant.
    int producer(const std::string& value) const;
    // The nodes reading `value`, in graph order.
    const std::vector<size_t>& consumers(const std::string& value) const;
    // The constant (a folded value or initializer) named `value`, or nullptr.
    const onnx::Tensor* constant(const std::string& value) const;
    // A constant holding one value (any shape of one element); false otherwise.
    bool scalar(const std::string& value, double* out) const;
    // The shape the folding found for `value` (empty when unknown).
    std::vector<int64_t> shape(const std::string& value) const;
    // The node's inputs that are not constants.
    std::vector<std::string> live_inputs(const onnx::Node& n) const;

    bool explained(size_t index) const { return explained_[index]; }
    void explain(size_t index) { explained_[index] = true; }
    // The explained marks, to undo a recogniser that failed half way.
    std::vector<bool> mark() const { return explained_; }
    void restore(const std::vector<bool>& m) { explained_ = m; }
    // The first node no block explained, or -1.
    int first_unexplained() const;

    // The one unexplained node of `op` type reading `value`, or -1.
    int consumer(const std::string& value, const std::string& op) const;

private:
    const onnx::FoldedGraph& folded_;
    std::map<std::string, const onnx::Tensor*> constants_;
    std::map<std::string, size_t> producer_;
    std::map<std::string, std::vector<size_t>> consumers_;
    std::vector<bool> explained_;
};

// An attribute's integer, or `fallback` when the node has none.
int64_t int_attribute(const onnx::Node& n, const std::string& name, int64_t fallback);
float float_attribute(const onnx::Node& n, const std::string& name, float fallback);

}  // namespace ax::onnx_import
