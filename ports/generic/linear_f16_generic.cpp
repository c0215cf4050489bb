// Reference product with IEEE half weights: each weight widened to float as it is used.
#include <cstddef>
#include <cstdint>

#include "ports/generic/generic.h"
#include "runtime/half.h"

namespace ax::generic {

void linear_f16(const float* x, size_t rows, size_t in, const uint16_t* w, const float* bias, size_t out, float* y,
                size_t ldy) {
    for (size_t r = 0; r < rows; ++r) {
        const float* xr = x + r * in;
        for (size_t o = 0; o < out; ++o) {
            const uint16_t* wo = w + o * in;
            float sum = 0.0f;
            for (size_t i = 0; i < in; ++i) sum += xr[i] * half_to_float(wo[i]);
            y[r * ldy + o] = (bias ? bias[o] : 0.0f) + sum;
        }
    }
}

}  // namespace ax::generic
