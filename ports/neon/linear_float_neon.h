// NEON float matrix products y = x W^T + b (float32 and half weights: linear_f32_neon.cpp and
// linear_f16_neon.cpp instantiate them; int8 is linear_i8_neon.cpp), W in
// PyTorch's [out, in] layout. Each kernel computes a tile of R rows of x by C outputs (mostly 4 x 4; 1 for the
// tails) with R * C vector accumulators running along `in`, so every load of x or W feeds several
// multiply-adds. Tiles walk W in the outer loop: a W tile of C rows stays in L1 while all rows of x pass over it.
#pragma once
#if defined(__ARM_NEON)
#include <arm_neon.h>

#include <cstddef>
#include <cstdint>

#include "ports/neon/neon_util.h"
#include "runtime/half.h"

namespace ax::neon::detail {

// Rows of x by outputs computed together by the float kernels.
template <class W>
struct TileShape;
template <>
struct TileShape<float> {
    static constexpr size_t rows = detail::kRowBlock, cols = 4;
};
template <>
struct TileShape<uint16_t> {
#if defined(__aarch64__)
    static constexpr size_t rows = 4, cols = 4;
#else
    // ARMv7 converts halves with integer code and its constants take registers: one W row, converted
    // once for four rows of x, runs without spilling.
    static constexpr size_t rows = 4, cols = 1;
#endif
};

inline float32x4_t load4(const float* p) { return vld1q_f32(p); }
inline float32x4_t load4(const uint16_t* p) { return detail::half4_to_float(p); }
inline float load1(const float* p) { return *p; }
inline float load1(const uint16_t* p) { return half_to_float(*p); }

// y[r * out + c] = bias[c] + dot(x[r * in ...], w[c * in ...]) for r < R, c < C.
template <size_t R, size_t C, class W>
inline void tile_float(const float* x, size_t in, const W* w, const float* bias, size_t ldy, float* y) {
    float32x4_t acc[R][C];
    AUSPEX_NEON_UNROLL
    for (size_t r = 0; r < R; ++r) AUSPEX_NEON_UNROLL
    for (size_t c = 0; c < C; ++c) acc[r][c] = vdupq_n_f32(0.0f);
    size_t i = 0;
    for (; i + 4 <= in; i += 4) {
        float32x4_t xv[R];
        AUSPEX_NEON_UNROLL
        for (size_t r = 0; r < R; ++r) xv[r] = vld1q_f32(x + r * in + i);
        AUSPEX_NEON_UNROLL
        for (size_t c = 0; c < C; ++c) {
            const float32x4_t wv = load4(w + c * in + i);
            AUSPEX_NEON_UNROLL
            for (size_t r = 0; r < R; ++r) acc[r][c] = detail::mla(acc[r][c], xv[r], wv);
        }
    }
    float sums[R][C];
    AUSPEX_NEON_UNROLL
    for (size_t r = 0; r < R; ++r) {
        if constexpr (C == 4) {
            vst1q_f32(sums[r], detail::hsum4(acc[r][0], acc[r][1], acc[r][2], acc[r][3]));
        } else {
            AUSPEX_NEON_UNROLL
            for (size_t c = 0; c < C; ++c) sums[r][c] = detail::hsum(acc[r][c]);
        }
    }
    for (; i < in; ++i) AUSPEX_NEON_UNROLL
    for (size_t r = 0; r < R; ++r) AUSPEX_NEON_UNROLL
    for (size_t c = 0; c < C; ++c) sums[r][c] += x[r * in + i] * load1(w + c * in + i);
    AUSPEX_NEON_UNROLL
    for (size_t r = 0; r < R; ++r) AUSPEX_NEON_UNROLL
    for (size_t c = 0; c < C; ++c) y[r * ldy + c] = (bias ? bias[c] : 0.0f) + sums[r][c];
}

template <size_t C, class W>
inline void rows_float(const float* x, size_t rows, size_t in, const W* w, const float* bias, size_t ldy, float* y) {
    constexpr size_t R = TileShape<W>::rows;
    size_t r = 0;
    for (; r + R <= rows; r += R) tile_float<R, C>(x + r * in, in, w, bias, ldy, y + r * ldy);
    for (; r < rows; ++r) tile_float<1, C>(x + r * in, in, w, bias, ldy, y + r * ldy);
}

template <class W>
void linear_float(const float* x, size_t rows, size_t in, const W* w, const float* bias, size_t out, float* y,
                  size_t ldy) {
    constexpr size_t C = TileShape<W>::cols;
    size_t o = 0;
    for (; o + C <= out; o += C) rows_float<C>(x, rows, in, w + o * in, bias ? bias + o : nullptr, ldy, y + o);
    for (; o < out; ++o) rows_float<1>(x, rows, in, w + o * in, bias ? bias + o : nullptr, ldy, y + o);
}

}  // namespace ax::neon::detail

#endif  // __ARM_NEON
