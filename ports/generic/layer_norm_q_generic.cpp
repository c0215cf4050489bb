// Integer LayerNorm (runtime/integer_kernels.h): integer mean and variance, an integer square root and one
// 64-bit division per row for the reciprocal; each value then costs a multiply and a shift.
#include <cstddef>
#include <cstdint>

#include "ports/generic/integer_generic.h"

namespace ax::generic {

void layer_norm_q16_to_q8(const int16_t* x, size_t n, const int32_t* gamma, const int32_t* beta, int32_t shift,
                          uint64_t eps, int8_t* y) {
    // The mean rounded to the input's own step: x is int16, so the variance around it is the exact one plus at
    // most a quarter step squared, far below what the int8 output resolves.
    int64_t sum = 0;
    for (size_t i = 0; i < n; ++i) sum += x[i];
    const int64_t count = static_cast<int64_t>(n);
    // Floor division (halves up) that does not depend on how the compiler divides negative numbers.
    const int64_t shifted = sum + count / 2;
    const int32_t mean = static_cast<int32_t>(shifted >= 0 ? shifted / count : -((-shifted + count - 1) / count));
    uint64_t squares = 0;
    for (size_t i = 0; i < n; ++i) {
        const int64_t d = x[i] - mean;
        squares += static_cast<uint64_t>(d * d);
    }
    const uint64_t v = squares / static_cast<uint64_t>(n) + eps;
    uint32_t r = fixed::isqrt_u64(v);
    if (static_cast<uint64_t>(r) * r + r < v) ++r;  // round to nearest: v > r^2 + r means sqrt(v) > r + 1/2
    if (r == 0) r = 1;
    const int64_t inv = ((int64_t{1} << 46) + r / 2) / r;
    const int total = 12 + shift;
    for (size_t i = 0; i < n; ++i) {
        const int64_t z = fixed::shift_round((x[i] - mean) * inv, 34);  // |d| <= sqrt(n) (r + 1): no overflow
        // beta x 2^(4 + shift) as a product: a left shift of a negative value is undefined.
        const int64_t acc = z * gamma[i] + static_cast<int64_t>(beta[i]) * (int64_t{1} << (4 + shift));
        y[i] = static_cast<int8_t>(fixed::clamp_i32(fixed::shift_round(acc, total), -128, 127));
    }
}

}  // namespace ax::generic
