// The AVX2 port's attention for a block of query rows: attention_rows.h on YMM (16 registers: two query
// rows x 4 vectors of keys per scores pass, at most 12 value accumulators).
#include <immintrin.h>

#include "ports/x86/attention_rows.h"
#include "ports/avx2/avx2.h"

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

}  // namespace ax::avx2
