// The integer residual step onto an int16 scale on the Cortex-M port (integer_mcu.h): y[i] = sat16(round(a[i]
// ma) + round(b[i] mb)), generic's definition (runtime/integer_kernels.h) and generic's 32-bit form of it
// (fixed::prepare_requant), so generic's bits.
// - Armv7E-M (Cortex-M4/M7): the loop in assembly, 16 instructions per value (two loads, per input a
//   multiply by 2^p, the high word of the product with the factor and a rounding shift, one SSAT, the store),
//   against about 26 for the C loop, whose values GCC spills. Factors either input cannot take in 32 bits go
//   to generic.
// - Anything else: generic.
#include <cstddef>
#include <cstdint>

#include "ports/generic/integer_generic.h"
#include "ports/mcu/integer_mcu.h"

namespace ax::mcu {

void add_q8_to_q16(const int8_t* a, fixed::Requant ma, const int8_t* b, fixed::Requant mb, size_t n, int16_t* y) {
#if defined(__ARM_FEATURE_DSP) && defined(__OPTIMIZE__)
    const fixed::PreparedRequant fa = fixed::prepare_requant(ma, 8), fb = fixed::prepare_requant(mb, 8);
    if (fa.ok && fb.ok && n != 0) {
        // Each term round(x m) = ((high(x 2^p M) >> (k - 1)) + 1) >> 1 (floor((floor(c) + 1) / 2) =
        // floor((c + 1) / 2)), k >= 1; the two halvings are done at the sum, a's explicitly and b's by the
        // shifted add. The index i counts down from n to 1 and addresses all three arrays (y by i * 2); the
        // arrays are passed one element back.
        const int32_t ka = fa.k - 1, kb = fb.k - 1;
        int32_t va, vb, u;
        uint32_t i = static_cast<uint32_t>(n);
        __asm volatile(
            "1:\n\t"
            "ldrsb %[va], [%[a], %[i]]\n\t"
            "mul %[va], %[va], %[sa]\n\t"
            "smull %[u], %[va], %[va], %[ma]\n\t"
            "asr %[va], %[va], %[ka]\n\t"
            "add %[va], %[va], #1\n\t"
            "ldrsb %[vb], [%[b], %[i]]\n\t"
            "mul %[vb], %[vb], %[sb]\n\t"
            "smull %[u], %[vb], %[vb], %[mb]\n\t"
            "asr %[vb], %[vb], %[kb]\n\t"
            "add %[vb], %[vb], #1\n\t"
            "asr %[va], %[va], #1\n\t"
            "add %[va], %[va], %[vb], asr #1\n\t"
            "ssat %[va], #16, %[va]\n\t"
            "strh %[va], [%[y], %[i], lsl #1]\n\t"
            "subs %[i], %[i], #1\n\t"
            "bne 1b"
            : [va] "=&r"(va), [vb] "=&r"(vb), [u] "=&r"(u), [i] "+r"(i)
            : [a] "r"(a - 1), [b] "r"(b - 1), [y] "r"(y - 1), [sa] "r"(fa.scale), [ma] "r"(fa.multiplier), [ka] "r"(ka),
              [sb] "r"(fb.scale), [mb] "r"(fb.multiplier), [kb] "r"(kb)
            : "cc", "memory");
        return;
    }
#endif
    generic::add_q8_to_q16(a, ma, b, mb, n, y);
}

}  // namespace ax::mcu
