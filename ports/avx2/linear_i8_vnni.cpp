// The int8 product with AVX-VNNI (Intel Alder Lake and later, AMD Zen 5): the AVX2 port's maddubs tiles
// (linear_i8_avx2.cpp) with one vpdpbusd in place of maddubs + madd + add. vpdpbusd multiplies the
// unsigned bytes |w| by the signed bytes of x carrying w's sign and adds each group of four products to an
// int32 lane without intermediate saturation: exact, so results are bit-identical to generic. Rows of x
// holding -128 (which quantize_rows_i8 never makes) and rows shorter than 32 take the AVX2 widening path.
// (Shifting x to unsigned instead, with a sum-of-w correction, measured slower: the correction doubles
// the work of a matrix-vector product.) Compiled with -mavxvnni; reached only through avx2_vnni_kernels(),
// which checks the CPU first.
#include <immintrin.h>

#include "ports/avx2/avx2.h"
#include "ports/avx2/linear_i8_tiles.h"

namespace ax::avx2 {
namespace {

template <size_t R, size_t C>
inline void tile_vnni(const int8_t* xq, const float* xscale, size_t in, const int8_t* w, const float* wscale,
                      const float* bias, size_t out, float* y) {
    __m256i acc[R][C];
    AX_AVX2_UNROLL
    for (size_t r = 0; r < R; ++r)
        AX_AVX2_UNROLL
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
            for (size_t r = 0; r < R; ++r)
                acc[r][c] = _mm256_dpbusd_avx_epi32(acc[r][c], wabs, _mm256_sign_epi8(xv[r], wv));
        }
    };
    size_t i = 0;
    for (; i + 32 <= in; i += 32) step(i, _mm256_set1_epi8(-1));
    // The last 32 values again, the already-counted ones zeroed in x (in >= 32).
    if (i < in) step(in - 32, keep_last32(in - i));
    rescale_store(acc, xscale, wscale, bias, out, y);
}

template <size_t R, size_t C>
inline void rows_vnni(const int8_t* xq, const float* xscale, size_t rows, size_t in, const int8_t* w,
                      const float* wscale, const float* bias, size_t out, size_t o, float* y) {
    const int8_t* wo = w + o * in;
    const float* bo = bias ? bias + o : nullptr;
    size_t r = 0;
    for (; r + R <= rows; r += R) tile_vnni<R, C>(xq + r * in, xscale + r, in, wo, wscale + o, bo, out, y + r * out + o);
    for (; r < rows; ++r) tile_vnni<1, C>(xq + r * in, xscale + r, in, wo, wscale + o, bo, out, y + r * out + o);
}

}  // namespace

void linear_i8_vnni(const int8_t* xq, const float* xscale, size_t rows, size_t in, const int8_t* w,
                    const float* wscale, const float* bias, size_t out, float* y) {
    if (in < 32 || has_minus_128(xq, rows * in)) {
        linear_i8(xq, xscale, rows, in, w, wscale, bias, out, y);  // the AVX2 widening path
        return;
    }
    size_t o = 0;
    if (rows == 1) {
        for (; o + 8 <= out; o += 8) rows_vnni<1, 8>(xq, xscale, rows, in, w, wscale, bias, out, o, y);
    } else {
        for (; o + 4 <= out; o += 4) rows_vnni<2, 4>(xq, xscale, rows, in, w, wscale, bias, out, o, y);
    }
    for (; o + 4 <= out; o += 4) rows_vnni<1, 4>(xq, xscale, rows, in, w, wscale, bias, out, o, y);
    for (; o < out; ++o) rows_vnni<1, 1>(xq, xscale, rows, in, w, wscale, bias, out, o, y);
}

}  // namespace ax::avx2
