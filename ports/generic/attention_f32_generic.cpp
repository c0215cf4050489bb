// Reference attention loops over a float key/value cache: a dot product per key, an axpy per value row.
#include <cstddef>

#include "ports/generic/generic.h"

namespace ax::generic {

void attention_scores_f32(const float* q, const float* k, size_t stride, size_t n_keys, size_t n, float scale,
                          float* scores) {
    for (size_t j = 0; j < n_keys; ++j) scores[j] = dot_f32(q, k + j * stride, n) * scale;
}

void attention_values_f32(const float* p, const float* v, size_t stride, size_t n_keys, size_t n, float* out) {
    for (size_t j = 0; j < n_keys; ++j) axpy_f32(n, p[j], v + j * stride, out);
}

}  // namespace ax::generic
