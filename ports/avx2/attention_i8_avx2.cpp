// Attention over an int8 key/value cache on AVX2, bit-identical to generic (the order runtime/kernels.h
// defines; the build passes -ffp-contract=off, so every multiply and add rounds on its own):
// - scores: 8 keys in lanes. Each key's next 8 values are widened to float and the 8x8 block transposed,
//   so each lane's running sum adds q[i] * float(k[j][i]) for i in turn, exactly as the scalar loop.
// - values: 8 outputs per vector, keys in turn: a = p[j] * vscale[j], then out + a * float(v[j]) per lane.
// Remainders (keys past a multiple of 8, outputs past a multiple of 8) go to generic's loops, which give
// the same bits by definition.
#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "ports/avx2/avx2.h"
#include "ports/x86/avx2_util.h"
#include "ports/generic/generic.h"

namespace ax::avx2 {
namespace {

inline __m256 widen8(const int8_t* p) {
    return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))));
}

// The first m (< 8) values at p, the rest zero; reads only those m bytes.
inline __m256 widen_short(const int8_t* p, size_t m) {
    alignas(8) int8_t buf[8] = {};
    std::memcpy(buf, p, m);
    return widen8(buf);
}

// out[c, c + 8 * NV) over every key, NV vectors held in registers.
template <size_t NV>
inline void values_block(const float* p, const int8_t* v, const float* vscale, size_t stride, size_t n_keys,
                         float* out) {
    __m256 y[NV];
    AX_AVX2_UNROLL
    for (size_t t = 0; t < NV; ++t) y[t] = _mm256_loadu_ps(out + 8 * t);
    for (size_t j = 0; j < n_keys; ++j) {
        const __m256 a = _mm256_set1_ps(p[j] * vscale[j]);
        const int8_t* vj = v + j * stride;
        AX_AVX2_UNROLL
        for (size_t t = 0; t < NV; ++t) y[t] = _mm256_add_ps(y[t], _mm256_mul_ps(a, widen8(vj + 8 * t)));
    }
    AX_AVX2_UNROLL
    for (size_t t = 0; t < NV; ++t) _mm256_storeu_ps(out + 8 * t, y[t]);
}

}  // namespace

void attention_scores_i8(const float* q, const int8_t* k, const float* kscale, size_t stride, size_t n_keys, size_t n,
                         float scale, float* scores) {
    size_t j = 0;
    for (; j + 8 <= n_keys; j += 8) {
        const int8_t* kj = k + j * stride;
        __m256 sum = _mm256_setzero_ps();
        for (size_t i = 0; i < n; i += 8) {
            const size_t m = n - i < 8 ? n - i : 8;
            __m256 b[8];
            AX_AVX2_UNROLL
            for (size_t t = 0; t < 8; ++t)
                b[t] = m == 8 ? widen8(kj + t * stride + i) : widen_short(kj + t * stride + i, m);
            detail::transpose8(b);
            // Only the m real values: adding a padded zero product could turn a -0 sum into +0.
            for (size_t t = 0; t < m; ++t) sum = _mm256_add_ps(sum, _mm256_mul_ps(_mm256_set1_ps(q[i + t]), b[t]));
        }
        const __m256 scaled = _mm256_mul_ps(_mm256_mul_ps(sum, _mm256_loadu_ps(kscale + j)), _mm256_set1_ps(scale));
        _mm256_storeu_ps(scores + j, scaled);
    }
    if (j < n_keys)
        generic::attention_scores_i8(q, k + j * stride, kscale + j, stride, n_keys - j, n, scale, scores + j);
}

void attention_values_i8(const float* p, const int8_t* v, const float* vscale, size_t stride, size_t n_keys, size_t n,
                         float* out) {
    size_t c = 0;
    for (; c + 32 <= n; c += 32) values_block<4>(p, v + c, vscale, stride, n_keys, out + c);
    for (; c + 8 <= n; c += 8) values_block<1>(p, v + c, vscale, stride, n_keys, out + c);
    if (c < n) generic::attention_values_i8(p, v + c, vscale, stride, n_keys, n - c, out + c);
}

}  // namespace ax::avx2
