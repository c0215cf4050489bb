// Vectorised exp and erf for the AVX2 port's softmax and GELU. Both are polynomial approximations within
// about 1 float ulp of the exact functions (measured against double exp on [-87, 0] and double erf on
// [-6, 6] in steps of 1e-5: at most 1.01 and 0.98 ulp), far inside the 1e-5 the float kernels promise;
// tests/test_ports.cpp checks them against generic through softmax and gelu.
#pragma once
#include <immintrin.h>

#include "runtime/float_math_constants.h"

namespace ax::avx2::detail {

// e^x for x <= 88 (all the kernels need: softmax and erf only take exponentials of values <= 0), with the
// polynomial and constants of the scalar exp_f32 (runtime/float_math_constants.h). Below -87.3 (where e^x
// is under FLT_MIN) the answer is 0 instead of a subnormal; -inf gives 0 and NaN stays NaN.
inline __m256 exp8(__m256 x) {
    using namespace float_math;
    const __m256 lo = _mm256_set1_ps(kExpMin), hi = _mm256_set1_ps(88.0f);
    const __m256 xc = _mm256_min_ps(_mm256_max_ps(x, lo), hi);
    const __m256 n =
        _mm256_round_ps(_mm256_mul_ps(xc, _mm256_set1_ps(kLog2e)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(kLn2Hi), xc);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(kLn2Lo), r);
    __m256 p = _mm256_set1_ps(kExpP[0]);
    for (int i = 1; i < 6; ++i) p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kExpP[i]));
    const __m256 r2 = _mm256_mul_ps(r, r);
    p = _mm256_fmadd_ps(p, r2, r);
    p = _mm256_add_ps(p, _mm256_set1_ps(1.0f));
    const __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
    __m256 y = _mm256_mul_ps(p, _mm256_castsi256_ps(e));
    y = _mm256_andnot_ps(_mm256_cmp_ps(x, lo, _CMP_LT_OQ), y);  // underflow (and -inf) to 0
    return _mm256_blendv_ps(y, x, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
}

// erf(x) with the polynomials of the scalar erf_f32 (runtime/float_math_constants.h).
inline __m256 erf8(__m256 x) {
    using namespace float_math;
    const __m256 sign = _mm256_and_ps(x, _mm256_set1_ps(-0.0f));
    const __m256 a = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x);
    const __m256 x2 = _mm256_mul_ps(x, x);

    __m256 p = _mm256_set1_ps(kErfSmallP[0]);
    for (int i = 1; i < 6; ++i) p = _mm256_fmadd_ps(p, x2, _mm256_set1_ps(kErfSmallP[i]));
    const __m256 small = _mm256_fmadd_ps(p, x, x);

    __m256 q = _mm256_fmadd_ps(_mm256_set1_ps(kErfQ[0]), a, _mm256_set1_ps(kErfQ[1]));
    const __m256 u = _mm256_fmadd_ps(_mm256_set1_ps(kErfQ[2]), a, _mm256_set1_ps(kErfQ[3]));
    q = _mm256_fmadd_ps(q, x2, u);
    for (int i = 4; i < 7; ++i) q = _mm256_fmadd_ps(q, a, _mm256_set1_ps(kErfQ[i]));
    q = _mm256_fmadd_ps(q, a, a);
    __m256 large = _mm256_sub_ps(_mm256_set1_ps(1.0f), exp8(_mm256_sub_ps(_mm256_setzero_ps(), q)));
    large = _mm256_min_ps(large, _mm256_set1_ps(1.0f));
    // |x| >= 4 (and infinities): 1 with x's sign.
    large = _mm256_blendv_ps(large, _mm256_set1_ps(1.0f), _mm256_cmp_ps(a, _mm256_set1_ps(kErfOneLimit), _CMP_GE_OQ));
    large = _mm256_or_ps(large, sign);

    const __m256 y = _mm256_blendv_ps(large, small, _mm256_cmp_ps(a, _mm256_set1_ps(kErfSmallLimit), _CMP_LT_OQ));
    return _mm256_blendv_ps(y, x, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));  // NaN stays NaN
}

}  // namespace ax::avx2::detail
