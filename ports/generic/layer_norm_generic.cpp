// Reference LayerNorm: two passes (mean, then biased variance), as torch.nn.LayerNorm.
#include <cmath>
#include <cstddef>

#include "ports/generic/generic.h"

namespace ax::generic {

void layer_norm_f32(const float* x, size_t n, const float* gamma, const float* beta, float eps, float* y) {
    float mean = 0.0f;
    for (size_t i = 0; i < n; ++i) mean += x[i];
    mean /= static_cast<float>(n);
    float var = 0.0f;
    for (size_t i = 0; i < n; ++i) var += (x[i] - mean) * (x[i] - mean);
    var /= static_cast<float>(n);
    const float inv = 1.0f / std::sqrt(var + eps);
    for (size_t i = 0; i < n; ++i) y[i] = (x[i] - mean) * inv * gamma[i] + beta[i];
}

}  // namespace ax::generic
