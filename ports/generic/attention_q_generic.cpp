// Integer attention over int8 keys and values (runtime/integer_kernels.h): exact int32 scores, and the
// probability-weighted sum of values rescaled once per output value.
#include <cstddef>
#include <cstdint>

#include "ports/generic/integer_generic.h"

namespace ax::generic {

void attention_scores_q8(const int8_t* q, const int8_t* k, size_t stride, size_t n_keys, size_t n, int32_t* scores) {
    for (size_t j = 0; j < n_keys; ++j) {
        const int8_t* kj = k + j * stride;
        int32_t sum = 0;
        for (size_t i = 0; i < n; ++i) sum += static_cast<int32_t>(q[i]) * kj[i];
        scores[j] = sum;
    }
}

void attention_values_q15(const int32_t* p, const int8_t* v, size_t stride, size_t n_keys, size_t n, fixed::Requant m,
                          int8_t* out) {
    // sum p <= 32768 + n_keys (rounding), so |acc| < 128 (32768 + n_keys): int32 holds it. Four values per
    // pass over the keys, each probability loaded once for the four and each key's values side by side (one
    // value per pass walks the cache a stride per product); integer sums are exact in any order.
    size_t c = 0;
    for (; c + 4 <= n; c += 4) {
        int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
        const int8_t* vj = v + c;
        for (size_t j = 0; j < n_keys; ++j, vj += stride) {
            const int32_t pj = p[j];
            a0 += pj * vj[0];
            a1 += pj * vj[1];
            a2 += pj * vj[2];
            a3 += pj * vj[3];
        }
        out[c] = static_cast<int8_t>(fixed::clamp_i32(fixed::requantize(a0, m), -128, 127));
        out[c + 1] = static_cast<int8_t>(fixed::clamp_i32(fixed::requantize(a1, m), -128, 127));
        out[c + 2] = static_cast<int8_t>(fixed::clamp_i32(fixed::requantize(a2, m), -128, 127));
        out[c + 3] = static_cast<int8_t>(fixed::clamp_i32(fixed::requantize(a3, m), -128, 127));
    }
    for (; c < n; ++c) {
        int32_t acc = 0;
        for (size_t j = 0; j < n_keys; ++j) acc += p[j] * v[j * stride + c];
        out[c] = static_cast<int8_t>(fixed::clamp_i32(fixed::requantize(acc, m), -128, 127));
    }
}

}  // namespace ax::generic
