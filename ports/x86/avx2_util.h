// Small AVX2 helpers shared by the port's kernels: tail masks, horizontal sums, an 8x8 transpose.
// Included by ports/avx2/*.cpp (compiled with -mavx2 -mfma -mf16c) and by ports/avx512/*.cpp (compiled
// with AVX-512 flags too): internal linkage, so that each file keeps its own copy and the linker can never
// hand an AVX2 caller a copy compiled for AVX-512.
#pragma once
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#if defined(__GNUC__) && !defined(__clang__)
#define AX_AVX2_UNROLL _Pragma("GCC unroll 16")
#elif defined(__clang__)
#define AX_AVX2_UNROLL _Pragma("unroll")
#else
#define AX_AVX2_UNROLL
#endif

namespace ax::avx2::detail {
namespace {

// Lane mask with the first n (0..8) lanes set, for _mm256_maskload_ps / _mm256_maskstore_ps.
inline __m256i tail_mask(size_t n) {
    alignas(32) static const int32_t bits[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bits + 8 - n));
}

// Sum of the 8 lanes.
inline float hsum(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

// The lane sums of four vectors, as one 4-lane vector {sum a, sum b, sum c, sum d}.
inline __m128 hsum4(__m256 a, __m256 b, __m256 c, __m256 d) {
    const __m256 ab = _mm256_hadd_ps(a, b);  // a01 a23 b01 b23 | a45 a67 b45 b67
    const __m256 cd = _mm256_hadd_ps(c, d);
    const __m256 abcd = _mm256_hadd_ps(ab, cd);  // a0-3 b0-3 c0-3 d0-3 | a4-7 b4-7 c4-7 d4-7
    return _mm_add_ps(_mm256_castps256_ps128(abcd), _mm256_extractf128_ps(abcd, 1));
}

// Sum of the 8 int32 lanes.
inline int32_t hsum_i32(__m256i v) {
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    s = _mm_add_epi32(s, _mm_unpackhi_epi64(s, s));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 1));
    return _mm_cvtsi128_si32(s);
}

// The lane sums of four int32 vectors, as {sum a, sum b, sum c, sum d}.
inline __m128i hsum4_i32(__m256i a, __m256i b, __m256i c, __m256i d) {
    const __m256i ab = _mm256_hadd_epi32(a, b);
    const __m256i cd = _mm256_hadd_epi32(c, d);
    const __m256i abcd = _mm256_hadd_epi32(ab, cd);
    return _mm_add_epi32(_mm256_castsi256_si128(abcd), _mm256_extracti128_si256(abcd, 1));
}

// In-register transpose of the 8x8 block r[0..7] (row i in r[i]).
inline void transpose8(__m256 (&r)[8]) {
    const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]);
    const __m256 t1 = _mm256_unpackhi_ps(r[0], r[1]);
    const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]);
    const __m256 t3 = _mm256_unpackhi_ps(r[2], r[3]);
    const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]);
    const __m256 t5 = _mm256_unpackhi_ps(r[4], r[5]);
    const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]);
    const __m256 t7 = _mm256_unpackhi_ps(r[6], r[7]);
    const __m256 s0 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
    const __m256 s1 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
    const __m256 s2 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
    const __m256 s3 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
    const __m256 s4 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(1, 0, 1, 0));
    const __m256 s5 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(3, 2, 3, 2));
    const __m256 s6 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(1, 0, 1, 0));
    const __m256 s7 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(3, 2, 3, 2));
    r[0] = _mm256_permute2f128_ps(s0, s4, 0x20);
    r[1] = _mm256_permute2f128_ps(s1, s5, 0x20);
    r[2] = _mm256_permute2f128_ps(s2, s6, 0x20);
    r[3] = _mm256_permute2f128_ps(s3, s7, 0x20);
    r[4] = _mm256_permute2f128_ps(s0, s4, 0x31);
    r[5] = _mm256_permute2f128_ps(s1, s5, 0x31);
    r[6] = _mm256_permute2f128_ps(s2, s6, 0x31);
    r[7] = _mm256_permute2f128_ps(s3, s7, 0x31);
}

// Eight weights as floats: float32 as is, IEEE half through F16C (exact, subnormals included).
inline __m256 load8(const float* p) { return _mm256_loadu_ps(p); }
inline __m256 load8(const uint16_t* p) { return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))); }
// The first n (< 8) weights, the other lanes zero; never reads past p + n.
inline __m256 load_tail(const float* p, size_t n) { return _mm256_maskload_ps(p, tail_mask(n)); }
inline __m256 load_tail(const uint16_t* p, size_t n) {
    alignas(16) uint16_t buf[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (size_t i = 0; i < n; ++i) buf[i] = p[i];
    return _mm256_cvtph_ps(_mm_load_si128(reinterpret_cast<const __m128i*>(buf)));
}
inline float load1(const float* p) { return *p; }
inline float load1(const uint16_t* p) { return _cvtsh_ss(*p); }

// The float products' packed panels (linear_float_avx2.h, ports/avx512/linear_float_avx512.h):
// panel[k * NR + j] = W[j][k0 + k] for j < ncols (W rows start at w, stride in), zero for ncols <= j < NR,
// through 8x8 transposes in registers (halves converted on the way).
template <size_t kNR, class W>
inline void pack_panel_t(const W* w, size_t in, size_t k0, size_t kc, size_t ncols, float* panel) {
    for (size_t jb = 0; jb < kNR; jb += 8) {
        const size_t nj = ncols > jb ? (ncols - jb < 8 ? ncols - jb : 8) : 0;
        const W* wj = w + jb * in + k0;
        float* pj = panel + jb;
        if (nj == 8) {
            size_t k = 0;
            for (; k + 8 <= kc; k += 8) {
                __m256 blk[8];
                AX_AVX2_UNROLL
                for (size_t t = 0; t < 8; ++t) blk[t] = load8(wj + t * in + k);
                transpose8(blk);
                AX_AVX2_UNROLL
                for (size_t t = 0; t < 8; ++t) _mm256_store_ps(pj + (k + t) * kNR, blk[t]);
            }
            for (; k < kc; ++k)
                for (size_t t = 0; t < 8; ++t) pj[k * kNR + t] = load1(wj + t * in + k);
        } else {
            for (size_t k = 0; k < kc; ++k)
                for (size_t t = 0; t < 8; ++t) pj[k * kNR + t] = t < nj ? load1(wj + t * in + k) : 0.0f;
        }
    }
}

}  // namespace
}  // namespace ax::avx2::detail
