// T5's layer norm (T5LayerNorm, also called RMS norm): each row divided by the root of its mean square, then
// scaled per channel; no mean subtracted, no bias. Float32 throughout, as the authors compute it.
#pragma once
#include <cstddef>

namespace ax {

// y[r, :] = weight * (x[r, :] * (1 / sqrt(mean(x[r, :]^2) + eps))) for rows r of d values; y may equal x.
void rms_norm_rows(const float* x, size_t rows, size_t d, const float* weight, float eps, float* y);

}  // namespace ax
