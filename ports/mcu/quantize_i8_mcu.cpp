// Per-row int8 quantization without libm: generic::quantize_rows_i8's bits, the rounding done by the FPU's
// own conversion (round to nearest, ties to even: the default FPSCR mode, which nearbyint follows too).
//
// Why no clamp is needed on the fast path: with amax >= 2^-100 (normal, so inv = 127 / amax is finite) every
// |x * inv| <= amax * inv <= 127 (1 + 2^-24)^2 < 127.5 rounds into [-127, 127]; NaN inputs give NaN, which
// the conversions turn into 0, as generic does. Rows with a NaN, a subnormal or a tiny amax take generic.
#include <cstring>

#include "ports/generic/generic.h"
#include "ports/mcu/mcu.h"

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2)
#include <arm_mve.h>
#define AX_MCU_QUANT_MVE 1
#elif defined(__ARM_FP) && (__ARM_FP & 4) && defined(__thumb2__) && !defined(__ARM_ARCH_ISA_A64)
#define AX_MCU_QUANT_VFP 1
#include "ports/mcu/fpu_convert.h"
#endif

namespace ax::mcu {

#if defined(AX_MCU_QUANT_MVE) || defined(AX_MCU_QUANT_VFP)

namespace {

constexpr uint32_t kAbsMask = 0x7fffffffu;
constexpr uint32_t kAmaxMin = 0x0d800000u;  // 2^-100

inline float from_bits(uint32_t b) {
    float f;
    std::memcpy(&f, &b, sizeof f);
    return f;
}

#if defined(AX_MCU_QUANT_MVE)

// Both loops are assembly, one tail-predicated low-overhead loop each (DLSTP.32 / LETP: the last pass's
// lanes past n are neither loaded, compared nor stored): GCC 12 counts MVE loops by hand and puts a VPST
// before every predicated instruction. n > 0.

// max |x[i]| as the bits of a float; the largest non-NaN magnitude, as generic's compare loop finds it, when
// there is no NaN (a NaN's bits exceed every number's). MVE float compares may flush subnormals: integers do
// not.
uint32_t amax_bits(const float* x, size_t n) {
    uint32_t m = 0;
    const uint32x4_t mask = vdupq_n_u32(kAbsMask);
    __asm volatile(
        "dlstp.32 lr, %[n]\n"
        "1:\n\t"
        "vldrw.u32 q0, [%[x]], #16\n\t"
        "vand q0, q0, %q[mask]\n\t"
        "vmaxv.u32 %[m], q0\n\t"
        "letp lr, 1b"
        : [m] "+r"(m), [x] "+r"(x)
        : [n] "r"(n), [mask] "w"(mask)
        : "lr", "d0", "d1", "memory");
    return m;
}

// x * inv rounded to nearest even (VCVTN), four lanes at a time, stored as bytes. Subnormal products
// (flushed or not) and subnormal inputs (|x * inv| < 127 * 2^-126 / 2^-100 < 0.5) round to 0 either way.
void quantize_row(const float* x, size_t n, float inv, int8_t* q) {
    uint32_t inv_bits;
    std::memcpy(&inv_bits, &inv, sizeof inv_bits);
    __asm volatile(
        "dlstp.32 lr, %[n]\n"
        "1:\n\t"
        "vldrw.u32 q0, [%[x]], #16\n\t"
        "vmul.f32 q0, q0, %[inv]\n\t"
        "vcvtn.s32.f32 q0, q0\n\t"
        "vstrb.32 q0, [%[q]], #4\n\t"
        "letp lr, 1b"
        : [x] "+r"(x), [q] "+r"(q)
        : [n] "r"(n), [inv] "r"(inv_bits)
        : "lr", "d0", "d1", "memory");
}

#else

// The loops' first n & ~3 elements are assembly, four per pass: GCC 12 at -Os neither pairs the loads nor the
// register moves, and the budget is a dozen instructions per element for both passes.

// max |x[i]| as the bits of a float (see the Helium version); doubled while in the loop, which drops the sign.
uint32_t amax_bits(const float* x, size_t n) {
    uint32_t m = 0;
    const float* p = x;
    const float* const end = x + (n & ~size_t{3});
    if (p != end) {
        uint32_t a, b, c, d;
        __asm volatile(
            "1:\n\t"
            "ldrd %[a], %[b], [%[p]], #8\n\t"
            "ldrd %[c], %[d], [%[p]], #8\n\t"
            "lsls %[a], %[a], #1\n\t"
            "cmp %[m], %[a]\n\t"
            "it cc\n\t"
            "movcc %[m], %[a]\n\t"
            "lsls %[b], %[b], #1\n\t"
            "cmp %[m], %[b]\n\t"
            "it cc\n\t"
            "movcc %[m], %[b]\n\t"
            "lsls %[c], %[c], #1\n\t"
            "cmp %[m], %[c]\n\t"
            "it cc\n\t"
            "movcc %[m], %[c]\n\t"
            "lsls %[d], %[d], #1\n\t"
            "cmp %[m], %[d]\n\t"
            "it cc\n\t"
            "movcc %[m], %[d]\n\t"
            "cmp %[p], %[end]\n\t"
            "bne 1b"
            : [m] "+r"(m), [p] "+r"(p), [a] "=&r"(a), [b] "=&r"(b), [c] "=&r"(c), [d] "=&r"(d)
            : [end] "r"(end)
            : "cc", "memory");
    }
    m >>= 1;
    for (; p != x + n; ++p) {
        uint32_t v;
        std::memcpy(&v, p, sizeof v);
        v &= kAbsMask;
        m = v > m ? v : m;
    }
    return m;
}

// VCVTR: float to int32 in the FPSCR rounding mode (VCVT without R truncates).
inline int32_t round_even(float v) { return fpu::to_int_nearest(v); }

void quantize_row(const float* x, size_t n, float inv, int8_t* q) {
    const float* const end = x + (n & ~size_t{3});
    if (x != end) {
        uint32_t a, b;
        __asm volatile(
            "1:\n\t"
            "vldmia %[x]!, {s0-s3}\n\t"
            "vmul.f32 s0, s0, %[inv]\n\t"
            "vmul.f32 s1, s1, %[inv]\n\t"
            "vmul.f32 s2, s2, %[inv]\n\t"
            "vmul.f32 s3, s3, %[inv]\n\t"
            "vcvtr.s32.f32 s0, s0\n\t"
            "vcvtr.s32.f32 s1, s1\n\t"
            "vcvtr.s32.f32 s2, s2\n\t"
            "vcvtr.s32.f32 s3, s3\n\t"
            "vmov %[a], %[b], s2, s3\n\t"
            "strb %[a], [%[q], #2]\n\t"
            "strb %[b], [%[q], #3]\n\t"
            "vmov %[a], %[b], s0, s1\n\t"
            "strb %[b], [%[q], #1]\n\t"
            "strb %[a], [%[q]], #4\n\t"
            "cmp %[x], %[end]\n\t"
            "bne 1b"
            : [x] "+r"(x), [q] "+r"(q), [a] "=&r"(a), [b] "=&r"(b)
            : [inv] "t"(inv), [end] "r"(end)
            : "cc", "memory", "s0", "s1", "s2", "s3");
    }
    for (size_t i = 0; i < (n & 3u); ++i) q[i] = static_cast<int8_t>(round_even(x[i] * inv));
}

#endif

}  // namespace

void quantize_rows_i8(const float* x, size_t rows, size_t n, int8_t* q, float* scales) {
    for (size_t r = 0; r < rows; ++r) {
        const float* xr = x + r * n;
        int8_t* qr = q + r * n;
        const uint32_t m = n ? amax_bits(xr, n) : 0;
        if (m < kAmaxMin || m > 0x7f800000u) {  // zero (or n = 0), tiny or subnormal amax, a NaN: generic
            generic::quantize_rows_i8(xr, 1, n, qr, scales + r);
            continue;
        }
        const float amax = from_bits(m);
        scales[r] = amax / 127.0f;
        quantize_row(xr, n, 127.0f / amax, qr);
    }
}

#else

void quantize_rows_i8(const float* x, size_t rows, size_t n, int8_t* q, float* scales) {
    generic::quantize_rows_i8(x, rows, n, q, scales);
}

#endif

}  // namespace ax::mcu
