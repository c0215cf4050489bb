// In-place softmax: a vector maximum (exact in any order), e^(x - max) with the vectorised exp8 (within
// about 1 ulp of exp) summed in 8 lanes, then one multiply by 1 / sum as generic does.
#include <immintrin.h>

#include <cstddef>

#include "ports/avx2/avx2.h"
#include "ports/x86/avx2_util.h"
#include "ports/avx2/math_avx2.h"

namespace ax::avx2 {

void softmax_f32(float* x, size_t n) {
    if (n == 0) return;
    __m256 mv = _mm256_set1_ps(x[0]);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) mv = _mm256_max_ps(_mm256_loadu_ps(x + i), mv);
    __m128 m4 = _mm_max_ps(_mm256_castps256_ps128(mv), _mm256_extractf128_ps(mv, 1));
    m4 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
    m4 = _mm_max_ss(m4, _mm_movehdup_ps(m4));
    float max = _mm_cvtss_f32(m4);
    for (; i < n; ++i) max = x[i] > max ? x[i] : max;

    const __m256 maxv = _mm256_set1_ps(max);
    __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
    i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m256 e0 = detail::exp8(_mm256_sub_ps(_mm256_loadu_ps(x + i), maxv));
        const __m256 e1 = detail::exp8(_mm256_sub_ps(_mm256_loadu_ps(x + i + 8), maxv));
        _mm256_storeu_ps(x + i, e0);
        _mm256_storeu_ps(x + i + 8, e1);
        s0 = _mm256_add_ps(s0, e0);
        s1 = _mm256_add_ps(s1, e1);
    }
    for (; i < n; i += 8) {
        const size_t m = n - i < 8 ? n - i : 8;
        const __m256i mask = detail::tail_mask(m);
        const __m256 e = _mm256_and_ps(detail::exp8(_mm256_sub_ps(_mm256_maskload_ps(x + i, mask), maxv)),
                                       _mm256_castsi256_ps(mask));
        _mm256_maskstore_ps(x + i, mask, e);
        s0 = _mm256_add_ps(s0, e);
    }
    const float sum = detail::hsum(_mm256_add_ps(s0, s1));
    const float inv = 1.0f / sum;
    const __m256 invv = _mm256_set1_ps(inv);
    i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(x + i, _mm256_mul_ps(_mm256_loadu_ps(x + i), invv));
    for (; i < n; ++i) x[i] *= inv;
}

}  // namespace ax::avx2
