// NEON per-row activation quantization, bit-identical to generic::quantize_rows_i8: the same amax (a maximum
// is exact in any order), the same scalar scale and inverse, q = round_half_even(x * inv) clamped to +-127.
#if defined(__ARM_NEON)
#include <arm_neon.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "ports/generic/generic.h"
#include "ports/neon/neon.h"

namespace ax::neon {
namespace {

// max |x[i]|, ignoring NaN as generic's comparison does.
float abs_max(const float* x, size_t n) {
    size_t i = 0;
#if defined(__aarch64__)
    float32x4_t m0 = vdupq_n_f32(0.0f), m1 = m0;
    for (; i + 8 <= n; i += 8) {
        m0 = vmaxnmq_f32(m0, vabsq_f32(vld1q_f32(x + i)));
        m1 = vmaxnmq_f32(m1, vabsq_f32(vld1q_f32(x + i + 4)));
    }
    float amax = vmaxnmvq_f32(vmaxnmq_f32(m0, m1));
#else
    // ARMv7 NEON float compares flush denormals; the bit patterns of non-negative floats order as their
    // values do, so compare |x| as unsigned integers (NaN patterns, above infinity's, are dropped).
    uint32x4_t m = vdupq_n_u32(0);
    const uint32x4_t abs_mask = vdupq_n_u32(0x7fffffffu);
    const uint32x4_t inf_bits = vdupq_n_u32(0x7f800000u);
    for (; i + 4 <= n; i += 4) {
        const uint32x4_t b = vandq_u32(vreinterpretq_u32_f32(vld1q_f32(x + i)), abs_mask);
        m = vmaxq_u32(m, vbicq_u32(b, vcgtq_u32(b, inf_bits)));
    }
    uint32x2_t m2 = vpmax_u32(vget_low_u32(m), vget_high_u32(m));
    m2 = vpmax_u32(m2, m2);
    const uint32_t bits = vget_lane_u32(m2, 0);
    float amax;
    std::memcpy(&amax, &bits, sizeof amax);
#endif
    for (; i < n; ++i) amax = std::fabs(x[i]) > amax ? std::fabs(x[i]) : amax;
    return amax;
}

// q[i] = clamp(round_half_even(x[i] * inv), -127, 127) for 8 values.
inline int8x8_t quantize8(const float* x, float inv) {
    const float32x4_t v0 = vmulq_n_f32(vld1q_f32(x), inv);
    const float32x4_t v1 = vmulq_n_f32(vld1q_f32(x + 4), inv);
#if defined(__aarch64__)
    const int32x4_t i0 = vcvtnq_s32_f32(v0);  // round to nearest, ties to even
    const int32x4_t i1 = vcvtnq_s32_f32(v1);
#else
    // |v| <= 127 (a little more by rounding): adding and removing 1.5 * 2^23 leaves it rounded to the nearest
    // integer, ties to even (NEON always rounds to nearest); the conversion is then exact.
    const float32x4_t magic = vdupq_n_f32(12582912.0f);
    const int32x4_t i0 = vcvtq_s32_f32(vsubq_f32(vaddq_f32(v0, magic), magic));
    const int32x4_t i1 = vcvtq_s32_f32(vsubq_f32(vaddq_f32(v1, magic), magic));
#endif
    int16x8_t s = vcombine_s16(vqmovn_s32(i0), vqmovn_s32(i1));
    s = vminq_s16(vmaxq_s16(s, vdupq_n_s16(-127)), vdupq_n_s16(127));
    return vqmovn_s16(s);
}

}  // namespace

void quantize_rows_i8(const float* x, size_t rows, size_t n, int8_t* q, float* scales) {
    for (size_t r = 0; r < rows; ++r) {
        const float* xr = x + r * n;
        int8_t* qr = q + r * n;
        const float amax = abs_max(xr, n);
#if !defined(__aarch64__)
        // With amax this small, ARMv7 NEON's flushing of denormal inputs could change a q: leave the row to
        // the scalar reference. (From 2^-100 up, a denormal x gives |x * inv| < 2^-19, which rounds to 0.)
        if (amax < 0x1p-100f) {
            generic::quantize_rows_i8(xr, 1, n, qr, scales + r);
            continue;
        }
#endif
        if (amax == 0.0f) {
            scales[r] = 0.0f;
            std::memset(qr, 0, n);
            continue;
        }
        scales[r] = amax / 127.0f;
        const float inv = 127.0f / amax;
        size_t i = 0;
        for (; i + 8 <= n; i += 8) vst1_s8(qr + i, quantize8(xr + i, inv));
        for (; i < n; ++i) {
            float v = std::nearbyint(xr[i] * inv);
            v = v > 127.0f ? 127.0f : (v < -127.0f ? -127.0f : v);
            qr[i] = static_cast<int8_t>(v);
        }
    }
}

}  // namespace ax::neon

#endif  // __ARM_NEON
