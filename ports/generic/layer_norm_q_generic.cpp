// Integer LayerNorm (runtime/integer_kernels.h): integer mean and variance, an integer square root and one
// 64-bit division per row for the reciprocal; each value then costs a multiply and a shift.
#include <cstddef>
#include <cstdint>

#include "ports/generic/integer_generic.h"

namespace ax::generic {

namespace {

// z = round(d inv / 2^34) = (floor(d inv / 2^32) + 2) >> 2; |d| <= sqrt(n) (r + 1) keeps d inv below 2^56.
__attribute__((always_inline)) inline int32_t normalized(int32_t d, int64_t inv) {
    return (static_cast<int32_t>((static_cast<int64_t>(d) * inv) >> 32) + 2) >> 2;
}

}  // namespace

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
    // y = round(acc / 2^(12 + shift)) with acc = z gamma + beta 2^(4 + shift), as
    //   floor((z gamma + (beta + 128) 2^q) / 2^(q + 8)) = (floor(z gamma / 2^q) + beta + 128) >> 8,  q = 4 + shift
    // (the rounding half 2^(11 + shift) is 128 2^q; floor(floor(a) / 2^8) = floor(a / 2^8)).
    const int q = 4 + shift;
    // floor(z gamma / 2^q) is the high word of (z 2^p) gamma shifted right by k (p = 32 - q or k = q - 32), when
    // z 2^p fits int32: a bound on |z| from |d| < sqrt(n) (r + 1) (sum d^2 < n (v + 1) <= n (r + 1)^2) decides it
    // per row. Then |floor(z gamma / 2^q)| < 2^30 and |beta| <= 2^20 keep the sum in int32: one multiply and a few
    // word operations per value on a 32-bit core, instead of 64-bit shifts and compares.
    const int p = q < 32 ? 32 - q : 0, k = q > 32 ? q - 32 : 0;
    uint64_t root_n = 1;  // a power of two at least sqrt(n), n <= 2^16
    while (root_n * root_n < n) root_n <<= 1;
    const uint64_t d_bound = root_n * (static_cast<uint64_t>(r) + 1);
    const uint64_t z_bound = (d_bound * static_cast<uint64_t>(inv) + (uint64_t{1} << 33)) >> 34;
    if (z_bound < (uint64_t{1} << (31 - p))) {
        const int32_t scale = int32_t{1} << p;
        for (size_t i = 0; i < n; ++i) {
            const int32_t zs = normalized(x[i] - mean, inv) * scale;
            const int32_t t = static_cast<int32_t>((static_cast<int64_t>(zs) * gamma[i]) >> 32) >> k;
            const int32_t v = (t + beta[i] + 128) >> 8;
            y[i] = static_cast<int8_t>(v < -128 ? -128 : v > 127 ? 127 : v);
        }
        return;
    }
    for (size_t i = 0; i < n; ++i) {
        const int64_t t = (static_cast<int64_t>(normalized(x[i] - mean, inv)) * gamma[i]) >> q;
        y[i] = static_cast<int8_t>(fixed::clamp_i32((t + beta[i] + 128) >> 8, -128, 127));
    }
}

}  // namespace ax::generic
