// The integer attention's weighted values on the Cortex-M port (integer_mcu.h): out[c] = requantize(sum over
// keys of p[j] * v[j][c]), generic's definition (runtime/integer_kernels.h), the sums exact in int32 in any
// order, so generic's bits.
// - Armv7E-M (Cortex-M4/M7, DSP): four values of two keys per loop pass, each key's four values loaded as
//   one word and sign-extended by two SXTB16, each product one SMLABB/SMLABT of the probability's low half
//   (19 instructions per 8 products, against about 4.5 per product for the C loop). That needs every
//   probability in [0, 32767]: softmax_q15 gives 32768 to a key that takes all the weight, and such a row
//   (or any other input outside that range) takes generic's loop.
// - Helium (Cortex-M55): sixteen values per pass over the keys in four 32-bit lanes of four (values16).
// - Anything else: generic.
#include <cstddef>
#include <cstdint>

#include "ports/generic/integer_generic.h"
#include "ports/mcu/integer_mcu.h"

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1) && defined(__OPTIMIZE__)
#define AX_MCU_VALUES_MVE 1
#include <arm_mve.h>
#elif defined(__ARM_FEATURE_DSP) && defined(__OPTIMIZE__)
#define AX_MCU_VALUES_DSP 1
#include <arm_acle.h>
#endif

namespace ax::mcu {

#if defined(AX_MCU_VALUES_MVE)

namespace {

// Values c..c+15 (lanes of four, predicated past n): per key, each four values loaded sign-extended into 32-bit
// lanes (VLDRB.S32) and multiplied by the key's probability into the lanes' sums (VMLA by a scalar); then
// requantize_small on the lanes (VMULH, VRSHL by shift + 1) and the clamp. Any probability fits: the
// products are 32-bit.
void values16(const int32_t* p, const int8_t* v, size_t stride, size_t n_keys, size_t left, fixed::Requant m,
              int8_t* out) {
    const mve_pred16_t p0 = vctp32q(static_cast<uint32_t>(left)),
                       p1 = vctp32q(static_cast<uint32_t>(left > 4 ? left - 4 : 0)),
                       p2 = vctp32q(static_cast<uint32_t>(left > 8 ? left - 8 : 0)),
                       p3 = vctp32q(static_cast<uint32_t>(left > 12 ? left - 12 : 0));
    int32x4_t a0 = vdupq_n_s32(0), a1 = a0, a2 = a0, a3 = a0;
    if (left >= 16 && n_keys != 0) {
        // Sixteen whole values: one low-overhead loop, unpredicated (GCC 12 keeps the four predicates on the stack
        // and reloads each before its load: 25 instructions per key instead of 10).
        const int32_t* pp = p;
        const int8_t* vp = v;
        int32_t pj;
        __asm volatile(
            "dls lr, %[n]\n"
            "1:\n\t"
            "ldr %[pj], [%[pp]], #4\n\t"
            "vldrb.s32 q4, [%[vp]]\n\t"
            "vmla.s32 %q[a0], q4, %[pj]\n\t"
            "vldrb.s32 q4, [%[vp], #4]\n\t"
            "vmla.s32 %q[a1], q4, %[pj]\n\t"
            "vldrb.s32 q4, [%[vp], #8]\n\t"
            "vmla.s32 %q[a2], q4, %[pj]\n\t"
            "vldrb.s32 q4, [%[vp], #12]\n\t"
            "vmla.s32 %q[a3], q4, %[pj]\n\t"
            "add %[vp], %[vp], %[st]\n\t"
            "le lr, 1b"
            : [a0] "+w"(a0), [a1] "+w"(a1), [a2] "+w"(a2), [a3] "+w"(a3), [pp] "+r"(pp), [vp] "+r"(vp), [pj] "=&r"(pj)
            : [n] "r"(n_keys), [st] "r"(stride)
            : "lr", "d8", "d9", "memory");
    } else {
        for (size_t j = 0; j < n_keys; ++j, v += stride) {
            const int32_t pj = p[j];
            a0 = vmlaq_n_s32(a0, vldrbq_z_s32(v, p0), pj);
            a1 = vmlaq_n_s32(a1, vldrbq_z_s32(v + 4, p1), pj);
            a2 = vmlaq_n_s32(a2, vldrbq_z_s32(v + 8, p2), pj);
            a3 = vmlaq_n_s32(a3, vldrbq_z_s32(v + 12, p3), pj);
        }
    }
    const int32x4_t lo = vdupq_n_s32(-128), hi = vdupq_n_s32(127);
    const int32x4_t mult = vdupq_n_s32(m.multiplier);
    const int32_t right = m.shift + 1;  // -k
    const auto finish = [&](int32x4_t a) {
        return vminq_s32(vmaxq_s32(vrshlq_n_s32(vmulhq_s32(a, mult), right), lo), hi);
    };
    vstrbq_p_s32(out, finish(a0), p0);
    vstrbq_p_s32(out + 4, finish(a1), p1);
    vstrbq_p_s32(out + 8, finish(a2), p2);
    vstrbq_p_s32(out + 12, finish(a3), p3);
}

}  // namespace

void attention_values_q15(const int32_t* p, const int8_t* v, size_t stride, size_t n_keys, size_t n, fixed::Requant m,
                          int8_t* out) {
    if (m.shift > fixed::kMaxSmallShift) {
        generic::attention_values_q15(p, v, stride, n_keys, n, m, out);
        return;
    }
    for (size_t c = 0; c < n; c += 16) values16(p, v + c, stride, n_keys, n - c, m, out + c);
}

#elif defined(AX_MCU_VALUES_DSP)

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
