// Element-wise and reduction kernels of the attention and residual paths: dot, axpy, relu, add.
// axpy, relu and add do exactly generic's float operations (axpy multiplies and adds, never fuses), so
// they are bit-identical to it; dot sums in 32 lanes and agrees to rounding. The attention loops built on
// them are attention_f32_avx2.cpp.
#include <immintrin.h>

#include <cstddef>

#include "ports/avx2/avx2.h"
#include "ports/x86/avx2_util.h"

namespace ax::avx2 {

namespace {

inline float dot(const float* a, const float* b, size_t n) {
    __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps(), s2 = _mm256_setzero_ps(), s3 = _mm256_setzero_ps();
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
        s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), s1);
        s2 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 16), _mm256_loadu_ps(b + i + 16), s2);
        s3 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 24), _mm256_loadu_ps(b + i + 24), s3);
    }
    for (; i + 8 <= n; i += 8) s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
    if (i < n) {
        const __m256i m = detail::tail_mask(n - i);
        s1 = _mm256_fmadd_ps(_mm256_maskload_ps(a + i, m), _mm256_maskload_ps(b + i, m), s1);
    }
    return detail::hsum(_mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)));
}

}  // namespace

float dot_f32(const float* a, const float* b, size_t n) { return dot(a, b, n); }

void axpy_f32(size_t n, float a, const float* x, float* y) {
    const __m256 av = _mm256_set1_ps(a);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m256 p0 = _mm256_mul_ps(av, _mm256_loadu_ps(x + i));
        const __m256 p1 = _mm256_mul_ps(av, _mm256_loadu_ps(x + i + 8));
        _mm256_storeu_ps(y + i, _mm256_add_ps(_mm256_loadu_ps(y + i), p0));
        _mm256_storeu_ps(y + i + 8, _mm256_add_ps(_mm256_loadu_ps(y + i + 8), p1));
    }
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(y + i, _mm256_add_ps(_mm256_loadu_ps(y + i), _mm256_mul_ps(av, _mm256_loadu_ps(x + i))));
    for (; i < n; ++i) y[i] += a * x[i];
}

void relu_f32(float* x, size_t n) {
    // _mm256_max_ps(v, 0) answers its second operand for NaN and for -0.0, as generic's `x > 0 ? x : 0`.
    const __m256 zero = _mm256_setzero_ps();
    size_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(x + i, _mm256_max_ps(_mm256_loadu_ps(x + i), zero));
    for (; i < n; ++i) x[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

void add_f32(float* y, const float* x, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, _mm256_add_ps(_mm256_loadu_ps(y + i), _mm256_loadu_ps(x + i)));
    for (; i < n; ++i) y[i] += x[i];
}

}  // namespace ax::avx2
