// Building blocks of the int8 products shared by linear_i8_avx2.cpp (AVX2) and linear_i8_vnni.cpp
// (AVX-VNNI): tail masks, loads, and the rescale that makes results bit-identical to generic. Everything
// here has internal linkage: each file gets its own copy compiled with its own instruction set, so no
// AVX-VNNI code can stand in for the AVX2 version.
#pragma once
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "ports/x86/avx2_util.h"
#include "ports/generic/generic.h"

namespace ax::avx2 {
namespace {

using detail::hsum4_i32;
using detail::hsum_i32;

// Byte masks keeping the last n of 16 or 32 bytes (keep_last16, keep_last32).
alignas(64) constexpr int8_t kTailBytes[64] = {0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
                                               0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
                                               -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                               -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1};

inline __m128i keep_last16(size_t n) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(kTailBytes + 16 + n)); }
inline __m256i keep_last32(size_t n) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kTailBytes + n)); }

inline __m128i load16(const int8_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
inline __m256i load32(const int8_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
inline __m256i widen16(const int8_t* p) { return _mm256_cvtepi8_epi16(load16(p)); }

// The n (< 16) values at p, zero-padded to 16 and widened.
inline __m256i widen_short(const int8_t* p, size_t n) {
    alignas(16) int8_t buf[16] = {};
    for (size_t i = 0; i < n; ++i) buf[i] = p[i];
    return _mm256_cvtepi8_epi16(_mm_load_si128(reinterpret_cast<const __m128i*>(buf)));
}

// y[r][c] for r < R, c < C (C is 1, 4 or 8) from int32 sums acc[r][c], exactly as generic::rescale_i8.
template <size_t R, size_t C>
inline void rescale_store(const __m256i (&acc)[R][C], const float* xscale, const float* wscale, const float* bias,
                          size_t ldy, float* y) {
    AX_AVX2_UNROLL
    for (size_t r = 0; r < R; ++r) {
        if constexpr (C == 1) {
            y[r * ldy] = generic::rescale_i8(hsum_i32(acc[r][0]), xscale[r], wscale[0], bias ? bias[0] : 0.0f);
        } else {
            const __m128 xs = _mm_set1_ps(xscale[r]);
            AX_AVX2_UNROLL
            for (size_t c = 0; c < C; c += 4) {
                const __m128i sums = hsum4_i32(acc[r][c], acc[r][c + 1], acc[r][c + 2], acc[r][c + 3]);
                const __m128 scale = _mm_mul_ps(xs, _mm_loadu_ps(wscale + c));
                const __m128 product = _mm_mul_ps(_mm_cvtepi32_ps(sums), scale);
                const __m128 b = bias ? _mm_loadu_ps(bias + c) : _mm_setzero_ps();
                _mm_storeu_ps(y + r * ldy + c, _mm_add_ps(product, b));
            }
        }
    }
}

// Whether x holds -128, whose sign cannot be flipped in int8 (the maddubs and vpdpbusd paths need that).
inline bool has_minus_128(const int8_t* x, size_t n) {
    const __m256i m = _mm256_set1_epi8(-128);
    __m256i any = _mm256_setzero_si256();
    size_t i = 0;
    for (; i + 32 <= n; i += 32) any = _mm256_or_si256(any, _mm256_cmpeq_epi8(load32(x + i), m));
    if (!_mm256_testz_si256(any, any)) return true;
    for (; i < n; ++i)
        if (x[i] == -128) return true;
    return false;
}

// ---- vpdpbusd dot-product tiles (few rows), for the VEX (AVX-VNNI) and EVEX (AVX512-VNNI + VL) forms ----
// Dp::dpbusd(acc, unsigned bytes, signed bytes) is one of the two encodings; the file instantiating these
// is compiled with the matching flags. |w| goes to the unsigned side, x takes w's sign (exact while x has
// no -128; the caller checks).

template <class Dp, size_t R, size_t C>
inline void tile_vnni(const int8_t* xq, const float* xscale, size_t in, const int8_t* w, const float* wscale,
                      const float* bias, size_t ldy, float* y) {
    __m256i acc[R][C];
    AX_AVX2_UNROLL
    for (size_t r = 0; r < R; ++r) AX_AVX2_UNROLL
    for (size_t c = 0; c < C; ++c) acc[r][c] = _mm256_setzero_si256();
    auto step = [&](size_t i, __m256i keep) {
        __m256i xv[R];
        AX_AVX2_UNROLL
        for (size_t r = 0; r < R; ++r) xv[r] = _mm256_and_si256(load32(xq + r * in + i), keep);
        AX_AVX2_UNROLL
        for (size_t c = 0; c < C; ++c) {
            const __m256i wv = load32(w + c * in + i);
            const __m256i wabs = _mm256_abs_epi8(wv);
            AX_AVX2_UNROLL
            for (size_t r = 0; r < R; ++r) acc[r][c] = Dp::dpbusd(acc[r][c], wabs, _mm256_sign_epi8(xv[r], wv));
        }
    };
    size_t i = 0;
    for (; i + 32 <= in; i += 32) step(i, _mm256_set1_epi8(-1));
    // The last 32 values again, the already-counted ones zeroed in x (in >= 32).
    if (i < in) step(in - 32, keep_last32(in - i));
    rescale_store(acc, xscale, wscale, bias, ldy, y);
}

template <class Dp, size_t R, size_t C>
inline void rows_vnni(const int8_t* xq, const float* xscale, size_t rows, size_t in, const int8_t* w,
                      const float* wscale, const float* bias, size_t ldy, size_t o, float* y) {
    const int8_t* wo = w + o * in;
    const float* bo = bias ? bias + o : nullptr;
    size_t r = 0;
    for (; r + R <= rows; r += R)
        tile_vnni<Dp, R, C>(xq + r * in, xscale + r, in, wo, wscale + o, bo, ldy, y + r * ldy + o);
    for (; r < rows; ++r) tile_vnni<Dp, 1, C>(xq + r * in, xscale + r, in, wo, wscale + o, bo, ldy, y + r * ldy + o);
}

// in >= 32 and no -128 in x (else the caller takes another path).
template <class Dp>
inline void linear_dot_vnni(const int8_t* xq, const float* xscale, size_t rows, size_t in, const int8_t* w,
                            const float* wscale, const float* bias, size_t out, float* y, size_t ldy) {
    size_t o = 0;
    if (rows == 1) {
        for (; o + 8 <= out; o += 8) rows_vnni<Dp, 1, 8>(xq, xscale, rows, in, w, wscale, bias, ldy, o, y);
    } else {
        for (; o + 4 <= out; o += 4) rows_vnni<Dp, 2, 4>(xq, xscale, rows, in, w, wscale, bias, ldy, o, y);
    }
    for (; o + 4 <= out; o += 4) rows_vnni<Dp, 1, 4>(xq, xscale, rows, in, w, wscale, bias, ldy, o, y);
    for (; o < out; ++o) rows_vnni<Dp, 1, 1>(xq, xscale, rows, in, w, wscale, bias, ldy, o, y);
}

}  // namespace
}  // namespace ax::avx2
