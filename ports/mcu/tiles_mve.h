// int8 dot-product tiles and the float epilogue for Helium (MVE, Cortex-M55/M85). int32 sums, exact; tails
// predicated (lanes past a row's end are neither loaded nor added). Included by linear_i8_mcu.cpp only, in the
// MVE branch.
#pragma once
#include <arm_mve.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ax::mcu::mve {
// Unnamed: these helpers count as part of the kernel that calls them (the instruction-count plugin
// attributes named functions separately).
namespace {

// The loops below are assembly: GCC 12 keeps few of the sums in registers, predicates each tail instruction
// with its own VPST and counts the loop by hand. Each is one tail-predicated low-overhead loop (DLSTP.8 /
// LETP: the last pass's lanes past n are neither loaded nor added), so 16 inputs cost the loads, the
// VMLADAVA and one LETP. VMLADAVA's sum must be an even register ("Te"); LR is the loop count. n > 0.

inline int32_t dot(const int8_t* x, const int8_t* w, size_t n) {
    int32_t s = 0;
    __asm volatile(
        "dlstp.8 lr, %[n]\n"
        "1:\n\t"
        "vldrb.8 q0, [%[x]], #16\n\t"
        "vldrb.8 q1, [%[w]], #16\n\t"
        "vmladava.s8 %[s], q0, q1\n\t"
        "letp lr, 1b"
        : [s] "+Te"(s), [x] "+r"(x), [w] "+r"(w)
        : [n] "r"(n)
        : "lr", "d0", "d1", "d2", "d3", "memory");
    return s;
}

// One row, four outputs per pass over the input row: each 16 inputs are loaded once for four weight rows of
// n inputs, `stride` apart (n for a weight matrix; the row stride of a key cache for attention scores); v gets
// the four sums.
inline void dot1x4(const int8_t* x, const int8_t* w, size_t stride, size_t n, int32x4_t& v) {
    const int8_t* w0 = w;
    const int8_t* w1 = w0 + stride;
    const int8_t* w2 = w1 + stride;
    const int8_t* w3 = w2 + stride;
    int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    __asm volatile(
        "dlstp.8 lr, %[n]\n"
        "1:\n\t"
        "vldrb.8 q0, [%[x]], #16\n\t"
        "vldrb.8 q1, [%[w0]], #16\n\t"
        "vmladava.s8 %[s0], q0, q1\n\t"
        "vldrb.8 q1, [%[w1]], #16\n\t"
        "vmladava.s8 %[s1], q0, q1\n\t"
        "vldrb.8 q1, [%[w2]], #16\n\t"
        "vmladava.s8 %[s2], q0, q1\n\t"
        "vldrb.8 q1, [%[w3]], #16\n\t"
        "vmladava.s8 %[s3], q0, q1\n\t"
        "letp lr, 1b\n\t"
        "vmov.32 %q[v][0], %[s0]\n\t"
        "vmov.32 %q[v][1], %[s1]\n\t"
        "vmov.32 %q[v][2], %[s2]\n\t"
        "vmov.32 %q[v][3], %[s3]"
        : [v] "=w"(v), [s0] "+Te"(s0), [s1] "+Te"(s1), [s2] "+Te"(s2), [s3] "+Te"(s3), [x] "+r"(x), [w0] "+r"(w0),
          [w1] "+r"(w1), [w2] "+r"(w2), [w3] "+r"(w3)
        : [n] "r"(n)
        : "lr", "d0", "d1", "d2", "d3", "memory");
}

// Two rows x two outputs, the weight rows wa and wb: each 16 loaded inputs or weights serve two VMLADAVA (the
// 1 x 4 tile: 1.25). The four sums go straight into lanes LO and LO + 2 of the two rows' result vectors (one
// VMOV.32 each: the two-lane VMOV is left out, QEMU and LLVM disagree on its lane order).
#define AX_MVE_2X2_PASS(LO, HI)     \
    "dlstp.8 lr, %[n]\n"            \
    "1:\n\t"                        \
    "vldrb.8 q0, [%[x0]], #16\n\t"  \
    "vldrb.8 q1, [%[x1]], #16\n\t"  \
    "vldrb.8 q2, [%[wa]], #16\n\t"  \
    "vmladava.s8 %[a0], q0, q2\n\t" \
    "vmladava.s8 %[b0], q1, q2\n\t" \
    "vldrb.8 q2, [%[wb]], #16\n\t"  \
    "vmladava.s8 %[a1], q0, q2\n\t" \
    "vmladava.s8 %[b1], q1, q2\n\t" \
    "letp lr, 1b\n\t"               \
    "vmov.32 %q[v0][" LO            \
    "], %[a0]\n\t"                  \
    "vmov.32 %q[v0][" HI            \
    "], %[a1]\n\t"                  \
    "vmov.32 %q[v1][" LO            \
    "], %[b0]\n\t"                  \
    "vmov.32 %q[v1][" HI "], %[b1]"
#define AX_MVE_2X2_OPERANDS(V)                                                                               \
    : [v0] V(v0), [v1] V(v1), [a0] "+Te"(a0), [a1] "+Te"(a1), [b0] "+Te"(b0), [b1] "+Te"(b1), [x0] "+r"(x0), \
      [x1] "+r"(x1), [wa] "+r"(wa), [wb] "+r"(wb)                                                          \
    : [n] "r"(n)                                                                                           \
    : "lr", "d0", "d1", "d2", "d3", "d4", "d5", "memory"

// Two rows x four outputs: x holds two input rows and w four weight rows, n inputs each, rows n apart; v0 and
// v1 get the rows' four sums. Two 2 x 2 passes (outputs 0 and 2, then 1 and 3): eight
// sums in one pass would need fifteen registers with its six pointers and the loop count.
inline void dot2x4(const int8_t* x, const int8_t* w, size_t n, int32x4_t& v0, int32x4_t& v1) {
    {
        const int8_t* x0 = x;
        const int8_t* x1 = x + n;
        const int8_t* wa = w;
        const int8_t* wb = w + 2 * n;
        int32_t a0 = 0, a1 = 0, b0 = 0, b1 = 0;
        __asm volatile(AX_MVE_2X2_PASS("0", "2") AX_MVE_2X2_OPERANDS("=w"));
    }
    const int8_t* x0 = x;
    const int8_t* x1 = x + n;
    const int8_t* wa = w + n;
    const int8_t* wb = w + 3 * n;
    int32_t a0 = 0, a1 = 0, b0 = 0, b1 = 0;
    __asm volatile(AX_MVE_2X2_PASS("1", "3") AX_MVE_2X2_OPERANDS("+w"));
}
#undef AX_MVE_2X2_PASS
#undef AX_MVE_2X2_OPERANDS

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
inline void rescale4(int32x4_t acc, float xscale, float32x4_t wscale, float32x4_t bias, float* y) {
    const float32x4_t scale = vmulq_n_f32(wscale, xscale);
    const float32x4_t product = vmulq_f32(vcvtq_f32_s32(acc), scale);
    vst1q_f32(y, vaddq_f32(product, bias));
}

}  // namespace
}  // namespace ax::mcu::mve
