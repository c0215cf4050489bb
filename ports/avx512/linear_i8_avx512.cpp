// The int8 products of the AVX-512 port, bit-identical to generic (see ports/x86/linear_i8_packed.h for
// why each path is exact):
// - batched (rows >= kPackedMinRows): packed weight panels with AVX512-VNNI's vpdpbusd, w + 128 unsigned
//   against x signed, corrected by 128 * rowsum(x). linear_i8: 12 rows x 32 outputs per tile on ZMM (24
//   accumulators); linear_i8_256: 12 rows x 16 outputs on YMM (24 of the 32 registers EVEX can name).
// - few rows: the dot-product tiles of ports/x86/linear_i8_tiles.h with the EVEX vpdpbusd on YMM (the
//   VEX form of avx2-vnni needs AVX-VNNI, which AVX-512 CPUs before Sapphire Rapids / Zen 5 lack); rows
//   of x holding -128 or shorter than 32 take the AVX2 port's path.
#include "ports/avx512/immintrin_avx512.h"

#include "ports/avx2/avx2.h"
#include "ports/x86/linear_i8_packed.h"
#include "ports/x86/linear_i8_tiles.h"
#include "ports/avx512/avx512.h"

namespace ax::avx512 {
namespace {

struct EvexDp {
    static __m256i dpbusd(__m256i acc, __m256i u, __m256i s) { return _mm256_dpbusd_epi32(acc, u, s); }
};

struct ZmmTile {
    using V = __m512i;
    static constexpr size_t kLanes = 16, kVecs = 2, kCols = 32, kRows = 12, kGroup = 4;
    static constexpr bool kVnni = true;
    static V zero() { return _mm512_setzero_si512(); }
    static V load(const uint32_t* p) { return _mm512_load_si512(p); }
    static V bcast(uint32_t word) { return _mm512_set1_epi32(static_cast<int>(word)); }
    static V madd(V acc, V xb, V w) { return _mm512_dpbusd_epi32(acc, w, xb); }
    static void store(int32_t* p, V v) { _mm512_store_si512(p, v); }
    static V loadi(const int32_t* p) { return _mm512_load_si512(p); }
    static void finish(V acc, int32_t off, float xs, const float* ws, const float* b, size_t n, float* y) {
        const __mmask16 m = n >= 16 ? static_cast<__mmask16>(0xffff) : static_cast<__mmask16>((1u << n) - 1u);
        const __m512 a = _mm512_cvtepi32_ps(_mm512_sub_epi32(acc, _mm512_set1_epi32(off)));
        const __m512 product = _mm512_mul_ps(a, _mm512_mul_ps(_mm512_set1_ps(xs), _mm512_maskz_loadu_ps(m, ws)));
        const __m512 bias = b ? _mm512_maskz_loadu_ps(m, b) : _mm512_setzero_ps();
        _mm512_mask_storeu_ps(y, m, _mm512_add_ps(product, bias));
    }
};

struct YmmTile {
    using V = __m256i;
    static constexpr size_t kLanes = 8, kVecs = 2, kCols = 16, kRows = 12, kGroup = 4;
    static constexpr bool kVnni = true;
    static V zero() { return _mm256_setzero_si256(); }
    static V load(const uint32_t* p) { return _mm256_load_si256(reinterpret_cast<const __m256i*>(p)); }
    static V bcast(uint32_t word) { return _mm256_set1_epi32(static_cast<int>(word)); }
    static V madd(V acc, V xb, V w) { return _mm256_dpbusd_epi32(acc, w, xb); }
    static void store(int32_t* p, V v) { _mm256_store_si256(reinterpret_cast<__m256i*>(p), v); }
    static V loadi(const int32_t* p) { return _mm256_load_si256(reinterpret_cast<const __m256i*>(p)); }
    static void finish(V acc, int32_t off, float xs, const float* ws, const float* b, size_t n, float* y) {
        avx2::finish8(acc, off, xs, ws, b, n, y);
    }
};

void linear_few_rows(const int8_t* xq, const float* xscale, size_t rows, size_t in, const int8_t* w,
                     const float* wscale, const float* bias, size_t out, float* y, size_t ldy) {
    if (in < 32 || avx2::has_minus_128(xq, rows * in))
        avx2::linear_i8(xq, xscale, rows, in, w, wscale, bias, out, y, ldy);
    else
        avx2::linear_dot_vnni<EvexDp>(xq, xscale, rows, in, w, wscale, bias, out, y, ldy);
}

}  // namespace

void linear_i8(const int8_t* xq, const float* xscale, size_t rows, size_t in, const int8_t* w, const float* wscale,
               const float* bias, size_t out, float* y, size_t ldy) {
    if (avx2::use_packed_i8(rows, in))
        avx2::linear_i8_packed<ZmmTile>(xq, xscale, rows, in, w, wscale, bias, out, y, ldy);
    else
        linear_few_rows(xq, xscale, rows, in, w, wscale, bias, out, y, ldy);
}

void linear_i8_256(const int8_t* xq, const float* xscale, size_t rows, size_t in, const int8_t* w, const float* wscale,
                   const float* bias, size_t out, float* y, size_t ldy) {
    if (avx2::use_packed_i8(rows, in))
        avx2::linear_i8_packed<YmmTile>(xq, xscale, rows, in, w, wscale, bias, out, y, ldy);
    else
        linear_few_rows(xq, xscale, rows, in, w, wscale, bias, out, y, ldy);
}

}  // namespace ax::avx512
