// NEON attention over an int8 key/value cache, bit-identical to generic: one query's scores against a head's
// int8 keys and the weighted sum of its int8 values (runtime/kernels.h; the float cache's are
// attention_f32_neon.cpp).
#if defined(__ARM_NEON)
#include <arm_neon.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "ports/generic/generic.h"
#include "ports/neon/attention_neon.h"
#include "ports/neon/neon.h"
#include "ports/neon/neon_util.h"

namespace ax::neon {

namespace {

using namespace attn;

// The int8 cache kernels must give generic's bits: every score is its own running sum, q[i] * float(k[i])
// added for i in turn, so the lanes hold four keys (a transposed load) and never four positions of one key;
// every output column is its own running sum over the keys in turn. AArch64's vector arithmetic is the
// scalar's IEEE arithmetic. ARMv7 NEON flushes denormal inputs and results to zero and returns the default
// NaN, so there the vector loops run only on inputs where neither can show (exact_inputs) and the final
// scaling is scalar VFP code: if every addend of a sum is zero or a multiple of 2^-126, so is every partial
// sum, which is then zero or normal. A value x is such a multiple when x is 0, infinite, or |x| >= 2^-103
// (its ulp is then >= 2^-126); q[i] with |q[i]| >= 2^-100 makes q[i] * float(k) a multiple of 2^-123.
#if defined(__aarch64__)
constexpr bool kFlushes = false;
#else
constexpr bool kFlushes = true;
#endif

// Every x[i] (stride apart) is NaN-free and 0, infinite or at least 2^(min_exponent - 127) in magnitude,
// judged on its bits (a NEON compare would flush).
AUSPEX_ATTN_INLINE bool exact_inputs(const float* x, size_t n, uint32_t min_exponent) {
    for (size_t i = 0; i < n; ++i) {
        uint32_t bits;
        std::memcpy(&bits, x + i, sizeof bits);
        bits &= 0x7fffffffu;
        if (bits > 0x7f800000u || (bits != 0 && bits < (min_exponent << 23))) return false;
    }
    return true;
}
constexpr uint32_t kQueryMinExponent = 127 - 100;   // |q| >= 2^-100: products multiples of 2^-123
constexpr uint32_t kAddendMinExponent = 127 - 103;  // |x| >= 2^-103: x a multiple of 2^-126

// The transposed bytes of four key rows at 8 positions: g.val[0] holds positions 0..3, g.val[1] 4..7, each
// position as its four keys' bytes in key order.
AUSPEX_ATTN_INLINE int16x8x2_t transpose4(int8x16_t k01, int8x16_t k23) {
    return vzipq_s16(vreinterpretq_s16_s8(k01), vreinterpretq_s16_s8(k23));
}

// sum + q[i] * float(key byte of position i) for the four keys, four positions i in turn.
AUSPEX_ATTN_INLINE float32x4_t add_positions4(float32x4_t sum, float32x4_t q4, int8x16_t g) {
    const int16x8_t w0 = vmovl_s8(vget_low_s8(g)), w1 = vmovl_s8(vget_high_s8(g));
    sum = vaddq_f32(sum, mul_lane<0>(low_to_float(w0), q4));
    sum = vaddq_f32(sum, mul_lane<1>(high_to_float(w0), q4));
    sum = vaddq_f32(sum, mul_lane<2>(low_to_float(w1), q4));
    return vaddq_f32(sum, mul_lane<3>(high_to_float(w1), q4));
}

AUSPEX_ATTN_INLINE float32x4_t add_positions8(float32x4_t sum, const float* q, int16x8x2_t g) {
    sum = add_positions4(sum, vld1q_f32(q), vreinterpretq_s8_s16(g.val[0]));
    return add_positions4(sum, vld1q_f32(q + 4), vreinterpretq_s8_s16(g.val[1]));
}

// The four running sums of keys k0..k3 (stride apart) over all n positions.
AUSPEX_ATTN_INLINE float32x4_t key_sums4(const float* q, const int8_t* k0, size_t stride, size_t n) {
    const int8_t* k1 = k0 + stride;
    const int8_t* k2 = k1 + stride;
    const int8_t* k3 = k2 + stride;
    float32x4_t sum = vdupq_n_f32(0.0f);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const int8x16x2_t z01 = vzipq_s8(vld1q_s8(k0 + i), vld1q_s8(k1 + i));
        const int8x16x2_t z23 = vzipq_s8(vld1q_s8(k2 + i), vld1q_s8(k3 + i));
        sum = add_positions8(sum, q + i, transpose4(z01.val[0], z23.val[0]));
        sum = add_positions8(sum, q + i + 8, transpose4(z01.val[1], z23.val[1]));
    }
    if (i + 8 <= n) {
        const int8x16x2_t z =
            vzipq_s8(vcombine_s8(vld1_s8(k0 + i), vld1_s8(k2 + i)), vcombine_s8(vld1_s8(k1 + i), vld1_s8(k3 + i)));
        sum = add_positions8(sum, q + i, transpose4(z.val[0], z.val[1]));
        i += 8;
    }
    if (i < n) {
        // The last 1-7 positions continue each key's sum in scalar code, in the same order.
        float s[4];
        vst1q_f32(s, sum);
        for (; i < n; ++i) {
            s[0] = s[0] + q[i] * static_cast<float>(k0[i]);
            s[1] = s[1] + q[i] * static_cast<float>(k1[i]);
            s[2] = s[2] + q[i] * static_cast<float>(k2[i]);
            s[3] = s[3] + q[i] * static_cast<float>(k3[i]);
        }
        sum = vld1q_f32(s);
    }
    return sum;
}

// Keys whose weights are computed at a time (a stack array).
constexpr size_t kKeyChunk = 64;

}  // namespace

void attention_scores_i8(const float* q, const int8_t* k, const float* kscale, size_t stride, size_t n_keys, size_t n,
                         float scale, float* scores) {
    size_t j = 0;
    if (!kFlushes || exact_inputs(q, n, kQueryMinExponent)) {
        for (; j + 4 <= n_keys; j += 4) {
            const float32x4_t sum = key_sums4(q, k + j * stride, stride, n);
            if (!kFlushes) {
                vst1q_f32(scores + j, vmulq_n_f32(vmulq_f32(sum, vld1q_f32(kscale + j)), scale));
            } else {
                // The scales may be denormal, or make denormal scores: scalar VFP.
                float s[4];
                vst1q_f32(s, sum);
                for (size_t r = 0; r < 4; ++r) scores[j + r] = (s[r] * kscale[j + r]) * scale;
            }
        }
    }
    if (j < n_keys)
        generic::attention_scores_i8(q, k + j * stride, kscale + j, stride, n_keys - j, n, scale, scores + j);
}

void attention_values_i8(const float* p, const int8_t* v, const float* vscale, size_t stride, size_t n_keys, size_t n,
                         float* out) {
    size_t j = 0;
    if (!kFlushes || exact_inputs(out, n, kAddendMinExponent)) {
        float a[kKeyChunk];
        for (; j < n_keys; j += kKeyChunk) {
            const size_t keys = n_keys - j < kKeyChunk ? n_keys - j : kKeyChunk;
            size_t t = 0;
            if (!kFlushes)
                for (; t + 4 <= keys; t += 4)
                    vst1q_f32(a + t, vmulq_f32(vld1q_f32(p + j + t), vld1q_f32(vscale + j + t)));
            for (; t < keys; ++t) a[t] = p[j + t] * vscale[j + t];
            if (kFlushes && !exact_inputs(a, keys, kAddendMinExponent)) break;  // these keys on: generic
            const int8_t* vj = v + j * stride;
            size_t c = 0;
            for (; c + 16 <= n; c += 16) values_columns<4>(a, vj + c, stride, keys, out + c);
            if (c + 8 <= n) {
                values_columns<2>(a, vj + c, stride, keys, out + c);
                c += 8;
            }
            // The last 1-7 columns: generic's loop over these keys, the same operations per column.
            if (c < n) generic::attention_values_i8(p + j, vj + c, vscale + j, stride, keys, n - c, out + c);
        }
    }
    if (j < n_keys) generic::attention_values_i8(p + j, v + j * stride, vscale + j, stride, n_keys - j, n, out);
}

}  // namespace ax::neon

#endif  // __ARM_NEON
