// Reference per-row activation quantization; the float operations are part of the int8 contract.
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "ports/generic/generic.h"

namespace ax::generic {

void quantize_rows_i8(const float* x, size_t rows, size_t n, int8_t* q, float* scales) {
    for (size_t r = 0; r < rows; ++r) {
        const float* xr = x + r * n;
        int8_t* qr = q + r * n;
        float amax = 0.0f;
        for (size_t i = 0; i < n; ++i) amax = std::fabs(xr[i]) > amax ? std::fabs(xr[i]) : amax;
        if (amax == 0.0f) {
            scales[r] = 0.0f;
            for (size_t i = 0; i < n; ++i) qr[i] = 0;
            continue;
        }
        scales[r] = amax / 127.0f;
        const float inv = 127.0f / amax;
        for (size_t i = 0; i < n; ++i) {
            // nearbyint rounds half to even in the default rounding mode, as SIMD conversions do.
            // A row whose amax is below ~3.7e-37 makes inv infinite: 0 * inf is NaN, which maps to 0.
            float v = std::nearbyint(xr[i] * inv);
            v = v > 127.0f ? 127.0f : (v < -127.0f ? -127.0f : v);
            if (v != v) v = 0.0f;
            qr[i] = static_cast<int8_t>(v);
        }
    }
}

}  // namespace ax::generic
