// Arithmetic operators of the reference evaluator: element-wise ops with numpy broadcasting, matrix products,
// normalizations, reductions, 1-D convolution and Einsum. Float results are float32, as PyTorch computes them;
// sums are accumulated in double, so the evaluator is at least as exact as the graph's own arithmetic.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>

#include "tools/common/tool_error.h"
#include "tools/onnx/onnx_ops.h"

namespace ax::onnx {

namespace {

using namespace ops;
using Outputs = std::vector<Tensor>;
using tools::ToolError;

// ---- element-wise ----

template <typename FloatOp, typename IntOp>
Tensor binary(const Tensor& a, const Tensor& b, FloatOp fop, IntOp iop) {
    const std::vector<int64_t> shape = broadcast_shapes(a.shape, b.shape);
    const std::vector<size_t> ia = broadcast_index(a.shape, shape), ib = broadcast_index(b.shape, shape);
    if (a.is_float() != b.is_float())
        throw ToolError(std::string("operands of types ") + data_type_name(a.type) + " and " + data_type_name(b.type));
    Tensor out = empty_like_type(a.type, shape);
    if (a.is_float())
        for (size_t k = 0; k < ia.size(); ++k) out.f[k] = fop(a.f[ia[k]], b.f[ib[k]]);
    else
        for (size_t k = 0; k < ia.size(); ++k) out.i[k] = iop(a.i[ia[k]], b.i[ib[k]]);
    return out;
}

template <typename Compare>
Tensor compare(const Tensor& a, const Tensor& b, Compare cmp) {
    const std::vector<int64_t> shape = broadcast_shapes(a.shape, b.shape);
    const std::vector<size_t> ia = broadcast_index(a.shape, shape), ib = broadcast_index(b.shape, shape);
    Tensor out = empty_like_type(DataType::boolean, shape);
    for (size_t k = 0; k < ia.size(); ++k)
        out.i[k] = a.is_float() || b.is_float() ? cmp(a.real(ia[k]), b.real(ib[k])) : cmp(a.i[ia[k]], b.i[ib[k]]);
    return out;
}

template <typename FloatOp>
Tensor unary_float(const Tensor& x, FloatOp op) {
    if (!x.is_float()) throw ToolError(std::string("a float input, not ") + data_type_name(x.type));
    Tensor out = x;
    out.name.clear();
    for (float& v : out.f) v = op(v);
    return out;
}

// Integer arithmetic is shape arithmetic in exported graphs: a result past int64 is a broken or hostile graph,
// refused rather than wrapped.
int64_t checked_add(int64_t a, int64_t b) {
    int64_t r = 0;
    if (__builtin_add_overflow(a, b, &r)) throw ToolError("integer overflow");
    return r;
}
int64_t checked_sub(int64_t a, int64_t b) {
    int64_t r = 0;
    if (__builtin_sub_overflow(a, b, &r)) throw ToolError("integer overflow");
    return r;
}
int64_t checked_mul(int64_t a, int64_t b) {
    int64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r)) throw ToolError("integer overflow");
    return r;
}

Outputs op_add(const Node&, const Inputs& x, int64_t) {
    return {binary(
        in(x, 0, "A"), in(x, 1, "B"), [](float a, float b) { return a + b; }, checked_add)};
}
Outputs op_sub(const Node&, const Inputs& x, int64_t) {
    return {binary(
        in(x, 0, "A"), in(x, 1, "B"), [](float a, float b) { return a - b; }, checked_sub)};
}
Outputs op_mul(const Node&, const Inputs& x, int64_t) {
    return {binary(
        in(x, 0, "A"), in(x, 1, "B"), [](float a, float b) { return a * b; }, checked_mul)};
}
Outputs op_div(const Node&, const Inputs& x, int64_t) {
    return {binary(
        in(x, 0, "A"), in(x, 1, "B"), [](float a, float b) { return a / b; },
        [](int64_t a, int64_t b) {
            if (b == 0) throw ToolError("integer division by zero");
            if (a == std::numeric_limits<int64_t>::min() && b == -1) throw ToolError("integer overflow");
            return a / b;
        })};
}
Outputs op_pow(const Node&, const Inputs& x, int64_t) {
    const Tensor& base = in(x, 0, "X");
    Tensor e = in(x, 1, "Y");
    if (base.is_float() && !e.is_float()) {  // an integer exponent: the float base's type wins
        e.f.assign(e.i.begin(), e.i.end());
        e.i.clear();
        e.type = DataType::float32;
    }
    return {binary(
        base, e, [](float a, float b) { return b == 2.0f ? a * a : std::pow(a, b); },
        [](int64_t a, int64_t b) {
            if (b < 0) throw ToolError("an integer power with a negative exponent");
            // 0, 1 and -1 stay small for any exponent; any other base overflows within 64 steps.
            if (a == 0 || a == 1) return b == 0 ? int64_t{1} : a;
            if (a == -1) return b % 2 == 0 ? int64_t{1} : int64_t{-1};
            int64_t r = 1;
            for (int64_t k = 0; k < b; ++k) r = checked_mul(r, a);
            return r;
        })};
}
Outputs op_min(const Node&, const Inputs& x, int64_t) {
    Tensor r = in(x, 0, "data_0");
    for (size_t k = 1; k < x.size(); ++k)
        r = binary(
            r, in(x, k, "data"), [](float a, float b) { return std::fmin(a, b); },
            [](int64_t a, int64_t b) { return std::min(a, b); });
    return {r};
}
Outputs op_max(const Node&, const Inputs& x, int64_t) {
    Tensor r = in(x, 0, "data_0");
    for (size_t k = 1; k < x.size(); ++k)
        r = binary(
            r, in(x, k, "data"), [](float a, float b) { return std::fmax(a, b); },
            [](int64_t a, int64_t b) { return std::max(a, b); });
    return {r};
}
Outputs op_equal(const Node&, const Inputs& x, int64_t) {
    return {compare(in(x, 0, "A"), in(x, 1, "B"), [](auto a, auto b) { return a == b; })};
}
Outputs op_less(const Node&, const Inputs& x, int64_t) {
    return {compare(in(x, 0, "A"), in(x, 1, "B"), [](auto a, auto b) { return a < b; })};
}
Outputs op_less_equal(const Node&, const Inputs& x, int64_t) {
    return {compare(in(x, 0, "A"), in(x, 1, "B"), [](auto a, auto b) { return a <= b; })};
}
Outputs op_greater(const Node&, const Inputs& x, int64_t) {
    return {compare(in(x, 0, "A"), in(x, 1, "B"), [](auto a, auto b) { return a > b; })};
}
Outputs op_greater_equal(const Node&, const Inputs& x, int64_t) {
    return {compare(in(x, 0, "A"), in(x, 1, "B"), [](auto a, auto b) { return a >= b; })};
}
Outputs op_and(const Node&, const Inputs& x, int64_t) {
    return {compare(in(x, 0, "A"), in(x, 1, "B"), [](auto a, auto b) { return a != 0 && b != 0; })};
}
Outputs op_or(const Node&, const Inputs& x, int64_t) {
    return {compare(in(x, 0, "A"), in(x, 1, "B"), [](auto a, auto b) { return a != 0 || b != 0; })};
}
Outputs op_not(const Node&, const Inputs& x, int64_t) {
    Tensor r = in(x, 0, "X");
    if (r.type != DataType::boolean) throw ToolError("Not takes a bool tensor");
    for (int64_t& v : r.i) v = !v;
    return {r};
}

Outputs op_where(const Node&, const Inputs& x, int64_t) {
    const Tensor &c = in(x, 0, "condition"), &a = in(x, 1, "X"), &b = in(x, 2, "Y");
    if (a.is_float() != b.is_float()) throw ToolError("X and Y of different types");
    const std::vector<int64_t> shape = broadcast_shapes(broadcast_shapes(c.shape, a.shape), b.shape);
    const std::vector<size_t> ic = broadcast_index(c.shape, shape), ia = broadcast_index(a.shape, shape),
                              ib = broadcast_index(b.shape, shape);
    Tensor out = empty_like_type(a.type, shape);
    for (size_t k = 0; k < ic.size(); ++k) {
        if (c.integer(ic[k]))
            copy_element(a, ia[k], &out, k);
        else
            copy_element(b, ib[k], &out, k);
    }
    return {out};
}

Outputs op_sqrt(const Node&, const Inputs& x, int64_t) {
    return {unary_float(in(x, 0, "X"), [](float v) { return std::sqrt(v); })};
}
Outputs op_exp(const Node&, const Inputs& x, int64_t) {
    return {unary_float(in(x, 0, "X"), [](float v) { return std::exp(v); })};
}
Outputs op_log(const Node&, const Inputs& x, int64_t) {
    return {unary_float(in(x, 0, "X"), [](float v) { return std::log(v); })};
}
Outputs op_tanh(const Node&, const Inputs& x, int64_t) {
    return {unary_float(in(x, 0, "X"), [](float v) { return std::tanh(v); })};
}
Outputs op_sigmoid(const Node&, const Inputs& x, int64_t) {
    return {unary_float(in(x, 0, "X"), [](float v) { return static_cast<float>(1.0 / (1.0 + std::exp(-double{v}))); })};
}
Outputs op_relu(const Node&, const Inputs& x, int64_t) {
    return {unary_float(in(x, 0, "X"), [](float v) { return v > 0.0f ? v : 0.0f; })};
}
Outputs op_erf(const Node&, const Inputs& x, int64_t) {
    return {unary_float(in(x, 0, "X"), [](float v) { return std::erf(v); })};
}
Outputs op_reciprocal(const Node&, const Inputs& x, int64_t) {
    return {unary_float(in(x, 0, "X"), [](float v) { return 1.0f / v; })};
}
Outputs op_floor(const Node&, const Inputs& x, int64_t) {
    return {unary_float(in(x, 0, "X"), [](float v) { return std::floor(v); })};
}
Outputs op_ceil(const Node&, const Inputs& x, int64_t) {
    return {unary_float(in(x, 0, "X"), [](float v) { return std::ceil(v); })};
}
Outputs op_sin(const Node&, const Inputs& x, int64_t) {
    return {unary_float(in(x, 0, "X"), [](float v) { return std::sin(v); })};
}
Outputs op_cos(const Node&, const Inputs& x, int64_t) {
    return {unary_float(in(x, 0, "X"), [](float v) { return std::cos(v); })};
}
Outputs op_gelu(const Node& n, const Inputs& x, int64_t) {
    const std::string approximate = string_attr(n, "approximate", "none");
    if (approximate == "tanh")
        return {unary_float(in(x, 0, "X"), [](float v) {
            const double d = v;
            return static_cast<float>(0.5 * d * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (d + 0.044715 * d * d * d))));
        })};
    if (approximate != "none") throw ToolError("Gelu approximate=\"" + approximate + "\" is not an ONNX mode");
    return {unary_float(in(x, 0, "X"),
                        [](float v) { return static_cast<float>(0.5 * v * (1.0 + std::erf(double{v} / M_SQRT2))); })};
}
Outputs op_neg(const Node&, const Inputs& x, int64_t) {
    Tensor r = in(x, 0, "X");
    for (float& v : r.f) v = -v;
    for (int64_t& v : r.i) v = -v;
    return {r};
}
Outputs op_abs(const Node&, const Inputs& x, int64_t) {
    Tensor r = in(x, 0, "X");
    for (float& v : r.f) v = std::fabs(v);
    for (int64_t& v : r.i) v = v < 0 ? -v : v;
    return {r};
}
Outputs op_clip(const Node& n, const Inputs& x, int64_t opset) {
    Tensor r = in(x, 0, "input");
    double lo = -INFINITY, hi = INFINITY;
    if (opset < 11) {
        lo = float_attr(n, "min", -INFINITY);
        hi = float_attr(n, "max", INFINITY);
    } else {
        if (const Tensor* t = optional_in(x, 1)) lo = t->real(0);
        if (const Tensor* t = optional_in(x, 2)) hi = t->real(0);
    }
    for (float& v : r.f) v = static_cast<float>(std::min(std::max(double{v}, lo), hi));
    for (int64_t& v : r.i) v = static_cast<int64_t>(std::min(std::max(static_cast<double>(v), lo), hi));
    return {r};
}

// ---- matrix products ----

// out[b] = a[b] (M x K) * b[b] (K x N) over numpy-broadcast batch dimensions.
Outputs op_matmul(const Node&, const Inputs& x, int64_t) {
    Tensor a = in(x, 0, "A"), b = in(x, 1, "B");
    if (!a.is_float() || !b.is_float()) throw ToolError("MatMul of non-float tensors");
    if (a.shape.empty() || b.shape.empty()) throw ToolError("MatMul of a scalar");
    const bool a_vector = a.shape.size() == 1, b_vector = b.shape.size() == 1;
    if (a_vector) a.shape.insert(a.shape.begin(), 1);
    if (b_vector) b.shape.push_back(1);
    const int64_t m = a.shape[a.shape.size() - 2], k = a.shape.back(), kb = b.shape[b.shape.size() - 2],
                  n = b.shape.back();
    if (k != kb) throw ToolError("MatMul of " + shape_text(a.shape) + " by " + shape_text(b.shape));
    const std::vector<int64_t> ba(a.shape.begin(), a.shape.end() - 2), bb(b.shape.begin(), b.shape.end() - 2);
    std::vector<int64_t> batch = broadcast_shapes(ba, bb), shape = batch;
    const std::vector<size_t> ia = broadcast_index(ba, batch), ib = broadcast_index(bb, batch);
    shape.push_back(m);
    shape.push_back(n);
    Tensor out = empty_like_type(a.type, shape);
    const size_t M = static_cast<size_t>(m), K = static_cast<size_t>(k), N = static_cast<size_t>(n);
    for (size_t p = 0; p < ia.size(); ++p) {
        const float* A = a.f.data() + ia[p] * M * K;
        const float* B = b.f.data() + ib[p] * K * N;
        float* C = out.f.data() + p * M * N;
        for (size_t i = 0; i < M; ++i)
            for (size_t j = 0; j < N; ++j) {
                double s = 0;
                for (size_t q = 0; q < K; ++q) s += double{A[i * K + q]} * B[q * N + j];
                C[i * N + j] = static_cast<float>(s);
            }
    }
    if (a_vector) out.shape.erase(out.shape.end() - 2);
    if (b_vector) out.shape.pop_back();
    return {out};
}

Outputs op_gemm(const Node& n, const Inputs& x, int64_t) {
    const Tensor &a = in(x, 0, "A"), &b = in(x, 1, "B");
    const Tensor* c = optional_in(x, 2);
    if (a.shape.size() != 2 || b.shape.size() != 2) throw ToolError("Gemm takes two matrices");
    const bool ta = int_attr(n, "transA", 0) != 0, tb = int_attr(n, "transB", 0) != 0;
    const double alpha = float_attr(n, "alpha", 1.0f), beta = float_attr(n, "beta", 1.0f);
    const size_t M = static_cast<size_t>(ta ? a.shape[1] : a.shape[0]),
                 K = static_cast<size_t>(ta ? a.shape[0] : a.shape[1]);
    const size_t KB = static_cast<size_t>(tb ? b.shape[1] : b.shape[0]),
                 N = static_cast<size_t>(tb ? b.shape[0] : b.shape[1]);
    if (K != KB) throw ToolError("Gemm of " + shape_text(a.shape) + " by " + shape_text(b.shape));
    const std::vector<int64_t> shape{static_cast<int64_t>(M), static_cast<int64_t>(N)};
    Tensor out = empty_like_type(a.type, shape);
    std::vector<size_t> ic;
    if (c) {
        broadcast_shapes(c->shape, shape);
        ic = broadcast_index(c->shape, shape);
    }
    for (size_t i = 0; i < M; ++i)
        for (size_t j = 0; j < N; ++j) {
            double s = 0;
            for (size_t q = 0; q < K; ++q)
                s += double{a.f[ta ? q * M + i : i * K + q]} * b.f[tb ? j * K + q : q * N + j];
            // PyTorch's addmm: the product in float, then beta * C added in float.
            float r = static_cast<float>(alpha * s);
            if (c) r += static_cast<float>(beta * c->f[ic[i * N + j]]);
            out.f[i * N + j] = r;
        }
    return {out};
}

// ---- normalizations and reductions ----

// Softmax along `axis`; opset < 13 flattens to 2-D at the axis (the old definition).
Outputs op_softmax(const Node& n, const Inputs& x, int64_t opset) {
    Tensor r = in(x, 0, "input");
    if (!r.is_float()) throw ToolError("Softmax of a non-float tensor");
    const size_t axis = axis_of(int_attr(n, "axis", opset < 13 ? 1 : -1), r.shape.size(), "axis");
    size_t outer = 1, len = 1, inner = 1;
    for (size_t k = 0; k < r.shape.size(); ++k) {
        const size_t d = static_cast<size_t>(r.shape[k]);
        if (k < axis)
            outer *= d;
        else if (k == axis || opset < 13)
            len *= d;
        else
            inner *= d;
    }
    for (size_t o = 0; o < outer; ++o)
        for (size_t i = 0; i < inner; ++i) {
            float* p = r.f.data() + o * len * inner + i;
            float mx = -INFINITY;
            for (size_t k = 0; k < len; ++k) mx = std::max(mx, p[k * inner]);
            double sum = 0;
            for (size_t k = 0; k < len; ++k) {
                p[k * inner] = mx == -INFINITY ? 0.0f : std::exp(p[k * inner] - mx);
                sum += p[k * inner];
            }
            for (size_t k = 0; k < len; ++k) p[k * inner] = sum > 0 ? static_cast<float>(p[k * inner] / sum) : NAN;
        }
    return {r};
}

Outputs op_layer_norm(const Node& n, const Inputs& x, int64_t) {
    const Tensor& t = in(x, 0, "X");
    const Tensor& scale = in(x, 1, "Scale");
    const Tensor* bias = optional_in(x, 2);
    const size_t axis = axis_of(int_attr(n, "axis", -1), t.shape.size(), "axis");
    const double eps = float_attr(n, "epsilon", 1e-5f);
    size_t outer = 1, len = 1;
    for (size_t k = 0; k < t.shape.size(); ++k) (k < axis ? outer : len) *= static_cast<size_t>(t.shape[k]);
    if (scale.size() != len || (bias && bias->size() != len))
        throw ToolError("Scale or B does not have the " + std::to_string(len) + " values of the normalized axes");
    Tensor out = t;
    for (size_t o = 0; o < outer; ++o) {
        const float* p = t.f.data() + o * len;
        double mean = 0, var = 0;
        for (size_t k = 0; k < len; ++k) mean += p[k];
        mean /= static_cast<double>(len);
        for (size_t k = 0; k < len; ++k) var += (p[k] - mean) * (p[k] - mean);
        var /= static_cast<double>(len);
        const double inv = 1.0 / std::sqrt(var + eps);
        for (size_t k = 0; k < len; ++k)
            out.f[o * len + k] = static_cast<float>((p[k] - mean) * inv * scale.f[k] + (bias ? bias->f[k] : 0.0f));
    }
    return {out};
}

// BatchNormalization in inference mode: per channel (axis 1) with the running statistics the node is given.
Outputs op_batch_norm(const Node& n, const Inputs& x, int64_t) {
    const Tensor& t = in(x, 0, "X");
    if (int_attr(n, "training_mode", 0) != 0)
        throw ToolError("training_mode 1 (batch statistics) is not evaluated: export the model in eval mode");
    if (t.shape.size() < 2) throw ToolError("X has no channel axis");
    const size_t channels = static_cast<size_t>(t.shape[1]);
    const Tensor* p[4];
    const char* names[4] = {"scale", "B", "input_mean", "input_var"};
    for (size_t k = 0; k < 4; ++k) {
        p[k] = &in(x, k + 1, names[k]);
        if (p[k]->size() != channels)
            throw ToolError(std::string(names[k]) + " does not have the " + std::to_string(channels) +
                            " values of X's channels");
    }
    const double eps = float_attr(n, "epsilon", 1e-5f);
    size_t inner = 1;
    for (size_t k = 2; k < t.shape.size(); ++k) inner *= static_cast<size_t>(t.shape[k]);
    Tensor out = t;
    for (size_t i = 0; i < t.size(); ++i) {
        const size_t c = (i / inner) % channels;
        out.f[i] = static_cast<float>((t.f[i] - p[2]->f[c]) / std::sqrt(p[3]->f[c] + eps) * p[0]->f[c] + p[1]->f[c]);
    }
    return {out};
}

enum class Reduce { mean, sum, max, min };

Tensor reduce(const Node& n, const Inputs& x, int64_t opset, Reduce kind, int64_t axes_input_from) {
    const Tensor& t = in(x, 0, "data");
    std::vector<int64_t> axes;
    if (opset >= axes_input_from) {
        if (const Tensor* a = optional_in(x, 1)) axes = int_values(*a, "axes");
    } else {
        axes = ints_attr(n, "axes");
    }
    const bool keep = int_attr(n, "keepdims", 1) != 0;
    std::vector<bool> reduced(t.shape.size(), axes.empty() && int_attr(n, "noop_with_empty_axes", 0) == 0);
    for (int64_t a : axes) reduced[axis_of(a, t.shape.size(), "axes")] = true;
    std::vector<int64_t> kept_shape = t.shape;  // with 1 in reduced axes
    for (size_t k = 0; k < t.shape.size(); ++k)
        if (reduced[k]) kept_shape[k] = 1;
    const size_t count_out = element_count(kept_shape, "a reduction");
    std::vector<double> acc(count_out, kind == Reduce::max ? -INFINITY : kind == Reduce::min ? INFINITY : 0.0);
    const std::vector<size_t> target = broadcast_index(kept_shape, t.shape);
    for (size_t k = 0; k < target.size(); ++k) {
        const double v = t.real(k);
        double& a = acc[target[k]];
        a = kind == Reduce::max ? std::max(a, v) : kind == Reduce::min ? std::min(a, v) : a + v;
    }
    if (kind == Reduce::mean && count_out > 0) {
        const double per = static_cast<double>(target.size()) / static_cast<double>(count_out);
        for (double& a : acc) a /= per;
    }
    std::vector<int64_t> shape;
    for (size_t k = 0; k < t.shape.size(); ++k)
        if (!reduced[k] || keep) shape.push_back(kept_shape[k]);
    Tensor out = empty_like_type(t.type, shape);
    for (size_t k = 0; k < acc.size(); ++k) {
        if (out.is_float())
            out.f[k] = static_cast<float>(acc[k]);
        else
            out.i[k] = static_cast<int64_t>(acc[k]);
    }
    return out;
}

Outputs op_reduce_mean(const Node& n, const Inputs& x, int64_t opset) {
    return {reduce(n, x, opset, Reduce::mean, 18)};
}
Outputs op_reduce_sum(const Node& n, const Inputs& x, int64_t opset) { return {reduce(n, x, opset, Reduce::sum, 13)}; }
Outputs op_reduce_max(const Node& n, const Inputs& x, int64_t opset) { return {reduce(n, x, opset, Reduce::max, 18)}; }
Outputs op_reduce_min(const Node& n, const Inputs& x, int64_t opset) { return {reduce(n, x, opset, Reduce::min, 18)}; }

// ---- convolution ----

// 1-D convolution: X [N, C, L], W [M, C / group, k], optional B [M].
Outputs op_conv(const Node& n, const Inputs& x, int64_t) {
    const Tensor &t = in(x, 0, "X"), &w = in(x, 1, "W");
    const Tensor* b = optional_in(x, 2);
    if (t.shape.size() != 3 || w.shape.size() != 3)
        throw ToolError("only 1-D convolutions (X of rank 3) are evaluated, X is " + shape_text(t.shape));
    const std::string pad_mode = string_attr(n, "auto_pad", "NOTSET");
    if (pad_mode != "NOTSET") throw ToolError("auto_pad " + pad_mode + " is not evaluated (export with explicit pads)");
    const std::vector<int64_t> pads = has_attr(n, "pads") ? ints_attr(n, "pads") : std::vector<int64_t>{0, 0};
    const std::vector<int64_t> strides = has_attr(n, "strides") ? ints_attr(n, "strides") : std::vector<int64_t>{1};
    const std::vector<int64_t> dil = has_attr(n, "dilations") ? ints_attr(n, "dilations") : std::vector<int64_t>{1};
    const int64_t group = int_attr(n, "group", 1);
    if (pads.size() != 2 || strides.size() != 1 || dil.size() != 1 || strides[0] < 1 || dil[0] < 1 || group < 1 ||
        pads[0] < 0 || pads[1] < 0)
        throw ToolError("pads, strides, dilations or group that a 1-D convolution cannot have");
    const int64_t N = t.shape[0], C = t.shape[1], L = t.shape[2], M = w.shape[0], CG = w.shape[1], K = w.shape[2];
    if (C != CG * group || M % group != 0)
        throw ToolError("X " + shape_text(t.shape) + " and W " + shape_text(w.shape) + " do not match");
    const int64_t out_len = (L + pads[0] + pads[1] - dil[0] * (K - 1) - 1) / strides[0] + 1;
    if (out_len < 1) throw ToolError("the convolution's output would be empty");
    Tensor out = empty_like_type(t.type, {N, M, out_len});
    const int64_t per_group = M / group;
    for (int64_t s = 0; s < N; ++s)
        for (int64_t m = 0; m < M; ++m) {
            const int64_t g = m / per_group;
            for (int64_t o = 0; o < out_len; ++o) {
                double acc = b ? b->f[static_cast<size_t>(m)] : 0.0;
                for (int64_t c = 0; c < CG; ++c)
                    for (int64_t k = 0; k < K; ++k) {
                        const int64_t at = o * strides[0] + k * dil[0] - pads[0];
                        if (at < 0 || at >= L) continue;
                        acc += double{t.f[static_cast<size_t>((s * C + g * CG + c) * L + at)]} *
                               w.f[static_cast<size_t>((m * CG + c) * K + k)];
                    }
                out.f[static_cast<size_t>((s * M + m) * out_len + o)] = static_cast<float>(acc);
            }
        }
    return {out};
}

// ---- Einsum ----

// Explicit-output equations of letters ("bhqd,bhkd->bhqk"): every product summed over the letters not in the
// output. Ellipses and implicit outputs are refused.
Outputs op_einsum(const Node& n, const Inputs& x, int64_t) {
    std::string eq;
    for (char ch : string_attr(n, "equation", ""))
        if (ch != ' ') eq += ch;
    const size_t arrow = eq.find("->");
    if (arrow == std::string::npos || eq.find("...") != std::string::npos)
        throw ToolError("Einsum \"" + eq + "\": only explicit equations of letters (with ->, no ...) are evaluated");
    std::vector<std::string> terms;
    std::string lhs = eq.substr(0, arrow);
    for (size_t at = 0;;) {
        const size_t comma = lhs.find(',', at);
        terms.push_back(lhs.substr(at, comma - at));
        if (comma == std::string::npos) break;
        at = comma + 1;
    }
    const std::string out_letters = eq.substr(arrow + 2);
    if (terms.size() != x.size())
        throw ToolError("Einsum \"" + eq + "\" names " + std::to_string(terms.size()) + " operands");
    std::map<char, int64_t> size;
    for (size_t t = 0; t < terms.size(); ++t) {
        const Tensor& v = in(x, t, "operand");
        if (!v.is_float()) throw ToolError("Einsum of a non-float tensor");
        if (terms[t].size() != v.shape.size())
            throw ToolError("Einsum term \"" + terms[t] + "\" for a tensor of shape " + shape_text(v.shape));
        for (size_t k = 0; k < terms[t].size(); ++k) {
            const char c = terms[t][k];
            if (!std::isalpha(static_cast<unsigned char>(c)))
                throw ToolError("Einsum letter '" + std::string(1, c) + "'");
            if (size.count(c) && size[c] != v.shape[k])
                throw ToolError("Einsum letter " + std::string(1, c) + " of two sizes");
            size[c] = v.shape[k];
        }
    }
    std::string letters = out_letters;  // output letters first, then the summed ones
    for (const auto& [c, s] : size)
        if (out_letters.find(c) == std::string::npos) letters += c;
    std::vector<int64_t> out_shape, all_shape;
    for (char c : letters) {
        if (!size.count(c)) throw ToolError("Einsum output letter " + std::string(1, c) + " is in no operand");
        all_shape.push_back(size[c]);
    }
    out_shape.assign(all_shape.begin(), all_shape.begin() + static_cast<long>(out_letters.size()));
    Tensor out = empty_like_type(in(x, 0, "operand").type, out_shape);
    // For every operand, the stride each letter of `letters` moves it by.
    std::vector<std::vector<size_t>> stride(terms.size(), std::vector<size_t>(letters.size(), 0));
    for (size_t t = 0; t < terms.size(); ++t) {
        const std::vector<size_t> s = strides_of(x[t]->shape);
        for (size_t k = 0; k < terms[t].size(); ++k) stride[t][letters.find(terms[t][k])] += s[k];
    }
    const size_t total = element_count(all_shape, "an Einsum's iteration space", size_t{1} << 28);
    const size_t summed = out_shape.empty() ? total : total / std::max<size_t>(1, out.f.size());
    std::vector<int64_t> counter(letters.size(), 0);
    for (size_t o = 0; o < out.f.size(); ++o) {
        double acc = 0;
        for (size_t s = 0; s < summed; ++s) {
            double prod = 1;
            for (size_t t = 0; t < terms.size(); ++t) {
                size_t at = 0;
                for (size_t k = 0; k < letters.size(); ++k) at += stride[t][k] * static_cast<size_t>(counter[k]);
                prod *= x[t]->f[at];
            }
            acc += prod;
            for (size_t k = letters.size(); k-- > 0;) {  // next combination; the output letters carry last
                if (++counter[k] < all_shape[k]) break;
                counter[k] = 0;
            }
        }
        out.f[o] = static_cast<float>(acc);
    }
    return {out};
}

}  // namespace

namespace ops {

const Entry kMathOps[] = {
    {"Add", op_add},
    {"Sub", op_sub},
    {"Mul", op_mul},
    {"Div", op_div},
    {"Pow", op_pow},
    {"Min", op_min},
    {"Max", op_max},
    {"Equal", op_equal},
    {"Less", op_less},
    {"LessOrEqual", op_less_equal},
    {"Greater", op_greater},
    {"GreaterOrEqual", op_greater_equal},
    {"And", op_and},
    {"Or", op_or},
    {"Not", op_not},
    {"Where", op_where},
    {"Sqrt", op_sqrt},
    {"Exp", op_exp},
    {"Log", op_log},
    {"Tanh", op_tanh},
    {"Sigmoid", op_sigmoid},
    {"Relu", op_relu},
    {"Erf", op_erf},
    {"Gelu", op_gelu},
    {"Reciprocal", op_reciprocal},
    {"Floor", op_floor},
    {"Ceil", op_ceil},
    {"Sin", op_sin},
    {"Cos", op_cos},
    {"Neg", op_neg},
    {"Abs", op_abs},
    {"Clip", op_clip},
    {"MatMul", op_matmul},
    {"Gemm", op_gemm},
    {"Softmax", op_softmax},
    {"LayerNormalization", op_layer_norm},
    {"BatchNormalization", op_batch_norm},
    {"ReduceMean", op_reduce_mean},
    {"ReduceSum", op_reduce_sum},
    {"ReduceMax", op_reduce_max},
    {"ReduceMin", op_reduce_min},
    {"Conv", op_conv},
    {"Einsum", op_einsum},
    {nullptr, nullptr},
};

}  // namespace ops

}  // namespace ax::onnx
