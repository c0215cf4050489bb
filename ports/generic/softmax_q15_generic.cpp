// Integer softmax (runtime/integer_kernels.h): distances below the largest score, the exponential from a
// table with linear interpolation, one 64-bit division per row for the reciprocal of the sum.
#include <cstddef>
#include <cstdint>

#include "ports/generic/integer_generic.h"

namespace ax::generic {

namespace {

// The exponential of a distance t >= 0 below the row's largest score (t in 1/8192 units).
__attribute__((always_inline)) inline int32_t exp_q15(uint32_t t) {
    constexpr uint32_t kLast = fixed::kExpTableSize - 1;  // the table's 0
    const uint32_t i = t >> fixed::kExpIndexShift;
    if (i >= kLast) return 0;
    const int32_t f = static_cast<int32_t>(t & ((1u << fixed::kExpIndexShift) - 1));
    const int32_t hi = fixed::kExpQ15[i];
    const int32_t lo = fixed::kExpQ15[i + 1];
    // (hi - lo) f < 2^23: the rounding shift in int32.
    return hi - (((hi - lo) * f + (1 << (fixed::kExpIndexShift - 1))) >> fixed::kExpIndexShift);
}

}  // namespace

// Word-sized throughout where that is exact (every exponential and probability at most 32768, the reciprocal
// at most 2^31): on a 32-bit core each score is a few word operations and one multiply instead of 64-bit
// arithmetic. The distance's rescale:
// - factors below 1/2: requantize_small, for any distance;
// - larger ones (s = 31 - shift in [2, 32]): requantize is monotone, so the distances from
//   limit = ceil((2T - 1) 2^(s-1) / M) on (T = kExpTableSize * 256) all give t >= T, an exponential of 0; below
//   it x M < (2T - 1) 2^(s-1), so x 2^(33-s) < (2T - 1) 2^32 / M < 2^20 fits int32, and
//   t = (high(x 2^(33-s) M) + 1) >> 1 = floor((x M + 2^(s-1)) / 2^s) (floor((floor(a) + 1) / 2) = floor((a + 1) / 2));
// - s = 1: requantize in 64 bits.
void softmax_q15(int32_t* s, size_t n, fixed::Requant to_exp) {
    int32_t top = s[0];
    for (size_t j = 1; j < n; ++j) top = s[j] > top ? s[j] : top;
    constexpr uint64_t kEnd = uint64_t{fixed::kExpTableSize} << fixed::kExpIndexShift;  // T
    const int shift_s = 31 - to_exp.shift;
    const bool small = to_exp.shift <= fixed::kMaxSmallShift;
    uint32_t limit = 0;
    int32_t scale = 1;
    uint32_t scaled_max = 0;  // the largest distance whose distance * scale fits int32
    if (!small && shift_s >= 2) {
        const uint64_t m = static_cast<uint64_t>(to_exp.multiplier);
        const uint64_t d = m == 0 ? uint64_t{1} << 31 : (((2 * kEnd - 1) << (shift_s - 1)) + m - 1) / m;
        limit = d > (uint64_t{1} << 31) ? uint32_t{1} << 31 : static_cast<uint32_t>(d);
        scale = int32_t{1} << (33 - shift_s);
        scaled_max = static_cast<uint32_t>(INT32_MAX / scale);
    }
    uint64_t sum = 0;
    for (size_t j = 0; j < n; ++j) {
        // top - s[j] in [0, 2^32), exact in uint32; distances past INT32_MAX count as INT32_MAX.
        const uint32_t below = static_cast<uint32_t>(top) - static_cast<uint32_t>(s[j]);
        const int32_t distance = below > uint32_t{INT32_MAX} ? INT32_MAX : static_cast<int32_t>(below);
        int32_t e;
        if (small) {
            e = exp_q15(static_cast<uint32_t>(fixed::requantize_small(distance, to_exp)));  // >= 0, < 2^30
        } else if (limit != 0 &&
                   (static_cast<uint32_t>(distance) >= limit || static_cast<uint32_t>(distance) <= scaled_max)) {
            // (A multiplier below 2^30, which the converter does not write, can leave distances below limit
            // whose distance * scale overflows: those take the 64-bit form below, the same value.)
            if (static_cast<uint32_t>(distance) >= limit) {
                e = 0;
            } else {
                const int32_t high =
                    static_cast<int32_t>((static_cast<int64_t>(distance * scale) * to_exp.multiplier) >> 32);
                e = exp_q15(static_cast<uint32_t>((high + 1) >> 1));
            }
        } else {
            const int64_t t = fixed::requantize(distance, to_exp);
            e = t >= static_cast<int64_t>(kEnd) ? 0 : exp_q15(static_cast<uint32_t>(t));
        }
        s[j] = e;
        sum += static_cast<uint32_t>(e);
    }
    // The largest score gives e = 32768, so sum >= 32768 and the reciprocal is at most 2^31.
    const uint32_t inv = static_cast<uint32_t>(((uint64_t{1} << 46) + sum / 2) / sum);
    for (size_t j = 0; j < n; ++j)
        s[j] = static_cast<int32_t>((static_cast<uint64_t>(static_cast<uint32_t>(s[j])) * inv + (uint64_t{1} << 30)) >>
                                    31);
}

}  // namespace ax::generic
