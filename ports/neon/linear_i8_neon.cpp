// NEON int8 matrix product y = x W^T + b: exact int32 dot products rescaled as generic::rescale_i8 does, so the
// results are generic's bits. W is PyTorch's [out, in] layout, used in place.
//
// A tile is R rows of x by C rows of W (outputs), with R * C accumulators of four int32 lanes; a step takes 16
// inputs, so each load of x feeds C outputs and each load of W feeds R rows. Per 16 products: one VDOT with the
// dot-product extension; without it VMULL + VMLAL into int16 and one pairwise widening add into int32
// (VPADAL), three instructions, when x holds no -128 (quantize_rows_i8 never makes one: two products of at
// most 127 * 128 fit int16), else four (each product widened alone). The first step starts the accumulators
// (VPADDL) instead of zeroing them.
//
// Shapes: with at least R rows, R x 4 tiles, W's four rows staying in L1 while every row of x passes; with
// fewer (a decoder step is one row) each row meets a wide block of outputs (16 on AArch64, 8 on ARMv7), so
// that one x load still feeds many products.
#if defined(__ARM_NEON)
#include <arm_neon.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "ports/generic/generic.h"
#include "ports/neon/neon.h"
#include "ports/neon/neon_util.h"

// GCC's scheduler before register allocation hoists a tile's products ahead of their accumulation, which
// needs more than 32 vector registers and spills accumulators on every step; without it the tiles stay in
// registers (checked in the GCC 12 disassembly).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-schedule-insns")
#endif

namespace ax::neon {
namespace {

// The int8 step: any int8 x, or (no dot-product extension) x known to hold no -128.
enum class Dot { any, no_min };

// Rows of x per tile of four outputs, and the outputs per one-row tile: as many accumulators as the
// registers hold (32 on AArch64, 16 on ARMv7) beside the loads and product temporaries.
template <Dot D>
constexpr size_t kTileRows = D == Dot::no_min ? detail::kRowBlockI8NoMin : detail::kRowBlockI8;
#if defined(__aarch64__)
constexpr size_t kWideCols = 16;
#else
constexpr size_t kWideCols = 8;
#endif

// acc (+)= the 16 products of a and b; First: acc is not yet set.
template <Dot D, bool First>
inline int32x4_t dot_step(int32x4_t acc, int8x16_t a, int8x16_t b) {
#if !defined(__ARM_FEATURE_DOTPROD)
    if constexpr (D == Dot::no_min) {
        if constexpr (First) return detail::dot16_no_min_first(a, b);
        return detail::dot16_no_min(acc, a, b);
    }
#endif
    if constexpr (First) return detail::dot16_first(a, b);
    return detail::dot16(acc, a, b);
}

// acc[r][c] (+)= dot of 16 bytes of x row r and W row c, from xp (row stride xs) and wp (row stride ws).
template <size_t R, size_t C, Dot D, bool First>
inline void step_i8(int32x4_t (&acc)[R][C], const int8_t* xp, size_t xs, const int8_t* wp, size_t ws) {
    int8x16_t xv[R];
    AUSPEX_NEON_UNROLL
    for (size_t r = 0; r < R; ++r) xv[r] = vld1q_s8(xp + r * xs);
    // One pointer stepping from W row to W row (a post-indexed load each) instead of C row pointers.
    AUSPEX_NEON_UNROLL
    for (size_t c = 0; c < C; ++c, wp += ws) {
        const int8x16_t wv = vld1q_s8(wp);
        AUSPEX_NEON_UNROLL
        for (size_t r = 0; r < R; ++r) acc[r][c] = dot_step<D, First>(acc[r][c], xv[r], wv);
    }
}

// y[r * out + c] = rescale(acc[r][c]) for the tile's R rows and C outputs.
template <size_t R, size_t C>
inline void store_i8(int32x4_t (&acc)[R][C], const float* xscale, const float* wscale, const float* bias, size_t ldy,
                     float* y) {
#if defined(__aarch64__)
    if constexpr (C % 4 == 0) {
        // The contract's rescale on four outputs at once: AArch64's vector float arithmetic rounds exactly as
        // the scalar code (no FMA: a multiply, a multiply, an add), so the results are generic's bits.
        AUSPEX_NEON_UNROLL
        for (size_t c = 0; c < C; c += 4) {
            const float32x4_t ws = vld1q_f32(wscale + c);
            const float32x4_t b = bias ? vld1q_f32(bias + c) : vdupq_n_f32(0.0f);
            AUSPEX_NEON_UNROLL
            for (size_t r = 0; r < R; ++r) {
                const int32x4_t sums = detail::hsum4(acc[r][c], acc[r][c + 1], acc[r][c + 2], acc[r][c + 3]);
                const float32x4_t scale = vmulq_n_f32(ws, xscale[r]);
                vst1q_f32(y + r * ldy + c, vaddq_f32(vmulq_f32(vcvtq_f32_s32(sums), scale), b));
            }
        }
        return;
    }
#endif
    int32_t sums[R][C];
    AUSPEX_NEON_UNROLL
    for (size_t r = 0; r < R; ++r) {
        if constexpr (C % 4 == 0) {
            AUSPEX_NEON_UNROLL
            for (size_t c = 0; c < C; c += 4)
                vst1q_s32(sums[r] + c, detail::hsum4(acc[r][c], acc[r][c + 1], acc[r][c + 2], acc[r][c + 3]));
        } else {
            AUSPEX_NEON_UNROLL
            for (size_t c = 0; c < C; ++c) sums[r][c] = detail::hsum(acc[r][c]);
        }
    }
    // The contract's scalar rescale, rounding exactly as generic's (also on ARMv7, whose NEON float
    // arithmetic would flush denormals).
    AUSPEX_NEON_UNROLL
    for (size_t r = 0; r < R; ++r) AUSPEX_NEON_UNROLL
    for (size_t c = 0; c < C; ++c)
        y[r * ldy + c] = generic::rescale_i8(sums[r][c], xscale[r], wscale[c], bias ? bias[c] : 0.0f);
}

// x's bytes kept by a step over the last `t` < 16 inputs loaded as the row's final 16: kTailMask + t is
// 16 - t zeros, then t ones (zeros in x add nothing to an exact sum, whatever W holds there).
alignas(16) constexpr int8_t kTailMask[32] = {0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
                                              -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1};

// acc[r][c] += the products of inputs [in - t, in), from the rows' last 16 bytes (in >= 16), x masked.
template <size_t R, size_t C, Dot D>
inline void tail_step_i8(int32x4_t (&acc)[R][C], const int8_t* xq, size_t in, const int8_t* w, size_t t) {
    const int8x16_t mask = vld1q_s8(kTailMask + t);
    int8x16_t xv[R];
    AUSPEX_NEON_UNROLL
    for (size_t r = 0; r < R; ++r) xv[r] = vandq_s8(vld1q_s8(xq + r * in + in - 16), mask);
    AUSPEX_NEON_UNROLL
    for (size_t c = 0; c < C; ++c) {
        const int8x16_t wv = vld1q_s8(w + c * in + in - 16);
        AUSPEX_NEON_UNROLL
        for (size_t r = 0; r < R; ++r) acc[r][c] = dot_step<D, false>(acc[r][c], xv[r], wv);
    }
}

// A tile with fewer than 16 inputs (an embedding's few features): one zero-padded step.
template <size_t R, size_t C, Dot D>
__attribute__((noinline)) void short_tile_i8(const int8_t* xq, const float* xscale, size_t in, const int8_t* w,
                                             const float* wscale, const float* bias, size_t ldy, float* y) {
    int8_t xt[R][16] = {};
    int8_t wt[C][16] = {};
    for (size_t r = 0; r < R; ++r) std::memcpy(xt[r], xq + r * in, in);
    for (size_t c = 0; c < C; ++c) std::memcpy(wt[c], w + c * in, in);
    int32x4_t acc[R][C];
    step_i8<R, C, D, true>(acc, xt[0], 16, wt[0], 16);
    store_i8<R, C>(acc, xscale, wscale, bias, ldy, y);
}

// Inlined into the loops over rows and outputs, so the accumulators never leave the registers.
template <size_t R, size_t C, Dot D>
__attribute__((always_inline)) inline void tile_i8(const int8_t* xq, const float* xscale, size_t in, const int8_t* w,
                                                   const float* wscale, const float* bias, size_t ldy, float* y) {
    if (in < 16) return short_tile_i8<R, C, D>(xq, xscale, in, w, wscale, bias, ldy, y);
    int32x4_t acc[R][C];
    step_i8<R, C, D, true>(acc, xq, in, w, in);
    size_t i = 16;
    for (; i + 16 <= in; i += 16) step_i8<R, C, D, false>(acc, xq + i, in, w + i, in);
    if (i < in) tail_step_i8<R, C, D>(acc, xq, in, w, in - i);
    store_i8<R, C>(acc, xscale, wscale, bias, ldy, y);
}

// R rows of x against outputs [0, n) of w, n a multiple of C, one tile after another. A function of its own,
// so that each tile shape gets the registers to itself.
template <size_t R, size_t C, Dot D>
__attribute__((noinline)) void row_block_i8(const int8_t* xq, const float* xscale, size_t in, const int8_t* w,
                                            const float* wscale, const float* bias, size_t ldy, size_t n, float* y) {
    for (size_t o = 0; o < n; o += C)
        tile_i8<R, C, D>(xq, xscale, in, w + o * in, wscale + o, bias ? bias + o : nullptr, ldy, y + o);
}

// R rows of x against every output: blocks of C, then of 4, then single outputs.
template <size_t R, size_t C, Dot D>
inline void rows_i8(const int8_t* xq, const float* xscale, size_t in, const int8_t* w, const float* wscale,
                    const float* bias, size_t out, float* y, size_t ldy) {
    size_t o = out - out % C;
    row_block_i8<R, C, D>(xq, xscale, in, w, wscale, bias, ldy, o, y);
    const auto rest = [&](auto block, size_t n) {
        constexpr size_t B = decltype(block)::value;
        row_block_i8<R, B, D>(xq, xscale, in, w + o * in, wscale + o, bias ? bias + o : nullptr, ldy, n, y + o);
        o += n;
    };
    if constexpr (C > 4) rest(std::integral_constant<size_t, 4>{}, (out - o) / 4 * 4);
    if (o < out) rest(std::integral_constant<size_t, 1>{}, out - o);
}

template <Dot D>
void linear_i8_with(const int8_t* xq, const float* xscale, size_t rows, size_t in, const int8_t* w, const float* wscale,
                    const float* bias, size_t out, float* y, size_t ldy) {
    constexpr size_t R = kTileRows<D>;
    size_t r = 0;
    for (; r + R <= rows; r += R) rows_i8<R, 4, D>(xq + r * in, xscale + r, in, w, wscale, bias, out, y + r * ldy, ldy);
    // The rows left (all of them in a decoder step): one at a time against wide blocks of outputs.
    for (; r < rows; ++r) rows_i8<1, kWideCols, D>(xq + r * in, xscale + r, in, w, wscale, bias, out, y + r * ldy, ldy);
}

#if !defined(__ARM_FEATURE_DOTPROD)
// True when no byte of x[0, n) is -128 (quantize_rows_i8 never makes one; a caller's own data might).
bool no_min_i8(const int8_t* x, size_t n) {
    int8x16_t m = vdupq_n_s8(127);
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        const int8x16_t a = vminq_s8(vld1q_s8(x + i), vld1q_s8(x + i + 16));
        m = vminq_s8(m, vminq_s8(a, vminq_s8(vld1q_s8(x + i + 32), vld1q_s8(x + i + 48))));
    }
    for (; i + 16 <= n; i += 16) m = vminq_s8(m, vld1q_s8(x + i));
#if defined(__aarch64__)
    bool ok = vminvq_s8(m) != -128;
#else
    const int8x8_t h = vmin_s8(vget_low_s8(m), vget_high_s8(m));
    int8x8_t p = vpmin_s8(h, h);
    p = vpmin_s8(p, p);
    p = vpmin_s8(p, p);
    bool ok = vget_lane_s8(p, 0) != -128;
#endif
    for (; i < n; ++i) ok = ok && x[i] != -128;
    return ok;
}
#endif

}  // namespace

void linear_i8(const int8_t* xq, const float* xscale, size_t rows, size_t in, const int8_t* w, const float* wscale,
               const float* bias, size_t out, float* y, size_t ldy) {
#if !defined(__ARM_FEATURE_DOTPROD)
    if (no_min_i8(xq, rows * in))
        return linear_i8_with<Dot::no_min>(xq, xscale, rows, in, w, wscale, bias, out, y, ldy);
#endif
    linear_i8_with<Dot::any>(xq, xscale, rows, in, w, wscale, bias, out, y, ldy);
}

}  // namespace ax::neon

#endif  // __ARM_NEON
