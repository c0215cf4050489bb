// linear_i4 with maddubs (ports/x86/linear_i4_tiles.h): bit-identical to generic::linear_i4.
#include <immintrin.h>

#include "ports/avx2/avx2.h"
#include "ports/x86/linear_i4_tiles.h"

namespace ax::avx2 {
namespace {

struct MaddubsDot {
    __m256i operator()(__m256i acc, __m256i u, __m256i s) const {
        return _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(u, s), _mm256_set1_epi16(1)));
    }
};

}  // namespace

void linear_i4(const int8_t* xq, const float* xscale, size_t rows, size_t in, const uint8_t* w, const uint16_t* wscale,
               const float* bias, size_t out, float* y, size_t ldy) {
    x86_i4::linear_i4_256<MaddubsDot>(xq, xscale, rows, in, w, wscale, bias, out, y, ldy);
}

}  // namespace ax::avx2
