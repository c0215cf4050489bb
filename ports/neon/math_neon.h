// The vector operations ports/generic/float_math_lanes.h evaluates the reference's exp, erf, softmax and
// GELU with, on NEON. AArch64's Advanced SIMD is IEEE single precision under the FPCR (denormals kept, NaN
// propagated): its lanes give the scalar's bits. ARMv7 NEON flushes denormals, so kFlushes sends the inputs
// where that shows to the scalar code.
#pragma once
#if defined(__ARM_NEON)
#include <arm_neon.h>

#include <cstdint>

namespace ax::neon::detail {

struct NeonLanes {
    using F = float32x4_t;
    using I = int32x4_t;
    using M = uint32x4_t;
#if defined(__aarch64__)
    static constexpr bool kFlushes = false;
#else
    static constexpr bool kFlushes = true;
#endif
    static F dup(float v) { return vdupq_n_f32(v); }
    static F add(F a, F b) { return vaddq_f32(a, b); }
    static F sub(F a, F b) { return vsubq_f32(a, b); }
    static F mul(F a, F b) { return vmulq_f32(a, b); }
    static M lt(F a, F b) { return vcltq_f32(a, b); }
    static M gt(F a, F b) { return vcgtq_f32(a, b); }
    static F sel(M m, F a, F b) { return vbslq_f32(m, a, b); }
    static I trunc(F a) { return vcvtq_s32_f32(a); }
    static F to_float(I a) { return vcvtq_f32_s32(a); }
    static I min127(I n) { return vminq_s32(n, vdupq_n_s32(127)); }
    static M gt127(I n) { return vcgtq_s32(n, vdupq_n_s32(127)); }
    static F pow2_bits(I n) { return vreinterpretq_f32_s32(vshlq_n_s32(vaddq_s32(n, vdupq_n_s32(127)), 23)); }
    static F abs(F a) { return vabsq_f32(a); }
    static F neg(F a) { return vnegq_f32(a); }
    static M is_nan(F a) { return vmvnq_u32(vceqq_f32(a, a)); }
    static M and_mask(M a, M b) { return vandq_u32(a, b); }
    static bool any(M m) {
#if defined(__aarch64__)
        return vmaxvq_u32(m) != 0;
#else
        const uint32x2_t h = vorr_u32(vget_low_u32(m), vget_high_u32(m));
        return (vget_lane_u32(h, 0) | vget_lane_u32(h, 1)) != 0;
#endif
    }
    static F load(const float* p) { return vld1q_f32(p); }
    static void store(float* p, F v) { vst1q_f32(p, v); }
    // 0 < |x| < 2^-99, on the bits (ARMv7 NEON compares would flush the denormals themselves).
    static M tiny(F a) {
        const uint32x4_t mag = vandq_u32(vreinterpretq_u32_f32(a), vdupq_n_u32(0x7fffffffu));
        return vcltq_u32(vsubq_u32(mag, vdupq_n_u32(1)), vdupq_n_u32(0x0e000000u - 1));
    }
    static float sum_in_order(float s, F e) {
        s += vgetq_lane_f32(e, 0);
        s += vgetq_lane_f32(e, 1);
        s += vgetq_lane_f32(e, 2);
        return s + vgetq_lane_f32(e, 3);
    }
};

}  // namespace ax::neon::detail

#endif  // __ARM_NEON
