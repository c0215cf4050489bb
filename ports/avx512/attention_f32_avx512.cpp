// The attention loops of the AVX-512 port (one query and one head against n_keys keys), on ZMM:
// - scores: q held in registers (heads up to 64 wide), four keys per group sharing one reduction;
//   wider heads take the AVX2 port's kernel. The sums run in another order than generic's (to rounding).
// - values: out += p[j] * v[j] for each key in turn, multiply then add (never fused), exactly the AVX2
//   port's axpy_f32 lane for lane, so bit-identical to a sequence of its axpy calls; up to 128 outputs held
//   in 8 registers, so 8 independent add chains hide the add latency.
#include "ports/avx512/immintrin_avx512.h"

#include <cstddef>
#include <type_traits>

#include "ports/x86/attention_rows.h"
#include "ports/avx2/avx2.h"
#include "ports/x86/avx2_util.h"
#include "ports/avx512/avx512.h"

namespace ax::avx512 {
namespace {

inline __mmask16 first_lanes(size_t n) {
    return n >= 16 ? static_cast<__mmask16>(0xffff) : static_cast<__mmask16>((1u << n) - 1u);
}

// 16 lanes to 8 (upper half onto the lower).
inline __m256 fold(__m512 v) {
    return _mm512_castps512_ps256(_mm512_add_ps(v, _mm512_shuffle_f32x4(v, v, _MM_SHUFFLE(3, 2, 3, 2))));
}

// attention_rows.h on ZMM: 32 registers hold two query rows x 6 vectors of keys (96 keys) per scores pass
// and up to 24 value accumulators.
struct Zmm {
    using V = __m512;
    using Mask = __mmask16;
    static constexpr size_t kLanes = 16, kScoreVecs = 6, kValueAccumulators = 24;
    static V zero() { return _mm512_setzero_ps(); }
    static V load(const float* p) { return _mm512_load_ps(p); }
    static V bcast(float x) { return _mm512_set1_ps(x); }
    static V fmadd(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
    static V mul(V a, V b) { return _mm512_mul_ps(a, b); }
    static void store(float* p, V v) { _mm512_store_ps(p, v); }
    static Mask first_lanes(size_t count) { return avx512::first_lanes(count); }
    static V load_masked(const float* p, Mask m) { return _mm512_maskz_loadu_ps(m, p); }
    static void store_masked(float* p, Mask m, V v) { _mm512_mask_storeu_ps(p, m, v); }
};

// f(integral_constant<N>) for N = count, 1 <= count <= kMax (count 0: nothing): a run-time vector count to
// a compile-time one.
template <size_t kMax, class F>
inline void with_vectors(size_t count, F&& f) {
    if constexpr (kMax > 0) {
        if (count == kMax)
            f(std::integral_constant<size_t, kMax>{});
        else
            with_vectors<kMax - 1>(count, f);
    }
}

template <size_t NV>
inline void scores_q(const float* q, const float* k, size_t stride, size_t n_keys, size_t n, float scale,
                     float* scores) {
    __m512 qv[NV];
    __mmask16 m[NV];
    AX_AVX2_UNROLL
    for (size_t t = 0; t < NV; ++t) {
        m[t] = first_lanes(n - 16 * t);
        qv[t] = _mm512_maskz_loadu_ps(m[t], q + 16 * t);
    }
    size_t j = 0;
    const __m128 scale4 = _mm_set1_ps(scale);
    for (; j + 4 <= n_keys; j += 4) {
        __m512 s[4];
        AX_AVX2_UNROLL
        for (size_t u = 0; u < 4; ++u) {
            const float* kj = k + (j + u) * stride;
            s[u] = _mm512_mul_ps(qv[0], _mm512_maskz_loadu_ps(m[0], kj));
            AX_AVX2_UNROLL
            for (size_t t = 1; t < NV; ++t)
                s[u] = _mm512_fmadd_ps(qv[t], _mm512_maskz_loadu_ps(m[t], kj + 16 * t), s[u]);
        }
        const __m128 r = avx2::detail::hsum4(fold(s[0]), fold(s[1]), fold(s[2]), fold(s[3]));
        _mm_storeu_ps(scores + j, _mm_mul_ps(r, scale4));
    }
    for (; j < n_keys; ++j) {
        const float* kj = k + j * stride;
        __m512 s = _mm512_mul_ps(qv[0], _mm512_maskz_loadu_ps(m[0], kj));
        AX_AVX2_UNROLL
        for (size_t t = 1; t < NV; ++t) s = _mm512_fmadd_ps(qv[t], _mm512_maskz_loadu_ps(m[t], kj + 16 * t), s);
        scores[j] = _mm512_reduce_add_ps(s) * scale;
    }
}

template <size_t NV>
inline void values_block(const float* p, const float* v, size_t stride, size_t n_keys, size_t n, float* out) {
    __m512 y[NV];
    __mmask16 m[NV];
    AX_AVX2_UNROLL
    for (size_t t = 0; t < NV; ++t) {
        m[t] = first_lanes(n - 16 * t);
        y[t] = _mm512_maskz_loadu_ps(m[t], out + 16 * t);
    }
    for (size_t j = 0; j < n_keys; ++j) {
        const __m512 a = _mm512_set1_ps(p[j]);
        const float* x = v + j * stride;
        AX_AVX2_UNROLL
        for (size_t t = 0; t < NV; ++t)
            y[t] = _mm512_add_ps(y[t], _mm512_mul_ps(a, _mm512_maskz_loadu_ps(m[t], x + 16 * t)));
    }
    AX_AVX2_UNROLL
    for (size_t t = 0; t < NV; ++t) _mm512_mask_storeu_ps(out + 16 * t, m[t], y[t]);
}

}  // namespace

void attention_scores_f32(const float* q, const float* k, size_t stride, size_t n_keys, size_t n, float scale,
                          float* scores) {
    if (n == 0 || n > 64) {
        avx2::attention_scores_f32(q, k, stride, n_keys, n, scale, scores);
        return;
    }
    with_vectors<4>((n + 15) / 16, [&](auto nv) { scores_q<nv()>(q, k, stride, n_keys, n, scale, scores); });
}

bool attention_rows_f32(const float* q, size_t q_stride, size_t rows, const float* k, const float* v, size_t kv_stride,
                        size_t n_keys, size_t first_position, bool causal, size_t n, float scale, float* out,
                        size_t out_stride) {
    return avx2::attention_rows<Zmm>(q, q_stride, rows, k, v, kv_stride, n_keys, first_position, causal, n, scale,
                                     softmax_f32, out, out_stride);
}

void attention_values_f32(const float* p, const float* v, size_t stride, size_t n_keys, size_t n, float* out) {
    size_t i = 0;
    for (; i + 128 <= n; i += 128) values_block<8>(p, v + i, stride, n_keys, 128, out + i);
    const size_t rest = n - i;
    with_vectors<8>((rest + 15) / 16, [&](auto nv) { values_block<nv()>(p, v + i, stride, n_keys, rest, out + i); });
}

}  // namespace ax::avx512
