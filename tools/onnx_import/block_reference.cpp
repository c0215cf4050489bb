#include "tools/onnx_import/block_reference.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "tools/common/tool_error.h"

namespace ax::onnx_import {

namespace {

using Rows = std::vector<double>;

const tools::HostTensor& tensor(const tools::TensorMap& t, const std::string& name) {
    const auto it = t.find(name);
    if (it == t.end()) throw tools::ToolError("internal error: the lowering gave no tensor " + name);
    return it->second;
}

// y = x W^T + b for W [out, in] (rows of W from `first`, `count` of them).
Rows linear(const Rows& x, size_t rows, const tools::HostTensor& w, const tools::HostTensor& b, size_t first,
            size_t count) {
    const size_t in = static_cast<size_t>(w.shape[1]);
    Rows y(rows * count);
    for (size_t r = 0; r < rows; ++r)
        for (size_t o = 0; o < count; ++o) {
            double s = b.data[first + o];
            for (size_t i = 0; i < in; ++i) s += x[r * in + i] * w.data[(first + o) * in + i];
            y[r * count + o] = s;
        }
    return y;
}

Rows norm(const tools::TensorMap& t, const std::string& module, const Rows& x, size_t rows, size_t d, double eps) {
    const tools::HostTensor& w = tensor(t, module + ".weight");
    const tools::HostTensor& b = tensor(t, module + ".bias");
    Rows y(x.size());
    if (t.count(module + ".running_mean")) {  // BatchNorm1d in evaluation mode: per channel, over no rows
        const tools::HostTensor& mean = tensor(t, module + ".running_mean");
        const tools::HostTensor& var = tensor(t, module + ".running_var");
        for (size_t r = 0; r < rows; ++r)
            for (size_t c = 0; c < d; ++c)
                y[r * d + c] = (x[r * d + c] - mean.data[c]) / std::sqrt(var.data[c] + eps) * w.data[c] + b.data[c];
        return y;
    }
    for (size_t r = 0; r < rows; ++r) {
        double mean = 0, var = 0;
        for (size_t c = 0; c < d; ++c) mean += x[r * d + c];
        mean /= static_cast<double>(d);
        for (size_t c = 0; c < d; ++c) var += (x[r * d + c] - mean) * (x[r * d + c] - mean);
        var /= static_cast<double>(d);
        for (size_t c = 0; c < d; ++c)
            y[r * d + c] = (x[r * d + c] - mean) / std::sqrt(var + eps) * w.data[c] + b.data[c];
    }
    return y;
}

Rows attention(const tools::TensorMap& t, const std::string& module, const Rows& q_in, size_t rows, const Rows& kv_in,
               size_t kv_rows, size_t d, int64_t heads, bool causal, const std::vector<bool>& padded,
               std::vector<double>* residual = nullptr) {
    const tools::HostTensor& w = tensor(t, module + ".in_proj_weight");
    const tools::HostTensor& b = tensor(t, module + ".in_proj_bias");
    // The values: the in_proj's rows after the queries' and keys', heads of vd columns (hd unless the attention
    // was written with value heads of their own width).
    const size_t values = static_cast<size_t>(w.shape[0]) - 2 * d;
    const Rows q = linear(q_in, rows, w, b, 0, d), k = linear(kv_in, kv_rows, w, b, d, d),
               v = linear(kv_in, kv_rows, w, b, 2 * d, values);
    const size_t hd = d / static_cast<size_t>(heads), vd = values / static_cast<size_t>(heads);
    Rows ctx(rows * values, 0.0);
    std::vector<double> p(kv_rows);
    // Residual attention: the previous layer's scores [heads, rows, kv_rows] added before the softmax (none before
    // the first layer); this layer's replace them.
    std::vector<double> scores;
    const bool add_previous = residual && residual->size() == static_cast<size_t>(heads) * rows * kv_rows;
    for (size_t h = 0; h < static_cast<size_t>(heads); ++h)
        for (size_t i = 0; i < rows; ++i) {
            double top = -std::numeric_limits<double>::infinity();
            for (size_t j = 0; j < kv_rows; ++j) {
                double s = 0;
                for (size_t c = 0; c < hd; ++c) s += q[i * d + h * hd + c] * k[j * d + h * hd + c];
                s /= std::sqrt(double(hd));
                if (add_previous) s += (*residual)[(h * rows + i) * kv_rows + j];
                if (residual) scores.push_back(s);
                const bool masked = (causal && j > i) || (j < padded.size() && padded[j]);
                p[j] = masked ? -std::numeric_limits<double>::infinity() : s;
                top = std::max(top, p[j]);
            }
            double sum = 0;
            for (size_t j = 0; j < kv_rows; ++j) sum += (p[j] = std::exp(p[j] - top));
            for (size_t j = 0; j < kv_rows; ++j)
                for (size_t c = 0; c < vd; ++c) ctx[i * values + h * vd + c] += p[j] / sum * v[j * values + h * vd + c];
        }
    if (residual) *residual = std::move(scores);
    return linear(ctx, rows, tensor(t, module + ".out_proj.weight"), tensor(t, module + ".out_proj.bias"), 0, d);
}

Rows feed_forward(const tools::TensorMap& t, const std::string& prefix, const Rows& x, size_t rows,
                  format::Activation act) {
    const tools::HostTensor& w1 = tensor(t, prefix + "linear1.weight");
    Rows h = linear(x, rows, w1, tensor(t, prefix + "linear1.bias"), 0, static_cast<size_t>(w1.shape[0]));
    const double sqrt_2_over_pi = std::sqrt(2.0 / 3.14159265358979323846);
    for (double& e : h) {
        if (act == format::Activation::gelu)
            e = 0.5 * e * (1.0 + std::erf(e / std::sqrt(2.0)));
        else if (act == format::Activation::gelu_tanh)
            e = 0.5 * e * (1.0 + std::tanh(sqrt_2_over_pi * (e + 0.044715 * e * e * e)));
        else
            e = std::max(e, 0.0);
    }
    const tools::HostTensor& w2 = tensor(t, prefix + "linear2.weight");
    return linear(h, rows, w2, tensor(t, prefix + "linear2.bias"), 0, static_cast<size_t>(w2.shape[0]));
}

void add_to(Rows& x, const Rows& y) {
    for (size_t i = 0; i < x.size(); ++i) x[i] += y[i];
}

}  // namespace

std::vector<float> reference_layer(const tools::TensorMap& t, const std::string& prefix, const LayerOptions& o,
                                   const std::vector<float>& x_in, size_t rows, const std::vector<float>* memory,
                                   size_t memory_rows, std::vector<double>* scores) {
    const size_t d = rows == 0 ? 0 : x_in.size() / rows;
    Rows x(x_in.begin(), x_in.end());
    const Rows mem = memory ? Rows(memory->begin(), memory->end()) : Rows();
    // The sublayers in order: self-attention, attention over the memory (a decoder's), feed-forward; norm k+1 each.
    const int sublayers = memory ? 3 : 2;
    for (int s = 0; s < sublayers; ++s) {
        const std::string norm_name = prefix + "norm" + std::to_string(s + 1);
        const Rows in = o.norm_first ? norm(t, norm_name, x, rows, d, o.eps) : x;
        Rows y;
        if (s == 0)
            y = attention(t, prefix + "self_attn", in, rows, in, rows, d, o.heads, o.causal,
                          memory ? o.padded_target : o.padded_source,
                          !memory && o.residual_attention ? scores : nullptr);
        else if (s == 1 && memory)
            y = attention(t, prefix + "multihead_attn", in, rows, mem, memory_rows, d, o.heads, o.memory_tril,
                          o.padded_source);
        else
            y = feed_forward(t, prefix, in, rows, o.activation);
        add_to(x, y);
        if (!o.norm_first) x = norm(t, norm_name, x, rows, d, o.eps);
    }
    return std::vector<float>(x.begin(), x.end());
}

}  // namespace ax::onnx_import
