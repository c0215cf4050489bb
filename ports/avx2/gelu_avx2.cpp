// Exact (erf) GELU, 0.5 x (1 + erf(x / sqrt 2)) as torch's default, with the vectorised erf8
// (math_avx2.h) and generic's order of the remaining operations.
#include <immintrin.h>

#include <cstddef>

#include "ports/avx2/avx2.h"
#include "ports/x86/avx2_util.h"
#include "ports/avx2/math_avx2.h"

namespace ax::avx2 {
namespace {

inline __m256 gelu8(__m256 v) {
    const __m256 e = detail::erf8(_mm256_mul_ps(v, _mm256_set1_ps(0.70710678118654752f)));
    return _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), v), _mm256_add_ps(_mm256_set1_ps(1.0f), e));
}

}  // namespace

void gelu_f32(float* x, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(x + i, gelu8(_mm256_loadu_ps(x + i)));
    if (i < n) {
        const __m256i mask = detail::tail_mask(n - i);
        _mm256_maskstore_ps(x + i, mask, gelu8(_mm256_maskload_ps(x + i, mask)));
    }
}

}  // namespace ax::avx2
