// The lane helpers both NEON attention files share (attention_f32_neon.cpp, attention_i8_neon.cpp): rows of
// 4 * NB values loaded or widened to floats, a multiply by one lane, and the value loop over key rows, float
// or int8.
#pragma once
#if defined(__ARM_NEON)
#include <arm_neon.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "ports/neon/neon_util.h"

// Every helper is inlined into the four kernels, so that make insn (which counts by symbol) sees all of a
// kernel's instructions under its own name.
#define AUSPEX_ATTN_INLINE inline __attribute__((always_inline))

namespace ax::neon::attn {

// Heads up to this many values take the small-head paths: as many registers as q (or out) needs and the
// four keys' accumulators and loads still fit (32 registers on AArch64, 16 on ARMv7).
#if defined(__aarch64__)
constexpr size_t kSmallHeadBlocks = 8;
#else
constexpr size_t kSmallHeadBlocks = 4;
#endif

// The NB four-float blocks of one row, in as few loads as the instruction set has.
template <size_t NB>
AUSPEX_ATTN_INLINE void load_row(const float* p, float32x4_t (&v)[NB]) {
    size_t b = 0;
#if defined(__aarch64__)
    AUSPEX_NEON_UNROLL
    for (; b + 4 <= NB; b += 4) {
        const float32x4x4_t x = vld1q_f32_x4(p + 4 * b);
        v[b] = x.val[0];
        v[b + 1] = x.val[1];
        v[b + 2] = x.val[2];
        v[b + 3] = x.val[3];
    }
    AUSPEX_NEON_UNROLL
    for (; b + 2 <= NB; b += 2) {
        const float32x4x2_t x = vld1q_f32_x2(p + 4 * b);
        v[b] = x.val[0];
        v[b + 1] = x.val[1];
    }
#endif
    AUSPEX_NEON_UNROLL
    for (; b < NB; ++b) v[b] = vld1q_f32(p + 4 * b);
}

// a * lane L of p (an IEEE multiply of the same two values as p[L] * a).
template <int L>
AUSPEX_ATTN_INLINE float32x4_t mul_lane(float32x4_t a, float32x4_t p) {
#if defined(__aarch64__)
    return vmulq_laneq_f32(a, p, L);
#else
    return vmulq_lane_f32(a, L < 2 ? vget_low_f32(p) : vget_high_f32(p), L & 1);
#endif
}

// A row's 4 * NB values as floats: float rows loaded, int8 rows widened (int8 rows: attention over an int8 cache).
template <size_t NB>
AUSPEX_ATTN_INLINE void row_floats(const float* row, float32x4_t (&f)[NB]) {
    load_row<NB>(row, f);
}
template <size_t NB>
AUSPEX_ATTN_INLINE void row_floats(const int8_t* row, float32x4_t (&f)[NB]);

// y += lane L of a times the row, a multiply then an add per value, as generic's loops do.
template <int L, size_t NB, class T>
AUSPEX_ATTN_INLINE void add_row(float32x4_t (&y)[NB], float32x4_t a, const T* row) {
    float32x4_t r[NB];
    row_floats<NB>(row, r);
    AUSPEX_NEON_UNROLL
    for (size_t b = 0; b < NB; ++b) y[b] = vaddq_f32(y[b], mul_lane<L>(r[b], a));
}

// 4 * NB columns of out across n_keys rows of v with weights a[j]: out += a[j] * v[j] per column, key after
// key. For float rows a is p; for an int8 cache it is p[j] * vscale[j] and v[j] is float(the byte).
template <size_t NB, class T>
AUSPEX_ATTN_INLINE void values_columns(const float* a, const T* v, size_t stride, size_t n_keys, float* out) {
    float32x4_t y[NB];
    load_row<NB>(out, y);
    size_t j = 0;
    for (; j + 4 <= n_keys; j += 4, v += 4 * stride) {
        const float32x4_t a4 = vld1q_f32(a + j);
        add_row<0, NB>(y, a4, v);
        add_row<1, NB>(y, a4, v + stride);
        add_row<2, NB>(y, a4, v + 2 * stride);
        add_row<3, NB>(y, a4, v + 3 * stride);
    }
    for (; j < n_keys; ++j, v += stride) add_row<0, NB>(y, vdupq_n_f32(a[j]), v);
    AUSPEX_NEON_UNROLL
    for (size_t b = 0; b < NB; ++b) vst1q_f32(out + 4 * b, y[b]);
}

// The int16 halves of w as floats.
AUSPEX_ATTN_INLINE float32x4_t low_to_float(int16x8_t w) { return vcvtq_f32_s32(vmovl_s16(vget_low_s16(w))); }
AUSPEX_ATTN_INLINE float32x4_t high_to_float(int16x8_t w) { return vcvtq_f32_s32(vmovl_s16(vget_high_s16(w))); }

// An int8 row's bytes as floats (rows of 8 or 16 bytes).
template <size_t NB>
AUSPEX_ATTN_INLINE void row_floats(const int8_t* row, float32x4_t (&f)[NB]) {
    static_assert(NB == 2 || NB == 4, "rows of 8 or 16 bytes");
    int16x8_t w[NB / 2];
    if constexpr (NB == 4) {
        const int8x16_t r = vld1q_s8(row);
        w[0] = vmovl_s8(vget_low_s8(r));
        w[1] = vmovl_s8(vget_high_s8(r));
    } else {
        w[0] = vmovl_s8(vld1_s8(row));
    }
    AUSPEX_NEON_UNROLL
    for (size_t h = 0; h < NB / 2; ++h) {
        f[2 * h] = low_to_float(w[h]);
        f[2 * h + 1] = high_to_float(w[h]);
    }
}

}  // namespace ax::neon::attn

#endif  // __ARM_NEON
