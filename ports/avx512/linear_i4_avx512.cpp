// linear_i4 with AVX-512 VNNI's EVEX vpdpbusd on YMM (ports/x86/linear_i4_tiles.h), for both AVX-512 tables:
// bit-identical to generic::linear_i4.
#include <immintrin.h>

#include "ports/avx512/avx512.h"
#include "ports/x86/linear_i4_tiles.h"

namespace ax::avx512 {
namespace {

struct EvexDot {
    __m256i operator()(__m256i acc, __m256i u, __m256i s) const { return _mm256_dpbusd_epi32(acc, u, s); }
};

}  // namespace

void linear_i4(const int8_t* xq, const float* xscale, size_t rows, size_t in, const uint8_t* w, const uint16_t* wscale,
               const float* bias, size_t out, float* y, size_t ldy) {
    x86_i4::linear_i4_256<EvexDot>(xq, xscale, rows, in, w, wscale, bias, out, y, ldy);
}

}  // namespace ax::avx512
