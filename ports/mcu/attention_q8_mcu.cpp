// The integer attention's weighted values on the Cortex-M port (integer_mcu.h): out[c] = requantize(sum over
// keys of p[j] * v[j][c]), generic's definition (runtime/integer_kernels.h), the sums exact in int32 in any
// order, so generic's bits.
// - Armv7E-M (Cortex-M4/M7, DSP): four values of two keys per loop pass, each key's four values loaded as
//   one word and sign-extended by two SXTB16, each product one SMLABB/SMLABT of the probability's low half
//   (19 instructions per 8 products, against about 4.5 per product for the C loop). That needs every
//   probability in [0, 32767]: softmax_q15 gives 32768 to a key that takes all the weight, and such a row
//   (or any other input outside that range) takes generic's loop.
// - Anything else: generic.
#include <cstddef>
#include <cstdint>

#include "ports/generic/integer_generic.h"
#include "ports/mcu/integer_mcu.h"

#if defined(__ARM_FEATURE_DSP) && defined(__OPTIMIZE__)
#define AX_MCU_VALUES_DSP 1
#include <arm_acle.h>
#endif

namespace ax::mcu {

#if defined(AX_MCU_VALUES_DSP)

namespace {

// Both keys' steps of one loop pass: the key's probability p, its four values at vp (then vp += stride).
#define AX_VALUES_KEY(p)            \
    "ldr %[w], [%[vp]]\n\t"         \
    "add %[vp], %[vp], %[st]\n\t"   \
    "sxtb16 %[e], %[w]\n\t"         \
    "sxtb16 %[w], %[w], ror #8\n\t" \
    "smlabb %[s0], " p              \
    ", %[e], %[s0]\n\t"             \
    "smlabt %[s2], " p              \
    ", %[e], %[s2]\n\t"             \
    "smlabb %[s1], " p              \
    ", %[w], %[s1]\n\t"             \
    "smlabt %[s3], " p ", %[w], %[s3]\n\t"

// s[i] = sum over j < n_keys of p[j] * v[j * stride + i], i < 4, with every p[j] in [0, 32767] (each SMLABB
// product below 2^22, each sum below 2^23 + 2^22: no overflow).
__attribute__((noinline)) void values4(const int32_t* p, const int8_t* v, size_t stride, size_t n_keys, int32_t* s) {
    int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    const int32_t* pp = p;
    const int8_t* vp = v;
    const int32_t* const end = p + (n_keys & ~size_t{1});
    int32_t p0, p1, w, e;
    if (pp != end)
        __asm volatile("1:\n\t"
                       "ldrd %[p0], %[p1], [%[pp]], #8\n\t" AX_VALUES_KEY("%[p0]") AX_VALUES_KEY("%[p1]")
                       "cmp %[pp], %[end]\n\t"
                       "bne 1b"
                       : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3), [pp] "+r"(pp), [vp] "+r"(vp),
                         [p0] "=&r"(p0), [p1] "=&r"(p1), [w] "=&r"(w), [e] "=&r"(e)
                       : [st] "r"(stride), [end] "r"(end)
                       : "cc", "memory");
    if (n_keys & 1u) {
        const int32_t pj = *pp;
        s0 += pj * vp[0];
        s1 += pj * vp[1];
        s2 += pj * vp[2];
        s3 += pj * vp[3];
    }
    s[0] = s0;
    s[1] = s1;
    s[2] = s2;
    s[3] = s3;
}
#undef AX_VALUES_KEY

// clamp(requantize(acc, m), -128, 127), generic's rescale of a weighted sum.
__attribute__((always_inline)) inline int8_t finish(int32_t acc, fixed::Requant m) {
    return static_cast<int8_t>(fixed::clamp_i32(fixed::requantize(acc, m), -128, 127));
}

}  // namespace

void attention_values_q15(const int32_t* p, const int8_t* v, size_t stride, size_t n_keys, size_t n, fixed::Requant m,
                          int8_t* out) {
    uint32_t any = 0;  // every p[j] in [0, 32767] exactly when no bit from 15 up is set in any of them
    for (size_t j = 0; j < n_keys; ++j) any |= static_cast<uint32_t>(p[j]);
    if ((any >> 15) != 0) {
        generic::attention_values_q15(p, v, stride, n_keys, n, m, out);
        return;
    }
    size_t c = 0;
    const bool small = m.shift <= fixed::kMaxSmallShift;
    for (; c + 4 <= n; c += 4) {
        int32_t s[4];
        values4(p, v + c, stride, n_keys, s);
        if (small)  // requantize_small (|value| < 2^30) and one SSAT
            for (size_t i = 0; i < 4; ++i)
                out[c + i] = static_cast<int8_t>(__ssat(fixed::requantize_small(s[i], m), 8));
        else
            for (size_t i = 0; i < 4; ++i) out[c + i] = finish(s[i], m);
    }
    for (; c < n; ++c) {
        int32_t acc = 0;
        for (size_t j = 0; j < n_keys; ++j) acc += p[j] * v[j * stride + c];
        out[c] = finish(acc, m);
    }
}

#else

void attention_values_q15(const int32_t* p, const int8_t* v, size_t stride, size_t n_keys, size_t n, fixed::Requant m,
                          int8_t* out) {
    generic::attention_values_q15(p, v, stride, n_keys, n, m, out);
}

#endif

}  // namespace ax::mcu
