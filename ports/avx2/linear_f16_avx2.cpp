// y = x W^T + b with IEEE-half weights, converted by F16C as they are loaded (dot tiles) or packed
// (panel path): see linear_float_avx2.h. The conversion is exact, so only the summation order differs
// from generic.
#include "ports/avx2/avx2.h"
#include "ports/avx2/linear_float_avx2.h"

namespace ax::avx2 {

void linear_f16(const float* x, size_t rows, size_t in, const uint16_t* w, const float* bias, size_t out, float* y,
                size_t ldy) {
    detail::linear_float(x, rows, in, w, bias, out, y, ldy);
}

}  // namespace ax::avx2
