// Reference vector kernels: attention dot products, softmax, LayerNorm, activations, residual adds.
#include <cmath>
#include <cstddef>

#include "ports/generic/generic.h"
#include "runtime/float_math.h"

namespace ax::generic {

float dot_f32(const float* a, const float* b, size_t n) {
    // Four partial sums: the dependency chain of one sum would cap even the reference port's speed.
    float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        s0 += a[i] * b[i];
        s1 += a[i + 1] * b[i + 1];
        s2 += a[i + 2] * b[i + 2];
        s3 += a[i + 3] * b[i + 3];
    }
    for (; i < n; ++i) s0 += a[i] * b[i];
    return (s0 + s1) + (s2 + s3);
}

void axpy_f32(size_t n, float a, const float* x, float* y) {
    for (size_t i = 0; i < n; ++i) y[i] += a * x[i];
}

void attention_scores_f32(const float* q, const float* k, size_t stride, size_t n_keys, size_t n, float scale,
                          float* scores) {
    for (size_t j = 0; j < n_keys; ++j) scores[j] = dot_f32(q, k + j * stride, n) * scale;
}

void attention_values_f32(const float* p, const float* v, size_t stride, size_t n_keys, size_t n, float* out) {
    for (size_t j = 0; j < n_keys; ++j) axpy_f32(n, p[j], v + j * stride, out);
}

void softmax_f32(float* x, size_t n) {
    float max = x[0];
    for (size_t i = 1; i < n; ++i) max = x[i] > max ? x[i] : max;
    float sum = 0.0f;
    for (size_t i = 0; i < n; ++i) {
        x[i] = exp_f32(x[i] - max);
        sum += x[i];
    }
    const float inv = 1.0f / sum;
    for (size_t i = 0; i < n; ++i) x[i] *= inv;
}

void layer_norm_f32(const float* x, size_t n, const float* gamma, const float* beta, float eps, float* y) {
    float mean = 0.0f;
    for (size_t i = 0; i < n; ++i) mean += x[i];
    mean /= static_cast<float>(n);
    float var = 0.0f;
    for (size_t i = 0; i < n; ++i) var += (x[i] - mean) * (x[i] - mean);
    var /= static_cast<float>(n);
    const float inv = 1.0f / std::sqrt(var + eps);
    for (size_t i = 0; i < n; ++i) y[i] = (x[i] - mean) * inv * gamma[i] + beta[i];
}

void gelu_f32(float* x, size_t n) {
    for (size_t i = 0; i < n; ++i) x[i] = 0.5f * x[i] * (1.0f + erf_f32(x[i] * 0.70710678118654752f));
}

void relu_f32(float* x, size_t n) {
    for (size_t i = 0; i < n; ++i) x[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

void add_f32(float* y, const float* x, size_t n) {
    for (size_t i = 0; i < n; ++i) y[i] += x[i];
}

}  // namespace ax::generic
