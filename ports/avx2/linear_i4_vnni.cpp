// linear_i4 with AVX-VNNI's vpdpbusd (ports/x86/linear_i4_tiles.h), for the "avx2-vnni" table: bit-identical
// to generic::linear_i4. Compiled with -mavxvnni: only handed out on CPUs that have it.
#include <immintrin.h>

#include "ports/avx2/avx2.h"
#include "ports/x86/linear_i4_tiles.h"

namespace ax::avx2 {
namespace {

struct VnniDot {
    __m256i operator()(__m256i acc, __m256i u, __m256i s) const { return _mm256_dpbusd_avx_epi32(acc, u, s); }
};

}  // namespace

void linear_i4_vnni(const int8_t* xq, const float* xscale, size_t rows, size_t in, const uint8_t* w,
                    const uint16_t* wscale, const float* bias, size_t out, float* y, size_t ldy) {
    x86_i4::linear_i4_256<VnniDot>(xq, xscale, rows, in, w, wscale, bias, out, y, ldy);
}

}  // namespace ax::avx2
