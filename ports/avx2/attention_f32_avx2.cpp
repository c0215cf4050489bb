// The AVX2 port's float attention: one query's scores against a head's keys, the weighted sum of its values
// (attention_values_f32 does axpy's operations in axpy's order: bit-identical to generic), and a block of query
// rows at once (attention_rows.h on YMM: 16 registers, two query rows x 4 vectors of keys per scores pass, at
// most 12 value accumulators).
#include <immintrin.h>

#include <cstddef>

#include "ports/avx2/avx2.h"
#include "ports/x86/attention_rows.h"
#include "ports/x86/avx2_util.h"

namespace ax::avx2 {
namespace {

struct Ymm {
    using V = __m256;
    using Mask = __m256i;
    static constexpr size_t kLanes = 8, kScoreVecs = 4, kValueAccumulators = 12;
    static V zero() { return _mm256_setzero_ps(); }
    static V load(const float* p) { return _mm256_load_ps(p); }
    static V bcast(float x) { return _mm256_set1_ps(x); }
    static V fmadd(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
    static V mul(V a, V b) { return _mm256_mul_ps(a, b); }
    static void store(float* p, V v) { _mm256_store_ps(p, v); }
    static Mask first_lanes(size_t count) { return detail::tail_mask(count < kLanes ? count : kLanes); }
    static V load_masked(const float* p, Mask m) { return _mm256_maskload_ps(p, m); }
    static void store_masked(float* p, Mask m, V v) { _mm256_maskstore_ps(p, m, v); }
};

}  // namespace

bool attention_rows_f32(const float* q, size_t q_stride, size_t rows, const float* k, const float* v, size_t kv_stride,
                        size_t n_keys, size_t first_position, bool causal, size_t n, float scale, float* out,
                        size_t out_stride) {
    return attention_rows<Ymm>(q, q_stride, rows, k, v, kv_stride, n_keys, first_position, causal, n, scale,
                               softmax_f32, out, out_stride);
}

void attention_scores_f32(const float* q, const float* k, size_t stride, size_t n_keys, size_t n, float scale,
                          float* scores) {
    // Four keys at a time share each load of q and one horizontal sum: a head is often only 8-32 wide,
    // where a horizontal sum per key would cost as much as the products.
    size_t j = 0;
    if (n >= 8) {
        const __m128 scale4 = _mm_set1_ps(scale);
        for (; j + 4 <= n_keys; j += 4) {
            const float* k0 = k + j * stride;
            const float* k1 = k0 + stride;
            const float* k2 = k1 + stride;
            const float* k3 = k2 + stride;
            __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
            size_t i = 0;
            for (; i + 8 <= n; i += 8) {
                const __m256 qv = _mm256_loadu_ps(q + i);
                s0 = _mm256_fmadd_ps(qv, _mm256_loadu_ps(k0 + i), s0);
                s1 = _mm256_fmadd_ps(qv, _mm256_loadu_ps(k1 + i), s1);
                s2 = _mm256_fmadd_ps(qv, _mm256_loadu_ps(k2 + i), s2);
                s3 = _mm256_fmadd_ps(qv, _mm256_loadu_ps(k3 + i), s3);
            }
            if (i < n) {
                const __m256i m = detail::tail_mask(n - i);
                const __m256 qv = _mm256_maskload_ps(q + i, m);
                s0 = _mm256_fmadd_ps(qv, _mm256_maskload_ps(k0 + i, m), s0);
                s1 = _mm256_fmadd_ps(qv, _mm256_maskload_ps(k1 + i, m), s1);
                s2 = _mm256_fmadd_ps(qv, _mm256_maskload_ps(k2 + i, m), s2);
                s3 = _mm256_fmadd_ps(qv, _mm256_maskload_ps(k3 + i, m), s3);
            }
            _mm_storeu_ps(scores + j, _mm_mul_ps(detail::hsum4(s0, s1, s2, s3), scale4));
        }
    }
    for (; j < n_keys; ++j) scores[j] = dot_f32(q, k + j * stride, n) * scale;
}

namespace {

// out[i, i + 8 NV) += p[j] * v[j][...] for every key j in turn, the block held in NV registers. The sum of
// each element is one chain of dependent adds (exactly axpy's operations, in axpy's order), so the block
// is made as wide as the registers allow: NV independent chains hide the add latency.
template <size_t NV>
inline void values_block(const float* p, const float* v, size_t stride, size_t n_keys, float* out) {
    __m256 y[NV];
    AX_AVX2_UNROLL
    for (size_t t = 0; t < NV; ++t) y[t] = _mm256_loadu_ps(out + 8 * t);
    for (size_t j = 0; j < n_keys; ++j) {
        const __m256 a = _mm256_set1_ps(p[j]);
        const float* x = v + j * stride;
        AX_AVX2_UNROLL
        for (size_t t = 0; t < NV; ++t) y[t] = _mm256_add_ps(y[t], _mm256_mul_ps(a, _mm256_loadu_ps(x + 8 * t)));
    }
    AX_AVX2_UNROLL
    for (size_t t = 0; t < NV; ++t) _mm256_storeu_ps(out + 8 * t, y[t]);
}

}  // namespace

void attention_values_f32(const float* p, const float* v, size_t stride, size_t n_keys, size_t n, float* out) {
    // Blocks of out stay in registers across the keys; each element still gets out += p[j] * v[j] (multiply,
    // then add) for j in order, as axpy_f32 calls would.
    size_t i = 0;
    for (; i + 64 <= n; i += 64) values_block<8>(p, v + i, stride, n_keys, out + i);
    switch ((n - i) / 8) {
        case 7:
            values_block<7>(p, v + i, stride, n_keys, out + i);
            break;
        case 6:
            values_block<6>(p, v + i, stride, n_keys, out + i);
            break;
        case 5:
            values_block<5>(p, v + i, stride, n_keys, out + i);
            break;
        case 4:
            values_block<4>(p, v + i, stride, n_keys, out + i);
            break;
        case 3:
            values_block<3>(p, v + i, stride, n_keys, out + i);
            break;
        case 2:
            values_block<2>(p, v + i, stride, n_keys, out + i);
            break;
        case 1:
            values_block<1>(p, v + i, stride, n_keys, out + i);
            break;
        default:
            break;
    }
    i += (n - i) / 8 * 8;
    for (; i < n; ++i) {
        float y = out[i];
        for (size_t j = 0; j < n_keys; ++j) y += p[j] * v[j * stride + i];
        out[i] = y;
    }
}

}  // namespace ax::avx2
