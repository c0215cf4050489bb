// Reference int8 product: exact int32 sums, one rescale per output (generic.h's rescale_i8).
#include <cstddef>
#include <cstdint>

#include "ports/generic/generic.h"

namespace ax::generic {

void linear_i8(const int8_t* xq, const float* xscale, size_t rows, size_t in, const int8_t* w, const float* wscale,
               const float* bias, size_t out, float* y, size_t ldy) {
    for (size_t r = 0; r < rows; ++r) {
        const int8_t* xr = xq + r * in;
        for (size_t o = 0; o < out; ++o) {
            const int8_t* wo = w + o * in;
            int32_t acc = 0;
            for (size_t i = 0; i < in; ++i) acc += static_cast<int32_t>(xr[i]) * static_cast<int32_t>(wo[i]);
            y[r * ldy + o] = rescale_i8(acc, xscale[r], wscale[o], bias ? bias[o] : 0.0f);
        }
    }
}

}  // namespace ax::generic
