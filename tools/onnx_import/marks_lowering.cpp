#include "tools/onnx_import/marks_lowering.h"

#include <map>
#include <set>
#include <vector>

#include "tools/common/tool_error.h"

namespace ax::onnx_import {

using tools::ToolError;

namespace {

// Who computes and who reads each value of a graph, and which values are weights.
struct GraphIndex {
    std::map<std::string, const onnx::Node*> producer;
    std::map<std::string, std::vector<const onnx::Node*>> readers;
    std::set<std::string> constants, inputs;

    explicit GraphIndex(const onnx::Graph& g) {
        for (const onnx::Tensor& t : g.initializers) constants.insert(t.name);
        for (const onnx::ValueInfo& v : g.inputs)
            if (!constants.count(v.name)) inputs.insert(v.name);
        for (const onnx::Node& n : g.nodes) {
            for (const std::string& o : n.outputs) producer[o] = &n;
            for (const std::string& in : n.inputs)
                if (!in.empty()) readers[in].push_back(&n);
        }
    }

    // The graph inputs `value` is computed from (weights and Constant nodes contribute none).
    std::set<std::string> sources(const std::string& value) const {
        std::set<std::string> found, seen{value};
        std::vector<std::string> todo{value};
        while (!todo.empty()) {
            const std::string v = todo.back();
            todo.pop_back();
            if (inputs.count(v)) found.insert(v);
            const auto p = producer.find(v);
            if (p == producer.end()) continue;
            for (const std::string& in : p->second->inputs)
                if (!in.empty() && seen.insert(in).second) todo.push_back(in);
        }
        return found;
    }
};

}  // namespace

bool holds_time_features(const onnx::Graph& graph, const std::string& input) {
    const GraphIndex ix(graph);
    const onnx::Node* linear = nullptr;
    const auto readers = ix.readers.find(input);
    if (readers == ix.readers.end()) return false;
    for (const onnx::Node* n : readers->second) {
        if (n->op_type == "Shape") continue;  // a dynamic-axes export may read the input's shape too
        if (linear || (n->op_type != "MatMul" && n->op_type != "Gemm") || n->inputs.empty() || n->inputs[0] != input ||
            n->outputs.empty())
            return false;
        linear = n;
    }
    if (!linear) return false;
    // Over the Linear's bias (an Add of a value computed from no input) to the Add of another input's rows.
    std::string v = linear->outputs[0];
    for (int hops = 0; hops < 2; ++hops) {
        const auto r = ix.readers.find(v);
        if (r == ix.readers.end() || r->second.size() != 1) return false;
        const onnx::Node& add = *r->second[0];
        if (add.op_type != "Add" || add.inputs.size() != 2 || add.outputs.empty()) return false;
        const std::string& other = add.inputs[0] == v ? add.inputs[1] : add.inputs[0];
        const std::set<std::string> from = ix.sources(other);
        if (!from.empty()) return !from.count(input);
        v = add.outputs[0];
    }
    return false;
}

FedInputs split_time_features(const onnx::Graph& graph, const std::vector<const onnx::ValueInfo*>& fed) {
    if (fed.size() == 4) return FedInputs{{fed[0], fed[2]}, {fed[1], fed[3]}};
    if (fed.size() == 2 && holds_time_features(graph, fed[1]->name)) return FedInputs{{fed[0]}, {fed[1]}};
    if (fed.size() == 2 && holds_time_features(graph, fed[0]->name)) return FedInputs{{fed[1]}, {fed[0]}};
    return FedInputs{fed, {}};
}

std::optional<TimeMarks> time_marks_added(GraphView& g, const std::string& rows, const std::string& beside) {
    const std::vector<size_t>& readers = g.consumers(rows);
    if (readers.size() != 1 || g.explained(readers[0]) || g.node(readers[0]).op_type != "Add" ||
        g.node(readers[0]).inputs.size() != 2)
        return std::nullopt;
    const onnx::Node& add = g.node(readers[0]);
    const std::string other = add.inputs[0] == rows ? add.inputs[1] : add.inputs[0];
    int p = g.producer(other);
    if (p >= 0 && g.node(static_cast<size_t>(p)).op_type == "Add")  // a bias after the MatMul
        for (const std::string& in : g.node(static_cast<size_t>(p)).inputs) {
            const int q = g.producer(in);
            if (q >= 0 &&
                (g.node(static_cast<size_t>(q)).op_type == "MatMul" || g.node(static_cast<size_t>(q)).op_type == "Gemm"))
                p = q;
        }
    if (p < 0 || g.node(static_cast<size_t>(p)).inputs.empty()) return std::nullopt;
    const std::string source = g.node(static_cast<size_t>(p)).inputs[0];
    bool graph_input = false;
    for (const onnx::ValueInfo& v : g.graph().inputs) graph_input = graph_input || v.name == source;
    if (!graph_input || g.constant(source) || source == rows) return std::nullopt;
    std::optional<Linear> l = linear_from(g, source);
    if (!l || l->output != other)
        throw ToolError(add.describe() + " adds " + other + " to " + beside + "'s rows, and that is no Linear of graph input " +
                        source + ": lowered are the time features through one Linear (added to the embedded values)");
    g.explain(readers[0]);
    return TimeMarks{*l, source, add.outputs[0]};
}

Linear join_time_marks(const Linear& values, const Linear& marks, double scale) {
    const int64_t d = values.weight.shape[0], v = values.weight.shape[1], k = marks.weight.shape[1];
    if (marks.weight.shape[0] != d)
        throw ToolError("the time features' Linear " + marks.node + " gives " + std::to_string(marks.weight.shape[0]) +
                        " values per row, the input Linear " + values.node + " " + std::to_string(d));
    const float inverse = static_cast<float>(1.0 / scale);
    Linear joined = values;
    joined.weight.shape = {d, v + k};
    joined.weight.data.clear();
    for (int64_t o = 0; o < d; ++o) {
        const auto row = values.weight.data.begin() + static_cast<std::ptrdiff_t>(o * v);
        joined.weight.data.insert(joined.weight.data.end(), row, row + static_cast<std::ptrdiff_t>(v));
        for (int64_t j = 0; j < k; ++j)
            joined.weight.data.push_back(marks.weight.data[static_cast<size_t>(o * k + j)] * inverse);
    }
    if (!marks.bias.shape.empty()) {
        if (joined.bias.shape.empty()) {
            joined.bias.shape = {d};
            joined.bias.data.assign(static_cast<size_t>(d), 0.0f);
            joined.bias.source_dtype = "float32";
        }
        for (int64_t o = 0; o < d; ++o)
            joined.bias.data[static_cast<size_t>(o)] += marks.bias.data[static_cast<size_t>(o)] * inverse;
    }
    return joined;
}

}  // namespace ax::onnx_import
