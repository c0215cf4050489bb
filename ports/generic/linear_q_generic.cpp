// The integer linear layer in its three input/output widths (runtime/integer_kernels.h): one loop, the
// accumulator wide enough for the inputs (int32 for int8 x int8 rows up to 2^16 long, int64 for int16).
#include <cstddef>
#include <cstdint>

#include "ports/generic/integer_generic.h"

namespace ax::generic {

namespace {

// sum over i of x[i] * w[k * n + i] into a[k], k < 4: the pointers walk, so the loop holds in registers.
template <typename Acc, typename In>
void dot4(const In* x, const int8_t* w, size_t n, Acc* a) {
    const int8_t* w0 = w;
    const int8_t* w1 = w0 + n;
    const int8_t* w2 = w1 + n;
    const int8_t* w3 = w2 + n;
    Acc a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    for (const In* end = x + n; x != end; ++x) {
        const Acc xi = *x;
        a0 += xi * *w0++;
        a1 += xi * *w1++;
        a2 += xi * *w2++;
        a3 += xi * *w3++;
    }
    a[0] = a0;
    a[1] = a1;
    a[2] = a2;
    a[3] = a3;
}

// Four output rows at a time, each input value loaded once for the four: on a core without SIMD (Cortex-M0+,
// M3) that is a load and a multiply-accumulate per product instead of two loads. Integer sums are exact in
// any order, so the blocking changes no bit.
template <typename Acc, typename In, typename Out>
void linear_q(const In* x, size_t rows, size_t in, const int8_t* w, const int32_t* bias, const fixed::Requant* m,
              size_t out, int32_t zero, int32_t lo, int32_t hi, Out* y) {
    for (size_t r = 0; r < rows; ++r) {
        const In* xr = x + r * in;
        Out* yr = y + r * out;
        size_t o = 0;
        for (; o + 4 <= out; o += 4) {
            Acc a[4];
            dot4<Acc>(xr, w + o * in, in, a);
            for (size_t k = 0; k < 4; ++k)
                yr[o + k] = linear_q_output<Out>(a[k] + (bias != nullptr ? bias[o + k] : 0), m[o + k], zero, lo, hi);
        }
        for (; o < out; ++o) {
            const int8_t* wo = w + o * in;
            Acc acc = bias != nullptr ? bias[o] : 0;
            for (size_t i = 0; i < in; ++i) acc += static_cast<Acc>(xr[i]) * wo[i];
            yr[o] = linear_q_output<Out>(acc, m[o], zero, lo, hi);
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
