// The float32 dot product and matrix product in one summation order on every port: the reference port's
// kernels, and the float32 matrices of an int8 model on any port (Linear::fixed_order), so that an int8
// model's products give the same bits wherever it runs (docs/quantization.md).
#pragma once
#include <cstddef>

namespace ax {

// Four partial sums over i mod 4, then (s0 + s1) + (s2 + s3); no fused multiply-add (the build's
// -ffp-contract=off).
float dot_f32_fixed_order(const float* a, const float* b, size_t n);

// y[r * ldy + o] = bias[o] + dot(x row r, w row o) (bias nullptr: 0), each output a dot_f32_fixed_order.
void linear_f32_fixed_order(const float* x, size_t rows, size_t in, const float* w, const float* bias, size_t out,
                            float* y, size_t ldy);

}  // namespace ax
