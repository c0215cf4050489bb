// NEON 4-bit product (runtime/kernels.h, linear_i4), bit-identical to generic::linear_i4. Per group of 32
// columns x is loaded deinterleaved (vld2q_s8: even columns, odd columns), which is the order of a row's 16
// weight bytes unpacked (low nibbles: even columns, high nibbles: odd ones, each sign-extended by a shift
// pair); the int32 group sums of four outputs are exact (products of at most 128 * 8), then go through
// generic's float steps in scalar code (ARMv7 NEON arithmetic would flush denormals).
#if defined(__ARM_NEON)
#include <arm_neon.h>

#include <cstddef>
#include <cstdint>

#include "ports/generic/generic.h"
#include "ports/neon/neon.h"
#include "ports/neon/neon_util.h"
#include "runtime/half.h"

namespace ax::neon {
namespace {

// The group sum of x (even and odd columns) with one row's 16 weight bytes.
inline int32x4_t group_dot(int8x16x2_t x, const uint8_t* w) {
    const int8x16_t b = vreinterpretq_s8_u8(vld1q_u8(w));
    const int8x16_t lo = vshrq_n_s8(vshlq_n_s8(b, 4), 4);
    const int8x16_t hi = vshrq_n_s8(b, 4);
    return detail::dot16(detail::dot16_first(x.val[0], lo), x.val[1], hi);
}

}  // namespace

void linear_i4(const int8_t* xq, const float* xscale, size_t rows, size_t in, const uint8_t* w, const uint16_t* wscale,
               const float* bias, size_t out, float* y, size_t ldy) {
    const size_t groups = in / 32, row_bytes = in / 2;
    size_t o = 0;
    for (; o + 4 <= out; o += 4) {
        const uint8_t* wt = w + o * row_bytes;
        const uint16_t* st = wscale + o * groups;
        for (size_t r = 0; r < rows; ++r) {
            const int8_t* xr = xq + r * in;
            float sum[4] = {0.0f, 0.0f, 0.0f, 0.0f};
            for (size_t g = 0; g < groups; ++g) {
                const int8x16x2_t x = vld2q_s8(xr + 32 * g);
                const uint8_t* wg = wt + 16 * g;
                int32_t acc[4];
                vst1q_s32(acc, detail::hsum4(group_dot(x, wg), group_dot(x, wg + row_bytes),
                                             group_dot(x, wg + 2 * row_bytes), group_dot(x, wg + 3 * row_bytes)));
                for (size_t c = 0; c < 4; ++c)
                    sum[c] = generic::accumulate_group_i4(sum[c], acc[c], half_to_float(st[c * groups + g]));
            }
            for (size_t c = 0; c < 4; ++c)
                y[r * ldy + o + c] = generic::finish_i4(sum[c], xscale[r], bias ? bias[o + c] : 0.0f);
        }
    }
    if (o < out)
        generic::linear_i4(xq, xscale, rows, in, w + o * row_bytes, wscale + o * groups, bias ? bias + o : nullptr,
                           out - o, y + o, ldy);
}

}  // namespace ax::neon
#endif
