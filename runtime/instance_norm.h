// Instance normalization of a context ("scaling" in Chronos and GluonTS): the series minus its mean, over its
// population standard deviation, both over the values present (NaN = missing, anywhere). A constant series has
// scale eps; an all-missing one location 0 and scale 1, as the authors' InstanceNorm gives. The forecast is
// mapped back with the same two numbers.
#pragma once
#include <cstddef>

namespace ax {

struct InstanceScale {
    float loc = 0.0f;
    float scale = 1.0f;
};

// The context's location and scale (eps: Chronos-Bolt's 1e-5).
InstanceScale instance_scale(const float* x, size_t n, float eps);
// y = (x - loc) / scale; NaN stays NaN. y may equal x.
void instance_normalize(const float* x, size_t n, InstanceScale s, float* y);
// In place: x * scale + loc.
void instance_denormalize(float* x, size_t n, InstanceScale s);

}  // namespace ax
