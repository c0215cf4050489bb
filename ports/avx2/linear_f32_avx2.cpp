// y = x W^T + b with float32 weights: see linear_float_avx2.h for the two tilings.
#include "ports/avx2/avx2.h"
#include "ports/avx2/linear_float_avx2.h"

namespace ax::avx2 {

void linear_f32(const float* x, size_t rows, size_t in, const float* w, const float* bias, size_t out, float* y,
                size_t ldy) {
    detail::linear_float(x, rows, in, w, bias, out, y, ldy);
}

}  // namespace ax::avx2
