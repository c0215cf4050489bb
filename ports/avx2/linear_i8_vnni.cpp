// The int8 product with AVX-VNNI (Intel Alder Lake and later, AMD Zen 5), VEX-encoded vpdpbusd on YMM:
// - batched (rows >= kPackedMinRows): the packed-panel tiles of linear_i8_packed.h, 6 rows x 16 outputs
//   (12 accumulators of the 16 YMM registers), one vpdpbusd per 4 inputs of 8 outputs, w + 128 unsigned
//   against x signed, corrected by 128 * rowsum(x): exact for every int8 input.
// - few rows: the dot-product tiles of linear_i8_tiles.h (|w| unsigned, x with w's sign). Rows of x
//   holding -128 (which quantize_rows_i8 never makes) and rows shorter than 32 take the AVX2 path.
// All bit-identical to generic. Compiled with -mavxvnni; reached only through avx2_vnni_kernels(), which
// checks the CPU first.
#include <immintrin.h>

#include "ports/avx2/avx2.h"
#include "ports/x86/linear_i8_packed.h"
#include "ports/x86/linear_i8_tiles.h"

namespace ax::avx2 {
namespace {

struct VexDp {
    static __m256i dpbusd(__m256i acc, __m256i u, __m256i s) { return _mm256_dpbusd_avx_epi32(acc, u, s); }
};

struct VexVnniTile {
    using V = __m256i;
    static constexpr size_t kLanes = 8, kVecs = 2, kCols = 16, kRows = 6, kGroup = 4;
    static constexpr bool kVnni = true;
    static V zero() { return _mm256_setzero_si256(); }
    static V load(const uint32_t* p) { return _mm256_load_si256(reinterpret_cast<const __m256i*>(p)); }
    static V bcast(uint32_t word) { return _mm256_set1_epi32(static_cast<int>(word)); }
    static V madd(V acc, V xb, V w) { return _mm256_dpbusd_avx_epi32(acc, w, xb); }
    static void store(int32_t* p, V v) { _mm256_store_si256(reinterpret_cast<__m256i*>(p), v); }
    static V loadi(const int32_t* p) { return _mm256_load_si256(reinterpret_cast<const __m256i*>(p)); }
    static void finish(V acc, int32_t off, float xs, const float* ws, const float* b, size_t n, float* y) {
        finish8(acc, off, xs, ws, b, n, y);
    }
};

}  // namespace

void linear_i8_vnni(const int8_t* xq, const float* xscale, size_t rows, size_t in, const int8_t* w, const float* wscale,
                    const float* bias, size_t out, float* y, size_t ldy) {
    if (use_packed_i8(rows, in)) {
        linear_i8_packed<VexVnniTile>(xq, xscale, rows, in, w, wscale, bias, out, y, ldy);
        return;
    }
    if (in < 32 || has_minus_128(xq, rows * in)) {
        linear_i8(xq, xscale, rows, in, w, wscale, bias, out, y, ldy);  // the AVX2 path
        return;
    }
    linear_dot_vnni<VexDp>(xq, xscale, rows, in, w, wscale, bias, out, y, ldy);
}

}  // namespace ax::avx2
