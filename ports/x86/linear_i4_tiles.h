// linear_i4 (runtime/kernels.h) on 256-bit vectors, for the AVX2 port (maddubs) and the VNNI tables
// (vpdpbusd): eight outputs at a time, bit-identical to generic::linear_i4.
//
// Per group of 32 columns and pair of outputs, one 256-bit vector holds both outputs' 16 weight bytes (one per
// 128-bit lane), xor 0x88 (each nibble plus 8: unsigned 0..15); its low nibbles are the even columns, its high
// nibbles the odd ones. x's group is shuffled into its even columns and its odd columns, each repeated in both
// lanes, so two unsigned-by-signed byte products give both outputs' exact dot(x, w + 8) in four int32 lanes
// each; 8 * sum(x) is taken away after the horizontal adds. Nothing saturates: a maddubs pair sum is at most
// 2 * 15 * 128. The horizontal adds leave the eight outputs in the order 0 2 4 6 1 3 5 7; the scales are
// loaded in that order, and the running float sums (generic's operations, lane for lane: a multiply, then an
// add, never fused) wait in y in that order until the last group, when they are put back in order, scaled by
// the row's scale and given the bias. The weights of a group are unpacked once for every row of the call.
// Outputs past the last multiple of eight take generic's kernel.
#pragma once
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "ports/generic/generic.h"
#include "ports/x86/avx2_util.h"

namespace ax::x86_i4 {
namespace {

// Output c of a tile of eight sits in lane kLane[c] of the horizontal adds' result.
constexpr int kOrder[8] = {0, 2, 4, 6, 1, 3, 5, 7};  // lane -> output

// Dot: a functor (acc int32 x8, u8 x32, s8 x32) -> acc + exact partial sums of the 32 products, four to a lane.
template <class Dot>
void linear_i4_256(const int8_t* xq, const float* xscale, size_t rows, size_t in, const uint8_t* w,
                   const uint16_t* wscale, const float* bias, size_t out, float* y, size_t ldy) {
    const size_t groups = in / 32, row_bytes = in / 2;
    const Dot dot;
    const __m256i even_odd = _mm256_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15, 0, 2, 4, 6, 8, 10,
                                              12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
    const __m256i low4 = _mm256_set1_epi8(0x0f), flip = _mm256_set1_epi8(static_cast<char>(0x88));
    const __m256i eights = _mm256_set1_epi8(8);
    const __m256i in_order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);  // lanes back to outputs 0..7
    size_t o = 0;
    for (; o + 8 <= out; o += 8) {
        const uint8_t* wt = w + o * row_bytes;
        const uint16_t* st = wscale + o * groups;
        for (size_t g = 0; g < groups; ++g) {
            __m256i lo[4], hi[4];
            AX_AVX2_UNROLL
            for (size_t p = 0; p < 4; ++p) {
                const uint8_t* a = wt + 2 * p * row_bytes + 16 * g;
                const __m256i v =
                    _mm256_xor_si256(_mm256_inserti128_si256(
                                         _mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a))),
                                         _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + row_bytes)), 1),
                                     flip);
                lo[p] = _mm256_and_si256(v, low4);
                hi[p] = _mm256_and_si256(_mm256_srli_epi16(v, 4), low4);
            }
            const __m256 scale = _mm256_cvtph_ps(_mm_setr_epi16(
                static_cast<short>(st[kOrder[0] * groups + g]), static_cast<short>(st[kOrder[1] * groups + g]),
                static_cast<short>(st[kOrder[2] * groups + g]), static_cast<short>(st[kOrder[3] * groups + g]),
                static_cast<short>(st[kOrder[4] * groups + g]), static_cast<short>(st[kOrder[5] * groups + g]),
                static_cast<short>(st[kOrder[6] * groups + g]), static_cast<short>(st[kOrder[7] * groups + g])));
            for (size_t r = 0; r < rows; ++r) {
                const __m256i xv = _mm256_shuffle_epi8(
                    _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xq + r * in + 32 * g)), even_odd);
                const __m256i xe = _mm256_permute4x64_epi64(xv, _MM_SHUFFLE(2, 0, 2, 0));
                const __m256i xo = _mm256_permute4x64_epi64(xv, _MM_SHUFFLE(3, 1, 3, 1));
                const int32_t x8 = avx2::detail::hsum_i32(dot(_mm256_setzero_si256(), eights, xv));  // 8 sum(x)
                __m256i acc[4];
                AX_AVX2_UNROLL
                for (size_t p = 0; p < 4; ++p) acc[p] = dot(dot(_mm256_setzero_si256(), lo[p], xe), hi[p], xo);
                const __m256i sums =
                    _mm256_hadd_epi32(_mm256_hadd_epi32(acc[0], acc[1]), _mm256_hadd_epi32(acc[2], acc[3]));
                const __m256 product =
                    _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(sums, _mm256_set1_epi32(x8))), scale);
                float* yr = y + r * ldy + o;
                const __m256 before = g == 0 ? _mm256_setzero_ps() : _mm256_loadu_ps(yr);
                _mm256_storeu_ps(yr, _mm256_add_ps(before, product));
            }
        }
        const __m256 b = bias ? _mm256_loadu_ps(bias + o) : _mm256_setzero_ps();
        for (size_t r = 0; r < rows; ++r) {
            float* yr = y + r * ldy + o;
            const __m256 sum = _mm256_permutevar8x32_ps(_mm256_loadu_ps(yr), in_order);
            _mm256_storeu_ps(yr, _mm256_add_ps(_mm256_mul_ps(sum, _mm256_set1_ps(xscale[r])), b));
        }
    }
    if (o < out)
        generic::linear_i4(xq, xscale, rows, in, w + o * row_bytes, wscale + o * groups, bias ? bias + o : nullptr,
                           out - o, y + o, ldy);
}

}  // namespace
}  // namespace ax::x86_i4
