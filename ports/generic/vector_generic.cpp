// Reference vector kernels: ReLU, the residual add, and the dot product and axpy the matrix and attention
// kernels are built from.
#include <cstddef>

#include "ports/generic/generic.h"
#include "runtime/fixed_order_f32.h"

namespace ax::generic {

float dot_f32(const float* a, const float* b, size_t n) { return dot_f32_fixed_order(a, b, n); }

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
