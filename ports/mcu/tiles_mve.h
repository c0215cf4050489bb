// int8 dot-product tiles and the float epilogue for Helium (MVE, Cortex-M55/M85). int32 sums, exact; tails
// predicated (lanes past a row's end are neither loaded nor added). Included by linear_i8_mcu.cpp only, in the
// MVE branch.
#pragma once
#include <arm_mve.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ax::mcu::mve {

inline int32_t dot(const int8_t* x, const int8_t* w, size_t n) {
    int32_t acc = 0;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) acc = vmladavaq_s8(acc, vld1q_s8(x + i), vld1q_s8(w + i));
    if (i < n) {
        const mve_pred16_t p = vctp8q(static_cast<uint32_t>(n - i));
        acc = vmladavaq_p_s8(acc, vld1q_z_s8(x + i, p), vld1q_z_s8(w + i, p), p);
    }
    return acc;
}

// One row, four outputs per pass over the input row: each 16 inputs are loaded once for four weight rows (n
// apart).
inline void dot1x4(const int8_t* x, const int8_t* w, size_t n, int32_t* acc) {
    const int8_t* w0 = w;
    const int8_t* w1 = w0 + n;
    const int8_t* w2 = w1 + n;
    const int8_t* w3 = w2 + n;
    int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const int8x16_t xv = vld1q_s8(x + i);
        s0 = vmladavaq_s8(s0, xv, vld1q_s8(w0 + i));
        s1 = vmladavaq_s8(s1, xv, vld1q_s8(w1 + i));
        s2 = vmladavaq_s8(s2, xv, vld1q_s8(w2 + i));
        s3 = vmladavaq_s8(s3, xv, vld1q_s8(w3 + i));
    }
    if (i < n) {
        const mve_pred16_t p = vctp8q(static_cast<uint32_t>(n - i));
        const int8x16_t xv = vld1q_z_s8(x + i, p);
        s0 = vmladavaq_p_s8(s0, xv, vld1q_z_s8(w0 + i, p), p);
        s1 = vmladavaq_p_s8(s1, xv, vld1q_z_s8(w1 + i, p), p);
        s2 = vmladavaq_p_s8(s2, xv, vld1q_z_s8(w2 + i, p), p);
        s3 = vmladavaq_p_s8(s3, xv, vld1q_z_s8(w3 + i, p), p);
    }
    acc[0] = s0;
    acc[1] = s1;
    acc[2] = s2;
    acc[3] = s3;
}

// Two rows x four outputs: x holds two input rows and w four weight rows, n inputs each, rows n apart; s gets
// the first row's four sums, then the second's. Each 16 weights are loaded once for both rows: 16 inputs of
// the tile cost six loads and eight VMLADAVA (two 1 x 4 passes: ten and eight).
inline void dot2x4(const int8_t* x, const int8_t* w, size_t n, int32_t* s) {
    const int8_t* x0 = x;
    const int8_t* x1 = x0 + n;
    const int8_t* w0 = w;
    const int8_t* w1 = w0 + n;
    const int8_t* w2 = w1 + n;
    const int8_t* w3 = w2 + n;
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, b0 = 0, b1 = 0, b2 = 0, b3 = 0;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const int8x16_t xa = vld1q_s8(x0 + i), xb = vld1q_s8(x1 + i);
        int8x16_t wv = vld1q_s8(w0 + i);
        a0 = vmladavaq_s8(a0, xa, wv);
        b0 = vmladavaq_s8(b0, xb, wv);
        wv = vld1q_s8(w1 + i);
        a1 = vmladavaq_s8(a1, xa, wv);
        b1 = vmladavaq_s8(b1, xb, wv);
        wv = vld1q_s8(w2 + i);
        a2 = vmladavaq_s8(a2, xa, wv);
        b2 = vmladavaq_s8(b2, xb, wv);
        wv = vld1q_s8(w3 + i);
        a3 = vmladavaq_s8(a3, xa, wv);
        b3 = vmladavaq_s8(b3, xb, wv);
    }
    if (i < n) {
        const mve_pred16_t p = vctp8q(static_cast<uint32_t>(n - i));
        const int8x16_t xa = vld1q_z_s8(x0 + i, p), xb = vld1q_z_s8(x1 + i, p);
        int8x16_t wv = vld1q_z_s8(w0 + i, p);
        a0 = vmladavaq_p_s8(a0, xa, wv, p);
        b0 = vmladavaq_p_s8(b0, xb, wv, p);
        wv = vld1q_z_s8(w1 + i, p);
        a1 = vmladavaq_p_s8(a1, xa, wv, p);
        b1 = vmladavaq_p_s8(b1, xb, wv, p);
        wv = vld1q_z_s8(w2 + i, p);
        a2 = vmladavaq_p_s8(a2, xa, wv, p);
        b2 = vmladavaq_p_s8(b2, xb, wv, p);
        wv = vld1q_z_s8(w3 + i, p);
        a3 = vmladavaq_p_s8(a3, xa, wv, p);
        b3 = vmladavaq_p_s8(b3, xb, wv, p);
    }
    s[0] = a0;
    s[1] = a1;
    s[2] = a2;
    s[3] = a3;
    s[4] = b0;
    s[5] = b1;
    s[6] = b2;
    s[7] = b3;
}

// MVE float arithmetic may flush subnormal operands and results to zero where scalar VFP keeps them
// (math_mve.h): the four-lane epilogue below runs only where none can occur. With every |scale| in
// [2^-50, 2^50], xscale * wscale and float(acc) * that are normal or zero (|acc| >= 1 or 0); with |bias| 0 or
// in [2^-100, FLT_MAX], their sum is zero or a multiple of 2^-123, hence normal, and neither sum operand is
// NaN or infinite-minus-infinite. The tests look at the bits (abs as integers), not at float compares, so a
// flushing unit cannot misjudge a subnormal.
constexpr uint32_t kAbsMask = 0x7fffffffu;
constexpr uint32_t kScaleMin = 0x26800000u;  // 2^-50
constexpr uint32_t kScaleMax = 0x58800000u;  // 2^50
constexpr uint32_t kBiasMin = 0x0d800000u;   // 2^-100
constexpr uint32_t kBiasMax = 0x7f7fffffu;   // FLT_MAX

inline bool scale_fits(float s) {
    uint32_t b;
    std::memcpy(&b, &s, sizeof b);
    return (b & kAbsMask) - kScaleMin <= kScaleMax - kScaleMin;
}

// Whether every output's weight scale and bias (bias may be null) fits the four-lane epilogue.
inline bool outputs_fit(const float* wscale, const float* bias, size_t out) {
    const uint32x4_t mask = vdupq_n_u32(kAbsMask);
    mve_pred16_t bad = 0;
    for (size_t o = 0; o < out; o += 4) {
        const mve_pred16_t p = vctp32q(static_cast<uint32_t>(out - o));
        const uint32x4_t ws = vandq_u32(vreinterpretq_u32_f32(vld1q_z_f32(wscale + o, p)), mask);
        bad |= vcmphiq_m_n_u32(vsubq_n_u32(ws, kScaleMin), kScaleMax - kScaleMin, p);
        if (bias) {
            const uint32x4_t b = vandq_u32(vreinterpretq_u32_f32(vld1q_z_f32(bias + o, p)), mask);
            bad |= vcmpneq_m_n_u32(b, 0, vcmphiq_m_n_u32(vsubq_n_u32(b, kBiasMin), kBiasMax - kBiasMin, p));
        }
    }
    return bad == 0;
}

// generic::rescale_i8 on four lanes, the same operations in the same order: float(acc) * (xscale * wscale)
// + bias, each rounded once (the build does not contract: -ffp-contract=off).
inline void rescale4(const int32_t* acc, float xscale, const float* wscale, float32x4_t bias, float* y) {
    const float32x4_t scale = vmulq_n_f32(vld1q_f32(wscale), xscale);
    const float32x4_t product = vmulq_f32(vcvtq_f32_s32(vld1q_s32(acc)), scale);
    vst1q_f32(y, vaddq_f32(product, bias));
}

}  // namespace ax::mcu::mve
