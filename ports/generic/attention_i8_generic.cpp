// Attention over an int8 key/value cache: the reference that defines the bits (runtime/kernels.h). Scalar
// loops in a fixed order; every port uses these until a vector version is tested bit-identical to them.
#include <cstddef>
#include <cstdint>

#include "ports/generic/generic.h"

namespace ax::generic {

void attention_scores_i8(const float* q, const int8_t* k, const float* kscale, size_t stride, size_t n_keys, size_t n,
                         float scale, float* scores) {
    for (size_t j = 0; j < n_keys; ++j) {
        const int8_t* kj = k + j * stride;
        float sum = 0.0f;
        for (size_t i = 0; i < n; ++i) sum = sum + q[i] * static_cast<float>(kj[i]);
        scores[j] = (sum * kscale[j]) * scale;
    }
}

void attention_values_i8(const float* p, const int8_t* v, const float* vscale, size_t stride, size_t n_keys, size_t n,
                         float* out) {
    for (size_t j = 0; j < n_keys; ++j) {
        const int8_t* vj = v + j * stride;
        const float a = p[j] * vscale[j];
        for (size_t c = 0; c < n; ++c) out[c] = out[c] + a * static_cast<float>(vj[c]);
    }
}

}  // namespace ax::generic
