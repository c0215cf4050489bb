#include "tools/onnx_import/marks_lowering.h"

#include <map>
#include <set>
#include <vector>

#include "tools/common/tool_error.h"

namespace ax::onnx_import {

using tools::ToolError;

namespace {

using Sources = std::map<std::string, unsigned>;

// Which of the two graph inputs `value` is computed from (bit 1: the first, bit 2: the second; 0: weights only).
unsigned bits_of(const Sources& from, const std::string& value) {
    const auto at = from.find(value);
    return at == from.end() ? 0u : at->second;
}

unsigned bits_of(const Sources& from, const onnx::Node& n) {
    unsigned bits = 0;
    for (const std::string& in : n.inputs) bits |= bits_of(from, in);
    return bits;
}

// Each value's bits, in the nodes' order (ONNX lists them sorted: a node after those computing its inputs).
Sources sources(const onnx::Graph& g, const std::string& a, const std::string& b) {
    Sources from{{a, 1u}, {b, 2u}};
    for (const onnx::Node& n : g.nodes)
        for (const std::string& o : n.outputs) from[o] = bits_of(from, n);
    return from;
}

// Whether `value` is a Linear of graph input `input` alone: a MatMul or Gemm reading it, and an optional Add after
// it of a value computed from no input (its bias).
bool one_linear_of(const onnx::Graph& g, const Sources& from, const std::string& value, const std::string& input) {
    std::string v = value;
    for (int hops = 0; hops < 2; ++hops) {
        const onnx::Node* producer = nullptr;
        for (const onnx::Node& n : g.nodes)
            if (!n.outputs.empty() && n.outputs[0] == v) producer = &n;
        if (!producer || producer->inputs.empty()) return false;
        if (producer->op_type == "MatMul" || producer->op_type == "Gemm") return producer->inputs[0] == input;
        if (producer->op_type != "Add" || producer->inputs.size() != 2) return false;
        const bool first_bias = bits_of(from, producer->inputs[0]) == 0,
                   second_bias = bits_of(from, producer->inputs[1]) == 0;
        if (first_bias == second_bias) return false;
        v = producer->inputs[first_bias ? 1 : 0];
    }
    return false;
}

}  // namespace

FedInputs split_time_features(const onnx::Graph& graph, const std::vector<const onnx::ValueInfo*>& fed) {
    if (fed.size() == 4) return FedInputs{{fed[0], fed[2]}, {fed[1], fed[3]}};
    if (fed.size() != 2) return FedInputs{fed, {}};
    // Where the two inputs' rows first meet: an encoder-decoder's attention over the encoder's output, or the Add of
    // the values' embedding and the time features' (forward(x, x_mark), the values first).
    const std::string& x = fed[0]->name;
    const std::string& marks = fed[1]->name;
    const Sources from = sources(graph, x, marks);
    for (const onnx::Node& n : graph.nodes) {
        if (bits_of(from, n) != 3u) continue;
        if (n.op_type != "Add" || n.inputs.size() != 2 || bits_of(from, n.inputs[0]) == 3u ||
            bits_of(from, n.inputs[1]) == 3u)
            return FedInputs{fed, {}};
        const std::string& time = bits_of(from, n.inputs[0]) == 2u ? n.inputs[0] : n.inputs[1];
        if (!one_linear_of(graph, from, time, marks))
            throw ToolError(n.describe() + " adds graph input " + marks +
                            "'s rows, computed otherwise than by one Linear of " + marks + ", to " + x +
                            "'s: lowered are time features (the second input, x_mark) through one Linear");
        // The structure is symmetric: the order tells the values from the time features. An export naming the first
        // input as the time features is refused rather than read the other way round.
        if (x.find("mark") != std::string::npos && marks.find("mark") == std::string::npos)
            throw ToolError("graph input " + x + " comes before " + marks +
                            ", whose rows are added to it: auspex reads forward(x, x_mark), the values first and then "
                            "their time features; export with the values first");
        return FedInputs{{fed[0]}, {fed[1]}};
    }
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
            if (q >= 0 && (g.node(static_cast<size_t>(q)).op_type == "MatMul" ||
                           g.node(static_cast<size_t>(q)).op_type == "Gemm"))
                p = q;
        }
    if (p < 0 || g.node(static_cast<size_t>(p)).inputs.empty()) return std::nullopt;
    const std::string source = g.node(static_cast<size_t>(p)).inputs[0];
    bool graph_input = false;
    for (const onnx::ValueInfo& v : g.graph().inputs) graph_input = graph_input || v.name == source;
    if (!graph_input || g.constant(source)) return std::nullopt;
    std::optional<Linear> l = linear_from(g, source);
    if (!l || l->output != other)
        throw ToolError(add.describe() + " adds " + other + " to " + beside +
                        "'s rows, and that is no Linear of graph input " + source +
                        ": lowered are the time features through one Linear (added to the embedded values)");
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
