// The float matrix product of the AVX-512 port (float32 and IEEE-half weights; linear_f32_avx512.cpp and
// linear_f16_avx512.cpp instantiate it), the AVX2 port's two tilings (ports/avx2/linear_float_avx2.h) on 512-bit
// registers:
//
// - Packed outer product: a panel of 32 W rows times up to kKC inputs is transposed (halves converted)
//   into a 32 KB stack buffer, panel[k][32]; a 12 x 32 register tile of y (24 of the 32 ZMM registers)
//   accumulates broadcast(x[r][k]) * panel[k][0..32) with 24 FMAs per k and no horizontal sums.
// - Dot-product tiles for few rows (where every W element is read once per call and memory bound):
//   R = 3 rows of x against C = 4 rows of W, 16 floats per FMA, masked loads for the tails.
// - Float32 weights and 9-24 rows: x transposed by pairs of inputs, W read in place (linear_pairs below);
//   25-32 rows: x transposed (linear_xt below).
//
// Internal linkage (compiled with AVX-512 flags only in this port's files). The sums run in another order
// than generic's: results agree to rounding, not bit for bit. Half weights convert exactly (F16C on ZMM).
#pragma once
#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "ports/x86/avx2_util.h"

namespace ax::avx512 {
namespace {

inline __mmask16 mask16(size_t n) { return static_cast<__mmask16>((1u << n) - 1u); }  // n < 16

inline __m512 load16(const float* p) { return _mm512_loadu_ps(p); }
inline __m512 load16(const uint16_t* p) {
    return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
}
inline __m512 load16_tail(const float* p, size_t n) { return _mm512_maskz_loadu_ps(mask16(n), p); }
inline __m512 load16_tail(const uint16_t* p, size_t n) {
    return _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(mask16(n), p));
}

// ---- dot-product tiles ----

// y[r * ldy + c] = bias[c] + dot(x row r, W row c) for r < R, c < C (C is 1 or 4).
template <size_t R, size_t C, class W>
inline void tile_dot(const float* x, size_t in, const W* w, const float* bias, size_t ldy, float* y) {
    __m512 acc[R][C];
    AX_AVX2_UNROLL
    for (size_t r = 0; r < R; ++r) AX_AVX2_UNROLL
    for (size_t c = 0; c < C; ++c) acc[r][c] = _mm512_setzero_ps();
    size_t i = 0;
    for (; i + 16 <= in; i += 16) {
        __m512 xv[R];
        AX_AVX2_UNROLL
        for (size_t r = 0; r < R; ++r) xv[r] = _mm512_loadu_ps(x + r * in + i);
        AX_AVX2_UNROLL
        for (size_t c = 0; c < C; ++c) {
            const __m512 wv = load16(w + c * in + i);
            AX_AVX2_UNROLL
            for (size_t r = 0; r < R; ++r) acc[r][c] = _mm512_fmadd_ps(xv[r], wv, acc[r][c]);
        }
    }
    if (i < in) {
        const size_t n = in - i;
        __m512 xv[R];
        AX_AVX2_UNROLL
        for (size_t r = 0; r < R; ++r) xv[r] = _mm512_maskz_loadu_ps(mask16(n), x + r * in + i);
        AX_AVX2_UNROLL
        for (size_t c = 0; c < C; ++c) {
            const __m512 wv = load16_tail(w + c * in + i, n);
            AX_AVX2_UNROLL
            for (size_t r = 0; r < R; ++r) acc[r][c] = _mm512_fmadd_ps(xv[r], wv, acc[r][c]);
        }
    }
    AX_AVX2_UNROLL
    for (size_t r = 0; r < R; ++r) {
        if constexpr (C == 1) {
            y[r * ldy] = (bias ? bias[0] : 0.0f) + _mm512_reduce_add_ps(acc[r][0]);
        } else {
            // Fold each 16-lane sum to 8 lanes, then the AVX2 four-way horizontal sum.
            __m256 h[C];
            AX_AVX2_UNROLL
            for (size_t c = 0; c < C; ++c)
                h[c] = _mm512_castps512_ps256(
                    _mm512_add_ps(acc[r][c], _mm512_shuffle_f32x4(acc[r][c], acc[r][c], _MM_SHUFFLE(3, 2, 3, 2))));
            AX_AVX2_UNROLL
            for (size_t c = 0; c < C; c += 4) {
                const __m128 s = avx2::detail::hsum4(h[c], h[c + 1], h[c + 2], h[c + 3]);
                const __m128 b = bias ? _mm_loadu_ps(bias + c) : _mm_setzero_ps();
                _mm_storeu_ps(y + r * ldy + c, _mm_add_ps(b, s));
            }
        }
    }
}

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
        for (; o + 8 <= out; o += 8) {
            tile_dot<1, 4>(x, in, w + o * in, bias ? bias + o : nullptr, ldy, y + o);
            tile_dot<1, 4>(x, in, w + (o + 4) * in, bias ? bias + o + 4 : nullptr, ldy, y + o + 4);
        }
    for (; o + 4 <= out; o += 4) columns_dot<4>(x, rows, in, w, bias, ldy, o, y);
    for (; o < out; ++o) columns_dot<1>(x, rows, in, w, bias, ldy, o, y);
}

// ---- packed outer-product kernel ----

constexpr size_t kMR = 12;   // rows of x per register tile
constexpr size_t kNR = 32;   // outputs per register tile (two vectors)
constexpr size_t kKC = 256;  // inputs per packed panel: 32 x 256 floats = 32 KB of stack

// panel[k * 32 + j] = W[j][k0 + k] for j < ncols, zero for ncols <= j < 32.
template <class W>
inline void pack_panel(const W* w, size_t in, size_t k0, size_t kc, size_t ncols, float* panel) {
    avx2::detail::pack_panel_t<kNR>(w, in, k0, kc, ncols, panel);
}

// y tile (MR rows, ncols <= 32 outputs) = bias + x tile times panel (`first`), or += it.
template <size_t MR>
inline void micro_tile(const float* x, size_t ldx, const float* panel, size_t kc, const float* bias, bool first,
                       size_t ncols, float* y, size_t ldy) {
    __m512 acc[MR][2];
    AX_AVX2_UNROLL
    for (size_t r = 0; r < MR; ++r) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
    const float* xr[MR];
    AX_AVX2_UNROLL
    for (size_t r = 0; r < MR; ++r) xr[r] = x + r * ldx;
    for (size_t k = 0; k < kc; ++k) {
        const __m512 w0 = _mm512_load_ps(panel + k * kNR);
        const __m512 w1 = _mm512_load_ps(panel + k * kNR + 16);
        AX_AVX2_UNROLL
        for (size_t r = 0; r < MR; ++r) {
            const __m512 xb = _mm512_set1_ps(xr[r][k]);
            acc[r][0] = _mm512_fmadd_ps(xb, w0, acc[r][0]);
            acc[r][1] = _mm512_fmadd_ps(xb, w1, acc[r][1]);
        }
    }
    const __mmask16 m0 = ncols >= 16 ? static_cast<__mmask16>(0xffff) : mask16(ncols);
    const __mmask16 m1 = ncols >= 32 ? static_cast<__mmask16>(0xffff) : (ncols > 16 ? mask16(ncols - 16) : 0);
    __m512 b0 = _mm512_setzero_ps(), b1 = _mm512_setzero_ps();
    if (first && bias) {
        b0 = _mm512_maskz_loadu_ps(m0, bias);
        b1 = _mm512_maskz_loadu_ps(m1, bias + 16);
    }
    AX_AVX2_UNROLL
    for (size_t r = 0; r < MR; ++r) {
        float* yr = y + r * ldy;
        if (!first) {
            b0 = _mm512_maskz_loadu_ps(m0, yr);
            b1 = _mm512_maskz_loadu_ps(m1, yr + 16);
        }
        _mm512_mask_storeu_ps(yr, m0, _mm512_add_ps(b0, acc[r][0]));
        _mm512_mask_storeu_ps(yr + 16, m1, _mm512_add_ps(b1, acc[r][1]));
    }
}

template <size_t MR, class W>
inline void micro_rest(size_t rest, const float* x, size_t ldx, const float* panel, size_t kc, const float* bias,
                       bool first, size_t ncols, float* y, size_t ldy) {
    if constexpr (MR > 0) {
        if (rest == MR)
            micro_tile<MR>(x, ldx, panel, kc, bias, first, ncols, y, ldy);
        else
            micro_rest<MR - 1, W>(rest, x, ldx, panel, kc, bias, first, ncols, y, ldy);
    }
}

template <class W>
inline void linear_packed(const float* x, size_t rows, size_t in, const W* w, const float* bias, size_t out, float* y,
                          size_t ldy) {
    alignas(64) float panel[kKC * kNR];
    // Outputs outermost: a panel's 32 W rows are read start to end, one block of kKC inputs after the other,
    // long sequential streams the hardware prefetcher follows (W comes from L3 or memory: a product's
    // weights are more than L2, and a pass reads each once). With the blocks outermost instead, each W row
    // was read in 1 KB pieces, too short for the prefetcher: 10-20% slower from cold weights at 512 or 2048
    // inputs. x (rows x in floats) stays in L2 across the panels. Each y element sums the blocks in order.
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
            if (r < rows)
                micro_rest<kMR - 1, W>(rows - r, x + r * in + k0, in, panel, kc, b, first, ncols, y + r * ldy + o, ldy);
        }
    }
}

// ---- transposed-x kernel (float32 weights) ----
//
// The roles swapped: x, not W, is transposed, 32 rows into a panel xt[k][32] (two vectors of rows), once per
// call and block of inputs, and W is read in place, each weight broadcast against both vectors: an 8 x 32
// register tile of y^T (16 ZMM accumulators) takes 8 broadcasts and 2 loads per 16 FMAs. Packing x costs
// rows x in values per call where packing W cost in x out, which the packed kernel paid back only over many
// rows (a 24-row product spent a quarter of its time transposing W). The tile is turned back into y's rows
// through 8 x 8 transposes. Each y value still sums its inputs in order, block after block.

constexpr size_t kXR = 32;   // rows per panel
constexpr size_t kXO = 8;    // outputs per register tile
constexpr size_t kXK = 512;  // inputs per panel: 512 x 32 floats = 64 KB of stack

// t[j]: 8 rows' values of output j (j < 8, zero past the tile's outputs): transposed into rows and written to
// the first `rows8` of y's rows at yr, the tile's outputs (mask m), plus the bias b (first block) or y.
inline void store_tile_rows(__m256 (&t)[8], size_t rows8, __mmask8 m, __m256 b, bool first, float* yr, size_t ldy) {
    avx2::detail::transpose8(t);
    for (size_t i = 0; i < rows8; ++i) {
        float* row = yr + i * ldy;
        const __m256 base = first ? b : _mm256_maskz_loadu_ps(m, row);
        _mm256_mask_storeu_ps(row, m, _mm256_add_ps(base, t[i]));
    }
}

// y[r][o0 + j] for rows r < nrows (at most 32) and j < NO: bias + the tile (first block), or y + the tile.
template <size_t NO>
inline void xt_tile(const float* xt, size_t kc, const float* w, size_t in, const float* bias, bool first, size_t nrows,
                    float* y, size_t ldy) {
    __m512 acc[NO][2];
    AX_AVX2_UNROLL
    for (size_t o = 0; o < NO; ++o) acc[o][0] = acc[o][1] = _mm512_setzero_ps();
    for (size_t k = 0; k < kc; ++k) {
        const __m512 x0 = _mm512_load_ps(xt + k * kXR);
        const __m512 x1 = _mm512_load_ps(xt + k * kXR + 16);
        AX_AVX2_UNROLL
        for (size_t o = 0; o < NO; ++o) {
            const __m512 wb = _mm512_set1_ps(w[o * in + k]);
            acc[o][0] = _mm512_fmadd_ps(wb, x0, acc[o][0]);
            acc[o][1] = _mm512_fmadd_ps(wb, x1, acc[o][1]);
        }
    }
    const __mmask8 m = static_cast<__mmask8>((1u << NO) - 1u);
    const __m256 b = first && bias ? _mm256_maskz_loadu_ps(m, bias) : _mm256_setzero_ps();
    // Rows 8g .. 8g + 7: the g-th 8 lanes of every output's accumulators, transposed into 8 rows of NO values.
    for (size_t g = 0; g * 8 < nrows; ++g) {
        __m256 t[8];
        AX_AVX2_UNROLL
        for (size_t o = 0; o < 8; ++o) {
            if (o >= NO) {
                t[o] = _mm256_setzero_ps();
            } else {
                const __m512 a = acc[o][g / 2];
                t[o] = g % 2 == 0 ? _mm512_castps512_ps256(a) : _mm512_extractf32x8_ps(a, 1);
            }
        }
        store_tile_rows(t, nrows - g * 8 < 8 ? nrows - g * 8 : 8, m, b, first, y + g * 8 * ldy, ldy);
    }
}

template <size_t NO>
inline void xt_rest(size_t rest, const float* xt, size_t kc, const float* w, size_t in, const float* bias, bool first,
                    size_t nrows, float* y, size_t ldy) {
    if constexpr (NO > 0) {
        if (rest == NO)
            xt_tile<NO>(xt, kc, w, in, bias, first, nrows, y, ldy);
        else
            xt_rest<NO - 1>(rest, xt, kc, w, in, bias, first, nrows, y, ldy);
    }
}

inline void linear_xt(const float* x, size_t rows, size_t in, const float* w, const float* bias, size_t out, float* y,
                      size_t ldy) {
    alignas(64) float xt[kXK * kXR];
    for (size_t r = 0; r < rows; r += kXR) {
        const size_t nrows = rows - r < kXR ? rows - r : kXR;
        for (size_t k0 = 0; k0 < in; k0 += kXK) {
            const size_t kc = in - k0 < kXK ? in - k0 : kXK;
            const bool first = k0 == 0;
            avx2::detail::pack_panel_t<kXR>(x + r * in, in, k0, kc, nrows, xt);
            size_t o = 0;
            for (; o + kXO <= out; o += kXO)
                xt_tile<kXO>(xt, kc, w + o * in + k0, in, bias ? bias + o : nullptr, first, nrows, y + r * ldy + o,
                             ldy);
            if (o < out)
                xt_rest<kXO - 1>(out - o, xt, kc, w + o * in + k0, in, bias ? bias + o : nullptr, first, nrows,
                                 y + r * ldy + o, ldy);
        }
    }
}

// ---- pair-lane kernel (float32 weights, 9-24 rows) ----
//
// x transposed by pairs of inputs: a vector holds 8 rows x 2 consecutive inputs (lane 2i + p: row i, input
// 2k + p), and one 64-bit broadcast of W (inputs 2k and 2k + 1 of one output, adjacent in its row) meets V
// such vectors: 8V rows in V FMAs with every lane busy, where the 32-row panel of linear_xt left 8 of 32
// lanes idle at 24 rows. Each lane sums every other input; the two sums of a row and output are added
// (the even inputs' first) before the bias or the previous block, then 8 x 8 transposes turn the tile into
// y's rows. An 8-output tile is 8V accumulators, V loads of x and 8 broadcasts of W per 8V FMAs.

constexpr size_t kPK = 512;  // inputs per block (even: a pair never straddles two blocks)

// xp[kp * 16V + 16v + 2i + p] = x[8v + i][k0 + 2kp + p] for rows 8v + i < nrows and 2kp + p < kc, else 0;
// pairs up to 8 * ceil(kc / 16). Eight rows of 16 inputs at a time: their 8 pairs each, an 8 x 8
// transpose of 64-bit elements.
template <size_t V>
inline void pack_pairs(const float* x, size_t in, size_t k0, size_t kc, size_t nrows, float* xp) {
    for (size_t v = 0; v < V; ++v)
        for (size_t j = 0; j * 16 < kc; ++j) {
            const size_t n = kc - j * 16 < 16 ? kc - j * 16 : 16;
            const __mmask16 m = n == 16 ? static_cast<__mmask16>(0xffff) : mask16(n);
            __m512d r[8];
            AX_AVX2_UNROLL
            for (size_t i = 0; i < 8; ++i)
                r[i] = 8 * v + i < nrows
                           ? _mm512_castps_pd(_mm512_maskz_loadu_ps(m, x + (8 * v + i) * in + k0 + j * 16))
                           : _mm512_setzero_pd();
            __m512d t[8], u[8];
            AX_AVX2_UNROLL
            for (size_t i = 0; i < 8; i += 2) {
                t[i] = _mm512_unpacklo_pd(r[i], r[i + 1]);      // pairs 0, 2, 4, 6 of rows i, i + 1
                t[i + 1] = _mm512_unpackhi_pd(r[i], r[i + 1]);  // pairs 1, 3, 5, 7
            }
            AX_AVX2_UNROLL
            for (size_t i = 0; i < 8; i += 4) AX_AVX2_UNROLL
            for (size_t h = 0; h < 2; ++h) {
                u[i + 2 * h] = _mm512_shuffle_f64x2(t[i + h], t[i + 2 + h], 0x88);
                u[i + 2 * h + 1] = _mm512_shuffle_f64x2(t[i + h], t[i + 2 + h], 0xDD);
            }
            // u[0]: pairs 0, 4 of rows 0-3; u[1]: 2, 6; u[2]: 1, 5; u[3]: 3, 7; u[4..7] the same of rows 4-7.
            constexpr size_t kFirst[4] = {0, 2, 1, 3};
            float* dst = xp + j * 8 * V * 16 + v * 16;
            AX_AVX2_UNROLL
            for (size_t q = 0; q < 4; ++q) {
                _mm512_store_pd(reinterpret_cast<double*>(dst + kFirst[q] * V * 16),
                                _mm512_shuffle_f64x2(u[q], u[q + 4], 0x88));
                _mm512_store_pd(reinterpret_cast<double*>(dst + (kFirst[q] + 4) * V * 16),
                                _mm512_shuffle_f64x2(u[q], u[q + 4], 0xDD));
            }
        }
}

// W's inputs 2kp and 2kp + 1 of the output at wo, broadcast (the second zero when only one is left).
inline __m512 pair_weights(const float* wo, size_t kp, bool last_alone) {
    if (last_alone) return _mm512_castpd_ps(_mm512_broadcastsd_pd(_mm_castps_pd(_mm_load_ss(wo + 2 * kp))));
    return _mm512_castpd_ps(_mm512_broadcastsd_pd(_mm_load_sd(reinterpret_cast<const double*>(wo + 2 * kp))));
}

// y[r][j] for rows r < nrows (at most 8V) and outputs j < NO: bias + the tile (first block), or y + the tile.
template <size_t V, size_t NO>
inline void pair_tile(const float* xp, size_t kc, const float* w, size_t in, const float* bias, bool first,
                      size_t nrows, float* y, size_t ldy) {
    __m512 acc[NO][V];
    AX_AVX2_UNROLL
    for (size_t o = 0; o < NO; ++o) AX_AVX2_UNROLL
    for (size_t v = 0; v < V; ++v) acc[o][v] = _mm512_setzero_ps();
    const auto step = [&](size_t kp, bool alone) {
        __m512 xv[V];
        AX_AVX2_UNROLL
        for (size_t v = 0; v < V; ++v) xv[v] = _mm512_load_ps(xp + kp * V * 16 + v * 16);
        AX_AVX2_UNROLL
        for (size_t o = 0; o < NO; ++o) {
            const __m512 wb = pair_weights(w + o * in, kp, alone);
            AX_AVX2_UNROLL
            for (size_t v = 0; v < V; ++v) acc[o][v] = _mm512_fmadd_ps(wb, xv[v], acc[o][v]);
        }
    };
    for (size_t kp = 0; kp < kc / 2; ++kp) step(kp, false);
    if (kc % 2 != 0) step(kc / 2, true);  // an odd block's last input: W's next value is not this block's
    const __mmask8 m = static_cast<__mmask8>((1u << NO) - 1u);
    const __m256 b = first && bias ? _mm256_maskz_loadu_ps(m, bias) : _mm256_setzero_ps();
    const __m512i swap = _mm512_set_epi32(14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1);
    const __m512i evens = _mm512_set_epi32(0, 0, 0, 0, 0, 0, 0, 0, 14, 12, 10, 8, 6, 4, 2, 0);
    AX_AVX2_UNROLL
    for (size_t v = 0; v < V; ++v) {
        if (v * 8 >= nrows) break;
        // Rows 8v .. 8v + 7: each output's two sums added, then transposed into 8 rows of NO values.
        __m256 t[8];
        AX_AVX2_UNROLL
        for (size_t o = 0; o < 8; ++o) {
            if (o >= NO) {
                t[o] = _mm256_setzero_ps();
            } else {
                const __m512 a = acc[o][v];
                const __m512 sums = _mm512_add_ps(a, _mm512_permutexvar_ps(swap, a));
                t[o] = _mm512_castps512_ps256(_mm512_permutexvar_ps(evens, sums));
            }
        }
        store_tile_rows(t, nrows - v * 8 < 8 ? nrows - v * 8 : 8, m, b, first, y + v * 8 * ldy, ldy);
    }
}

template <size_t V, size_t NO>
inline void pair_rest(size_t rest, const float* xp, size_t kc, const float* w, size_t in, const float* bias, bool first,
                      size_t nrows, float* y, size_t ldy) {
    if constexpr (NO > 0) {
        if (rest == NO)
            pair_tile<V, NO>(xp, kc, w, in, bias, first, nrows, y, ldy);
        else
            pair_rest<V, NO - 1>(rest, xp, kc, w, in, bias, first, nrows, y, ldy);
    }
}

// rows <= 8V: one panel, W read once.
template <size_t V>
inline void linear_pairs(const float* x, size_t rows, size_t in, const float* w, const float* bias, size_t out,
                         float* y, size_t ldy) {
    alignas(64) float xp[kPK / 2 * V * 16];
    for (size_t k0 = 0; k0 < in; k0 += kPK) {
        const size_t kc = in - k0 < kPK ? in - k0 : kPK;
        const bool first = k0 == 0;
        pack_pairs<V>(x, in, k0, kc, rows, xp);
        size_t o = 0;
        for (; o + kXO <= out; o += kXO)
            pair_tile<V, kXO>(xp, kc, w + o * in + k0, in, bias ? bias + o : nullptr, first, rows, y + o, ldy);
        if (o < out)
            pair_rest<V, kXO - 1>(out - o, xp, kc, w + o * in + k0, in, bias ? bias + o : nullptr, first, rows, y + o,
                                  ldy);
    }
}

// The packed path pays a transpose per W element back over `rows` rows.
inline bool use_packed(size_t rows, size_t) { return rows >= 8; }

// One panel of 25-32 rows: W read once, at least 25 of the 32 lanes busy. Measured against the packed kernel on
// one Sapphire Rapids core: 32 x 512 x 512 1.3x; with more rows the packed kernel reads W once where this one
// would read it once per panel (100 x 512 x 2048 from L3: 0.75x).
inline bool use_xt(size_t rows) { return rows > 24 && rows <= kXR; }

// One panel of pair lanes for 9-16 rows (2 vectors of 8 rows) and 17-24 (3: a decoder's tile of a 24-step
// horizon), where the packed kernel transposes all of W for few rows and linear_xt leaves lanes idle. On one
// Zen 5 core (AMD EPYC, W warm): 24 x 512 x 2048 179 GFLOP/s against 125 for either, 16 x 512 x 512 193
// against 124 (packed); at 8 rows (half the lanes) it only ties the packed kernel.
inline int pair_vectors(size_t rows) { return rows > 8 && rows <= 16 ? 2 : rows > 16 && rows <= 24 ? 3 : 0; }

template <class W>
inline void linear_float(const float* x, size_t rows, size_t in, const W* w, const float* bias, size_t out, float* y,
                         size_t ldy) {
    if (in == 0) {
        for (size_t r = 0; r < rows; ++r)
            for (size_t o = 0; o < out; ++o) y[r * ldy + o] = (bias ? bias[o] : 0.0f) + 0.0f;
        return;
    }
    if constexpr (std::is_same<W, float>::value) {
        if (pair_vectors(rows) == 2) {
            linear_pairs<2>(x, rows, in, w, bias, out, y, ldy);
            return;
        }
        if (pair_vectors(rows) == 3) {
            linear_pairs<3>(x, rows, in, w, bias, out, y, ldy);
            return;
        }
        if (use_xt(rows)) {
            linear_xt(x, rows, in, w, bias, out, y, ldy);
            return;
        }
    }
    if (use_packed(rows, in))
        linear_packed(x, rows, in, w, bias, out, y, ldy);
    else
        linear_dot(x, rows, in, w, bias, out, y, ldy);
}

}  // namespace
}  // namespace ax::avx512
