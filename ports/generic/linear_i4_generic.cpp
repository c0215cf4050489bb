// Reference 4-bit product (runtime/kernels.h, linear_i4): per group of 32 columns an exact int32 dot product,
// the groups summed in float in column order, then the row's scale and the bias.
#include <cstddef>
#include <cstdint>

#include "ports/generic/generic.h"
#include "runtime/half.h"

namespace ax::generic {

void linear_i4(const int8_t* xq, const float* xscale, size_t rows, size_t in, const uint8_t* w, const uint16_t* wscale,
               const float* bias, size_t out, float* y, size_t ldy) {
    const size_t groups = in / 32;
    for (size_t r = 0; r < rows; ++r) {
        const int8_t* xr = xq + r * in;
        for (size_t o = 0; o < out; ++o) {
            const uint8_t* wo = w + o * (in / 2);
            float sum = 0.0f;
            for (size_t g = 0; g < groups; ++g) {
                int32_t acc = 0;
                for (size_t j = g * 16; j < g * 16 + 16; ++j) {  // byte j: columns 2j (low nibble) and 2j + 1
                    const uint32_t b = wo[j];
                    acc += static_cast<int32_t>(xr[2 * j]) * (static_cast<int32_t>((b & 0xfu) ^ 8u) - 8) +
                           static_cast<int32_t>(xr[2 * j + 1]) * (static_cast<int32_t>((b >> 4) ^ 8u) - 8);
                }
                sum = accumulate_group_i4(sum, acc, half_to_float(wscale[o * groups + g]));
            }
            y[r * ldy + o] = finish_i4(sum, xscale[r], bias ? bias[o] : 0.0f);
        }
    }
}

}  // namespace ax::generic
