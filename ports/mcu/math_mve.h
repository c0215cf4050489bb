// The vector operations ports/generic/float_math_lanes.h evaluates the reference's exp, erf, softmax and
// GELU with, on Helium (MVE with floating point, Cortex-M55/M85). Whether MVE float arithmetic keeps
// denormals follows FPSCR.FZ on some implementations and not others: kFlushes treats it as flushing, so the
// few inputs where that could show take the scalar path and the results are generic's bits either way.
#pragma once
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2)
#include <arm_mve.h>

#include <cstdint>

namespace ax::mcu::detail {

struct MveLanes {
    using F = float32x4_t;
    using I = int32x4_t;
    using M = mve_pred16_t;
    static constexpr bool kFlushes = true;
    static F dup(float v) { return vdupq_n_f32(v); }
    static F add(F a, F b) { return vaddq_f32(a, b); }
    static F sub(F a, F b) { return vsubq_f32(a, b); }
    static F mul(F a, F b) { return vmulq_f32(a, b); }
    // a < b as C's `<` (false when either is NaN): MVE's VCMP LT is true for unordered operands (its
    // condition is N != V, which an unordered compare sets), so exp(NaN) would take the x < kExpMin branch
    // and give 0. GT is false for unordered, so b > a is the ordered test.
    static M lt(F a, F b) { return vcmpgtq_f32(b, a); }
    static M gt(F a, F b) { return vcmpgtq_f32(a, b); }
    static F sel(M m, F a, F b) { return vpselq_f32(a, b, m); }
    static I trunc(F a) { return vcvtq_s32_f32(a); }
    static F to_float(I a) { return vcvtq_f32_s32(a); }
    static I min127(I n) { return vminq_s32(n, vdupq_n_s32(127)); }
    static M gt127(I n) { return vcmpgtq_n_s32(n, 127); }
    static F pow2_bits(I n) { return vreinterpretq_f32_s32(vshlq_n_s32(vaddq_n_s32(n, 127), 23)); }
    static F abs(F a) { return vabsq_f32(a); }
    static F neg(F a) { return vnegq_f32(a); }
    static M is_nan(F a) { return vcmpneq_f32(a, a); }
    static M and_mask(M a, M b) { return static_cast<M>(a & b); }
    static bool any(M m) { return m != 0; }
    static F load(const float* p) { return vld1q_f32(p); }
    static void store(float* p, F v) { vst1q_f32(p, v); }
    // 0 < |x| < 2^-99, on the bits.
    static M tiny(F a) {
        const uint32x4_t mag = vandq_u32(vreinterpretq_u32_f32(a), vdupq_n_u32(0x7fffffffu));
        return vcmpcsq_n_u32(vsubq_n_u32(mag, 1), 0x0e000000u - 1) ^ 0xffff;
    }
    static float sum_in_order(float s, F e) {
        s += vgetq_lane_f32(e, 0);
        s += vgetq_lane_f32(e, 1);
        s += vgetq_lane_f32(e, 2);
        return s + vgetq_lane_f32(e, 3);
    }
};

}  // namespace ax::mcu::detail

#endif
