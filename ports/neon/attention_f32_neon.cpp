// NEON attention over a float key/value cache: one query's scores against a head's keys and the weighted sum
// of its values (runtime/kernels.h; the int8 cache's are attention_i8_neon.cpp).
//
// Small heads (4..32 values; the benchmark's 16) take paths whose only work per key is its arithmetic: a head
// of q or of out stays in registers for the whole call, each key row is one or two loads, and four keys share
// every other instruction (one pairwise reduction and one store per four scores; one load of four weights
// per four value rows, each used by lane).
#if defined(__ARM_NEON)
#include <arm_neon.h>

#include <cstddef>

#include "ports/neon/attention_neon.h"
#include "ports/neon/neon.h"
#include "ports/neon/neon_util.h"

namespace ax::neon {

namespace {

using namespace attn;

// The four partial sums of q . k for one key row.
template <size_t NB>
AUSPEX_ATTN_INLINE float32x4_t dot_row(const float32x4_t (&qv)[NB], const float* k) {
    float32x4_t kv[NB];
    load_row<NB>(k, kv);
    float32x4_t s = vmulq_f32(qv[0], kv[0]);
    AUSPEX_NEON_UNROLL
    for (size_t b = 1; b < NB; ++b) s = detail::mla(s, qv[b], kv[b]);
    return s;
}

template <size_t NB>
AUSPEX_ATTN_INLINE void scores_small(const float* q, const float* k, size_t stride, size_t n_keys, float scale,
                                     float* scores) {
    float32x4_t qv[NB];
    load_row<NB>(q, qv);
    size_t j = 0;
    for (; j + 4 <= n_keys; j += 4, k += 4 * stride) {
        const float32x4_t s0 = dot_row<NB>(qv, k), s1 = dot_row<NB>(qv, k + stride);
        const float32x4_t s2 = dot_row<NB>(qv, k + 2 * stride), s3 = dot_row<NB>(qv, k + 3 * stride);
        vst1q_f32(scores + j, vmulq_n_f32(detail::hsum4(s0, s1, s2, s3), scale));
    }
    for (; j < n_keys; ++j, k += stride) scores[j] = detail::hsum(dot_row<NB>(qv, k)) * scale;
}

// Any other head size: four keys at a time, q loaded per block.
AUSPEX_ATTN_INLINE void scores_any(const float* q, const float* k, size_t stride, size_t n_keys, size_t n, float scale,
                                   float* scores) {
    const size_t n4 = n & ~size_t{3};
    size_t j = 0;
    for (; j + 4 <= n_keys; j += 4) {
        const float* k0 = k + j * stride;
        const float* k1 = k0 + stride;
        const float* k2 = k1 + stride;
        const float* k3 = k2 + stride;
        float32x4_t s0 = vdupq_n_f32(0.0f), s1 = s0, s2 = s0, s3 = s0;
        size_t i0 = 0;
#if defined(__aarch64__)
        // 16 values of q and of each key per step, each in one four-register load.
        for (; i0 + 16 <= n4; i0 += 16) {
            const float32x4x4_t qv = vld1q_f32_x4(q + i0);
            const float32x4x4_t a = vld1q_f32_x4(k0 + i0), b = vld1q_f32_x4(k1 + i0);
            const float32x4x4_t c = vld1q_f32_x4(k2 + i0), d = vld1q_f32_x4(k3 + i0);
            for (int h = 0; h < 4; ++h) {
                s0 = detail::mla(s0, qv.val[h], a.val[h]);
                s1 = detail::mla(s1, qv.val[h], b.val[h]);
                s2 = detail::mla(s2, qv.val[h], c.val[h]);
                s3 = detail::mla(s3, qv.val[h], d.val[h]);
            }
        }
#endif
        for (size_t i = i0; i < n4; i += 4) {
            const float32x4_t qv = vld1q_f32(q + i);
            s0 = detail::mla(s0, qv, vld1q_f32(k0 + i));
            s1 = detail::mla(s1, qv, vld1q_f32(k1 + i));
            s2 = detail::mla(s2, qv, vld1q_f32(k2 + i));
            s3 = detail::mla(s3, qv, vld1q_f32(k3 + i));
        }
        float32x4_t sums = detail::hsum4(s0, s1, s2, s3);
        if (n4 < n) {
            float tail[4] = {0.0f, 0.0f, 0.0f, 0.0f};
            for (size_t i = n4; i < n; ++i) {
                tail[0] += q[i] * k0[i];
                tail[1] += q[i] * k1[i];
                tail[2] += q[i] * k2[i];
                tail[3] += q[i] * k3[i];
            }
            sums = vaddq_f32(sums, vld1q_f32(tail));
        }
        vst1q_f32(scores + j, vmulq_n_f32(sums, scale));
    }
    for (; j < n_keys; ++j) scores[j] = dot_f32(q, k + j * stride, n) * scale;
}

// Any other head size: blocks of out stay in registers across the keys.
AUSPEX_ATTN_INLINE void values_any(const float* p, const float* v, size_t stride, size_t n_keys, size_t n, float* out) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        float32x4_t y0 = vld1q_f32(out + i), y1 = vld1q_f32(out + i + 4);
        float32x4_t y2 = vld1q_f32(out + i + 8), y3 = vld1q_f32(out + i + 12);
        const float* x = v + i;
        for (size_t j = 0; j < n_keys; ++j, x += stride) {
            const float32x4_t a = vdupq_n_f32(p[j]);
            y0 = vaddq_f32(y0, vmulq_f32(a, vld1q_f32(x)));
            y1 = vaddq_f32(y1, vmulq_f32(a, vld1q_f32(x + 4)));
            y2 = vaddq_f32(y2, vmulq_f32(a, vld1q_f32(x + 8)));
            y3 = vaddq_f32(y3, vmulq_f32(a, vld1q_f32(x + 12)));
        }
        vst1q_f32(out + i, y0);
        vst1q_f32(out + i + 4, y1);
        vst1q_f32(out + i + 8, y2);
        vst1q_f32(out + i + 12, y3);
    }
    for (; i + 4 <= n; i += 4) {
        float32x4_t y0 = vld1q_f32(out + i);
        for (size_t j = 0; j < n_keys; ++j)
            y0 = vaddq_f32(y0, vmulq_f32(vdupq_n_f32(p[j]), vld1q_f32(v + j * stride + i)));
        vst1q_f32(out + i, y0);
    }
    for (; i < n; ++i) {
        float y = out[i];
        for (size_t j = 0; j < n_keys; ++j) y += p[j] * v[j * stride + i];
        out[i] = y;
    }
}

// n / 4 when a head of n values takes the small-head paths, else 0.
AUSPEX_ATTN_INLINE size_t small_head_blocks(size_t n) { return n % 4 == 0 && n / 4 <= kSmallHeadBlocks ? n / 4 : 0; }

}  // namespace

void attention_scores_f32(const float* q, const float* k, size_t stride, size_t n_keys, size_t n, float scale,
                          float* scores) {
    switch (small_head_blocks(n)) {
        case 1:
            return scores_small<1>(q, k, stride, n_keys, scale, scores);
        case 2:
            return scores_small<2>(q, k, stride, n_keys, scale, scores);
        case 3:
            return scores_small<3>(q, k, stride, n_keys, scale, scores);
        case 4:
            return scores_small<4>(q, k, stride, n_keys, scale, scores);
#if defined(__aarch64__)
        case 5:
            return scores_small<5>(q, k, stride, n_keys, scale, scores);
        case 6:
            return scores_small<6>(q, k, stride, n_keys, scale, scores);
        case 7:
            return scores_small<7>(q, k, stride, n_keys, scale, scores);
        case 8:
            return scores_small<8>(q, k, stride, n_keys, scale, scores);
#endif
        default:
            return scores_any(q, k, stride, n_keys, n, scale, scores);
    }
}

void attention_values_f32(const float* p, const float* v, size_t stride, size_t n_keys, size_t n, float* out) {
    // Each element still gets out += p[j] * v[j] (multiply, then add) for j in order, as axpy_f32 calls would.
    switch (small_head_blocks(n)) {
        case 1:
            return values_columns<1>(p, v, stride, n_keys, out);
        case 2:
            return values_columns<2>(p, v, stride, n_keys, out);
        case 3:
            return values_columns<3>(p, v, stride, n_keys, out);
        case 4:
            return values_columns<4>(p, v, stride, n_keys, out);
#if defined(__aarch64__)
        case 5:
            return values_columns<5>(p, v, stride, n_keys, out);
        case 6:
            return values_columns<6>(p, v, stride, n_keys, out);
        case 7:
            return values_columns<7>(p, v, stride, n_keys, out);
        case 8:
            return values_columns<8>(p, v, stride, n_keys, out);
#endif
        default:
            return values_any(p, v, stride, n_keys, n, out);
    }
}

}  // namespace ax::neon

#endif  // __ARM_NEON
