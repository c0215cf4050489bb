#include "runtime/instance_norm.h"

#include <cmath>

namespace ax {

InstanceScale instance_scale(const float* x, size_t n, float eps) {
    // Sums in double: a context of 512 values near 1e6 would lose the location's last bits in a float sum,
    // where PyTorch's pairwise float sum keeps them.
    double sum = 0.0;
    size_t count = 0;
    for (size_t i = 0; i < n; ++i)
        if (!std::isnan(x[i])) {
            sum += static_cast<double>(x[i]);
            ++count;
        }
    InstanceScale s;
    if (count == 0) return s;  // all missing: loc 0, scale 1
    s.loc = static_cast<float>(sum / static_cast<double>(count));
    double squares = 0.0;
    for (size_t i = 0; i < n; ++i)
        if (!std::isnan(x[i])) {
            const float d = x[i] - s.loc;
            squares += static_cast<double>(d * d);
        }
    s.scale = std::sqrt(static_cast<float>(squares / static_cast<double>(count)));
    if (s.scale == 0.0f) s.scale = eps;
    return s;
}

void instance_normalize(const float* x, size_t n, InstanceScale s, float* y) {
    for (size_t i = 0; i < n; ++i) y[i] = (x[i] - s.loc) / s.scale;
}

void instance_denormalize(float* x, size_t n, InstanceScale s) {
    for (size_t i = 0; i < n; ++i) x[i] = x[i] * s.scale + s.loc;
}

}  // namespace ax
