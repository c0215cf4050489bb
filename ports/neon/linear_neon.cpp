// NEON matrix products y = x W^T + b, W in PyTorch's [out, in] layout. Each kernel computes a tile of
// R rows of x by C outputs (mostly 4 x 4; 1 for the tails) with R * C vector accumulators running along
// `in`, so every load of x or W feeds several multiply-adds. Tiles walk W in the outer loop: a W tile of
// C rows stays in L1 while all rows of x pass over it.
#if defined(__ARM_NEON)
#include <arm_neon.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "ports/generic/generic.h"
#include "ports/neon/neon.h"
#include "ports/neon/neon_util.h"
#include "runtime/half.h"

namespace ax::neon {
namespace {

using detail::kRowBlockI8;

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
inline void tile_float(const float* x, size_t in, const W* w, const float* bias, size_t out, float* y) {
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
    for (size_t c = 0; c < C; ++c) y[r * out + c] = (bias ? bias[c] : 0.0f) + sums[r][c];
}

template <size_t C, class W>
inline void rows_float(const float* x, size_t rows, size_t in, const W* w, const float* bias, size_t out, float* y) {
    constexpr size_t R = TileShape<W>::rows;
    size_t r = 0;
    for (; r + R <= rows; r += R) tile_float<R, C>(x + r * in, in, w, bias, out, y + r * out);
    for (; r < rows; ++r) tile_float<1, C>(x + r * in, in, w, bias, out, y + r * out);
}

template <class W>
void linear_float(const float* x, size_t rows, size_t in, const W* w, const float* bias, size_t out, float* y) {
    constexpr size_t C = TileShape<W>::cols;
    size_t o = 0;
    for (; o + C <= out; o += C) rows_float<C>(x, rows, in, w + o * in, bias ? bias + o : nullptr, out, y + o);
    for (; o < out; ++o) rows_float<1>(x, rows, in, w + o * in, bias ? bias + o : nullptr, out, y + o);
}

// The int8 step: dot16, or (no dot-product extension, x known to hold no -128) dot16_no_min.
enum class Dot { any, no_min };

// acc[r][c] += dot of 16 bytes of x row r and W row c, from xp (row stride xs) and wp (row stride ws).
template <size_t R, size_t C, Dot D>
inline void step_i8(int32x4_t (&acc)[R][C], const int8_t* xp, size_t xs, const int8_t* wp, size_t ws) {
    int8x16_t xv[R];
    AUSPEX_NEON_UNROLL
    for (size_t r = 0; r < R; ++r) xv[r] = vld1q_s8(xp + r * xs);
    AUSPEX_NEON_UNROLL
    for (size_t c = 0; c < C; ++c) {
        const int8x16_t wv = vld1q_s8(wp + c * ws);
        AUSPEX_NEON_UNROLL
        for (size_t r = 0; r < R; ++r) {
#if !defined(__ARM_FEATURE_DOTPROD)
            if constexpr (D == Dot::no_min) {
                acc[r][c] = detail::dot16_no_min(acc[r][c], xv[r], wv);
                continue;
            }
#endif
            acc[r][c] = detail::dot16(acc[r][c], xv[r], wv);
        }
    }
}

template <size_t R, size_t C, Dot D>
inline void tile_i8(const int8_t* xq, const float* xscale, size_t in, const int8_t* w, const float* wscale,
                    const float* bias, size_t out, float* y) {
    int32x4_t acc[R][C];
    AUSPEX_NEON_UNROLL
    for (size_t r = 0; r < R; ++r) AUSPEX_NEON_UNROLL
    for (size_t c = 0; c < C; ++c) acc[r][c] = vdupq_n_s32(0);
    size_t i = 0;
    for (; i + 16 <= in; i += 16) step_i8<R, C, D>(acc, xq + i, in, w + i, in);
    if (i < in) {
        // The last 1..15 columns, zero-padded to one more full step (zeros add nothing to an exact sum).
        int8_t xt[R][16] = {};
        int8_t wt[C][16] = {};
        AUSPEX_NEON_UNROLL
        for (size_t r = 0; r < R; ++r) std::memcpy(xt[r], xq + r * in + i, in - i);
        AUSPEX_NEON_UNROLL
        for (size_t c = 0; c < C; ++c) std::memcpy(wt[c], w + c * in + i, in - i);
        step_i8<R, C, D>(acc, xt[0], 16, wt[0], 16);
    }
#if defined(__aarch64__)
    if constexpr (C == 4) {
        // The contract's rescale on four outputs at once: AArch64's vector float arithmetic rounds exactly as
        // the scalar code (no FMA: a multiply, a multiply, an add), so the results are generic's bits.
        const float32x4_t ws = vld1q_f32(wscale);
        const float32x4_t b = bias ? vld1q_f32(bias) : vdupq_n_f32(0.0f);
        AUSPEX_NEON_UNROLL
        for (size_t r = 0; r < R; ++r) {
            const int32x4_t sums = detail::hsum4(acc[r][0], acc[r][1], acc[r][2], acc[r][3]);
            const float32x4_t scale = vmulq_n_f32(ws, xscale[r]);
            vst1q_f32(y + r * out, vaddq_f32(vmulq_f32(vcvtq_f32_s32(sums), scale), b));
        }
        return;
    }
#endif
    int32_t sums[R][C];
    AUSPEX_NEON_UNROLL
    for (size_t r = 0; r < R; ++r) {
        if constexpr (C == 4) {
            vst1q_s32(sums[r], detail::hsum4(acc[r][0], acc[r][1], acc[r][2], acc[r][3]));
        } else {
            AUSPEX_NEON_UNROLL
            for (size_t c = 0; c < C; ++c) sums[r][c] = detail::hsum(acc[r][c]);
        }
    }
    // The rescale is the contract's scalar code, so it rounds exactly as generic does (also on ARMv7,
    // whose NEON float arithmetic would flush denormals).
    AUSPEX_NEON_UNROLL
    for (size_t r = 0; r < R; ++r) AUSPEX_NEON_UNROLL
    for (size_t c = 0; c < C; ++c)
        y[r * out + c] = generic::rescale_i8(sums[r][c], xscale[r], wscale[c], bias ? bias[c] : 0.0f);
}

template <size_t C, Dot D, size_t RB>
inline void rows_i8(const int8_t* xq, const float* xscale, size_t rows, size_t in, const int8_t* w, const float* wscale,
                    const float* bias, size_t out, float* y) {
    size_t r = 0;
    for (; r + RB <= rows; r += RB) tile_i8<RB, C, D>(xq + r * in, xscale + r, in, w, wscale, bias, out, y + r * out);
    for (; r < rows; ++r) tile_i8<1, C, D>(xq + r * in, xscale + r, in, w, wscale, bias, out, y + r * out);
}

template <Dot D, size_t RB>
void linear_i8_with(const int8_t* xq, const float* xscale, size_t rows, size_t in, const int8_t* w, const float* wscale,
                    const float* bias, size_t out, float* y) {
    size_t o = 0;
    for (; o + 4 <= out; o += 4)
        rows_i8<4, D, RB>(xq, xscale, rows, in, w + o * in, wscale + o, bias ? bias + o : nullptr, out, y + o);
    for (; o < out; ++o)
        rows_i8<1, D, RB>(xq, xscale, rows, in, w + o * in, wscale + o, bias ? bias + o : nullptr, out, y + o);
}

#if !defined(__ARM_FEATURE_DOTPROD)
// True when no byte of x[0, n) is -128 (quantize_rows_i8 never makes one; a caller's own data might).
bool no_min_i8(const int8_t* x, size_t n) {
    int8x16_t m = vdupq_n_s8(127);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) m = vminq_s8(m, vld1q_s8(x + i));
    const int8x8_t h = vmin_s8(vget_low_s8(m), vget_high_s8(m));
    int8x8_t p = vpmin_s8(h, h);
    p = vpmin_s8(p, p);
    p = vpmin_s8(p, p);
    bool ok = vget_lane_s8(p, 0) != -128;
    for (; i < n; ++i) ok = ok && x[i] != -128;
    return ok;
}
#endif

}  // namespace

void linear_f32(const float* x, size_t rows, size_t in, const float* w, const float* bias, size_t out, float* y) {
    linear_float(x, rows, in, w, bias, out, y);
}

void linear_f16(const float* x, size_t rows, size_t in, const uint16_t* w, const float* bias, size_t out, float* y) {
    linear_float(x, rows, in, w, bias, out, y);
}

void linear_i8(const int8_t* xq, const float* xscale, size_t rows, size_t in, const int8_t* w, const float* wscale,
               const float* bias, size_t out, float* y) {
#if !defined(__ARM_FEATURE_DOTPROD)
    if (no_min_i8(xq, rows * in))
        return linear_i8_with<Dot::no_min, detail::kRowBlockI8NoMin>(xq, xscale, rows, in, w, wscale, bias, out, y);
#endif
    linear_i8_with<Dot::any, kRowBlockI8>(xq, xscale, rows, in, w, wscale, bias, out, y);
}

}  // namespace ax::neon

#endif  // __ARM_NEON
