// Reference float32 matrix product: plain loops, one output at a time.
#include <cstddef>

#include "ports/generic/generic.h"

namespace ax::generic {

void linear_f32(const float* x, size_t rows, size_t in, const float* w, const float* bias, size_t out, float* y,
                size_t ldy) {
    for (size_t r = 0; r < rows; ++r) {
        const float* xr = x + r * in;
        for (size_t o = 0; o < out; ++o) y[r * ldy + o] = (bias ? bias[o] : 0.0f) + dot_f32(xr, w + o * in, in);
    }
}

}  // namespace ax::generic
