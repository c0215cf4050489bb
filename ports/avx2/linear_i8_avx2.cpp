// y = x W^T + b with int8 activations and weights, bit-identical to generic::linear_i8: the int32 dot
// products are exact (integer sums do not depend on their order), and the rescale is generic::rescale_i8's
// float operations lane for lane: float(acc) * (xscale * wscale) + bias, a multiply and an add, never
// fused (adding 0.0f when there is no bias, as generic does).
//
// Two ways to multiply, both exact:
// - Widening (any rows): 16 int8 of x and of W sign-extended to int16 (_mm256_cvtepi8_epi16), multiplied
//   with _mm256_madd_epi16, which adds adjacent products into int32 lanes. A product is at most 2^14 in
//   magnitude and a pair sum 2^15, so nothing saturates for any int8 input, -128 included. R rows of x
//   against C rows of W share each widened vector.
// - maddubs (in >= 32, the usual case): _mm256_maddubs_epi16 takes 32 pairs per instruction but
//   multiplies unsigned by signed bytes and saturates its int16 pair sums. W goes to
//   the unsigned side as |w| (<= 128) and x takes w's sign (sign_epi8(x, w), exact while x != -128); a pair
//   sum is then at most 2 * 128 * 127 = 32512 < 2^15, so nothing saturates. The int16 pair sums go to
//   int32 with _mm256_madd_epi16(., 1). quantize_rows_i8 never makes -128; when x holds one anyway, the
//   whole call takes the widening path. Per 32 products: two multiply instructions and no lane-crossing
//   widening, hence the faster path (`auspex bench --kernels --port avx2` measures it).
//
// Tails shorter than a vector reload the last full vector of the row (overlapping what was done) with the
// already-counted bytes of x zeroed, so no load ever reaches past a row; rows shorter than one vector go
// through a zero-padded copy.
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "ports/avx2/avx2.h"
#include "ports/x86/linear_i8_packed.h"
#include "ports/x86/linear_i8_tiles.h"

namespace ax::avx2 {
namespace {

// ---- widening path ----

template <size_t R, size_t C>
inline void accumulate_widened(__m256i (&acc)[R][C], const __m256i (&xv)[R], const int8_t* w, size_t in, size_t i,
                               size_t short_n) {
    AX_AVX2_UNROLL
    for (size_t c = 0; c < C; ++c) {
        const __m256i wv = short_n ? widen_short(w + c * in, short_n) : widen16(w + c * in + i);
        AX_AVX2_UNROLL
        for (size_t r = 0; r < R; ++r) acc[r][c] = _mm256_add_epi32(acc[r][c], _mm256_madd_epi16(xv[r], wv));
    }
}

template <size_t R, size_t C>
inline void tile_widen(const int8_t* xq, const float* xscale, size_t in, const int8_t* w, const float* wscale,
                       const float* bias, size_t ldy, float* y) {
    __m256i acc[R][C];
    AX_AVX2_UNROLL
    for (size_t r = 0; r < R; ++r) AX_AVX2_UNROLL
    for (size_t c = 0; c < C; ++c) acc[r][c] = _mm256_setzero_si256();
    __m256i xv[R];
    size_t i = 0;
    for (; i + 16 <= in; i += 16) {
        AX_AVX2_UNROLL
        for (size_t r = 0; r < R; ++r) xv[r] = widen16(xq + r * in + i);
        accumulate_widened(acc, xv, w, in, i, 0);
    }
    if (i < in) {
        if (in >= 16) {
            // The last 16 values of each row again, the first 16 - n of them (already counted) zeroed in x.
            const size_t n = in - i;
            const __m128i keep = keep_last16(n);
            AX_AVX2_UNROLL
            for (size_t r = 0; r < R; ++r)
                xv[r] = _mm256_cvtepi8_epi16(_mm_and_si128(load16(xq + r * in + in - 16), keep));
            accumulate_widened(acc, xv, w, in, in - 16, 0);
        } else {
            AX_AVX2_UNROLL
            for (size_t r = 0; r < R; ++r) xv[r] = widen_short(xq + r * in, in);
            accumulate_widened(acc, xv, w, in, 0, in);
        }
    }
    rescale_store(acc, xscale, wscale, bias, ldy, y);
}

// Outputs [o, o + C) for every row: pairs of rows, then a last single row.
template <size_t C>
inline void columns_widen(const int8_t* xq, const float* xscale, size_t rows, size_t in, const int8_t* w,
                          const float* wscale, const float* bias, size_t ldy, size_t o, float* y) {
    const int8_t* wo = w + o * in;
    const float* bo = bias ? bias + o : nullptr;
    size_t r = 0;
    for (; r + 2 <= rows; r += 2)
        tile_widen<2, C>(xq + r * in, xscale + r, in, wo, wscale + o, bo, ldy, y + r * ldy + o);
    if (r < rows) tile_widen<1, C>(xq + r * in, xscale + r, in, wo, wscale + o, bo, ldy, y + r * ldy + o);
}

void linear_widen(const int8_t* xq, const float* xscale, size_t rows, size_t in, const int8_t* w, const float* wscale,
                  const float* bias, size_t out, float* y, size_t ldy) {
    size_t o = 0;
    for (; o + 4 <= out; o += 4) columns_widen<4>(xq, xscale, rows, in, w, wscale, bias, ldy, o, y);
    for (; o < out; ++o) columns_widen<1>(xq, xscale, rows, in, w, wscale, bias, ldy, o, y);
}

// ---- maddubs path (rows of x without -128, in >= 32) ----

template <size_t R, size_t C>
inline void accumulate_ubs(__m256i (&acc)[R][C], const __m256i (&xv)[R], const int8_t* w, size_t in, size_t i) {
    const __m256i ones = _mm256_set1_epi16(1);
    AX_AVX2_UNROLL
    for (size_t c = 0; c < C; ++c) {
        const __m256i wv = load32(w + c * in + i);
        const __m256i wabs = _mm256_abs_epi8(wv);
        AX_AVX2_UNROLL
        for (size_t r = 0; r < R; ++r) {
            const __m256i pairs = _mm256_maddubs_epi16(wabs, _mm256_sign_epi8(xv[r], wv));
            acc[r][c] = _mm256_add_epi32(acc[r][c], _mm256_madd_epi16(pairs, ones));
        }
    }
}

template <size_t R, size_t C>
inline void tile_ubs(const int8_t* xq, const float* xscale, size_t in, const int8_t* w, const float* wscale,
                     const float* bias, size_t ldy, float* y) {
    __m256i acc[R][C];
    AX_AVX2_UNROLL
    for (size_t r = 0; r < R; ++r) AX_AVX2_UNROLL
    for (size_t c = 0; c < C; ++c) acc[r][c] = _mm256_setzero_si256();
    __m256i xv[R];
    size_t i = 0;
    for (; i + 32 <= in; i += 32) {
        AX_AVX2_UNROLL
        for (size_t r = 0; r < R; ++r) xv[r] = load32(xq + r * in + i);
        accumulate_ubs(acc, xv, w, in, i);
    }
    if (i < in) {
        // The last 32 values of each row again, the first 32 - n of them (already counted) zeroed in x.
        const __m256i keep = keep_last32(in - i);
        AX_AVX2_UNROLL
        for (size_t r = 0; r < R; ++r) xv[r] = _mm256_and_si256(load32(xq + r * in + in - 32), keep);
        accumulate_ubs(acc, xv, w, in, in - 32);
    }
    rescale_store(acc, xscale, wscale, bias, ldy, y);
}

template <size_t R, size_t C>
inline void rows_ubs(const int8_t* xq, const float* xscale, size_t rows, size_t in, const int8_t* w,
                     const float* wscale, const float* bias, size_t ldy, size_t o, float* y) {
    const int8_t* wo = w + o * in;
    const float* bo = bias ? bias + o : nullptr;
    size_t r = 0;
    for (; r + R <= rows; r += R) tile_ubs<R, C>(xq + r * in, xscale + r, in, wo, wscale + o, bo, ldy, y + r * ldy + o);
    for (; r < rows; ++r) tile_ubs<1, C>(xq + r * in, xscale + r, in, wo, wscale + o, bo, ldy, y + r * ldy + o);
}

void linear_ubs(const int8_t* xq, const float* xscale, size_t rows, size_t in, const int8_t* w, const float* wscale,
                const float* bias, size_t out, float* y, size_t ldy) {
    size_t o = 0;
    if (rows == 1) {
        for (; o + 8 <= out; o += 8) rows_ubs<1, 8>(xq, xscale, rows, in, w, wscale, bias, ldy, o, y);
    } else {
        for (; o + 4 <= out; o += 4) rows_ubs<2, 4>(xq, xscale, rows, in, w, wscale, bias, ldy, o, y);
    }
    for (; o + 4 <= out; o += 4) rows_ubs<1, 4>(xq, xscale, rows, in, w, wscale, bias, ldy, o, y);
    for (; o < out; ++o) rows_ubs<1, 1>(xq, xscale, rows, in, w, wscale, bias, ldy, o, y);
}

// The batched path (linear_i8_packed.h): W packed as int16 pairs, x widened, one vpmaddwd + vpaddd per
// 2 inputs of 8 outputs; 6 rows x 16 outputs per tile (12 of the 16 YMM registers accumulate).
struct MaddTile {
    using V = __m256i;
    static constexpr size_t kLanes = 8, kVecs = 2, kCols = 16, kRows = 6, kGroup = 2;
    static constexpr bool kVnni = false;
    static V zero() { return _mm256_setzero_si256(); }
    static V load(const uint32_t* p) { return _mm256_load_si256(reinterpret_cast<const __m256i*>(p)); }
    static V bcast(uint32_t word) { return _mm256_set1_epi32(static_cast<int>(word)); }
    static V madd(V acc, V xb, V w) { return _mm256_add_epi32(acc, _mm256_madd_epi16(xb, w)); }
    static void store(int32_t* p, V v) { _mm256_store_si256(reinterpret_cast<__m256i*>(p), v); }
    static V loadi(const int32_t* p) { return _mm256_load_si256(reinterpret_cast<const __m256i*>(p)); }
    static void finish(V acc, int32_t off, float xs, const float* ws, const float* b, size_t n, float* y) {
        finish8(acc, off, xs, ws, b, n, y);
    }
};

}  // namespace

void linear_i8(const int8_t* xq, const float* xscale, size_t rows, size_t in, const int8_t* w, const float* wscale,
               const float* bias, size_t out, float* y, size_t ldy) {
    if (use_packed_i8(rows, in))
        linear_i8_packed<MaddTile>(xq, xscale, rows, in, w, wscale, bias, out, y, ldy);
    else if (in >= 32 && !has_minus_128(xq, rows * in))
        linear_ubs(xq, xscale, rows, in, w, wscale, bias, out, y, ldy);
    else
        linear_widen(xq, xscale, rows, in, w, wscale, bias, out, y, ldy);
}

}  // namespace ax::avx2
