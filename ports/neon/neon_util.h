// Small NEON helpers shared by the port's files: multiply-accumulate, horizontal sums, the int8 dot step and
// half -> float conversion, each written once for AArch64 and once for 32-bit ARMv7 NEON.
//
// ARMv7 NEON arithmetic flushes denormals to zero and always rounds to nearest; the kernels that must be
// bit-identical to generic (int8 rescale, quantization) therefore do their float work in scalar VFP code or
// only on values where flushing cannot change the result.
#pragma once
#if defined(__ARM_NEON)
#include <arm_neon.h>

#include <cstddef>
#include <cstdint>

// Fully unrolls the small loops over a tile's rows and columns before register allocation, so that the
// accumulator arrays live in registers instead of being written back to the stack on every step.
#define AUSPEX_NEON_UNROLL _Pragma("GCC unroll 16")

namespace ax::neon::detail {

// Rows of x processed together in the f32 and int8 matrix kernels, times 4 outputs: as many as fit in the
// vector registers (32 on AArch64, 16 on ARMv7) without spilling, checked in the GCC 12 disassembly. The int8
// step without the dot-product extension needs product temporaries, so it takes fewer rows than vdotq_s32.
#if defined(__aarch64__)
constexpr size_t kRowBlock = 4;
#if defined(__ARM_FEATURE_DOTPROD)
constexpr size_t kRowBlockI8 = 4;
#else
constexpr size_t kRowBlockI8 = 3;
#endif
// dot16_no_min needs one product temporary fewer: four rows fit.
constexpr size_t kRowBlockI8NoMin = 4;
#else
constexpr size_t kRowBlockI8NoMin = 2;
constexpr size_t kRowBlock = 2;
constexpr size_t kRowBlockI8 = 2;
#endif

// acc + a * b; fused where the FPU has FMA (results within float rounding of generic, not bit-identical).
inline float32x4_t mla(float32x4_t acc, float32x4_t a, float32x4_t b) {
#if defined(__ARM_FEATURE_FMA)
    return vfmaq_f32(acc, a, b);
#else
    return vmlaq_f32(acc, a, b);
#endif
}

inline float hsum(float32x4_t v) {
#if defined(__aarch64__)
    return vaddvq_f32(v);
#else
    const float32x2_t s = vadd_f32(vget_low_f32(v), vget_high_f32(v));
    return vget_lane_f32(vpadd_f32(s, s), 0);
#endif
}

// {hsum(a), hsum(b), hsum(c), hsum(d)}
inline float32x4_t hsum4(float32x4_t a, float32x4_t b, float32x4_t c, float32x4_t d) {
#if defined(__aarch64__)
    return vpaddq_f32(vpaddq_f32(a, b), vpaddq_f32(c, d));
#else
    const float32x2_t ab =
        vpadd_f32(vadd_f32(vget_low_f32(a), vget_high_f32(a)), vadd_f32(vget_low_f32(b), vget_high_f32(b)));
    const float32x2_t cd =
        vpadd_f32(vadd_f32(vget_low_f32(c), vget_high_f32(c)), vadd_f32(vget_low_f32(d), vget_high_f32(d)));
    return vcombine_f32(ab, cd);
#endif
}

inline int32_t hsum(int32x4_t v) {
#if defined(__aarch64__)
    return vaddvq_s32(v);
#else
    const int32x2_t s = vadd_s32(vget_low_s32(v), vget_high_s32(v));
    return vget_lane_s32(vpadd_s32(s, s), 0);
#endif
}

inline int32x4_t hsum4(int32x4_t a, int32x4_t b, int32x4_t c, int32x4_t d) {
#if defined(__aarch64__)
    return vpaddq_s32(vpaddq_s32(a, b), vpaddq_s32(c, d));
#else
    const int32x2_t ab =
        vpadd_s32(vadd_s32(vget_low_s32(a), vget_high_s32(a)), vadd_s32(vget_low_s32(b), vget_high_s32(b)));
    const int32x2_t cd =
        vpadd_s32(vadd_s32(vget_low_s32(c), vget_high_s32(c)), vadd_s32(vget_low_s32(d), vget_high_s32(d)));
    return vcombine_s32(ab, cd);
#endif
}

#if !defined(__ARM_FEATURE_DOTPROD)
// The int16 products of the low and of the high eight bytes of a and b.
inline int16x8_t mull_low_s8(int8x16_t a, int8x16_t b) { return vmull_s8(vget_low_s8(a), vget_low_s8(b)); }
inline int16x8_t mull_high_s8(int8x16_t a, int8x16_t b) {
#if defined(__aarch64__)
    return vmull_high_s8(a, b);
#else
    return vmull_s8(vget_high_s8(a), vget_high_s8(b));
#endif
}

// a[i] * b[i] + a[i + 8] * b[i + 8] in int16 lane i, for a without -128 (as quantize_rows_i8 makes it): two
// products, each at most 127 * 128 in magnitude, add up without overflow (32512 < 32767).
inline int16x8_t pair_products_no_min(int8x16_t a, int8x16_t b) {
#if defined(__aarch64__)
    return vmlal_high_s8(mull_low_s8(a, b), a, b);
#else
    return vmlal_s8(mull_low_s8(a, b), vget_high_s8(a), vget_high_s8(b));
#endif
}
#endif

// acc += the 16 products a[i] * b[i], exactly, grouped four to a lane. Full-range int8 (-128 too) is safe:
// without the dot-product extension each int16 product is widened before any two are added.
inline int32x4_t dot16(int32x4_t acc, int8x16_t a, int8x16_t b) {
#if defined(__ARM_FEATURE_DOTPROD)
    return vdotq_s32(acc, a, b);
#else
    return vpadalq_s16(vpadalq_s16(acc, mull_low_s8(a, b)), mull_high_s8(a, b));
#endif
}

// The 16 products a[i] * b[i] as dot16 adds them to zero, one instruction fewer without the dot-product
// extension (a pairwise widening add that starts the lanes).
inline int32x4_t dot16_first(int8x16_t a, int8x16_t b) {
#if defined(__ARM_FEATURE_DOTPROD)
    return vdotq_s32(vdupq_n_s32(0), a, b);
#else
    return vpadalq_s16(vpaddlq_s16(mull_low_s8(a, b)), mull_high_s8(a, b));
#endif
}

#if !defined(__ARM_FEATURE_DOTPROD)
// The same sum in three instructions instead of four when a holds no -128: the pair products, then the
// pairwise widening add into int32.
inline int32x4_t dot16_no_min(int32x4_t acc, int8x16_t a, int8x16_t b) {
    return vpadalq_s16(acc, pair_products_no_min(a, b));
}

// dot16_no_min of a zero accumulator: the widening add starts the lanes.
inline int32x4_t dot16_no_min_first(int8x16_t a, int8x16_t b) { return vpaddlq_s16(pair_products_no_min(a, b)); }
#endif

// Four IEEE halves -> floats, exactly (subnormals, infinities and NaN included).
inline float32x4_t half4_to_float(const uint16_t* p) {
#if defined(__aarch64__)
    return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(p)));
#else
    // Baseline ARMv7 NEON has no half conversion (that is the neon-fp16 extension): do it with integer ops.
    const uint32x4_t hs = vshll_n_u16(vld1_u16(p), 16);  // h << 16
    const uint32x4_t sign = vandq_u32(hs, vdupq_n_u32(0x80000000u));
    const uint32x4_t em = vshrq_n_u32(vshlq_n_u32(hs, 1), 4);  // (h & 0x7fff) << 13
    const uint32x4_t rebias = vdupq_n_u32(112u << 23);         // exponent 15 -> 127
    uint32x4_t normal = vaddq_u32(em, rebias);
    const uint32x4_t infnan = vcgeq_u32(em, vdupq_n_u32(0x7c00u << 13));  // exponent 31 -> 255
    normal = vaddq_u32(normal, vandq_u32(infnan, rebias));
    // Zero and subnormal halves: value = mantissa * 2^-24 = em * 2^-37, exact and never a float denormal.
    const uint32x4_t small = vcltq_u32(em, vdupq_n_u32(0x0400u << 13));
    const float32x4_t sub = vmulq_n_f32(vcvtq_f32_u32(em), 0x1p-37f);
    const uint32x4_t mag = vbslq_u32(small, vreinterpretq_u32_f32(sub), normal);
    return vreinterpretq_f32_u32(vorrq_u32(mag, sign));
#endif
}

}  // namespace ax::neon::detail

#endif  // __ARM_NEON
