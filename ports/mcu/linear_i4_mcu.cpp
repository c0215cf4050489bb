// The port's 4-bit product (runtime/kernels.h, linear_i4), bit-identical to generic::linear_i4: exact int32
// group sums on the core's integer SIMD, then generic's float steps in scalar FPU code, each scale widened
// from half by the FPU's own conversion.
//
// Helium (M55): a group's x loaded deinterleaved (VLD20/VLD21: even columns, odd columns), the row's 16 weight
// bytes unpacked by shift pairs (low nibbles are the even columns, high ones the odd), two VMLADAVA.
// DSP (M4/M7): per four weight bytes (columns c..c+7), the nibbles of columns {c, c+4}, {c+2, c+6}, {c+1, c+5},
// {c+3, c+7} land in the high half of each byte of two masked words, which SXTB16 (plain or rotated by 8)
// sign-extends into halfword pairs of 16 w; x's values are paired the same way once per group and row for
// a tile of four outputs, and SMLAD adds two products per instruction. The sums are 16 x the group's, exact
// (at most 16 * 32 * 128 * 8 in magnitude), shifted back at the end.
#include "ports/generic/generic.h"
#include "ports/mcu/mcu.h"

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#define AX_MCU_I4_MVE 1
#include <arm_mve.h>
#elif defined(__ARM_FEATURE_DSP)
#define AX_MCU_I4_DSP 1
#include <arm_acle.h>
#endif
#if defined(AX_MCU_I4_MVE) || defined(AX_MCU_I4_DSP)
#include "ports/mcu/fpu_convert.h"
#endif

namespace ax::mcu {

#if defined(AX_MCU_I4_MVE) || defined(AX_MCU_I4_DSP)
namespace {

constexpr size_t kTile = 4;  // outputs per tile

#if defined(AX_MCU_I4_MVE)
// x's group of one row, as the SIMD step reads it.
struct GroupX {
    int8x16x2_t v;
    explicit GroupX(const int8_t* x) : v(vld2q_s8(x)) {}
};

inline int32_t group_dot(const GroupX& x, const uint8_t* w) {
    const int8x16_t b = vreinterpretq_s8_u8(vld1q_u8(w));
    const int8x16_t lo = vshrq_n_s8(vshlq_n_s8(b, 4), 4);
    const int8x16_t hi = vshrq_n_s8(b, 4);
    return vmladavaq_s8(vmladavq_s8(x.v.val[0], lo), x.v.val[1], hi);
}
#else
// A rotation right by one byte (ACLE's __ror is missing from GCC's arm_acle.h; GCC folds this into SXTB16's
// rotated operand).
inline uint32_t ror8(uint32_t v) { return (v >> 8) | (v << 24); }

// x's group of one row as halfword pairs: for each 8 columns c..c+7, {c, c+4}, {c+2, c+6}, {c+1, c+5},
// {c+3, c+7}.
struct GroupX {
    uint32_t p[16];
    explicit GroupX(const int8_t* x) {
        for (size_t k = 0; k < 4; ++k) {
            uint32_t a, b;
            __builtin_memcpy(&a, x + 8 * k, 4);
            __builtin_memcpy(&b, x + 8 * k + 4, 4);
            const uint32_t a02 = __sxtb16(a), a13 = __sxtb16(ror8(a));  // {x0, x2}, {x1, x3}
            const uint32_t b02 = __sxtb16(b), b13 = __sxtb16(ror8(b));  // {x4, x6}, {x5, x7}
            p[4 * k + 0] = (a02 & 0xffffu) | (b02 << 16);               // {x0, x4}
            p[4 * k + 1] = (a02 >> 16) | (b02 & 0xffff0000u);           // {x2, x6}
            p[4 * k + 2] = (a13 & 0xffffu) | (b13 << 16);               // {x1, x5}
            p[4 * k + 3] = (a13 >> 16) | (b13 & 0xffff0000u);           // {x3, x7}
        }
    }
};

inline int32_t group_dot(const GroupX& x, const uint8_t* w) {
    int32_t s = 0;
    for (size_t k = 0; k < 4; ++k) {
        uint32_t word;
        __builtin_memcpy(&word, w + 4 * k, 4);
        const uint32_t lo = (word << 4) & 0xf0f0f0f0u;  // bytes: w0, w2, w4, w6 in their high nibbles
        const uint32_t hi = word & 0xf0f0f0f0u;         // w1, w3, w5, w7
        s = __smlad(x.p[4 * k + 0], __sxtb16(lo), s);
        s = __smlad(x.p[4 * k + 1], __sxtb16(ror8(lo)), s);
        s = __smlad(x.p[4 * k + 2], __sxtb16(hi), s);
        s = __smlad(x.p[4 * k + 3], __sxtb16(ror8(hi)), s);
    }
    return s >> 4;
}
#endif

}  // namespace

void linear_i4(const int8_t* xq, const float* xscale, size_t rows, size_t in, const uint8_t* w, const uint16_t* wscale,
               const float* bias, size_t out, float* y, size_t ldy) {
    const size_t groups = in / 32, row_bytes = in / 2;
    size_t o = 0;
    for (; o + kTile <= out; o += kTile) {
        const uint8_t* wt = w + o * row_bytes;
        const uint16_t* st = wscale + o * groups;
        for (size_t r = 0; r < rows; ++r) {
            const int8_t* xr = xq + r * in;
            float sum[kTile] = {0.0f, 0.0f, 0.0f, 0.0f};
            for (size_t g = 0; g < groups; ++g) {
                const GroupX x(xr + 32 * g);
                for (size_t c = 0; c < kTile; ++c)
                    sum[c] = generic::accumulate_group_i4(sum[c], group_dot(x, wt + c * row_bytes + 16 * g),
                                                          fpu::half_to_float(st[c * groups + g]));
            }
            for (size_t c = 0; c < kTile; ++c)
                y[r * ldy + o + c] = generic::finish_i4(sum[c], xscale[r], bias ? bias[o + c] : 0.0f);
        }
    }
    if (o < out)
        generic::linear_i4(xq, xscale, rows, in, w + o * row_bytes, wscale + o * groups, bias ? bias + o : nullptr,
                           out - o, y + o, ldy);
}

#else

void linear_i4(const int8_t* xq, const float* xscale, size_t rows, size_t in, const uint8_t* w, const uint16_t* wscale,
               const float* bias, size_t out, float* y, size_t ldy) {
    generic::linear_i4(xq, xscale, rows, in, w, wscale, bias, out, y, ldy);
}

#endif

}  // namespace ax::mcu
