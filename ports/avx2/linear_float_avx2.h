// The float matrix product y = x W^T + b of the AVX2 port, W in PyTorch's [out, in] layout, for float32
// and IEEE-half weights (linear_f32_avx2.cpp, linear_f16_avx2.cpp instantiate it). Two paths:
//
// - Dot-product tiles: R = 3 rows of x against C = 4 rows of W (1 x 8 for a single row), R * C
//   accumulators of 8 floats running along `in`, reduced horizontally once per output. Every W element is
//   read once per R rows, which is what a memory-bound product (few rows) needs; long inputs pay for
//   the horizontal sums.
// - Packed outer product: a panel of 16 W rows times up to kKC inputs is transposed (and for halves
//   converted) into a 16 KB stack buffer, panel[k][16]; a 6 x 16 register tile of y then accumulates
//   broadcast(x[r][k]) * panel[k][0..16) with 12 FMAs per k and no horizontal sums. The panel stays in L1
//   while every block of 6 rows of x passes over it; the transposition is paid back over many rows.
// use_packed() picks between them.
//
// Neither path allocates; the sums run in another order than generic's, so results agree to rounding
// (about 1e-7 relative to sum |x_i w_i|), not bit for bit. Half weights convert exactly (F16C).
#pragma once
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "ports/x86/avx2_util.h"

namespace ax::avx2::detail {

// ---- dot-product tiles ----

// y[r * ldy + c] = bias[c] + dot(x row r, W row c) for r < R, c < C; C is 1, 4 or 8.
template <size_t R, size_t C, class W>
inline void tile_dot(const float* x, size_t in, const W* w, const float* bias, size_t ldy, float* y) {
    __m256 acc[R][C];
    AX_AVX2_UNROLL
    for (size_t r = 0; r < R; ++r) AX_AVX2_UNROLL
    for (size_t c = 0; c < C; ++c) acc[r][c] = _mm256_setzero_ps();
    size_t i = 0;
    for (; i + 8 <= in; i += 8) {
        __m256 xv[R];
        AX_AVX2_UNROLL
        for (size_t r = 0; r < R; ++r) xv[r] = _mm256_loadu_ps(x + r * in + i);
        AX_AVX2_UNROLL
        for (size_t c = 0; c < C; ++c) {
            const __m256 wv = load8(w + c * in + i);
            AX_AVX2_UNROLL
            for (size_t r = 0; r < R; ++r) acc[r][c] = _mm256_fmadd_ps(xv[r], wv, acc[r][c]);
        }
    }
    if (i < in) {
        const size_t n = in - i;
        const __m256i mask = tail_mask(n);
        __m256 xv[R];
        AX_AVX2_UNROLL
        for (size_t r = 0; r < R; ++r) xv[r] = _mm256_maskload_ps(x + r * in + i, mask);
        AX_AVX2_UNROLL
        for (size_t c = 0; c < C; ++c) {
            const __m256 wv = load_tail(w + c * in + i, n);
            AX_AVX2_UNROLL
            for (size_t r = 0; r < R; ++r) acc[r][c] = _mm256_fmadd_ps(xv[r], wv, acc[r][c]);
        }
    }
    AX_AVX2_UNROLL
    for (size_t r = 0; r < R; ++r) {
        if constexpr (C == 1) {
            y[r * ldy] = (bias ? bias[0] : 0.0f) + hsum(acc[r][0]);
        } else {
            AX_AVX2_UNROLL
            for (size_t c = 0; c < C; c += 4) {
                const __m128 s = hsum4(acc[r][c], acc[r][c + 1], acc[r][c + 2], acc[r][c + 3]);
                const __m128 b = bias ? _mm_loadu_ps(bias + c) : _mm_setzero_ps();
                _mm_storeu_ps(y + r * ldy + c, _mm_add_ps(b, s));
            }
        }
    }
}

// Outputs [o, o + C) for every row: groups of three rows, then the rest.
template <size_t C, class W>
inline void columns_dot(const float* x, size_t rows, size_t in, const W* w, const float* bias, size_t ldy, size_t o,
                        float* y) {
    const W* wo = w + o * in;
    const float* bo = bias ? bias + o : nullptr;
    size_t r = 0;
    for (; r + 3 <= rows; r += 3) tile_dot<3, C>(x + r * in, in, wo, bo, ldy, y + r * ldy + o);
    if (rows - r == 2) tile_dot<2, C>(x + r * in, in, wo, bo, ldy, y + r * ldy + o);
    if (rows - r == 1) tile_dot<1, C>(x + r * in, in, wo, bo, ldy, y + r * ldy + o);
}

template <class W>
inline void linear_dot(const float* x, size_t rows, size_t in, const W* w, const float* bias, size_t out, float* y,
                       size_t ldy) {
    size_t o = 0;
    if (rows == 1)
        for (; o + 8 <= out; o += 8) tile_dot<1, 8>(x, in, w + o * in, bias ? bias + o : nullptr, ldy, y + o);
    for (; o + 4 <= out; o += 4) columns_dot<4>(x, rows, in, w, bias, ldy, o, y);
    for (; o < out; ++o) columns_dot<1>(x, rows, in, w, bias, ldy, o, y);
}

// ---- packed outer-product kernel ----

constexpr size_t kMR = 6;    // rows of x per register tile
constexpr size_t kNR = 16;   // outputs per register tile (two vectors)
constexpr size_t kKC = 256;  // inputs per packed panel: 16 x 256 floats = 16 KB of stack

// panel[k * 16 + j] = W[j][k0 + k] for j < ncols (W rows start at w, stride in), zero for ncols <= j < 16.
template <class W>
inline void pack_panel(const W* w, size_t in, size_t k0, size_t kc, size_t ncols, float* panel) {
    pack_panel_t<kNR>(w, in, k0, kc, ncols, panel);
}

// y tile (MR rows, ncols <= 16 outputs) += or = x tile times panel. `first`: the first panel of the
// inputs, so the tile is bias + sum (bias may be null); otherwise the sum is added to what y holds.
template <size_t MR>
inline void micro_tile(const float* x, size_t ldx, const float* panel, size_t kc, const float* bias, bool first,
                       size_t ncols, float* y, size_t ldy) {
    __m256 acc[MR][2];
    AX_AVX2_UNROLL
    for (size_t r = 0; r < MR; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
    const float* xr[MR];
    AX_AVX2_UNROLL
    for (size_t r = 0; r < MR; ++r) xr[r] = x + r * ldx;
    for (size_t k = 0; k < kc; ++k) {
        const __m256 w0 = _mm256_load_ps(panel + k * kNR);
        const __m256 w1 = _mm256_load_ps(panel + k * kNR + 8);
        AX_AVX2_UNROLL
        for (size_t r = 0; r < MR; ++r) {
            const __m256 xb = _mm256_broadcast_ss(xr[r] + k);
            acc[r][0] = _mm256_fmadd_ps(xb, w0, acc[r][0]);
            acc[r][1] = _mm256_fmadd_ps(xb, w1, acc[r][1]);
        }
    }
    if (ncols == kNR) {
        __m256 b0 = _mm256_setzero_ps(), b1 = _mm256_setzero_ps();
        if (first && bias) {
            b0 = _mm256_loadu_ps(bias);
            b1 = _mm256_loadu_ps(bias + 8);
        }
        AX_AVX2_UNROLL
        for (size_t r = 0; r < MR; ++r) {
            float* yr = y + r * ldy;
            if (!first) {
                b0 = _mm256_loadu_ps(yr);
                b1 = _mm256_loadu_ps(yr + 8);
            }
            _mm256_storeu_ps(yr, _mm256_add_ps(b0, acc[r][0]));
            _mm256_storeu_ps(yr + 8, _mm256_add_ps(b1, acc[r][1]));
        }
    } else {
        const __m256i m0 = tail_mask(ncols < 8 ? ncols : 8);
        const __m256i m1 = tail_mask(ncols > 8 ? ncols - 8 : 0);
        __m256 b0 = _mm256_setzero_ps(), b1 = _mm256_setzero_ps();
        if (first && bias) {
            b0 = _mm256_maskload_ps(bias, m0);
            b1 = _mm256_maskload_ps(bias + 8, m1);
        }
        AX_AVX2_UNROLL
        for (size_t r = 0; r < MR; ++r) {
            float* yr = y + r * ldy;
            if (!first) {
                b0 = _mm256_maskload_ps(yr, m0);
                b1 = _mm256_maskload_ps(yr + 8, m1);
            }
            _mm256_maskstore_ps(yr, m0, _mm256_add_ps(b0, acc[r][0]));
            _mm256_maskstore_ps(yr + 8, m1, _mm256_add_ps(b1, acc[r][1]));
        }
    }
}

template <class W>
inline void linear_packed(const float* x, size_t rows, size_t in, const W* w, const float* bias, size_t out, float* y,
                          size_t ldy) {
    alignas(64) float panel[kKC * kNR];
    for (size_t o = 0; o < out; o += kNR) {
        const size_t ncols = out - o < kNR ? out - o : kNR;
        const float* b = bias ? bias + o : nullptr;
        for (size_t k0 = 0; k0 < in; k0 += kKC) {
            const size_t kc = in - k0 < kKC ? in - k0 : kKC;
            const bool first = k0 == 0;
            pack_panel(w + o * in, in, k0, kc, ncols, panel);
            size_t r = 0;
            for (; r + kMR <= rows; r += kMR)
                micro_tile<kMR>(x + r * in + k0, in, panel, kc, b, first, ncols, y + r * ldy + o, ldy);
            const float* xr = x + r * in + k0;
            float* yr = y + r * ldy + o;
            switch (rows - r) {
                case 5:
                    micro_tile<5>(xr, in, panel, kc, b, first, ncols, yr, ldy);
                    break;
                case 4:
                    micro_tile<4>(xr, in, panel, kc, b, first, ncols, yr, ldy);
                    break;
                case 3:
                    micro_tile<3>(xr, in, panel, kc, b, first, ncols, yr, ldy);
                    break;
                case 2:
                    micro_tile<2>(xr, in, panel, kc, b, first, ncols, yr, ldy);
                    break;
                case 1:
                    micro_tile<1>(xr, in, panel, kc, b, first, ncols, yr, ldy);
                    break;
                default:
                    break;
            }
        }
    }
}

// Which path: packing costs a transpose per W element, paid back over `rows` rows; the dot tiles pay
// their horizontal sums once per output, paid back over `in` inputs. The packed path wins when in <= 4 *
// rows (measured around the shapes of `auspex bench --kernels` when the choice was made).
inline bool use_packed(size_t rows, size_t in) { return rows >= 4 && in <= 4 * rows; }

template <class W>
inline void linear_float(const float* x, size_t rows, size_t in, const W* w, const float* bias, size_t out, float* y,
                         size_t ldy) {
    if (in == 0) {
        for (size_t r = 0; r < rows; ++r)
            for (size_t o = 0; o < out; ++o) y[r * ldy + o] = (bias ? bias[o] : 0.0f) + 0.0f;
        return;
    }
    if (use_packed(rows, in))
        linear_packed(x, rows, in, w, bias, out, y, ldy);
    else
        linear_dot(x, rows, in, w, bias, out, y, ldy);
}

}  // namespace ax::avx2::detail
