// Attention over an int8 key/value cache with generic's bits (runtime/kernels.h defines them: each key's sum
// in turn over i, each output's in turn over keys, every multiply and add rounded on its own; the build does
// not contract). Nothing here reorders a sum: several independent sums run side by side.
// - Scores: four keys at a time, one sum per key (Helium: one lane per key, the keys' bytes gathered).
// - Values: a block of outputs kept in registers across all keys (Helium: four lanes per vector).
// Helium's float lanes may flush subnormals and give default NaNs where the scalar FPU does not, so they take
// only operands that cannot produce either: every factor 0 or of magnitude in [2^-100, 2^100], every start
// value too. Such a factor is a multiple of 2^-123, so are its products with integers and every sum of them:
// a nonzero result is at least 2^-123 > FLT_MIN, and nothing reaches infinity (n < 2^20 terms of at most
// 127 * 2^100). Anything else takes generic's loops.
#include <cstring>

#include "ports/generic/generic.h"
#include "ports/mcu/mcu.h"

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2)
#include <arm_mve.h>
#define AX_MCU_ATTENTION_MVE 1
#endif

namespace ax::mcu {

namespace {

#if defined(AX_MCU_ATTENTION_MVE)

constexpr uint32_t kLaneMin = 0x0d800000u;  // 2^-100
constexpr uint32_t kLaneMax = 0x71800000u;  // 2^100

// x is 0 or of magnitude in [2^-100, 2^100] (see the top of the file).
inline bool lane_safe(float x) {
    uint32_t b;
    std::memcpy(&b, &x, sizeof b);
    b &= 0x7fffffffu;
    return b == 0 || (b >= kLaneMin && b <= kLaneMax);
}

bool all_lane_safe(const float* x, size_t n) {
    for (size_t i = 0; i < n; ++i)
        if (!lane_safe(x[i])) return false;
    return true;
}

void scores_lanes(const float* q, const int8_t* k, const float* kscale, size_t stride, size_t n_keys, size_t n,
                  float scale, float* scores) {
    const uint32x4_t offsets = vmulq_n_u32(vidupq_n_u32(0, 1), static_cast<uint32_t>(stride));
    size_t j = 0;
    for (; j + 4 <= n_keys; j += 4) {
        const int8_t* kj = k + j * stride;
        float32x4_t sum = vdupq_n_f32(0.0f);
        for (size_t i = 0; i < n; ++i) {
            const float32x4_t kf = vcvtq_f32_s32(vldrbq_gather_offset_s32(kj + i, offsets));
            sum = vaddq_f32(sum, vmulq_n_f32(kf, q[i]));
        }
        float s[4];
        vst1q_f32(s, sum);
        for (size_t l = 0; l < 4; ++l) scores[j + l] = (s[l] * kscale[j + l]) * scale;
    }
    if (j < n_keys)
        generic::attention_scores_i8(q, k + j * stride, kscale + j, stride, n_keys - j, n, scale, scores + j);
}

// Keys [0, n_keys) into out[0, n), four lanes of outputs per vector, up to four vectors kept across the keys.
void values_lanes(const float* p, const int8_t* v, const float* vscale, size_t stride, size_t n_keys, size_t n,
                  float* out) {
    size_t c = 0;
    for (; c + 16 <= n; c += 16) {
        float32x4_t o0 = vld1q_f32(out + c), o1 = vld1q_f32(out + c + 4);
        float32x4_t o2 = vld1q_f32(out + c + 8), o3 = vld1q_f32(out + c + 12);
        for (size_t j = 0; j < n_keys; ++j) {
            const float a = p[j] * vscale[j];
            const int8_t* vj = v + j * stride + c;
            o0 = vaddq_f32(o0, vmulq_n_f32(vcvtq_f32_s32(vldrbq_s32(vj)), a));
            o1 = vaddq_f32(o1, vmulq_n_f32(vcvtq_f32_s32(vldrbq_s32(vj + 4)), a));
            o2 = vaddq_f32(o2, vmulq_n_f32(vcvtq_f32_s32(vldrbq_s32(vj + 8)), a));
            o3 = vaddq_f32(o3, vmulq_n_f32(vcvtq_f32_s32(vldrbq_s32(vj + 12)), a));
        }
        vst1q_f32(out + c, o0);
        vst1q_f32(out + c + 4, o1);
        vst1q_f32(out + c + 8, o2);
        vst1q_f32(out + c + 12, o3);
    }
    for (; c < n; c += 4) {  // the last outputs, four lanes at a time, lanes past n predicated off
        const mve_pred16_t live = vctp32q(static_cast<uint32_t>(n - c));
        float32x4_t o = vldrwq_z_f32(out + c, live);
        for (size_t j = 0; j < n_keys; ++j) {
            const float a = p[j] * vscale[j];
            o = vaddq_f32(o, vmulq_n_f32(vcvtq_f32_s32(vldrbq_z_s32(v + j * stride + c, live)), a));
        }
        vstrwq_p_f32(out + c, o, live);
    }
}

#else

// Four keys side by side: each query value is loaded once for four sums.
void scores_scalar(const float* q, const int8_t* k, const float* kscale, size_t stride, size_t n_keys, size_t n,
                   float scale, float* scores) {
    size_t j = 0;
    for (; j + 4 <= n_keys; j += 4) {
        const int8_t* k0 = k + j * stride;
        const int8_t* k1 = k0 + stride;
        const int8_t* k2 = k1 + stride;
        const int8_t* k3 = k2 + stride;
        float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
        for (size_t i = 0; i < n; ++i) {
            const float qi = q[i];
            s0 = s0 + qi * static_cast<float>(k0[i]);
            s1 = s1 + qi * static_cast<float>(k1[i]);
            s2 = s2 + qi * static_cast<float>(k2[i]);
            s3 = s3 + qi * static_cast<float>(k3[i]);
        }
        scores[j] = (s0 * kscale[j]) * scale;
        scores[j + 1] = (s1 * kscale[j + 1]) * scale;
        scores[j + 2] = (s2 * kscale[j + 2]) * scale;
        scores[j + 3] = (s3 * kscale[j + 3]) * scale;
    }
    if (j < n_keys)
        generic::attention_scores_i8(q, k + j * stride, kscale + j, stride, n_keys - j, n, scale, scores + j);
}

// Eight (then four) outputs kept in registers across all keys: out is loaded and stored once per block, not
// once per key.
void values_scalar(const float* p, const int8_t* v, const float* vscale, size_t stride, size_t n_keys, size_t n,
                   float* out) {
    size_t c = 0;
    for (; c + 8 <= n; c += 8) {  // eight outputs: one weight per eight products
        float o0 = out[c], o1 = out[c + 1], o2 = out[c + 2], o3 = out[c + 3];
        float o4 = out[c + 4], o5 = out[c + 5], o6 = out[c + 6], o7 = out[c + 7];
        const int8_t* vj = v + c;
        for (size_t j = 0; j < n_keys; ++j, vj += stride) {
            const float a = p[j] * vscale[j];
            o0 = o0 + a * static_cast<float>(vj[0]);
            o1 = o1 + a * static_cast<float>(vj[1]);
            o2 = o2 + a * static_cast<float>(vj[2]);
            o3 = o3 + a * static_cast<float>(vj[3]);
            o4 = o4 + a * static_cast<float>(vj[4]);
            o5 = o5 + a * static_cast<float>(vj[5]);
            o6 = o6 + a * static_cast<float>(vj[6]);
            o7 = o7 + a * static_cast<float>(vj[7]);
        }
        out[c] = o0;
        out[c + 1] = o1;
        out[c + 2] = o2;
        out[c + 3] = o3;
        out[c + 4] = o4;
        out[c + 5] = o5;
        out[c + 6] = o6;
        out[c + 7] = o7;
    }
    for (; c + 4 <= n; c += 4) {
        float o0 = out[c], o1 = out[c + 1], o2 = out[c + 2], o3 = out[c + 3];
        const int8_t* vj = v + c;
        for (size_t j = 0; j < n_keys; ++j, vj += stride) {
            const float a = p[j] * vscale[j];
            o0 = o0 + a * static_cast<float>(vj[0]);
            o1 = o1 + a * static_cast<float>(vj[1]);
            o2 = o2 + a * static_cast<float>(vj[2]);
            o3 = o3 + a * static_cast<float>(vj[3]);
        }
        out[c] = o0;
        out[c + 1] = o1;
        out[c + 2] = o2;
        out[c + 3] = o3;
    }
    if (c < n) generic::attention_values_i8(p, v + c, vscale, stride, n_keys, n - c, out + c);
}

#endif

}  // namespace

void attention_scores_i8(const float* q, const int8_t* k, const float* kscale, size_t stride, size_t n_keys, size_t n,
                         float scale, float* scores) {
#if defined(AX_MCU_ATTENTION_MVE)
    if (n < (size_t{1} << 20) && all_lane_safe(q, n)) {
        scores_lanes(q, k, kscale, stride, n_keys, n, scale, scores);
        return;
    }
    generic::attention_scores_i8(q, k, kscale, stride, n_keys, n, scale, scores);
#else
    scores_scalar(q, k, kscale, stride, n_keys, n, scale, scores);
#endif
}

void attention_values_i8(const float* p, const int8_t* v, const float* vscale, size_t stride, size_t n_keys, size_t n,
                         float* out) {
#if defined(AX_MCU_ATTENTION_MVE)
    // Keys [0, lanes) in lanes, the rest (from the first whose weight p[j] * vscale[j] the lanes cannot take)
    // in generic's loop: the same steps in the same order.
    size_t lanes = 0;
    if (n_keys < (size_t{1} << 20) && all_lane_safe(out, n))
        while (lanes < n_keys && lane_safe(p[lanes] * vscale[lanes])) ++lanes;
    if (lanes > 0) values_lanes(p, v, vscale, stride, lanes, n, out);
    if (lanes < n_keys)
        generic::attention_values_i8(p + lanes, v + lanes * stride, vscale + lanes, stride, n_keys - lanes, n, out);
#else
    values_scalar(p, v, vscale, stride, n_keys, n, out);
#endif
}

}  // namespace ax::mcu
