// Reference vector kernels: ReLU, the residual add, and the dot product and axpy the matrix and attention
// kernels are built from.
#include <cstddef>

#include "ports/generic/generic.h"

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

void relu_f32(float* x, size_t n) {
    for (size_t i = 0; i < n; ++i) x[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

void add_f32(float* y, const float* x, size_t n) {
    for (size_t i = 0; i < n; ++i) y[i] += x[i];
}

}  // namespace ax::generic
