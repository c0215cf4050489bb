// The integer linear layer in its three input/output widths (runtime/integer_kernels.h): one loop, the
// accumulator wide enough for the inputs (int32 for int8 x int8 rows up to 2^16 long, int64 for int16).
#include <cstddef>
#include <cstdint>

#include "ports/generic/integer_generic.h"

namespace ax::generic {

namespace {

template <typename Acc, typename In, typename Out>
void linear_q(const In* x, size_t rows, size_t in, const int8_t* w, const int32_t* bias, const fixed::Requant* m,
              size_t out, int32_t zero, int32_t lo, int32_t hi, Out* y) {
    for (size_t r = 0; r < rows; ++r) {
        const In* xr = x + r * in;
        for (size_t o = 0; o < out; ++o) {
            const int8_t* wo = w + o * in;
            Acc acc = bias != nullptr ? bias[o] : 0;
            for (size_t i = 0; i < in; ++i) acc += static_cast<Acc>(xr[i]) * wo[i];
            // An int64 sum of int16 rows may exceed int32 only where the layer's own outputs would saturate:
            // saturating it first keeps the requantized value on the same side of the clamp.
            const int32_t sum = fixed::clamp_i32(acc, INT32_MIN, INT32_MAX);
            y[r * out + o] = static_cast<Out>(fixed::clamp_i32(zero + fixed::requantize(sum, m[o]), lo, hi));
        }
    }
}

}  // namespace

void linear_q8(const int8_t* x, size_t rows, size_t in, const int8_t* w, const int32_t* bias, const fixed::Requant* m,
               size_t out, int32_t zero, int32_t lo, int32_t hi, int8_t* y) {
    linear_q<int32_t>(x, rows, in, w, bias, m, out, zero, lo, hi, y);
}

void linear_q8_to_q16(const int8_t* x, size_t rows, size_t in, const int8_t* w, const int32_t* bias,
                      const fixed::Requant* m, size_t out, int32_t zero, int32_t lo, int32_t hi, int16_t* y) {
    linear_q<int32_t>(x, rows, in, w, bias, m, out, zero, lo, hi, y);
}

void linear_q16_to_q8(const int16_t* x, size_t rows, size_t in, const int8_t* w, const int32_t* bias,
                      const fixed::Requant* m, size_t out, int32_t zero, int32_t lo, int32_t hi, int8_t* y) {
    linear_q<int64_t>(x, rows, in, w, bias, m, out, zero, lo, hi, y);
}

}  // namespace ax::generic
