// Per-row symmetric int8 quantization, bit-identical to generic::quantize_rows_i8:
// amax = max |x| (a maximum is exact in any order), scale = amax / 127, inv = 127 / amax as scalars, then
// per value x * inv clamped to [-127, 127] and rounded half to even by _mm256_cvtps_epi32 under the default
// MXCSR, which is what nearbyint does in the default rounding mode. Clamping before rounding gives the same
// integers as generic's rounding before clamping, because the bounds are integers; it also keeps
// infinities (amax so small that 127 / amax overflows) from reaching the conversion.
#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "ports/avx2/avx2.h"
#include "ports/x86/avx2_util.h"

namespace ax::avx2 {
namespace {

inline __m256 abs8(__m256 v) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), v); }

inline float row_amax(const float* x, size_t n) {
    // _mm256_max_ps(a, b) answers b when a is NaN: a NaN value is skipped, as generic's `>` test skips it.
    __m256 m0 = _mm256_setzero_ps(), m1 = _mm256_setzero_ps();
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        m0 = _mm256_max_ps(abs8(_mm256_loadu_ps(x + i)), m0);
        m1 = _mm256_max_ps(abs8(_mm256_loadu_ps(x + i + 8)), m1);
    }
    for (; i + 8 <= n; i += 8) m0 = _mm256_max_ps(abs8(_mm256_loadu_ps(x + i)), m0);
    if (i < n) m1 = _mm256_max_ps(abs8(_mm256_maskload_ps(x + i, detail::tail_mask(n - i))), m1);
    const __m256 m = _mm256_max_ps(m0, m1);
    __m128 s = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
    s = _mm_max_ps(s, _mm_movehl_ps(s, s));
    s = _mm_max_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

// round_half_even(clamp(x * inv, -127, 127)) as int32 lanes. A NaN product (0 * inf when amax is so small
// that 127 / amax overflows, or a NaN input) becomes 0, which is what generic's float-to-int8 conversion
// gives on x86 and ARM (in C++ terms it is undefined there).
inline __m256i quantize8(__m256 x, __m256 inv) {
    const __m256 lo = _mm256_set1_ps(-127.0f), hi = _mm256_set1_ps(127.0f);
    __m256 p = _mm256_mul_ps(x, inv);
    p = _mm256_and_ps(p, _mm256_cmp_ps(p, p, _CMP_ORD_Q));
    return _mm256_cvtps_epi32(_mm256_min_ps(_mm256_max_ps(p, lo), hi));
}

}  // namespace

void quantize_rows_i8(const float* x, size_t rows, size_t n, int8_t* q, float* scales) {
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    for (size_t r = 0; r < rows; ++r) {
        const float* xr = x + r * n;
        int8_t* qr = q + r * n;
        const float amax = row_amax(xr, n);
        if (amax == 0.0f) {
            scales[r] = 0.0f;
            if (n) std::memset(qr, 0, n);
            continue;
        }
        scales[r] = amax / 127.0f;
        const __m256 inv = _mm256_set1_ps(127.0f / amax);
        size_t i = 0;
        for (; i + 32 <= n; i += 32) {
            const __m256i a = quantize8(_mm256_loadu_ps(xr + i), inv);
            const __m256i b = quantize8(_mm256_loadu_ps(xr + i + 8), inv);
            const __m256i c = quantize8(_mm256_loadu_ps(xr + i + 16), inv);
            const __m256i d = quantize8(_mm256_loadu_ps(xr + i + 24), inv);
            // Saturating packs keep the values (all within [-127, 127]); they interleave 4-lane groups,
            // which the permutation puts back in order.
            const __m256i packed = _mm256_packs_epi16(_mm256_packs_epi32(a, b), _mm256_packs_epi32(c, d));
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(qr + i), _mm256_permutevar8x32_epi32(packed, order));
        }
        for (; i < n; i += 8) {
            const size_t m = n - i < 8 ? n - i : 8;
            const __m256i v = quantize8(_mm256_maskload_ps(xr + i, detail::tail_mask(m)), inv);
            const __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
            alignas(16) int8_t buf[16];
            _mm_store_si128(reinterpret_cast<__m128i*>(buf), _mm_packs_epi16(w, w));
            std::memcpy(qr + i, buf, m);
        }
    }
}

}  // namespace ax::avx2
