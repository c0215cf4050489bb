#include "tools/onnx_import/blocks.h"

#include <cmath>
#include <map>
#include <set>

#include "tools/common/tool_error.h"
#include "tools/onnx/onnx_tensor.h"

namespace ax::onnx_import {

using tools::HostTensor;
using tools::ToolError;

namespace {

bool is_layout(const std::string& op) {
    return op == "Transpose" || op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze";
}

HostTensor host(const onnx::Tensor& t) {
    HostTensor h;
    h.shape = t.shape;
    h.data.resize(t.size());
    for (size_t k = 0; k < t.size(); ++k) h.data[k] = static_cast<float>(t.real(k));
    h.source_dtype = "float32";
    return h;
}

HostTensor transposed(const onnx::Tensor& t) {  // [in, out] -> [out, in]
    HostTensor h;
    const int64_t in = t.shape[0], out = t.shape[1];
    h.shape = {out, in};
    h.data.resize(static_cast<size_t>(in * out));
    for (int64_t i = 0; i < in; ++i)
        for (int64_t o = 0; o < out; ++o)
            h.data[static_cast<size_t>(o * in + i)] = static_cast<float>(t.real(i * out + o));
    h.source_dtype = "float32";
    return h;
}

// The constant input of a two-input node and its other input; false when not exactly one is constant.
bool split_constant(const GraphView& g, const onnx::Node& n, const onnx::Tensor** c, std::string* live) {
    if (n.inputs.size() != 2) return false;
    const onnx::Tensor* a = g.constant(n.inputs[0]);
    const onnx::Tensor* b = g.constant(n.inputs[1]);
    if ((a != nullptr) == (b != nullptr)) return false;
    *c = a ? a : b;
    *live = a ? n.inputs[1] : n.inputs[0];
    return true;
}

// The bias Add after a MatMul of `out` columns: [out] constant added to `value`'s only reader.
bool take_bias(GraphView& g, const std::string& value, int64_t out, HostTensor* bias, std::string* output,
               std::vector<size_t>* nodes) {
    const std::vector<size_t>& readers = g.consumers(value);
    if (readers.size() != 1 || g.explained(readers[0]) || g.node(readers[0]).op_type != "Add") return false;
    const onnx::Node& add = g.node(readers[0]);
    const onnx::Tensor* c = nullptr;
    std::string live;
    if (!split_constant(g, add, &c, &live) || !c->is_float() || static_cast<int64_t>(c->size()) != out ||
        c->shape.empty() || c->shape.back() != out)
        return false;
    *bias = host(*c);
    bias->shape = {out};
    *output = add.outputs[0];
    nodes->push_back(readers[0]);
    return true;
}

// A MatMul by a constant matrix or a Gemm at node `ni` reading `x`: the Linear, its nodes in *nodes.
std::optional<Linear> linear_at(GraphView& g, size_t ni, const std::string& x, std::vector<size_t>* nodes) {
    const onnx::Node& n = g.node(ni);
    Linear l;
    l.node = n.name;
    if (n.op_type == "MatMul") {
        if (n.inputs.size() != 2 || n.inputs[0] != x) return std::nullopt;
        const onnx::Tensor* w = g.constant(n.inputs[1]);
        if (!w || !w->is_float() || w->shape.size() != 2) return std::nullopt;
        l.weight = transposed(*w);
        nodes->push_back(ni);
        l.output = n.outputs[0];
        if (!take_bias(g, n.outputs[0], w->shape[1], &l.bias, &l.output, nodes)) l.bias.shape.clear();
        return l;
    }
    if (n.op_type == "Gemm") {
        if (n.inputs.size() < 2 || n.inputs[0] != x || int_attribute(n, "transA", 0) != 0 ||
            float_attribute(n, "alpha", 1.0f) != 1.0f || float_attribute(n, "beta", 1.0f) != 1.0f)
            return std::nullopt;
        const onnx::Tensor* w = g.constant(n.inputs[1]);
        if (!w || !w->is_float() || w->shape.size() != 2) return std::nullopt;
        l.weight = int_attribute(n, "transB", 0) ? host(*w) : transposed(*w);
        const int64_t out = l.weight.shape[0];
        if (n.inputs.size() > 2 && !n.inputs[2].empty()) {
            const onnx::Tensor* b = g.constant(n.inputs[2]);
            if (!b || !b->is_float() || static_cast<int64_t>(b->size()) != out) return std::nullopt;
            l.bias = host(*b);
            l.bias.shape = {out};
        }
        nodes->push_back(ni);
        l.output = n.outputs[0];
        if (l.bias.shape.empty()) take_bias(g, n.outputs[0], out, &l.bias, &l.output, nodes);
        return l;
    }
    return std::nullopt;
}

void mark(GraphView& g, const std::vector<size_t>& nodes) {
    for (size_t n : nodes) g.explain(n);
}

}  // namespace

// The reduction axes of a ReduceMean (attribute below opset 18, input from it on).
std::vector<int64_t> reduce_axes(const GraphView& g, const onnx::Node& n) {
    if (const onnx::Attribute* a = n.attribute("axes")) return a->ints;
    std::vector<int64_t> axes;
    if (n.inputs.size() > 1)
        if (const onnx::Tensor* t = g.constant(n.inputs[1]))
            for (size_t k = 0; k < t->size(); ++k) axes.push_back(t->integer(k));
    return axes;
}

static bool last_axis_only(const GraphView& g, const onnx::Node& n, const std::string& x) {
    const std::vector<int64_t> axes = reduce_axes(g, n);
    const int64_t rank = static_cast<int64_t>(g.shape(x).size());
    return axes.size() == 1 && (axes[0] == -1 || axes[0] == rank - 1) && int_attribute(n, "keepdims", 1) == 1;
}

// The one unexplained reader of `value` with op `op` whose other input is a scalar constant; its value.
int scalar_reader(const GraphView& g, const std::string& value, const std::string& op, double* c) {
    for (size_t r : g.consumers(value)) {
        const onnx::Node& n = g.node(r);
        if (g.explained(r) || n.op_type != op || n.inputs.size() != 2) continue;
        if (n.inputs[0] == value && g.scalar(n.inputs[1], c)) return static_cast<int>(r);
        if (op != "Div" && op != "Sub" && op != "Pow" && n.inputs[1] == value && g.scalar(n.inputs[0], c))
            return static_cast<int>(r);
    }
    return -1;
}

// The one unexplained reader of `value` with op `op` whose other input is `other`.
int pair_reader(const GraphView& g, const std::string& value, const std::string& op, const std::string& other) {
    for (size_t r : g.consumers(value)) {
        const onnx::Node& n = g.node(r);
        if (g.explained(r) || n.op_type != op || n.inputs.size() != 2) continue;
        if ((n.inputs[0] == value && n.inputs[1] == other) || (n.inputs[1] == value && n.inputs[0] == other))
            return static_cast<int>(r);
    }
    return -1;
}

// A constant of d values (any shape of d elements ending in d) read by `value`'s only reader through `op`.
int vector_reader(const GraphView& g, const std::string& value, const std::string& op, int64_t d, HostTensor* out) {
    const std::vector<size_t>& readers = g.consumers(value);
    if (readers.size() != 1 || g.explained(readers[0]) || g.node(readers[0]).op_type != op) return -1;
    const onnx::Tensor* c = nullptr;
    std::string live;
    if (!split_constant(g, g.node(readers[0]), &c, &live) || live != value || !c->is_float() ||
        static_cast<int64_t>(c->size()) != d)
        return -1;
    *out = host(*c);
    out->shape = {d};
    return static_cast<int>(readers[0]);
}

std::optional<Linear> linear_from(GraphView& g, const std::string& x) {
    for (size_t r : g.consumers(x)) {
        if (g.explained(r)) continue;
        std::vector<size_t> nodes;
        if (std::optional<Linear> l = linear_at(g, r, x, &nodes)) {
            mark(g, nodes);
            return l;
        }
    }
    return std::nullopt;
}

namespace {

// A Transpose swapping the last two axes of a rank-3 value.
bool swaps_last_two(const onnx::Node& n) {
    const onnx::Attribute* perm = n.attribute("perm");
    return n.op_type == "Transpose" && perm && perm->ints == std::vector<int64_t>{0, 2, 1};
}

// The unexplained Transpose(0, 2, 1) reading `value`, or -1.
int swapped_back(const GraphView& g, const std::string& value) {
    for (size_t r : g.consumers(value))
        if (!g.explained(r) && swaps_last_two(g.node(r))) return static_cast<int>(r);
    return -1;
}

// Transpose(0, 2, 1), BatchNormalization of constant statistics (evaluation mode), Transpose(0, 2, 1).
std::optional<Norm> batch_norm_from(GraphView& g, const std::string& x, int64_t d) {
    for (size_t r : g.consumers(x)) {
        if (g.explained(r) || !swaps_last_two(g.node(r))) continue;
        const int bn = g.consumer(g.node(r).outputs[0], "BatchNormalization");
        if (bn < 0) continue;
        const onnx::Node& n = g.node(static_cast<size_t>(bn));
        if (n.inputs.size() != 5 || n.outputs.size() != 1 || int_attribute(n, "training_mode", 0) != 0) continue;
        const onnx::Tensor* t[4];
        bool constant = true;
        for (size_t k = 0; k < 4; ++k) {
            t[k] = g.constant(n.inputs[k + 1]);
            constant = constant && t[k] && t[k]->is_float() && static_cast<int64_t>(t[k]->size()) == d;
        }
        if (!constant) continue;
        // The Transpose back; the exporter may have fused it with a layout op of another reader (the next
        // layer's attention reads the channels-first value through one Transpose): see same_rows.
        const int back = swapped_back(g, n.outputs[0]);
        if (back < 0) continue;
        Norm norm;
        norm.batch = true;
        HostTensor* into[4] = {&norm.weight, &norm.bias, &norm.mean, &norm.variance};
        for (size_t k = 0; k < 4; ++k) {
            *into[k] = host(*t[k]);
            into[k]->shape = {d};
        }
        norm.eps = float_attribute(n, "epsilon", 1e-5f);
        norm.output = g.node(static_cast<size_t>(back)).outputs[0];
        mark(g, {r, static_cast<size_t>(bn), static_cast<size_t>(back)});
        return norm;
    }
    return std::nullopt;
}

}  // namespace

bool same_rows(const GraphView& g, const std::string& source, const std::string& x) {
    if (source == x) return true;
    const int p = g.producer(source);
    if (p < 0 || g.node(static_cast<size_t>(p)).op_type != "BatchNormalization") return false;
    for (size_t r : g.consumers(source))
        if (swaps_last_two(g.node(r)) && g.node(r).outputs[0] == x) return true;
    return false;
}

std::optional<Norm> layer_norm_from(GraphView& g, const std::string& x) {
    const std::vector<int64_t> xs = g.shape(x);
    if (xs.empty()) return std::nullopt;
    const int64_t d = xs.back();
    if (xs.size() == 3)
        if (std::optional<Norm> bn = batch_norm_from(g, x, d)) return bn;
    Norm norm;
    const int ln = g.consumer(x, "LayerNormalization");
    if (ln >= 0) {
        const onnx::Node& n = g.node(static_cast<size_t>(ln));
        const int64_t axis = int_attribute(n, "axis", -1);
        if (axis != -1 && axis != static_cast<int64_t>(xs.size()) - 1) return std::nullopt;
        const onnx::Tensor* w = n.inputs.size() > 1 ? g.constant(n.inputs[1]) : nullptr;
        const onnx::Tensor* b = n.inputs.size() > 2 && !n.inputs[2].empty() ? g.constant(n.inputs[2]) : nullptr;
        if (!w || static_cast<int64_t>(w->size()) != d || (n.inputs.size() > 2 && !n.inputs[2].empty() && !b))
            return std::nullopt;
        norm.weight = host(*w);
        norm.weight.shape = {d};
        norm.bias.shape = {d};
        norm.bias.data.assign(static_cast<size_t>(d), 0.0f);
        if (b) norm.bias = host(*b), norm.bias.shape = {d};
        norm.eps = float_attribute(n, "epsilon", 1e-5f);
        norm.output = n.outputs[0];
        g.explain(static_cast<size_t>(ln));
        return norm;
    }
    // (x - mean) / sqrt(mean((x - mean)^2) + eps) * w + b, as torch writes it below opset 17.
    std::vector<size_t> nodes;
    for (size_t r : g.consumers(x)) {
        const onnx::Node& mean = g.node(r);
        if (g.explained(r) || mean.op_type != "ReduceMean" || !last_axis_only(g, mean, x)) continue;
        nodes = {r};
        const int sub = pair_reader(g, x, "Sub", mean.outputs[0]);
        if (sub < 0 || g.node(static_cast<size_t>(sub)).inputs[0] != x) continue;
        const std::string centred = g.node(static_cast<size_t>(sub)).outputs[0];
        double two = 0, eps = 0;
        const int pow = scalar_reader(g, centred, "Pow", &two);
        if (pow < 0 || two != 2.0) continue;
        const std::string sq = g.node(static_cast<size_t>(pow)).outputs[0];
        const int var = g.consumer(sq, "ReduceMean");
        if (var < 0 || !last_axis_only(g, g.node(static_cast<size_t>(var)), sq)) continue;
        const int add = scalar_reader(g, g.node(static_cast<size_t>(var)).outputs[0], "Add", &eps);
        if (add < 0) continue;
        const int sqrt = g.consumer(g.node(static_cast<size_t>(add)).outputs[0], "Sqrt");
        if (sqrt < 0) continue;
        const int div = pair_reader(g, centred, "Div", g.node(static_cast<size_t>(sqrt)).outputs[0]);
        if (div < 0 || g.node(static_cast<size_t>(div)).inputs[0] != centred) continue;
        std::string y = g.node(static_cast<size_t>(div)).outputs[0];
        nodes.insert(nodes.end(), {static_cast<size_t>(sub), static_cast<size_t>(pow), static_cast<size_t>(var),
                                   static_cast<size_t>(add), static_cast<size_t>(sqrt), static_cast<size_t>(div)});
        const int mul = vector_reader(g, y, "Mul", d, &norm.weight);
        if (mul < 0) continue;
        nodes.push_back(static_cast<size_t>(mul));
        y = g.node(static_cast<size_t>(mul)).outputs[0];
        const int shift = vector_reader(g, y, "Add", d, &norm.bias);
        if (shift < 0) continue;
        nodes.push_back(static_cast<size_t>(shift));
        norm.eps = static_cast<float>(eps);
        norm.output = g.node(static_cast<size_t>(shift)).outputs[0];
        mark(g, nodes);
        return norm;
    }
    return std::nullopt;
}

namespace {

[[noreturn]] void unknown_tanh_gelu(const onnx::Node& n) {
    throw ToolError(n.describe() +
                    " looks like GELU's tanh approximation but not in the form torch writes it (0.5 * x * (1 + "
                    "tanh(sqrt(2/pi) * (x + 0.044715 * x^3))), with these constants): nothing was converted, since "
                    "another formula would forecast differently. Export the model with nn.GELU(approximate=\"tanh\")");
}

// A Tanh within a few single steps after x times itself (or cubed): where a tanh GELU would be. The Tanh node, or -1.
int tanh_gelu_at(const GraphView& g, const std::string& x) {
    double c = 0;
    int at = pair_reader(g, x, "Mul", x);
    if (at < 0 && ((at = scalar_reader(g, x, "Pow", &c)) < 0 || c != 3.0)) return -1;
    for (int steps = 0; steps < 6 && at >= 0; ++steps) {
        if (g.node(static_cast<size_t>(at)).op_type == "Tanh") return at;
        const std::vector<size_t>& next = g.consumers(g.node(static_cast<size_t>(at)).outputs[0]);
        at = next.size() == 1 ? static_cast<int>(next[0]) : -1;
    }
    return -1;
}

// GELU's tanh form as torch writes it (nn.GELU(approximate="tanh")): x * x * x (or Pow 3), Mul 0.044715, Add x,
// Mul sqrt(2/pi), Tanh, Add 1, Mul x, Mul 0.5. Its nodes in order, or none when any step differs.
std::vector<size_t> tanh_gelu_nodes(const GraphView& g, const std::string& x) {
    std::vector<size_t> nodes;
    double c = 0;
    const auto last = [&] { return g.node(nodes.back()).outputs[0]; };
    const auto take = [&](int node) {
        if (node >= 0) nodes.push_back(static_cast<size_t>(node));
        return node >= 0;
    };
    const auto scalar_step = [&](const char* op, double want) {
        const int node = scalar_reader(g, last(), op, &c);
        return node >= 0 && std::fabs(c - want) <= 1e-6 * std::fabs(want) && take(node);
    };
    if (take(pair_reader(g, x, "Mul", x))) {
        if (!take(pair_reader(g, last(), "Mul", x))) return {};
    } else if (!take(scalar_reader(g, x, "Pow", &c)) || c != 3.0) {
        return {};
    }
    const double sqrt_2_over_pi = std::sqrt(2.0 / 3.14159265358979323846);
    if (!scalar_step("Mul", 0.044715) || !take(pair_reader(g, last(), "Add", x)) ||
        !scalar_step("Mul", sqrt_2_over_pi) || !take(g.consumer(last(), "Tanh")) || !scalar_step("Add", 1.0) ||
        !take(pair_reader(g, last(), "Mul", x)) || !scalar_step("Mul", 0.5))
        return {};
    return nodes;
}

}  // namespace

std::optional<Act> activation_from(GraphView& g, const std::string& x) {
    Act a;
    if (const int t = tanh_gelu_at(g, x); t >= 0) {
        const std::vector<size_t> nodes = tanh_gelu_nodes(g, x);
        if (nodes.empty()) unknown_tanh_gelu(g.node(static_cast<size_t>(t)));
        mark(g, nodes);
        a.kind = format::Activation::gelu_tanh;
        a.output = g.node(nodes.back()).outputs[0];
        return a;
    }
    if (const int relu = g.consumer(x, "Relu"); relu >= 0) {
        g.explain(static_cast<size_t>(relu));
        a.output = g.node(static_cast<size_t>(relu)).outputs[0];
        return a;
    }
    a.kind = format::Activation::gelu;
    if (const int gelu = g.consumer(x, "Gelu"); gelu >= 0) {
        const onnx::Attribute* approx = g.node(static_cast<size_t>(gelu)).attribute("approximate");
        if (approx && approx->s == "tanh")
            a.kind = format::Activation::gelu_tanh;
        else if (approx && approx->s != "none")
            return std::nullopt;
        g.explain(static_cast<size_t>(gelu));
        a.output = g.node(static_cast<size_t>(gelu)).outputs[0];
        return a;
    }
    // x * 0.5 * (1 + erf(x / sqrt(2))): Div (or Mul by 1/sqrt(2)), Erf, Add 1, Mul by x, Mul 0.5.
    double c = 0;
    int scale = scalar_reader(g, x, "Div", &c);
    if (scale >= 0 && std::fabs(c - std::sqrt(2.0)) > 1e-6) return std::nullopt;
    if (scale < 0) {
        scale = scalar_reader(g, x, "Mul", &c);
        if (scale < 0 || std::fabs(c - std::sqrt(0.5)) > 1e-6) return std::nullopt;
    }
    std::vector<size_t> nodes = {static_cast<size_t>(scale)};
    const int erf = g.consumer(g.node(nodes.back()).outputs[0], "Erf");
    if (erf < 0) return std::nullopt;
    nodes.push_back(static_cast<size_t>(erf));
    const int one = scalar_reader(g, g.node(nodes.back()).outputs[0], "Add", &c);
    if (one < 0 || c != 1.0) return std::nullopt;
    nodes.push_back(static_cast<size_t>(one));
    const int times_x = pair_reader(g, g.node(nodes.back()).outputs[0], "Mul", x);
    if (times_x < 0) return std::nullopt;
    nodes.push_back(static_cast<size_t>(times_x));
    const int half = scalar_reader(g, g.node(nodes.back()).outputs[0], "Mul", &c);
    if (half < 0 || c != 0.5) return std::nullopt;
    nodes.push_back(static_cast<size_t>(half));
    mark(g, nodes);
    a.output = g.node(nodes.back()).outputs[0];
    return a;
}

int add_of(const GraphView& g, const std::string& a, const std::string& b) { return pair_reader(g, a, "Add", b); }

std::string forward_over_layout(GraphView& g, std::string value) {
    for (;;) {
        const std::vector<size_t>& readers = g.consumers(value);
        if (readers.size() != 1 || g.explained(readers[0]) || !is_layout(g.node(readers[0]).op_type)) return value;
        g.explain(readers[0]);
        value = g.node(readers[0]).outputs[0];
    }
}

std::string over_batch_swap(GraphView& g, const std::string& value, bool* swapped) {
    const std::vector<size_t>& readers = g.consumers(value);
    if (readers.size() != 1 || g.explained(readers[0]) || g.node(readers[0]).op_type != "Transpose") return value;
    const onnx::Attribute* perm = g.node(readers[0]).attribute("perm");
    if (!perm || perm->ints != std::vector<int64_t>{1, 0, 2}) return value;
    g.explain(readers[0]);
    *swapped = !*swapped;
    return g.node(readers[0]).outputs[0];
}

// ---- attention ----

namespace {

// Walks forward from `value` over single-reader layout ops, collecting them (not marking: an attention is marked
// when a layer takes it).
std::string forward_layout_collect(const GraphView& g, std::string value, std::vector<size_t>* nodes) {
    for (;;) {
        const std::vector<size_t>& readers = g.consumers(value);
        if (readers.size() != 1 || !is_layout(g.node(readers[0]).op_type)) return value;
        nodes->push_back(readers[0]);
        value = g.node(readers[0]).outputs[0];
    }
}

[[noreturn]] void not_attention(const GraphView& g, size_t softmax, const std::string& why) {
    throw ToolError(g.node(softmax).describe() + " is no attention this converter knows: " + why +
                    ". Lowered are nn.MultiheadAttention (packed or separate q/k/v projections) and attention "
                    "written by hand with Linear q/k/v, MatMul or Einsum scores, a scale of 1/sqrt(head_dim) and an "
                    "optional constant mask");
}

// Walks back from `value` over layout ops and scalar Mul/Div (their product into *scale when given, else they
// stop the walk), collecting the nodes.
std::string back_over_layout(const GraphView& g, std::string value, double* scale, std::vector<size_t>* nodes) {
    for (;;) {
        const int p = g.producer(value);
        if (p < 0) return value;
        const onnx::Node& n = g.node(static_cast<size_t>(p));
        if (is_layout(n.op_type) && !n.inputs.empty() && !g.constant(n.inputs[0])) {
            nodes->push_back(static_cast<size_t>(p));
            value = n.inputs[0];
            continue;
        }
        double c = 0;
        if (scale && (n.op_type == "Mul" || n.op_type == "Div") && n.inputs.size() == 2) {
            if (g.scalar(n.inputs[1], &c) && c != 0) {
                *scale *= n.op_type == "Mul" ? c : 1.0 / c;
            } else if (n.op_type == "Mul" && g.scalar(n.inputs[0], &c)) {
                *scale *= c;
            } else {
                return value;
            }
            nodes->push_back(static_cast<size_t>(p));
            value = n.op_type == "Mul" && g.constant(n.inputs[0]) ? n.inputs[1] : n.inputs[0];
            continue;
        }
        return value;
    }
}

HostTensor rows_of(const HostTensor& t, int64_t begin, int64_t end) {
    HostTensor r;
    const int64_t cols = t.shape.size() == 2 ? t.shape[1] : 1;
    r.shape = t.shape.size() == 2 ? std::vector<int64_t>{end - begin, cols} : std::vector<int64_t>{end - begin};
    r.data.assign(t.data.begin() + begin * cols, t.data.begin() + end * cols);
    r.source_dtype = t.source_dtype;
    return r;
}

// q, k or v: [layout ops, scalars] [Slice of the last axis] [Add bias] MatMul/Gemm [layout ops] source.
std::optional<Projection> projection_back(GraphView& g, std::string value, double* scale, std::vector<size_t>* nodes) {
    value = back_over_layout(g, value, scale, nodes);
    int64_t begin = 0, end = -1;
    int p = g.producer(value);
    if (p >= 0 && g.node(static_cast<size_t>(p)).op_type == "Slice") {
        const onnx::Node& s = g.node(static_cast<size_t>(p));
        const onnx::Tensor* starts = s.inputs.size() > 1 ? g.constant(s.inputs[1]) : nullptr;
        const onnx::Tensor* ends = s.inputs.size() > 2 ? g.constant(s.inputs[2]) : nullptr;
        const onnx::Tensor* axes = s.inputs.size() > 3 && !s.inputs[3].empty() ? g.constant(s.inputs[3]) : nullptr;
        const onnx::Tensor* steps = s.inputs.size() > 4 && !s.inputs[4].empty() ? g.constant(s.inputs[4]) : nullptr;
        const std::vector<int64_t> in_shape = g.shape(s.inputs[0]);
        if (!starts || !ends || starts->size() != 1 || ends->size() != 1 || in_shape.empty()) return std::nullopt;
        const int64_t rank = static_cast<int64_t>(in_shape.size());
        int64_t axis = axes ? axes->integer(0) : 0;
        if (axis < 0) axis += rank;
        if (axis != rank - 1 || (steps && steps->integer(0) != 1)) return std::nullopt;
        const int64_t n = in_shape.back();
        begin = starts->integer(0);
        end = ends->integer(0);
        if (begin < 0) begin += n;
        if (end < 0) end += n;
        begin = std::max<int64_t>(0, std::min(begin, n));
        end = std::max<int64_t>(begin, std::min(end, n));
        nodes->push_back(static_cast<size_t>(p));
        value = s.inputs[0];
        p = g.producer(value);
    }
    // A bias Add is read with its MatMul (linear_at takes it).
    if (p >= 0 && g.node(static_cast<size_t>(p)).op_type == "Add") {
        const onnx::Tensor* c = nullptr;
        std::string live;
        if (!split_constant(g, g.node(static_cast<size_t>(p)), &c, &live)) return std::nullopt;
        nodes->push_back(static_cast<size_t>(p));
        p = g.producer(live);
    }
    if (p < 0) return std::nullopt;
    const onnx::Node& mm = g.node(static_cast<size_t>(p));
    if (mm.inputs.empty()) return std::nullopt;
    std::optional<Linear> l = linear_at(g, static_cast<size_t>(p), mm.inputs[0], nodes);
    if (!l) return std::nullopt;
    const int64_t out = l->weight.shape[0];
    if (l->bias.shape.empty()) {
        l->bias.shape = {out};
        l->bias.data.assign(static_cast<size_t>(out), 0.0f);
    }
    if (end > out) return std::nullopt;  // a slice past the projection's columns
    if (end < 0) end = out;
    Projection proj;
    proj.weight = rows_of(l->weight, begin, end);
    proj.bias = rows_of(l->bias, begin, end);
    proj.source = back_over_layout(g, mm.inputs[0], nullptr, nodes);
    return proj;
}

// "bhqd,bhkd->bhqk" (scores) and "bhqk,bhkd->bhqd" (values), whatever the letters.
bool einsum_is(const onnx::Node& n, bool scores) {
    const onnx::Attribute* eq = n.attribute("equation");
    if (!eq) return false;
    std::string e;
    for (char c : eq->s)
        if (c != ' ') e += c;
    const size_t comma = e.find(','), arrow = e.find("->");
    if (comma == std::string::npos || arrow == std::string::npos) return false;
    const std::string a = e.substr(0, comma), b = e.substr(comma + 1, arrow - comma - 1), o = e.substr(arrow + 2);
    if (a.size() != 4 || b.size() != 4 || o.size() != 4 || a.substr(0, 2) != b.substr(0, 2) ||
        a.substr(0, 2) != o.substr(0, 2))
        return false;
    if (scores) return a[3] == b[3] && o[2] == a[2] && o[3] == b[2] && a[2] != b[2];
    return a[3] == b[2] && o[2] == a[2] && o[3] == b[3] && a[3] != b[3];
}

// Walks back from a boolean value over layout ops, Expand and Cast to Equal(a graph input, one constant id):
// which keys are padding. The id into *pad_id, the nodes into *nodes.
bool pad_condition(const GraphView& g, std::string value, int64_t* pad_id, std::vector<size_t>* nodes) {
    std::vector<size_t> walked;
    for (int hops = 0; hops < 16; ++hops) {
        const int p = g.producer(value);
        if (p < 0) return false;
        const onnx::Node& n = g.node(static_cast<size_t>(p));
        walked.push_back(static_cast<size_t>(p));
        if (is_layout(n.op_type) || n.op_type == "Expand" || n.op_type == "Cast") {
            if (n.inputs.empty()) return false;
            value = n.inputs[0];
            continue;
        }
        double id = 0;
        if (n.op_type != "Equal" || n.inputs.size() != 2) return false;
        const bool first_fed = g.producer(n.inputs[0]) < 0 && !g.constant(n.inputs[0]);
        const bool second_fed = g.producer(n.inputs[1]) < 0 && !g.constant(n.inputs[1]);
        if (!((first_fed && g.scalar(n.inputs[1], &id)) || (second_fed && g.scalar(n.inputs[0], &id)))) return false;
        if (id < 0 || id != static_cast<double>(static_cast<int64_t>(id))) return false;
        *pad_id = static_cast<int64_t>(id);
        nodes->insert(nodes->end(), walked.begin(), walked.end());
        return true;
    }
    return false;
}

// An additive key-padding mask: Where(pad keys, -inf or a large negative, 0), through layout ops and Mul by 1
// (torch's baddbmm), from pad_condition. nn.MultiheadAttention given both a float attn_mask and a key_padding_mask
// writes Where(pad keys, -inf, attn_mask): that constant mask goes to *merged (left empty otherwise).
bool padding_mask(const GraphView& g, std::string value, int64_t* pad_id, std::vector<size_t>* nodes,
                  const onnx::Tensor** merged) {
    std::vector<size_t> walked;
    for (int hops = 0; hops < 8; ++hops) {
        const int p = g.producer(value);
        if (p < 0) return false;
        const onnx::Node& n = g.node(static_cast<size_t>(p));
        walked.push_back(static_cast<size_t>(p));
        double k = 0;
        if ((is_layout(n.op_type) || n.op_type == "Expand") && !n.inputs.empty()) {
            value = n.inputs[0];
        } else if (n.op_type == "Mul" && n.inputs.size() == 2 && g.scalar(n.inputs[1], &k) && k == 1.0) {
            value = n.inputs[0];
        } else if (n.op_type == "Where" && n.inputs.size() == 3) {
            // Constants of any shape: every value of the masked branch -inf (or below -1e9), of the other 0.
            const onnx::Tensor* yes = g.constant(n.inputs[1]);
            const onnx::Tensor* no = g.constant(n.inputs[2]);
            if (!yes || !no || yes->size() == 0 || no->size() == 0) return false;
            for (size_t i = 0; i < yes->size(); ++i)
                if (!(yes->real(i) <= -1e9)) return false;
            bool zero = true;
            for (size_t i = 0; i < no->size(); ++i) zero = zero && no->real(i) == 0.0;
            if (!zero && !no->is_float()) return false;
            if (!pad_condition(g, n.inputs[0], pad_id, nodes)) return false;
            *merged = zero ? nullptr : no;
            nodes->insert(nodes->end(), walked.begin(), walked.end());
            return true;
        } else {
            return false;
        }
    }
    return false;
}

MaskKind classify_mask(const std::vector<float>& m, int64_t lq, int64_t lk, bool* ok) {
    bool zero = true, causal = true, tril = true;
    for (int64_t i = 0; i < lq; ++i)
        for (int64_t j = 0; j < lk; ++j) {
            const float v = m[static_cast<size_t>(i * lk + j)];
            const bool masked = (std::isinf(v) && v < 0) || v <= -1e9f;
            zero = zero && v == 0.0f;
            causal = causal && (j <= i + (lk - lq) ? v == 0.0f : masked);
            tril = tril && (j <= i ? v == 0.0f : masked);
        }
    *ok = zero || causal || tril;
    // Square scores: causal and tril are the same mask, called causal.
    return zero ? MaskKind::none : causal ? MaskKind::causal : MaskKind::tril;
}

}  // namespace

// Whether `value` is what another Softmax than `self` reads (another attention's pre-softmax scores).
static bool softmax_input(const GraphView& g, const std::string& value, size_t self) {
    if (g.constant(value)) return false;
    for (size_t r : g.consumers(value))
        if (r != self && g.node(r).op_type == "Softmax" && g.node(r).inputs[0] == value) return true;
    return false;
}

// The projection's outputs multiplied by `factor` (its weight rows and bias).
static void scale_projection(Projection& p, double factor) {
    for (float& w : p.weight.data) w = static_cast<float>(w * factor);
    for (float& b : p.bias.data) b = static_cast<float>(b * factor);
}

Attention attention_at(GraphView& g, size_t softmax) {
    const onnx::Node& sm = g.node(softmax);
    Attention a;
    a.softmax = sm.name;
    a.scores = sm.inputs[0];
    a.nodes.push_back(softmax);
    const int64_t axis = int_attribute(sm, "axis", -1);
    const std::vector<int64_t> sshape = g.shape(sm.outputs[0]);
    if (sshape.size() < 2 || sshape[sshape.size() - 2] < 1 || sshape.back() < 1 ||
        (axis != -1 && axis != static_cast<int64_t>(sshape.size()) - 1))
        not_attention(g, softmax, "the softmax is not over the last axis of [..., queries, keys]");
    const int64_t lq = sshape[sshape.size() - 2], lk = sshape.back();
    double scale = 1.0;
    std::vector<float> mask;
    std::string s = sm.inputs[0];
    int p = -1;
    for (;;) {
        p = g.producer(s);
        if (p < 0) not_attention(g, softmax, "its scores come from no product of queries and keys");
        const onnx::Node& n = g.node(static_cast<size_t>(p));
        const onnx::Tensor* c = nullptr;
        std::string live;
        double k = 0;
        if ((n.op_type == "Mul" || n.op_type == "Div") && n.inputs.size() == 2 &&
            (g.scalar(n.inputs[1], &k) || (n.op_type == "Mul" && g.scalar(n.inputs[0], &k))) && k != 0) {
            scale *= n.op_type == "Mul" ? k : 1.0 / k;
            s = g.constant(n.inputs[1]) ? n.inputs[0] : n.inputs[1];
        } else if (n.op_type == "Add" && split_constant(g, n, &c, &live)) {
            if (!mask.empty() || !c->is_float() || c->size() == 0 || (c->size() % static_cast<size_t>(lq * lk)) != 0)
                not_attention(g, softmax, "a mask that is not one constant of [queries, keys]");
            mask.assign(c->f.end() - lq * lk, c->f.end());
            for (size_t q = 0; q + static_cast<size_t>(lq * lk) <= c->f.size(); q += static_cast<size_t>(lq * lk))
                if (!std::equal(mask.begin(), mask.end(), c->f.begin() + static_cast<std::ptrdiff_t>(q)))
                    not_attention(g, softmax, "a mask that differs between heads or batch rows");
            s = live;
        } else if (n.op_type == "Where" && n.inputs.size() == 3 && g.constant(n.inputs[0])) {
            const onnx::Tensor* cond = g.constant(n.inputs[0]);
            const bool fill_true = g.constant(n.inputs[1]) != nullptr;
            const onnx::Tensor* fill = g.constant(n.inputs[fill_true ? 1 : 2]);
            if (!mask.empty() || !fill || fill->size() != 1 || g.constant(n.inputs[fill_true ? 2 : 1]) ||
                cond->size() != static_cast<size_t>(lq * lk))
                not_attention(g, softmax, "a Where that is not a constant mask of [queries, keys]");
            mask.assign(static_cast<size_t>(lq * lk), 0.0f);
            for (size_t q = 0; q < mask.size(); ++q)
                if ((cond->integer(q) != 0) == fill_true) mask[q] = static_cast<float>(fill->real(0));
            s = n.inputs[fill_true ? 2 : 1];
        } else if (n.op_type == "Add" && n.inputs.size() == 2 && a.residual_scores.empty() &&
                   (softmax_input(g, n.inputs[0], softmax) || softmax_input(g, n.inputs[1], softmax))) {
            // Residual attention: the previous layer's pre-softmax scores added to these (the stack checks whose).
            const bool first = softmax_input(g, n.inputs[0], softmax);
            a.residual_scores = n.inputs[first ? 0 : 1];
            s = n.inputs[first ? 1 : 0];
        } else if (n.op_type == "Add" && n.inputs.size() == 2 && !g.constant(n.inputs[0]) && !g.constant(n.inputs[1]) &&
                   a.pad_id < 0) {
            // A key-padding mask made from the ids: -inf (or a large negative) where a key is the pad id.
            int which = -1;
            const onnx::Tensor* merged = nullptr;
            for (int side = 0; side < 2 && which < 0; ++side)
                if (padding_mask(g, n.inputs[static_cast<size_t>(side)], &a.pad_id, &a.nodes, &merged)) which = side;
            if (which < 0) break;
            if (merged) {  // the attn_mask the padding was merged into
                if (!mask.empty() || merged->size() == 0 || (merged->size() % static_cast<size_t>(lq * lk)) != 0)
                    not_attention(g, softmax,
                                  "a mask merged with the padding that is not one constant of [queries, keys]");
                mask.assign(merged->f.end() - lq * lk, merged->f.end());
                for (size_t q = 0; q + static_cast<size_t>(lq * lk) <= merged->size();
                     q += static_cast<size_t>(lq * lk))
                    if (!std::equal(mask.begin(), mask.end(), merged->f.begin() + static_cast<std::ptrdiff_t>(q)))
                        not_attention(g, softmax, "a mask that differs between heads or batch rows");
            }
            s = n.inputs[static_cast<size_t>(1 - which)];
        } else if (n.op_type == "Where" && n.inputs.size() == 3 && a.pad_id < 0 &&
                   (g.constant(n.inputs[1]) != nullptr) != (g.constant(n.inputs[2]) != nullptr)) {
            // masked_fill(key is pad, -inf) written by hand.
            const bool fill_true = g.constant(n.inputs[1]) != nullptr;
            double fill = 0;
            if (!g.scalar(n.inputs[fill_true ? 1 : 2], &fill) || !fill_true || !(fill <= -1e9) ||
                !pad_condition(g, n.inputs[0], &a.pad_id, &a.nodes))
                break;
            s = n.inputs[2];
        } else {
            break;
        }
        a.nodes.push_back(static_cast<size_t>(p));
    }
    const onnx::Node& qk = g.node(static_cast<size_t>(p));
    const bool einsum = qk.op_type == "Einsum" && einsum_is(qk, true);
    if ((qk.op_type != "MatMul" && !einsum) || qk.inputs.size() != 2 || g.constant(qk.inputs[0]) ||
        g.constant(qk.inputs[1]))
        not_attention(g, softmax, "its scores come from " + qk.describe());
    a.nodes.push_back(static_cast<size_t>(p));
    const std::vector<int64_t> qshape = g.shape(qk.inputs[0]);
    if (qshape.empty()) not_attention(g, softmax, "the queries' shape is unknown");
    a.head_dim = qshape.back();
    // Keys come transposed for a MatMul: back_over_layout walks over that Transpose like any layout op.
    std::optional<Projection> q = projection_back(g, qk.inputs[0], &scale, &a.nodes);
    std::optional<Projection> k = projection_back(g, qk.inputs[1], &scale, &a.nodes);
    if (!q || !k)
        not_attention(g, softmax,
                      std::string("its ") + (q ? "keys" : "queries") +
                          " come from no Linear (MatMul by a constant matrix, or Gemm)");
    // softmax(scores) @ v
    int pv = -1;
    for (size_t r : g.consumers(sm.outputs[0])) {
        const onnx::Node& n = g.node(r);
        if ((n.op_type == "MatMul" || (n.op_type == "Einsum" && einsum_is(n, false))) && n.inputs.size() == 2 &&
            n.inputs[0] == sm.outputs[0])
            pv = static_cast<int>(r);
    }
    if (pv < 0 || g.consumers(sm.outputs[0]).size() != 1)
        not_attention(g, softmax, "its weights are not multiplied by values (and by nothing else)");
    a.nodes.push_back(static_cast<size_t>(pv));
    double vscale = 1.0;
    const std::vector<int64_t> vshape = g.shape(g.node(static_cast<size_t>(pv)).inputs[1]);
    a.value_dim = vshape.empty() ? 0 : vshape.back();  // one head's value columns ([..., keys, value_dim])
    std::optional<Projection> v = projection_back(g, g.node(static_cast<size_t>(pv)).inputs[1], &vscale, &a.nodes);
    if (!v || vscale != 1.0) not_attention(g, softmax, "its values come from no Linear");
    if (k->source != v->source) not_attention(g, softmax, "its keys and values read different inputs");
    // The runtime's attention scales its scores by 1/sqrt(head_dim). Another scale (1/sqrt(d_model), none, a
    // learned temperature) is the same attention with queries that much larger: it is folded into the query
    // projection, which the proof against the graph then checks like any other weight.
    const double fold = scale * std::sqrt(static_cast<double>(a.head_dim));
    if (!std::isfinite(fold) || !(std::fabs(fold) > 1e-6) || std::fabs(fold) > 1e6)
        not_attention(g, softmax, "its scores are scaled by " + std::to_string(scale) + ", which no attention uses");
    if (std::fabs(fold - 1.0) > 1e-5) scale_projection(*q, fold);
    if (!mask.empty()) {
        bool ok = false;
        a.mask = classify_mask(mask, lq, lk, &ok);
        a.square = lq == lk;
        if (!ok) not_attention(g, softmax, "its mask is neither causal nor empty");
    }
    a.q = *q;
    a.k = *k;
    a.v = *v;
    // [layout ops] then the output projection, or (one head of several written apart) a Concat of the heads.
    std::string o = forward_layout_collect(g, g.node(static_cast<size_t>(pv)).outputs[0], &a.nodes);
    const std::vector<size_t>& readers = g.consumers(o);
    if (readers.size() == 1 && g.node(readers[0]).op_type == "Concat" && q->weight.shape[0] == a.head_dim) {
        a.concat = static_cast<int>(readers[0]);
        a.output = o;
        return a;
    }
    finish_attention(g, a, o);
    return a;
}

void finish_attention(GraphView& g, Attention& a, std::string o) {
    const std::string where = "Softmax node " + a.softmax;
    std::optional<Linear> out;
    if (g.consumers(o).size() == 1) out = linear_at(g, g.consumers(o)[0], o, &a.nodes);
    if (!out) throw ToolError(where + ": the attention's heads are not joined by an output Linear");
    if (out->bias.shape.empty()) {
        out->bias.shape = {out->weight.shape[0]};
        out->bias.data.assign(static_cast<size_t>(out->weight.shape[0]), 0.0f);
    }
    a.out = *out;
    a.output = forward_layout_collect(g, out->output, &a.nodes);
    const int64_t d = a.q.weight.shape[0];
    const auto shape = [](const Projection& p) { return onnx::shape_text(p.weight.shape); };
    if (a.k.weight.shape[0] != d)
        throw ToolError(where + ": its queries and keys have different widths (query projection " + shape(a.q) +
                        ", key projection " + shape(a.k) +
                        "): the runtime's attention has one key per query column (no keys shared by heads)");
    if (a.head_dim < 1 || d % a.head_dim != 0 || a.q.weight.shape[1] != d || a.k.weight.shape[1] != d ||
        a.v.weight.shape[1] != d || a.out.weight.shape[0] != d)
        throw ToolError(where + ": the attention's query and key projections are not [d_model, d_model] in heads of " +
                        "one size, its values not read from d_model columns, or its output not d_model wide " +
                        "(query projection " + shape(a.q) + ", value projection " + shape(a.v) + ", output " +
                        onnx::shape_text(a.out.weight.shape) + ")");
    // Values: nhead heads of value_dim columns (the value product's width; the Linear's rows when its shape is not
    // known), which the output projection reads.
    const int64_t heads = d / a.head_dim, values = a.v.weight.shape[0];
    if (a.value_dim < 1) a.value_dim = values % heads == 0 ? values / heads : 0;
    if (a.value_dim < 1 || values != heads * a.value_dim || a.out.weight.shape[1] != values)
        throw ToolError(where + ": its value projection " + shape(a.v) + " is not " + std::to_string(heads) +
                        " heads of one width that the output projection " + onnx::shape_text(a.out.weight.shape) +
                        " reads");
}

std::vector<Attention> join_heads(GraphView& g, std::vector<Attention> heads) {
    std::vector<Attention> joined;
    std::map<int, std::vector<Attention>> by_concat;
    for (Attention& a : heads) {
        if (a.concat < 0)
            joined.push_back(std::move(a));
        else
            by_concat[a.concat].push_back(std::move(a));
    }
    for (auto& [concat, group] : by_concat) {
        const onnx::Node& c = g.node(static_cast<size_t>(concat));
        const int64_t rank = static_cast<int64_t>(g.shape(c.outputs[0]).size());
        const int64_t axis = int_attribute(c, "axis", 0);
        if (axis != -1 && axis != rank - 1)
            throw ToolError(c.describe() + " joins attention heads along another axis than the last");
        // The heads in the order the Concat reads them: their projections' rows and the output Linear's columns.
        std::vector<const Attention*> order;
        for (const std::string& in : c.inputs)
            for (const Attention& a : group)
                if (a.output == in) order.push_back(&a);
        if (order.size() != c.inputs.size() || order.size() != group.size())
            throw ToolError(c.describe() + " joins other values than the heads of one attention");
        Attention m = *order[0];
        for (size_t h = 1; h < order.size(); ++h) {
            const Attention& a = *order[h];
            if (a.q.source != m.q.source || a.k.source != m.k.source || a.mask != m.mask || a.head_dim != m.head_dim)
                throw ToolError(c.describe() + " joins heads that read different inputs, masks or head sizes");
            if (a.v.weight.shape[0] != m.v.weight.shape[0])
                throw ToolError("Softmax node " + a.softmax + ": its head's values are " +
                                std::to_string(a.v.weight.shape[0]) + " wide, the first head's (Softmax node " +
                                m.softmax + ") " + std::to_string(m.v.weight.shape[0]) + ", joined by " + c.describe() +
                                ": auspex runs attention whose heads have values of one width");
            for (auto [into, from] :
                 {std::pair<Projection*, const Projection*>{&m.q, &a.q}, {&m.k, &a.k}, {&m.v, &a.v}}) {
                into->weight.data.insert(into->weight.data.end(), from->weight.data.begin(), from->weight.data.end());
                into->weight.shape[0] += from->weight.shape[0];
                into->bias.data.insert(into->bias.data.end(), from->bias.data.begin(), from->bias.data.end());
                into->bias.shape[0] += from->bias.shape[0];
            }
            m.nodes.insert(m.nodes.end(), a.nodes.begin(), a.nodes.end());
        }
        m.nodes.push_back(static_cast<size_t>(concat));
        m.concat = -1;
        finish_attention(g, m, c.outputs[0]);
        joined.push_back(std::move(m));
    }
    return joined;
}

}  // namespace ax::onnx_import
