// LayerNorm with generic's float operations in generic's order (the sums are one chain each, as generic's),
// four elements per loop pass: on the Cortex-M cores a loop's counter, compare and branch cost as much as the
// arithmetic of one element. Scalar FPU code on every core.
#include <cmath>

#include "ports/generic/generic.h"
#include "ports/mcu/mcu.h"

namespace ax::mcu {

void layer_norm_f32(const float* x, size_t n, const float* gamma, const float* beta, float eps, float* y) {
    float mean = 0.0f;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        mean += x[i];
        mean += x[i + 1];
        mean += x[i + 2];
        mean += x[i + 3];
    }
    for (; i < n; ++i) mean += x[i];
    mean /= static_cast<float>(n);
    float var = 0.0f;
    for (i = 0; i + 4 <= n; i += 4) {
        const float d0 = x[i] - mean, d1 = x[i + 1] - mean, d2 = x[i + 2] - mean, d3 = x[i + 3] - mean;
        var += d0 * d0;
        var += d1 * d1;
        var += d2 * d2;
        var += d3 * d3;
    }
    for (; i < n; ++i) var += (x[i] - mean) * (x[i] - mean);
    var /= static_cast<float>(n);
    const float inv = 1.0f / std::sqrt(var + eps);
    // y may be x: element i is read before it is written, and by nothing else.
    for (i = 0; i + 4 <= n; i += 4) {
        const float x0 = x[i], x1 = x[i + 1], x2 = x[i + 2], x3 = x[i + 3];
        y[i] = (x0 - mean) * inv * gamma[i] + beta[i];
        y[i + 1] = (x1 - mean) * inv * gamma[i + 1] + beta[i + 1];
        y[i + 2] = (x2 - mean) * inv * gamma[i + 2] + beta[i + 2];
        y[i + 3] = (x3 - mean) * inv * gamma[i + 3] + beta[i + 3];
    }
    for (; i < n; ++i) y[i] = (x[i] - mean) * inv * gamma[i] + beta[i];
}

}  // namespace ax::mcu
