// LayerNorm: mean and biased variance summed in 16 lanes (two passes, as generic), then
// y = (x - mean) * inv * gamma + beta with generic's operations in generic's order (no FMA).
#include <immintrin.h>

#include <cmath>
#include <cstddef>

#include "ports/avx2/avx2.h"
#include "ports/x86/avx2_util.h"

namespace ax::avx2 {

void layer_norm_f32(const float* x, size_t n, const float* gamma, const float* beta, float eps, float* y) {
    __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        s0 = _mm256_add_ps(s0, _mm256_loadu_ps(x + i));
        s1 = _mm256_add_ps(s1, _mm256_loadu_ps(x + i + 8));
    }
    for (; i < n; i += 8) {
        const size_t m = n - i < 8 ? n - i : 8;
        s0 = _mm256_add_ps(s0, _mm256_maskload_ps(x + i, detail::tail_mask(m)));
    }
    const float mean = detail::hsum(_mm256_add_ps(s0, s1)) / static_cast<float>(n);

    const __m256 meanv = _mm256_set1_ps(mean);
    s0 = _mm256_setzero_ps();
    s1 = _mm256_setzero_ps();
    i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m256 d0 = _mm256_sub_ps(_mm256_loadu_ps(x + i), meanv);
        const __m256 d1 = _mm256_sub_ps(_mm256_loadu_ps(x + i + 8), meanv);
        s0 = _mm256_fmadd_ps(d0, d0, s0);
        s1 = _mm256_fmadd_ps(d1, d1, s1);
    }
    for (; i < n; i += 8) {
        const size_t m = n - i < 8 ? n - i : 8;
        const __m256i mask = detail::tail_mask(m);
        const __m256 d =
            _mm256_and_ps(_mm256_sub_ps(_mm256_maskload_ps(x + i, mask), meanv), _mm256_castsi256_ps(mask));
        s0 = _mm256_fmadd_ps(d, d, s0);
    }
    const float var = detail::hsum(_mm256_add_ps(s0, s1)) / static_cast<float>(n);
    const float inv = 1.0f / std::sqrt(var + eps);

    const __m256 invv = _mm256_set1_ps(inv);
    i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 d = _mm256_sub_ps(_mm256_loadu_ps(x + i), meanv);
        const __m256 g = _mm256_mul_ps(_mm256_mul_ps(d, invv), _mm256_loadu_ps(gamma + i));
        _mm256_storeu_ps(y + i, _mm256_add_ps(g, _mm256_loadu_ps(beta + i)));
    }
    for (; i < n; ++i) y[i] = (x[i] - mean) * inv * gamma[i] + beta[i];
}

}  // namespace ax::avx2
