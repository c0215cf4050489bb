// linear_i4 (runtime/kernels.h) on 256-bit vectors, for the AVX2 port (maddubs) and the VNNI tables
// (vpdpbusd): eight outputs at a time, bit-identical to generic::linear_i4.
//
// A group's 16 weight bytes become 32 unsigned bytes w + 8 (0..15: the nibble xor 8), the low nibbles (even
// columns) in the low 128-bit lane and the high ones (odd columns) in the high lane; x's 32 values of the group
// are shuffled to the same order. The unsigned-by-signed byte products then give the exact dot(x, w + 8), from
// which 8 * sum(x) is taken away: dot(x, w). Nothing saturates: a maddubs pair sum is at most 2 * 15 * 128.
// The eight outputs' int32 sums are gathered into one vector by horizontal adds, and the float steps are
// generic's, lane for lane (a multiply, then an add, never fused). Outputs past the last multiple of eight take
// generic's kernel.
#pragma once
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "ports/generic/generic.h"
#include "ports/x86/avx2_util.h"

namespace ax::x86_i4 {
namespace {

// x's group [x0 .. x31] as [x0 x2 .. x30 | x1 x3 .. x31]: the order of the unpacked weights.
inline __m256i group_x(const int8_t* x) {
    const __m256i even_odd =
        _mm256_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15, 0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7,
                         9, 11, 13, 15);
    const __m256i v = _mm256_shuffle_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(x)), even_odd);
    return _mm256_permute4x64_epi64(v, _MM_SHUFFLE(3, 1, 2, 0));
}

// 16 bytes of a row's weights as 32 unsigned bytes w + 8, in group_x's order.
inline __m256i group_w(const uint8_t* w) {
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(w));
    const __m128i low4 = _mm_set1_epi8(0x0f);
    const __m128i lo = _mm_and_si128(b, low4);
    const __m128i hi = _mm_and_si128(_mm_srli_epi16(b, 4), low4);
    return _mm256_xor_si256(_mm256_set_m128i(hi, lo), _mm256_set1_epi8(8));
}

// The lane sums of eight int32 vectors, as one vector {sum v[0], ..., sum v[7]}.
inline __m256i hsum8_i32(const __m256i (&v)[8]) {
    const __m256i s01 = _mm256_hadd_epi32(v[0], v[1]);
    const __m256i s23 = _mm256_hadd_epi32(v[2], v[3]);
    const __m256i s45 = _mm256_hadd_epi32(v[4], v[5]);
    const __m256i s67 = _mm256_hadd_epi32(v[6], v[7]);
    const __m256i t0 = _mm256_hadd_epi32(s01, s23);  // v0..v3: low-lane sums | high-lane sums
    const __m256i t1 = _mm256_hadd_epi32(s45, s67);
    return _mm256_add_epi32(_mm256_permute2x128_si256(t0, t1, 0x20), _mm256_permute2x128_si256(t0, t1, 0x31));
}

// Dot: a functor (u8 x32, s8 x32) -> int32 x8 of exact partial sums of products.
template <class Dot>
void linear_i4_256(const int8_t* xq, const float* xscale, size_t rows, size_t in, const uint8_t* w,
                   const uint16_t* wscale, const float* bias, size_t out, float* y, size_t ldy) {
    const size_t groups = in / 32, row_bytes = in / 2;
    const Dot dot;
    const __m256i eights = _mm256_set1_epi8(8);
    size_t o = 0;
    for (; o + 8 <= out; o += 8) {
        const uint8_t* wt = w + o * row_bytes;
        const uint16_t* st = wscale + o * groups;
        const __m256 b = bias ? _mm256_loadu_ps(bias + o) : _mm256_setzero_ps();
        for (size_t r = 0; r < rows; ++r) {
            const int8_t* xr = xq + r * in;
            __m256 sum = _mm256_setzero_ps();
            for (size_t g = 0; g < groups; ++g) {
                const __m256i xv = group_x(xr + 32 * g);
                const int32_t x8 = avx2::detail::hsum_i32(dot(eights, xv));  // 8 * sum(x)
                __m256i acc[8];
                AX_AVX2_UNROLL
                for (size_t c = 0; c < 8; ++c) acc[c] = dot(group_w(wt + c * row_bytes + 16 * g), xv);
                const __m256i sums = _mm256_sub_epi32(hsum8_i32(acc), _mm256_set1_epi32(x8));
                const __m128i h = _mm_setr_epi16(
                    static_cast<short>(st[g]), static_cast<short>(st[groups + g]),
                    static_cast<short>(st[2 * groups + g]), static_cast<short>(st[3 * groups + g]),
                    static_cast<short>(st[4 * groups + g]), static_cast<short>(st[5 * groups + g]),
                    static_cast<short>(st[6 * groups + g]), static_cast<short>(st[7 * groups + g]));
                sum = _mm256_add_ps(sum, _mm256_mul_ps(_mm256_cvtepi32_ps(sums), _mm256_cvtph_ps(h)));
            }
            const __m256 scaled = _mm256_mul_ps(sum, _mm256_set1_ps(xscale[r]));
            _mm256_storeu_ps(y + r * ldy + o, _mm256_add_ps(scaled, b));
        }
    }
    if (o < out)
        generic::linear_i4(xq, xscale, rows, in, w + o * row_bytes, wscale + o * groups, bias ? bias + o : nullptr,
                           out - o, y + o, ldy);
}

}  // namespace
}  // namespace ax::x86_i4
