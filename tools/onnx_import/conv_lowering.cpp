#include "tools/onnx_import/conv_lowering.h"

#include <vector>

#include "tools/common/tool_error.h"

namespace ax::onnx_import {

using tools::ToolError;

namespace {

bool swaps_rows_and_columns(const onnx::Node& n) {
    const onnx::Attribute* perm = n.attribute("perm");
    return n.op_type == "Transpose" && perm && perm->ints == std::vector<int64_t>{0, 2, 1};
}

// Whether node `index` is a Slice of `t`'s last axis (of `len` steps) keeping steps [first, first + 1).
bool one_step(const GraphView& g, size_t index, const std::string& t, int64_t len, int64_t first) {
    const onnx::Node& n = g.node(index);
    if (n.op_type != "Slice" || n.inputs.size() < 4 || n.inputs[0] != t) return false;
    const onnx::Tensor* starts = g.constant(n.inputs[1]);
    const onnx::Tensor* ends = g.constant(n.inputs[2]);
    const onnx::Tensor* axes = g.constant(n.inputs[3]);
    const onnx::Tensor* steps = n.inputs.size() > 4 && !n.inputs[4].empty() ? g.constant(n.inputs[4]) : nullptr;
    if (!starts || !ends || !axes || starts->size() != 1 || ends->size() != 1 || axes->size() != 1 ||
        (axes->integer(0) != 2 && axes->integer(0) != -1) || (steps && (steps->size() != 1 || steps->integer(0) != 1)))
        return false;
    int64_t begin = starts->integer(0), end = ends->integer(0);
    if (begin < 0) begin += len;
    if (end < 0) end += len;
    if (end > len) end = len;
    return begin == first && end == first + 1;
}

}  // namespace

std::optional<TokenConv> token_conv_from(GraphView& g, const std::string& x) {
    const std::vector<int64_t> xs = g.shape(x);
    if (xs.size() != 3) return std::nullopt;
    const int64_t rows = xs[1], columns = xs[2];
    for (size_t r : g.consumers(x)) {
        if (g.explained(r) || !swaps_rows_and_columns(g.node(r))) continue;
        const std::string t = g.node(r).outputs[0];
        const int cat = g.consumer(t, "Concat");
        if (cat < 0) continue;
        const onnx::Node& c = g.node(static_cast<size_t>(cat));
        const int64_t axis = int_attribute(c, "axis", 0);
        if (c.inputs.size() != 3 || c.inputs[1] != t || (axis != 2 && axis != -1)) continue;
        const int left = g.producer(c.inputs[0]), right = g.producer(c.inputs[2]);
        if (left < 0 || right < 0 || !one_step(g, static_cast<size_t>(left), t, rows, rows - 1) ||
            !one_step(g, static_cast<size_t>(right), t, rows, 0))
            throw ToolError(
                c.describe() +
                " pads the input's channels otherwise than circularly by one step (the last step before "
                "the window, the first after it): the token convolution lowered is the "
                "Time-Series-Library's TokenEmbedding, circular padding 1. torch 1.13 exports "
                "nn.Conv1d(padding_mode=\"circular\") so, one step off: write the padding out, "
                "torch.cat([h[..., -1:], h, h[..., :1]], -1) before a Conv1d of padding 0, and export again");
        const std::vector<size_t>& readers = g.consumers(c.outputs[0]);
        if (readers.size() != 1 || g.node(readers[0]).op_type != "Conv") continue;
        const onnx::Node& conv = g.node(readers[0]);
        const onnx::Tensor* w = conv.inputs.size() > 1 ? g.constant(conv.inputs[1]) : nullptr;
        const onnx::Attribute* pads = conv.attribute("pads");
        const onnx::Attribute* strides = conv.attribute("strides");
        const onnx::Attribute* dilations = conv.attribute("dilations");
        auto all_equal = [](const onnx::Attribute* a, int64_t v) {
            if (!a) return true;
            for (int64_t e : a->ints)
                if (e != v) return false;
            return true;
        };
        if (!w || !w->is_float() || w->shape.size() != 3 || w->shape[1] != columns || w->shape[2] != 3 ||
            (conv.inputs.size() > 2 && !conv.inputs[2].empty()) || int_attribute(conv, "group", 1) != 1 ||
            !all_equal(pads, 0) || !all_equal(strides, 1) || !all_equal(dilations, 1))
            throw ToolError(conv.describe() +
                            " is no token convolution this converter lowers: the Time-Series-Library's "
                            "TokenEmbedding is a Conv1d of kernel 3 over every column, without bias, stride or "
                            "dilation (its padding written as the circular Concat before it)");
        const std::vector<size_t>& after = g.consumers(conv.outputs[0]);
        if (after.size() != 1 || !swaps_rows_and_columns(g.node(after[0]))) continue;
        TokenConv tc;
        tc.weight.shape = w->shape;
        tc.weight.data.resize(w->size());
        for (size_t k = 0; k < w->size(); ++k) tc.weight.data[k] = static_cast<float>(w->real(k));
        tc.weight.source_dtype = "float32";
        tc.output = g.node(after[0]).outputs[0];
        tc.node = conv.name;
        for (size_t n :
             {r, static_cast<size_t>(cat), static_cast<size_t>(left), static_cast<size_t>(right), readers[0], after[0]})
            g.explain(n);
        return tc;
    }
    return std::nullopt;
}

}  // namespace ax::onnx_import
