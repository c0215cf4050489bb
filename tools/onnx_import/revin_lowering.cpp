#include "tools/onnx_import/revin_lowering.h"

#include <cmath>

#include "tools/common/tool_error.h"
#include "tools/onnx/onnx_tensor.h"
#include "tools/onnx_import/blocks.h"

namespace ax::onnx_import {

using tools::HostTensor;
using tools::ToolError;

namespace {

// The one axis a ReduceMean of a rank-3 value reduces, keeping it (0, 1 or 2), else -1.
int64_t reduced_axis(const GraphView& g, const onnx::Node& n) {
    const std::vector<int64_t> axes = reduce_axes(g, n);
    if (n.op_type != "ReduceMean" || axes.size() != 1 || axes[0] < -3 || axes[0] > 2 ||
        int_attribute(n, "keepdims", 1) != 1)
        return -1;
    return axes[0] < 0 ? axes[0] + 3 : axes[0];
}

// The node computing `value` when it is `op`, else -1.
int made_by(const GraphView& g, const std::string& value, const std::string& op) {
    const int p = g.producer(value);
    return p >= 0 && g.node(static_cast<size_t>(p)).op_type == op ? p : -1;
}

// x's last row along its time axis `t` kept as a row: Unsqueeze(Gather(x, -1, axis t), t) (x[:, -1, :].unsqueeze(1),
// or x[-1].unsqueeze(0) laid out sequence first) or Slice(x, -1:, axis t) (x[:, -1:, :], x[-1:]). Its nodes go to
// *nodes.
bool last_row_of(const GraphView& g, const std::string& value, const std::string& x, int64_t t,
                 std::vector<size_t>* nodes) {
    const int64_t rows = g.shape(x).size() == 3 ? g.shape(x)[static_cast<size_t>(t)] : 0;
    auto is_last = [&](const onnx::Tensor* c) {
        return c && c->size() == 1 && (c->integer(0) == -1 || c->integer(0) == rows - 1);
    };
    auto is_time = [&](int64_t axis) { return axis == t || axis == t - 3; };
    const int u = made_by(g, value, "Unsqueeze");
    if (u >= 0) {
        const onnx::Node& n = g.node(static_cast<size_t>(u));
        const onnx::Attribute* a = n.attribute("axes");
        const onnx::Tensor* c = n.inputs.size() > 1 ? g.constant(n.inputs[1]) : nullptr;
        const int64_t axis = a && a->ints.size() == 1 ? a->ints[0] : c && c->size() == 1 ? c->integer(0) : -9;
        const int gather = made_by(g, n.inputs[0], "Gather");
        if (!is_time(axis) || gather < 0) return false;
        const onnx::Node& gn = g.node(static_cast<size_t>(gather));
        if (gn.inputs.size() != 2 || gn.inputs[0] != x || !is_time(int_attribute(gn, "axis", 0)) ||
            !is_last(g.constant(gn.inputs[1])))
            return false;
        nodes->insert(nodes->end(), {static_cast<size_t>(u), static_cast<size_t>(gather)});
        return true;
    }
    const int s = made_by(g, value, "Slice");
    if (s < 0) return false;
    const onnx::Node& n = g.node(static_cast<size_t>(s));
    if (n.inputs.size() < 4 || n.inputs[0] != x) return false;
    const onnx::Tensor* axes = g.constant(n.inputs[3]);
    const onnx::Tensor* ends = g.constant(n.inputs[2]);
    if (!is_last(g.constant(n.inputs[1])) || !axes || axes->size() != 1 || !is_time(axes->integer(0)) || !ends ||
        ends->size() != 1 || ends->integer(0) < rows)
        return false;
    nodes->push_back(static_cast<size_t>(s));
    return true;
}

// sqrt(mean((x - mean(x))^2) + eps) over one axis of x, both means over the same one: the Sqrt's output, its nodes,
// eps and the axis (whichever it is: the caller refuses another than the time axis).
bool stdev_of(const GraphView& g, const std::string& x, std::string* stdev, double* eps, int64_t* axis,
              std::vector<size_t>* nodes) {
    for (size_t r : g.consumers(x)) {
        const onnx::Node& mean = g.node(r);
        const int64_t a = reduced_axis(g, mean);
        if (g.explained(r) || a < 0) continue;
        const int sub = pair_reader(g, x, "Sub", mean.outputs[0]);
        if (sub < 0 || g.node(static_cast<size_t>(sub)).inputs[0] != x) continue;
        const std::string c = g.node(static_cast<size_t>(sub)).outputs[0];
        double two = 0;
        int sq = pair_reader(g, c, "Mul", c);
        if (sq < 0 && ((sq = scalar_reader(g, c, "Pow", &two)) < 0 || two != 2.0)) continue;
        const int var = g.consumer(g.node(static_cast<size_t>(sq)).outputs[0], "ReduceMean");
        if (var < 0 || reduced_axis(g, g.node(static_cast<size_t>(var))) != a) continue;
        const int add = scalar_reader(g, g.node(static_cast<size_t>(var)).outputs[0], "Add", eps);
        if (add < 0) continue;
        const int sqrt = g.consumer(g.node(static_cast<size_t>(add)).outputs[0], "Sqrt");
        if (sqrt < 0) continue;
        *stdev = g.node(static_cast<size_t>(sqrt)).outputs[0];
        *axis = a;
        nodes->insert(nodes->end(), {r, static_cast<size_t>(sub), static_cast<size_t>(sq), static_cast<size_t>(var),
                                     static_cast<size_t>(add), static_cast<size_t>(sqrt)});
        return true;
    }
    return false;
}

// `value`'s only reader: `op` with a constant of d values after it (value op constant), the constant in *c.
int vector_after(const GraphView& g, const std::string& value, const std::string& op, int64_t d, HostTensor* c) {
    const int n = vector_reader(g, value, op, d, c);
    return n >= 0 && g.node(static_cast<size_t>(n)).inputs[0] == value ? n : -1;
}

}  // namespace

std::optional<Revin> revin_from(GraphView& g, const std::string& x, int64_t time_axis) {
    const std::vector<int64_t> xs = g.shape(x);
    if (xs.size() != 3) return std::nullopt;
    const int64_t columns = xs[2];
    Revin r;
    double eps = 0;
    int64_t axis = -1;
    std::vector<size_t> nodes;
    if (!stdev_of(g, x, &r.stdev, &eps, &axis, &nodes)) return std::nullopt;
    if (axis != time_axis) {
        // The statistics over the batch or the features: RevIN written for the other layout (its dim2reduce counts
        // the time axis as 1 of [batch, rows, columns]), or another normalization. Either way not RevIN's.
        const bool seq_first = time_axis == 0;
        const char* names[3] = {seq_first ? "the window's rows" : "the batch",
                                seq_first ? "the batch" : "the window's rows", "the features"};
        throw ToolError(g.node(nodes.front()).describe() + " and the nodes after it normalize " + x + " " +
                        onnx::shape_text(xs) + " over its axis " + std::to_string(axis) + " (" +
                        names[static_cast<size_t>(axis)] + "), where RevIN's statistics are over the window's rows (" +
                        "axis " + std::to_string(time_axis) + " of an input laid out " +
                        (seq_first ? "sequence" : "batch") +
                        " first): a normalization over another axis is not lowered");
    }
    r.eps = static_cast<float>(eps);
    r.node = g.node(nodes.back()).name;
    // (x - offset) / stdev: the offset the window's mean over the rows or its last row.
    for (size_t s : g.consumers(x)) {
        const onnx::Node& sub = g.node(s);
        if (g.explained(s) || sub.op_type != "Sub" || sub.inputs.size() != 2 || sub.inputs[0] != x) continue;
        const int div = pair_reader(g, sub.outputs[0], "Div", r.stdev);
        if (div < 0 || g.node(static_cast<size_t>(div)).inputs[0] != sub.outputs[0]) continue;
        std::vector<size_t> offset_nodes;
        const int mean = made_by(g, sub.inputs[1], "ReduceMean");
        if (mean >= 0 && reduced_axis(g, g.node(static_cast<size_t>(mean))) == time_axis &&
            g.node(static_cast<size_t>(mean)).inputs[0] == x) {
            offset_nodes.push_back(static_cast<size_t>(mean));
        } else if (last_row_of(g, sub.inputs[1], x, time_axis, &offset_nodes)) {
            r.subtract_last = true;
        } else {
            continue;
        }
        r.offset = sub.inputs[1];
        nodes.insert(nodes.end(), offset_nodes.begin(), offset_nodes.end());
        nodes.insert(nodes.end(), {s, static_cast<size_t>(div)});
        r.normalized = g.node(static_cast<size_t>(div)).outputs[0];
        break;
    }
    if (r.normalized.empty()) return std::nullopt;
    // The affine pair: times a weight per column, plus a bias per column.
    const int mul = vector_reader(g, r.normalized, "Mul", columns, &r.weight);
    if (mul >= 0) {
        const int add = vector_reader(g, g.node(static_cast<size_t>(mul)).outputs[0], "Add", columns, &r.bias);
        if (add < 0)
            throw ToolError(g.node(static_cast<size_t>(mul)).describe() +
                            " scales RevIN's normalized window by a weight with no bias added after it: RevIN's "
                            "affine form is lowered (a weight and a bias per column)");
        r.affine = true;
        nodes.insert(nodes.end(), {static_cast<size_t>(mul), static_cast<size_t>(add)});
        r.normalized = g.node(static_cast<size_t>(add)).outputs[0];
    }
    for (size_t n : nodes) g.explain(n);
    return r;
}

std::string revin_restore(GraphView& g, const Revin& r, const std::string& y) {
    const std::vector<int64_t> ys = g.shape(y);
    const int64_t columns = r.affine ? r.weight.shape[0] : ys.empty() ? 0 : ys.back();
    const std::string what = "the forecast " + y + " is not restored as RevIN (" + r.node + ") restores it: ";
    std::string v = y;
    if (r.affine) {
        HostTensor bias, divisor;
        const int sub = vector_after(g, v, "Sub", columns, &bias);
        if (sub < 0 || bias.data != r.bias.data)
            throw ToolError(what + "expected the affine bias taken off first (Sub of the same bias)");
        const int div = vector_after(g, g.node(static_cast<size_t>(sub)).outputs[0], "Div", columns, &divisor);
        if (div < 0) throw ToolError(what + "expected a Div by the affine weight + eps^2 after the bias");
        // weight + eps * eps, folded by the export; the runtime divides by the same sum.
        for (size_t k = 0; k < divisor.data.size(); ++k)
            if (std::fabs(divisor.data[k] - (r.weight.data[k] + r.eps * r.eps)) > 1e-6f * std::fabs(r.weight.data[k]))
                throw ToolError(what + "its Div " + g.node(static_cast<size_t>(div)).name +
                                " divides by another value than the affine weight + eps^2");
        g.explain(static_cast<size_t>(sub));
        g.explain(static_cast<size_t>(div));
        v = g.node(static_cast<size_t>(div)).outputs[0];
    }
    const int mul = pair_reader(g, v, "Mul", r.stdev);
    if (mul < 0) throw ToolError(what + "expected a Mul by the window's std " + r.stdev);
    g.explain(static_cast<size_t>(mul));
    v = g.node(static_cast<size_t>(mul)).outputs[0];
    const int add = pair_reader(g, v, "Add", r.offset);
    if (add < 0)
        throw ToolError(what + "expected an Add of the window's " + (r.subtract_last ? "last row " : "mean ") +
                        r.offset);
    g.explain(static_cast<size_t>(add));
    return g.node(static_cast<size_t>(add)).outputs[0];
}

}  // namespace ax::onnx_import
