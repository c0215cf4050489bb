// Integer softmax (runtime/integer_kernels.h): distances below the largest score, the exponential from a
// table with linear interpolation, one 64-bit division per row for the reciprocal of the sum.
#include <cstddef>
#include <cstdint>

#include "ports/generic/integer_generic.h"

namespace ax::generic {

void softmax_q15(int32_t* s, size_t n, fixed::Requant to_exp) {
    int32_t top = s[0];
    for (size_t j = 1; j < n; ++j) top = s[j] > top ? s[j] : top;
    constexpr int32_t kLast = static_cast<int32_t>(fixed::kExpTableSize) - 1;  // the table's 0
    uint64_t sum = 0;
    for (size_t j = 0; j < n; ++j) {
        const int64_t below = static_cast<int64_t>(top) - s[j];
        const int32_t distance = below > INT32_MAX ? INT32_MAX : static_cast<int32_t>(below);
        const int64_t t = fixed::requantize(distance, to_exp);
        const int64_t i = t >> fixed::kExpIndexShift;
        int32_t e = 0;
        if (i < kLast) {
            const int32_t f = static_cast<int32_t>(t & ((1 << fixed::kExpIndexShift) - 1));
            const int32_t hi = fixed::kExpQ15[i];
            const int32_t lo = fixed::kExpQ15[i + 1];
            e = hi - static_cast<int32_t>(fixed::shift_round((hi - lo) * f, fixed::kExpIndexShift));
        }
        s[j] = e;
        sum += static_cast<uint64_t>(e);
    }
    // The largest score gives e = 32768, so sum >= 32768 and the reciprocal fits 32 bits.
    const int64_t inv = static_cast<int64_t>(((uint64_t{1} << 46) + sum / 2) / sum);
    for (size_t j = 0; j < n; ++j) s[j] = static_cast<int32_t>(fixed::shift_round(s[j] * inv, 31));
}

}  // namespace ax::generic
