// The integer residual step (runtime/integer_kernels.h): both inputs onto the output's int16 scale, each
// rounded once, then added and saturated.
#include <cstddef>
#include <cstdint>

#include "ports/generic/integer_generic.h"

namespace ax::generic {

namespace {

template <typename A, typename Y>
void add_q(const A* a, fixed::Requant ma, const int8_t* b, fixed::Requant mb, size_t n, Y* y, int32_t lo, int32_t hi) {
    // Both factors prepared for their inputs' widths (fixed_point.h): each value a multiply and a shift in 32-bit
    // words. Each term is below 2^29 in magnitude there, so their sum fits int32.
    const fixed::PreparedRequant fa = fixed::prepare_requant(ma, 8 * sizeof(A));
    const fixed::PreparedRequant fb = fixed::prepare_requant(mb, 8);
    if (fa.ok && fb.ok) {
        for (size_t i = 0; i < n; ++i) {
            const int32_t sum = fixed::requantize_prepared(a[i], fa) + fixed::requantize_prepared(b[i], fb);
            y[i] = static_cast<Y>(fixed::clamp_i32(sum, lo, hi));
        }
        return;
    }
    for (size_t i = 0; i < n; ++i) {
        const int64_t sum = fixed::requantize(a[i], ma) + fixed::requantize(b[i], mb);
        y[i] = static_cast<Y>(fixed::clamp_i32(sum, lo, hi));
    }
}

}  // namespace

void add_q8_to_q16(const int8_t* a, fixed::Requant ma, const int8_t* b, fixed::Requant mb, size_t n, int16_t* y) {
    add_q(a, ma, b, mb, n, y, INT16_MIN, INT16_MAX);
}

void add_q16_q8_to_q16(const int16_t* a, fixed::Requant ma, const int8_t* b, fixed::Requant mb, size_t n, int16_t* y) {
    add_q(a, ma, b, mb, n, y, INT16_MIN, INT16_MAX);
}

void add_q8_to_q8(const int8_t* a, fixed::Requant ma, const int8_t* b, fixed::Requant mb, size_t n, int8_t* y) {
    add_q(a, ma, b, mb, n, y, -128, 127);
}

}  // namespace ax::generic
