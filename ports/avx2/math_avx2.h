// Vectorised exp and erf for the AVX2 port's softmax and GELU. Both are polynomial approximations within
// about 1 float ulp of the exact functions (measured against double exp on [-87, 0] and double erf on
// [-6, 6] in steps of 1e-5: at most 1.01 and 0.98 ulp), far inside the 1e-5 the float kernels promise;
// tests/test_ports.cpp checks them against generic through softmax and gelu.
#pragma once
#include <immintrin.h>

namespace ax::avx2::detail {

// e^x for x <= 88 (all the kernels need: softmax and erf only take exponentials of values <= 0).
// x = n ln2 + r with n = round(x / ln2), |r| <= ln2 / 2; e^r = 1 + r + r^2 P(r) with Cephes' expf
// coefficients; 2^n built in the exponent field. Below -87.3 (where e^x is
// under FLT_MIN) the answer is 0 instead of a subnormal; -inf gives 0 and NaN stays NaN.
inline __m256 exp8(__m256 x) {
    const __m256 lo = _mm256_set1_ps(-87.33654f), hi = _mm256_set1_ps(88.0f);
    const __m256 xc = _mm256_min_ps(_mm256_max_ps(x, lo), hi);
    const __m256 n = _mm256_round_ps(_mm256_mul_ps(xc, _mm256_set1_ps(1.44269504088896341f)),
                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    // Cody-Waite: ln2 = 0.693359375 - 2.12194440e-4, the first part exact in few bits so n * part is exact.
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), xc);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
    __m256 p = _mm256_set1_ps(1.9875691500e-4f);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
    const __m256 r2 = _mm256_mul_ps(r, r);
    p = _mm256_fmadd_ps(p, r2, r);
    p = _mm256_add_ps(p, _mm256_set1_ps(1.0f));
    const __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
    __m256 y = _mm256_mul_ps(p, _mm256_castsi256_ps(e));
    y = _mm256_andnot_ps(_mm256_cmp_ps(x, lo, _CMP_LT_OQ), y);  // underflow (and -inf) to 0
    return _mm256_blendv_ps(y, x, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
}

// erf(x), after Arm's optimized-routines erff (within about 1 ulp there; a little more with exp8):
// |x| < 0.875: x + x P(x^2); 0.875 <= |x| < 4: sign(x) (1 - e^-(a + a Q(a))), a = |x|; beyond: sign(x).
inline __m256 erf8(__m256 x) {
    const __m256 sign = _mm256_and_ps(x, _mm256_set1_ps(-0.0f));
    const __m256 a = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x);
    const __m256 x2 = _mm256_mul_ps(x, x);

    __m256 p = _mm256_set1_ps(-0x1.3a1a82p-11f);
    p = _mm256_fmadd_ps(p, x2, _mm256_set1_ps(0x1.473f48p-08f));
    p = _mm256_fmadd_ps(p, x2, _mm256_set1_ps(-0x1.b68bd2p-06f));
    p = _mm256_fmadd_ps(p, x2, _mm256_set1_ps(0x1.ce1a46p-04f));
    p = _mm256_fmadd_ps(p, x2, _mm256_set1_ps(-0x1.8126e0p-02f));
    p = _mm256_fmadd_ps(p, x2, _mm256_set1_ps(0x1.06eba6p-03f));
    const __m256 small = _mm256_fmadd_ps(p, x, x);

    __m256 q = _mm256_fmadd_ps(_mm256_set1_ps(0x1.222900p-16f), a, _mm256_set1_ps(-0x1.91d2ccp-12f));
    const __m256 u = _mm256_fmadd_ps(_mm256_set1_ps(0x1.fd1336p-9f), a, _mm256_set1_ps(-0x1.8d6300p-6f));
    q = _mm256_fmadd_ps(q, x2, u);
    q = _mm256_fmadd_ps(q, a, _mm256_set1_ps(0x1.b55cb0p-4f));
    q = _mm256_fmadd_ps(q, a, _mm256_set1_ps(0x1.450aa0p-1f));
    q = _mm256_fmadd_ps(q, a, _mm256_set1_ps(0x1.079d0cp-3f));
    q = _mm256_fmadd_ps(q, a, a);
    __m256 large = _mm256_sub_ps(_mm256_set1_ps(1.0f), exp8(_mm256_sub_ps(_mm256_setzero_ps(), q)));
    large = _mm256_min_ps(large, _mm256_set1_ps(1.0f));
    // |x| >= 4 (and infinities): 1 with x's sign.
    large = _mm256_blendv_ps(large, _mm256_set1_ps(1.0f), _mm256_cmp_ps(a, _mm256_set1_ps(4.0f), _CMP_GE_OQ));
    large = _mm256_or_ps(large, sign);

    const __m256 y = _mm256_blendv_ps(large, small, _mm256_cmp_ps(a, _mm256_set1_ps(0.875f), _CMP_LT_OQ));
    return _mm256_blendv_ps(y, x, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));  // NaN stays NaN
}

}  // namespace ax::avx2::detail
