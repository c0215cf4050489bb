// Element-wise and reduction kernels of the attention and residual paths: dot, axpy, relu, add.
// axpy, relu and add do exactly generic's float operations (axpy multiplies and adds, never fuses), so
// they are bit-identical to it; dot sums in 32 lanes and agrees to rounding.
#include <immintrin.h>

#include <cstddef>

#include "ports/avx2/avx2.h"
#include "ports/x86/avx2_util.h"

namespace ax::avx2 {

namespace {

inline float dot(const float* a, const float* b, size_t n) {
    __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps(), s2 = _mm256_setzero_ps(), s3 = _mm256_setzero_ps();
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
        s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), s1);
        s2 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 16), _mm256_loadu_ps(b + i + 16), s2);
        s3 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 24), _mm256_loadu_ps(b + i + 24), s3);
    }
    for (; i + 8 <= n; i += 8) s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
    if (i < n) {
        const __m256i m = detail::tail_mask(n - i);
        s1 = _mm256_fmadd_ps(_mm256_maskload_ps(a + i, m), _mm256_maskload_ps(b + i, m), s1);
    }
    return detail::hsum(_mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)));
}

}  // namespace

float dot_f32(const float* a, const float* b, size_t n) { return dot(a, b, n); }

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
    for (; j < n_keys; ++j) scores[j] = dot(q, k + j * stride, n) * scale;
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

void axpy_f32(size_t n, float a, const float* x, float* y) {
    const __m256 av = _mm256_set1_ps(a);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m256 p0 = _mm256_mul_ps(av, _mm256_loadu_ps(x + i));
        const __m256 p1 = _mm256_mul_ps(av, _mm256_loadu_ps(x + i + 8));
        _mm256_storeu_ps(y + i, _mm256_add_ps(_mm256_loadu_ps(y + i), p0));
        _mm256_storeu_ps(y + i + 8, _mm256_add_ps(_mm256_loadu_ps(y + i + 8), p1));
    }
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(y + i, _mm256_add_ps(_mm256_loadu_ps(y + i), _mm256_mul_ps(av, _mm256_loadu_ps(x + i))));
    for (; i < n; ++i) y[i] += a * x[i];
}

void relu_f32(float* x, size_t n) {
    // _mm256_max_ps(v, 0) answers its second operand for NaN and for -0.0, as generic's `x > 0 ? x : 0`.
    const __m256 zero = _mm256_setzero_ps();
    size_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(x + i, _mm256_max_ps(_mm256_loadu_ps(x + i), zero));
    for (; i < n; ++i) x[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

void add_f32(float* y, const float* x, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, _mm256_add_ps(_mm256_loadu_ps(y + i), _mm256_loadu_ps(x + i)));
    for (; i < n; ++i) y[i] += x[i];
}

}  // namespace ax::avx2
