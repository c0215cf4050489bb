// y = x W^T + b with float32 weights on ZMM: see linear_float_avx512.h.
#include "ports/avx512/immintrin_avx512.h"
#include "ports/avx512/avx512.h"
#include "ports/avx512/linear_float_avx512.h"

namespace ax::avx512 {

void linear_f32(const float* x, size_t rows, size_t in, const float* w, const float* bias, size_t out, float* y,
                size_t ldy) {
    linear_float(x, rows, in, w, bias, out, y, ldy);
}

}  // namespace ax::avx512
