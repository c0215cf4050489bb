#include "tools/onnx_import/patch_lowering.h"

#include <set>
#include <vector>

#include "tools/common/tool_error.h"
#include "tools/onnx/onnx_eval.h"

namespace ax::onnx_import {

using tools::ToolError;

namespace {

bool moves_data(const std::string& op) {
    return op == "Transpose" || op == "Slice" || op == "Concat" || op == "Unsqueeze" || op == "Squeeze" ||
           op == "Reshape" || op == "Expand" || op == "Gather" || op == "Tile" || op == "Identity" || op == "Flatten" ||
           op == "Pad";
}

// The MatMul reading a rank-4 value reached from x through data-moving nodes only, and those nodes (x's
// descendants that are the value's ancestors), or -1.
int patch_matmul(const GraphView& g, const std::string& x, std::vector<size_t>* nodes) {
    std::set<std::string> reached = {x};
    std::vector<std::string> frontier = {x};
    std::set<size_t> moving;
    int found = -1;
    // Every data mover reached from x (not only the first path to a MatMul: the back walk needs them all).
    while (!frontier.empty()) {
        const std::string v = frontier.back();
        frontier.pop_back();
        for (size_t r : g.consumers(v)) {
            const onnx::Node& n = g.node(r);
            if (g.explained(r)) continue;
            if (n.op_type == "MatMul" && n.inputs[0] == v && g.shape(v).size() == 4 && g.constant(n.inputs[1])) {
                if (found < 0) found = static_cast<int>(r);
                continue;
            }
            if (!moves_data(n.op_type) || moving.count(r)) continue;
            moving.insert(r);
            for (const std::string& o : n.outputs)
                if (reached.insert(o).second) frontier.push_back(o);
        }
    }
    if (found < 0) return -1;
    // Back from the Linear's input: every node on the way must be a data mover reached from x.
    std::vector<std::string> back = {g.node(static_cast<size_t>(found)).inputs[0]};
    std::set<size_t> kept;
    while (!back.empty()) {
        const std::string v = back.back();
        back.pop_back();
        if (v == x || g.constant(v)) continue;
        const int p = g.producer(v);
        if (p < 0 || !moving.count(static_cast<size_t>(p))) return -1;
        if (!kept.insert(static_cast<size_t>(p)).second) continue;
        for (const std::string& in : g.node(static_cast<size_t>(p)).inputs)
            if (!in.empty()) back.push_back(in);
    }
    nodes->assign(kept.begin(), kept.end());  // graph order
    return found;
}

}  // namespace

std::optional<Patches> patches_from(GraphView& g, const onnx::FoldedGraph& folded, const std::string& x,
                                    int64_t time_axis) {
    const std::vector<int64_t> xs = g.shape(x);
    // One series (the batch axis 1): its flat index is step * columns + column in either layout.
    if (xs.size() != 3 || (time_axis != 0 && time_axis != 1) || xs[static_cast<size_t>(1 - time_axis)] != 1)
        return std::nullopt;
    std::vector<size_t> nodes;
    const int mm = patch_matmul(g, x, &nodes);
    if (mm < 0 || nodes.empty()) return std::nullopt;
    const std::string value = g.node(static_cast<size_t>(mm)).inputs[0];
    const std::vector<int64_t> ps = g.shape(value);
    const int64_t rows = xs[static_cast<size_t>(time_axis)], columns = xs[2];
    if (ps.size() != 4 || ps[0] != 1 || ps[1] != columns) return std::nullopt;
    // The moving nodes alone, fed x's flat index + 1 at every position.
    onnx::Model sub = folded.model;
    sub.graph.nodes.clear();
    for (size_t n : nodes) sub.graph.nodes.push_back(g.node(n));
    onnx::ValueInfo in{x, onnx::DataType::float32, true, {}};
    for (int64_t e : xs) in.dims.push_back(onnx::Dim{e, ""});
    sub.graph.inputs = {in};
    sub.graph.outputs = {onnx::ValueInfo{value, {}, false, {}}};
    onnx::Tensor probe;
    probe.name = x;
    probe.shape = xs;
    for (int64_t k = 0; k < rows * columns; ++k) probe.f.push_back(static_cast<float>(k + 1));
    const onnx::Values got = onnx::run_graph(sub, {{x, probe}});
    const onnx::Tensor& t = got.at(value);
    Patches p;
    p.patch_len = ps[3];
    p.count = ps[2];
    p.columns = columns;
    p.window = rows;
    p.value = value;
    for (const bool pad : {true, false}) {
        for (int64_t stride = 1; stride <= rows; ++stride) {
            const int64_t padded = rows + (pad ? stride : 0);
            if (padded < p.patch_len || (padded - p.patch_len) / stride + 1 != p.count) continue;
            bool same = true;
            for (int64_t c = 0; c < columns && same; ++c)
                for (int64_t n = 0; n < p.count && same; ++n)
                    for (int64_t k = 0; k < p.patch_len && same; ++k) {
                        const int64_t step = std::min(n * stride + k, rows - 1);
                        same = t.f[static_cast<size_t>((c * p.count + n) * p.patch_len + k)] ==
                               static_cast<float>(step * columns + c + 1);
                    }
            if (!same) continue;
            p.stride = stride;
            p.pad_end = pad;
            for (size_t n : nodes) g.explain(n);
            return p;
        }
    }
    throw ToolError(g.node(static_cast<size_t>(mm)).describe() + " reads [batch, columns, " + std::to_string(p.count) +
                    ", " + std::to_string(p.patch_len) + "] values moved from " + x + " otherwise than as patches of " +
                    std::to_string(p.patch_len) +
                    " steps of each column (every stride, the last step repeated stride times or not): the patching "
                    "lowered is PatchTST's");
}

}  // namespace ax::onnx_import
