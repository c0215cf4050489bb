// NEON vector kernels: the dot product, ReLU and residual adds (attention: attention_f32_neon.cpp).
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
