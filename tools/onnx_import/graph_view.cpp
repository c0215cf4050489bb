#include "tools/onnx_import/graph_view.h"

namespace ax::onnx_import {

GraphView::GraphView(const onnx::FoldedGraph& folded) : folded_(folded), explained_(graph().nodes.size(), false) {
    for (const onnx::Tensor& t : graph().initializers) constants_[t.name] = &t;
    for (size_t i = 0; i < graph().nodes.size(); ++i) {
        for (const std::string& o : graph().nodes[i].outputs) producer_[o] = i;
        for (const std::string& in : graph().nodes[i].inputs)
            if (!in.empty()) consumers_[in].push_back(i);
    }
}

int GraphView::producer(const std::string& value) const {
    const auto it = producer_.find(value);
    return it == producer_.end() ? -1 : static_cast<int>(it->second);
}

const std::vector<size_t>& GraphView::consumers(const std::string& value) const {
    static const std::vector<size_t> kNone;
    const auto it = consumers_.find(value);
    return it == consumers_.end() ? kNone : it->second;
}

const onnx::Tensor* GraphView::constant(const std::string& value) const {
    const auto it = constants_.find(value);
    return it == constants_.end() ? nullptr : it->second;
}

bool GraphView::scalar(const std::string& value, double* out) const {
    const onnx::Tensor* t = constant(value);
    if (!t || t->size() != 1) return false;
    *out = t->real(0);
    return true;
}

std::vector<int64_t> GraphView::shape(const std::string& value) const {
    const auto it = folded_.shapes.find(value);
    if (it != folded_.shapes.end()) return it->second;
    if (const onnx::Tensor* t = constant(value)) return t->shape;
    for (const onnx::ValueInfo& v : graph().inputs) {
        if (v.name != value) continue;
        std::vector<int64_t> s;
        for (const onnx::Dim& d : v.dims) s.push_back(d.value);
        return s;
    }
    return {};
}

std::vector<std::string> GraphView::live_inputs(const onnx::Node& n) const {
    std::vector<std::string> live;
    for (const std::string& in : n.inputs)
        if (!in.empty() && !constant(in)) live.push_back(in);
    return live;
}

int GraphView::first_unexplained() const {
    for (size_t i = 0; i < explained_.size(); ++i)
        if (!explained_[i]) return static_cast<int>(i);
    return -1;
}

int GraphView::consumer(const std::string& value, const std::string& op) const {
    int found = -1;
    for (size_t c : consumers(value)) {
        if (explained_[c] || node(c).op_type != op) continue;
        if (found >= 0) return -1;
        found = static_cast<int>(c);
    }
    return found;
}

int64_t int_attribute(const onnx::Node& n, const std::string& name, int64_t fallback) {
    const onnx::Attribute* a = n.attribute(name);
    return a ? a->i : fallback;
}

float float_attribute(const onnx::Node& n, const std::string& name, float fallback) {
    const onnx::Attribute* a = n.attribute(name);
    return a ? a->f : fallback;
}

}  // namespace ax::onnx_import
