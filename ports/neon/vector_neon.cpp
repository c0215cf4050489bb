// NEON vector kernels: the attention dot product and weighted sum, ReLU and residual adds.
#if defined(__ARM_NEON)
#include <arm_neon.h>

#include <cstddef>

#include "ports/neon/neon.h"
#include "ports/neon/neon_util.h"

namespace ax::neon {

namespace {

inline float dot(const float* a, const float* b, size_t n) {
    // Four accumulators hide the multiply-add latency; the order of the sum differs from generic's.
    float32x4_t s0 = vdupq_n_f32(0.0f), s1 = s0, s2 = s0, s3 = s0;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        s0 = detail::mla(s0, vld1q_f32(a + i), vld1q_f32(b + i));
        s1 = detail::mla(s1, vld1q_f32(a + i + 4), vld1q_f32(b + i + 4));
        s2 = detail::mla(s2, vld1q_f32(a + i + 8), vld1q_f32(b + i + 8));
        s3 = detail::mla(s3, vld1q_f32(a + i + 12), vld1q_f32(b + i + 12));
    }
    for (; i + 4 <= n; i += 4) s0 = detail::mla(s0, vld1q_f32(a + i), vld1q_f32(b + i));
    float sum = detail::hsum(vaddq_f32(vaddq_f32(s0, s1), vaddq_f32(s2, s3)));
    for (; i < n; ++i) sum += a[i] * b[i];
    return sum;
}

}  // namespace

float dot_f32(const float* a, const float* b, size_t n) { return dot(a, b, n); }

void attention_scores_f32(const float* q, const float* k, size_t stride, size_t n_keys, size_t n, float scale,
                          float* scores) {
    // Four keys at a time: each load of q feeds four multiply-adds, and one pairwise reduction gives the four
    // scores in one vector (no per-key horizontal sum, call or store).
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
    for (; j < n_keys; ++j) scores[j] = dot(q, k + j * stride, n) * scale;
}

void attention_values_f32(const float* p, const float* v, size_t stride, size_t n_keys, size_t n, float* out) {
    // Blocks of out stay in registers across the keys (16 values: a 16-wide head in one pass); each element
    // still gets out += p[j] * v[j] (multiply, then add) for j in order, as axpy_f32 calls would.
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

void axpy_f32(size_t n, float a, const float* x, float* y) {
    // Multiply, then add, as generic does (on AArch64 bit-identical; ARMv7 NEON flushes denormals).
    const float32x4_t av = vdupq_n_f32(a);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        vst1q_f32(y + i, vaddq_f32(vld1q_f32(y + i), vmulq_f32(av, vld1q_f32(x + i))));
        vst1q_f32(y + i + 4, vaddq_f32(vld1q_f32(y + i + 4), vmulq_f32(av, vld1q_f32(x + i + 4))));
    }
    for (; i + 4 <= n; i += 4) vst1q_f32(y + i, vaddq_f32(vld1q_f32(y + i), vmulq_f32(av, vld1q_f32(x + i))));
    for (; i < n; ++i) y[i] += a * x[i];
}

void relu_f32(float* x, size_t n) {
    // x > 0 ? x : +0, as generic: -0 and NaN become +0 (a plain vmaxq_f32 would keep NaN).
    const float32x4_t zero = vdupq_n_f32(0.0f);
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const float32x4_t v = vld1q_f32(x + i);
        const uint32x4_t keep = vcgtq_f32(v, zero);
        vst1q_f32(x + i, vreinterpretq_f32_u32(vandq_u32(vreinterpretq_u32_f32(v), keep)));
    }
    for (; i < n; ++i) x[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

void add_f32(float* y, const float* x, size_t n) {
    size_t i = 0;
    for (; i + 4 <= n; i += 4) vst1q_f32(y + i, vaddq_f32(vld1q_f32(y + i), vld1q_f32(x + i)));
    for (; i < n; ++i) y[i] += x[i];
}

}  // namespace ax::neon

#endif  // __ARM_NEON
