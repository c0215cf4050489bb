// In-place softmax on ZMM: the AVX2 port's softmax (softmax_avx2.cpp) and exp (math_avx2.h's exp8, the
// same polynomial, constants and clamping) on 16 lanes, tails by mask instead of a scalar loop. Agrees with
// generic to rounding (the vector exp is within about 1 ulp; the sum runs in another order).
#include "ports/avx512/immintrin_avx512.h"

#include <cstddef>

#include "ports/avx512/avx512.h"
#include "runtime/float_math_constants.h"

namespace ax::avx512 {
namespace {

inline __mmask16 lanes(size_t n) {
    return n >= 16 ? static_cast<__mmask16>(0xffff) : static_cast<__mmask16>((1u << n) - 1u);
}

inline __m512 exp16(__m512 x) {
    using namespace float_math;
    const __m512 lo = _mm512_set1_ps(kExpMin), hi = _mm512_set1_ps(88.0f);
    const __m512 xc = _mm512_min_ps(_mm512_max_ps(x, lo), hi);
    const __m512 n =
        _mm512_roundscale_ps(_mm512_mul_ps(xc, _mm512_set1_ps(kLog2e)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kLn2Hi), xc);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kLn2Lo), r);
    __m512 p = _mm512_set1_ps(kExpP[0]);
    for (int i = 1; i < 6; ++i) p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kExpP[i]));
    p = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), r);
    p = _mm512_add_ps(p, _mm512_set1_ps(1.0f));
    const __m512i e = _mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(127)), 23);
    const __m512 y = _mm512_mul_ps(p, _mm512_castsi512_ps(e));
    const __m512 y0 = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(x, lo, _CMP_NLT_UQ), y);  // underflow, -inf: 0
    return _mm512_mask_mov_ps(y0, _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), x);          // NaN stays NaN
}

}  // namespace

void softmax_f32(float* x, size_t n) {
    if (n == 0) return;
    __m512 mv = _mm512_set1_ps(x[0]);
    for (size_t i = 0; i < n; i += 16) mv = _mm512_max_ps(mv, _mm512_mask_loadu_ps(mv, lanes(n - i), x + i));
    const __m512 maxv = _mm512_set1_ps(_mm512_reduce_max_ps(mv));
    __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        const __m512 e0 = exp16(_mm512_sub_ps(_mm512_loadu_ps(x + i), maxv));
        const __m512 e1 = exp16(_mm512_sub_ps(_mm512_loadu_ps(x + i + 16), maxv));
        _mm512_storeu_ps(x + i, e0);
        _mm512_storeu_ps(x + i + 16, e1);
        s0 = _mm512_add_ps(s0, e0);
        s1 = _mm512_add_ps(s1, e1);
    }
    for (; i < n; i += 16) {
        const __mmask16 m = lanes(n - i);
        const __m512 e = _mm512_maskz_mov_ps(m, exp16(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, x + i), maxv)));
        _mm512_mask_storeu_ps(x + i, m, e);
        s0 = _mm512_add_ps(s0, e);
    }
    const float inv = 1.0f / _mm512_reduce_add_ps(_mm512_add_ps(s0, s1));
    const __m512 invv = _mm512_set1_ps(inv);
    for (i = 0; i < n; i += 16) {
        const __mmask16 m = lanes(n - i);
        _mm512_mask_storeu_ps(x + i, m, _mm512_mul_ps(_mm512_maskz_loadu_ps(m, x + i), invv));
    }
}

}  // namespace ax::avx512
