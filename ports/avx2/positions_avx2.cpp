// The sinusoidal positional encoding on 8 angles at once, bit-identical to the runtime's
// (runtime/positional_encoding.cpp, sin_cos_f32 in runtime/float_math.cpp): per row, the angles of 8
// consecutive (sin, cos) column pairs go through the same float operations, each multiply and add rounded
// on its own (the build passes -ffp-contract=off), the quadrant picked by masks instead of the scalar's
// lookup. Angles the float reduction does not cover (|angle| >= 6433, NaN) take the scalar function.
#include <immintrin.h>

#include <cstddef>

#include "ports/avx2/avx2.h"
#include "runtime/float_math.h"
#include "runtime/positional_encoding.h"

namespace ax::avx2 {
namespace {

constexpr size_t kPairs = 64;  // column pairs whose div terms are computed once for all rows

inline __m256 horner3(__m256 z, float a, float b, float c) {
    return _mm256_add_ps(_mm256_mul_ps(_mm256_add_ps(_mm256_mul_ps(_mm256_set1_ps(a), z), _mm256_set1_ps(b)), z),
                         _mm256_set1_ps(c));
}

// sin and cos of 8 angles, each |angle| < 6433: sin_cos_f32's float branch lane for lane.
inline void sin_cos8(__m256 x, __m256* sin_x, __m256* cos_x) {
    const __m256 zero = _mm256_setzero_ps();
    const __m256 t = _mm256_mul_ps(x, _mm256_set1_ps(0.636619772367581343f));
    const __m256 half =
        _mm256_blendv_ps(_mm256_set1_ps(0.5f), _mm256_set1_ps(-0.5f), _mm256_cmp_ps(t, zero, _CMP_LT_OQ));
    const __m256i n = _mm256_cvttps_epi32(_mm256_add_ps(t, half));  // round_to_int: truncate t +- 0.5
    const __m256 nf = _mm256_cvtepi32_ps(n);
    __m256 r = _mm256_sub_ps(x, _mm256_mul_ps(nf, _mm256_set1_ps(1.5703125f)));
    r = _mm256_sub_ps(r, _mm256_mul_ps(nf, _mm256_set1_ps(4.837512969970703125e-4f)));
    r = _mm256_sub_ps(r, _mm256_mul_ps(nf, _mm256_set1_ps(7.54978995489188216e-8f)));
    const __m256 z = _mm256_mul_ps(r, r);
    // sin_poly: ((a z + b) z - c) z r + r
    const __m256 ps = horner3(z, -1.9515295891e-4f, 8.3321608736e-3f, -1.6666654611e-1f);
    const __m256 s = _mm256_add_ps(_mm256_mul_ps(_mm256_mul_ps(ps, z), r), r);
    // cos_poly: ((a z - b) z + c) z z - 0.5 z + 1
    const __m256 pc = horner3(z, 2.443315711809948e-5f, -1.388731625493765e-3f, 4.166664568298827e-2f);
    const __m256 c =
        _mm256_add_ps(_mm256_sub_ps(_mm256_mul_ps(_mm256_mul_ps(pc, z), z), _mm256_mul_ps(_mm256_set1_ps(0.5f), z)),
                      _mm256_set1_ps(1.0f));
    // Quadrant q = n & 3: sin is s, c, -s, -c and cos the next one along.
    const __m256i q = _mm256_and_si256(n, _mm256_set1_epi32(3));
    const __m256 odd =
        _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_and_si256(q, _mm256_set1_epi32(1)), _mm256_set1_epi32(1)));
    const __m256i q1 = _mm256_add_epi32(q, _mm256_set1_epi32(1));
    const __m256 sin_negative = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_srli_epi32(q, 1), 31));
    const __m256 cos_negative =
        _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_srli_epi32(_mm256_and_si256(q1, _mm256_set1_epi32(3)), 1), 31));
    *sin_x = _mm256_xor_ps(_mm256_blendv_ps(s, c, odd), sin_negative);
    *cos_x = _mm256_xor_ps(_mm256_blendv_ps(c, s, odd), cos_negative);
}

}  // namespace

void add_sinusoidal_f32(float* x, size_t rows, size_t d, size_t first_position) {
    const size_t pairs = d / 2;  // an odd last column (sin only) is left to the scalar code below
    alignas(32) float div[kPairs];
    for (size_t p0 = 0; p0 < pairs; p0 += kPairs) {
        const size_t np = pairs - p0 < kPairs ? pairs - p0 : kPairs;
        for (size_t p = 0; p < np; ++p) div[p] = sinusoidal_div_term(2 * (p0 + p), d);
        for (size_t r = 0; r < rows; ++r) {
            const float position = static_cast<float>(first_position + r);
            float* row = x + r * d + 2 * p0;
            size_t p = 0;
            for (; p + 8 <= np; p += 8) {
                const __m256 angle = _mm256_mul_ps(_mm256_set1_ps(position), _mm256_load_ps(div + p));
                const __m256 a = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), angle);
                __m256 s, c;
                if (_mm256_movemask_ps(_mm256_cmp_ps(a, _mm256_set1_ps(6433.0f), _CMP_LT_OQ)) == 0xff) {
                    sin_cos8(angle, &s, &c);
                } else {
                    alignas(32) float sv[8], cv[8], av[8];
                    _mm256_store_ps(av, angle);
                    for (int l = 0; l < 8; ++l) sin_cos_f32(av[l], sv + l, cv + l);
                    s = _mm256_load_ps(sv);
                    c = _mm256_load_ps(cv);
                }
                // (s0 c0 s1 c1 ...): unpack within 128-bit halves, then put the halves in order.
                const __m256 lo = _mm256_unpacklo_ps(s, c), hi = _mm256_unpackhi_ps(s, c);
                float* dst = row + 2 * p;
                _mm256_storeu_ps(dst, _mm256_add_ps(_mm256_loadu_ps(dst), _mm256_permute2f128_ps(lo, hi, 0x20)));
                _mm256_storeu_ps(dst + 8,
                                 _mm256_add_ps(_mm256_loadu_ps(dst + 8), _mm256_permute2f128_ps(lo, hi, 0x31)));
            }
            for (; p < np; ++p) {
                float s, c;
                sin_cos_f32(position * div[p], &s, &c);
                row[2 * p] += s;
                row[2 * p + 1] += c;
            }
        }
    }
    if (d % 2 != 0) {
        const float div_last = sinusoidal_div_term(d - 1, d);
        for (size_t r = 0; r < rows; ++r) {
            float s, c;
            sin_cos_f32(static_cast<float>(first_position + r) * div_last, &s, &c);
            x[r * d + d - 1] += s;
        }
    }
}

}  // namespace ax::avx2
