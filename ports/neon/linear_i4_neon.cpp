// NEON 4-bit product (runtime/kernels.h, linear_i4), bit-identical to generic::linear_i4. Four outputs at a
// time; per group of 32 columns their 16 weight bytes each are unpacked once (low nibbles: the even columns,
// high nibbles: the odd ones, each sign-extended by a shift pair) for every row of the call, and each row's x
// is loaded deinterleaved (vld2q_s8: even columns, odd columns). The int32 group sums are exact (products of at
// most 128 * 8) and go through generic's float steps, the running sums waiting in y until the last group: on
// AArch64 four lanes at once (its NEON arithmetic is IEEE), on ARMv7 in scalar VFP code (its NEON arithmetic
// flushes denormals).
#if defined(__ARM_NEON)
#include <arm_neon.h>

#include <cstddef>
#include <cstdint>

#include "ports/generic/generic.h"
#include "ports/neon/neon.h"
#include "ports/neon/neon_util.h"
#include "runtime/half.h"

namespace ax::neon {

void linear_i4(const int8_t* xq, const float* xscale, size_t rows, size_t in, const uint8_t* w, const uint16_t* wscale,
               const float* bias, size_t out, float* y, size_t ldy) {
    const size_t groups = in / 32, row_bytes = in / 2;
    size_t o = 0;
    for (; o + 4 <= out; o += 4) {
        const uint8_t* wt = w + o * row_bytes;
        const uint16_t* st = wscale + o * groups;
        for (size_t g = 0; g < groups; ++g) {
            int8x16_t lo[4], hi[4];
            for (size_t c = 0; c < 4; ++c) {
                const int8x16_t b = vreinterpretq_s8_u8(vld1q_u8(wt + c * row_bytes + 16 * g));
                lo[c] = vshrq_n_s8(vshlq_n_s8(b, 4), 4);
                hi[c] = vshrq_n_s8(b, 4);
            }
            float scale[4];
            for (size_t c = 0; c < 4; ++c) scale[c] = half_to_float(st[c * groups + g]);
            for (size_t r = 0; r < rows; ++r) {
                const int8x16x2_t x = vld2q_s8(xq + r * in + 32 * g);
                int32x4_t acc[4];
                for (size_t c = 0; c < 4; ++c)
                    acc[c] = detail::dot16(detail::dot16_first(x.val[0], lo[c]), x.val[1], hi[c]);
                const int32x4_t sums = detail::hsum4(acc[0], acc[1], acc[2], acc[3]);
                float* yr = y + r * ldy + o;
#if defined(__aarch64__)
                const float32x4_t product = vmulq_f32(vcvtq_f32_s32(sums), vld1q_f32(scale));
                vst1q_f32(yr, vaddq_f32(g == 0 ? vdupq_n_f32(0.0f) : vld1q_f32(yr), product));
#else
                int32_t a[4];
                vst1q_s32(a, sums);
                for (size_t c = 0; c < 4; ++c)
                    yr[c] = generic::accumulate_group_i4(g == 0 ? 0.0f : yr[c], a[c], scale[c]);
#endif
            }
        }
        for (size_t r = 0; r < rows; ++r) {
            float* yr = y + r * ldy + o;
            for (size_t c = 0; c < 4; ++c) yr[c] = generic::finish_i4(yr[c], xscale[r], bias ? bias[o + c] : 0.0f);
        }
    }
    if (o < out)
        generic::linear_i4(xq, xscale, rows, in, w + o * row_bytes, wscale + o * groups, bias ? bias + o : nullptr,
                           out - o, y + o, ldy);
}

}  // namespace ax::neon
#endif
