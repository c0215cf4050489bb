// Reference float32 matrix product: plain loops, one output at a time (the fixed order every port uses for an
// int8 model's float32 matrices).
#include <cstddef>

#include "ports/generic/generic.h"
#include "runtime/fixed_order_f32.h"

namespace ax::generic {

void linear_f32(const float* x, size_t rows, size_t in, const float* w, const float* bias, size_t out, float* y,
                size_t ldy) {
    linear_f32_fixed_order(x, rows, in, w, bias, out, y, ldy);
}

}  // namespace ax::generic
