#include "runtime/fixed_order_f32.h"

namespace ax {

float dot_f32_fixed_order(const float* a, const float* b, size_t n) {
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

void linear_f32_fixed_order(const float* x, size_t rows, size_t in, const float* w, const float* bias, size_t out,
                            float* y, size_t ldy) {
    for (size_t r = 0; r < rows; ++r) {
        const float* xr = x + r * in;
        for (size_t o = 0; o < out; ++o)
            y[r * ldy + o] = (bias ? bias[o] : 0.0f) + dot_f32_fixed_order(xr, w + o * in, in);
    }
}

}  // namespace ax
