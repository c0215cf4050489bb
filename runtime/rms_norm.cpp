#include "runtime/rms_norm.h"

#include <cmath>

namespace ax {

void rms_norm_rows(const float* x, size_t rows, size_t d, const float* weight, float eps, float* y) {
    for (size_t r = 0; r < rows; ++r) {
        const float* xr = x + r * d;
        float* yr = y + r * d;
        float sum = 0.0f;
        for (size_t i = 0; i < d; ++i) sum += xr[i] * xr[i];
        const float inv = 1.0f / std::sqrt(sum / static_cast<float>(d) + eps);
        for (size_t i = 0; i < d; ++i) yr[i] = weight[i] * (xr[i] * inv);
    }
}

}  // namespace ax
