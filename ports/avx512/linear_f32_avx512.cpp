// y = x W^T + b with float32 and IEEE-half weights on ZMM: see linear_float_avx512.h.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
// GCC 12's AVX-512 headers start some intrinsics from _mm512_undefined_*() and then warn about it
// (GCC bug 105593, fixed in GCC 13): not an uninitialized value of ours.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include "ports/avx512/avx512.h"
#include "ports/avx512/linear_float_avx512.h"

namespace ax::avx512 {

void linear_f32(const float* x, size_t rows, size_t in, const float* w, const float* bias, size_t out, float* y) {
    linear_float(x, rows, in, w, bias, out, y);
}

void linear_f16(const float* x, size_t rows, size_t in, const uint16_t* w, const float* bias, size_t out, float* y) {
    linear_float(x, rows, in, w, bias, out, y);
}

}  // namespace ax::avx512
