// int8 dot-product tiles for Armv7E-M's DSP extension (Cortex-M4/M7): SXTB16 + SMLAD. int32 sums, exact.
// Included by linear_i8_mcu.cpp only, in the DSP branch.
//
// SXTB16 sign-extends bytes 0 and 2 of a word into two halfwords; with ROR #8 it takes bytes 1 and 3. SMLAD
// adds both 16x16 products of two such pairs to an accumulator: four int8 products cost two SXTB16 of each
// operand's word and two SMLAD, each product exact. LDR takes unaligned addresses on Armv7E-M.
//
// The loops are inline assembly: GCC 12 at -Os spills their pointers or sums (2.1 to 2.4 instructions per
// product for the C version of the 1 x 4 tile; the assembly 1.5), and ACLE has no rotated SXTB16. Each
// step macro is four inputs with post-incremented loads; the loops run eight inputs per pass (the 1 x 1, 4 x 1
// and extended 1 x 4 tiles sixteen: one compare and branch per four steps), the steps of n % 8 (n % 16) first,
// and the last n % 4 inputs in C.
#pragma once
#include <cstddef>
#include <cstdint>

namespace ax::mcu::dsp {
// Unnamed: these helpers count as part of the kernel that calls them (the instruction-count plugin
// attributes named functions separately). The tiles stay out of line (AX_DSP_TILE): inlined, they make GCC
// spill their callers' loop values around the assembly.
namespace {
#define AX_DSP_TILE __attribute__((noinline))
// Without optimization GCC keeps a frame pointer and cannot give the loops their 13 and 14 registers ("'asm'
// operand has impossible constraints"): a debug build (-O0) runs every input through the C tail loops, the
// same exact int32 sums.
#if defined(__OPTIMIZE__)
#define AX_DSP_ASM 1
constexpr size_t kAsmInputs = 4;  // the assembly takes inputs four at a time, the C loop the rest
#else
#define AX_DSP_ASM 0
constexpr size_t kAsmInputs = ~size_t{0};  // n % kAsmInputs == n: the C loop takes them all
#endif

// One output: the outputs past the four- and two-output tiles, and one-output heads.
#define AX_DSP_1X1_STEP                \
    "ldr %[a], [%[x]], #4\n\t"         \
    "ldr %[c], [%[w]], #4\n\t"         \
    "sxtb16 %[b], %[a], ror #8\n\t"    \
    "sxtb16 %[a], %[a]\n\t"            \
    "sxtb16 %[d], %[c], ror #8\n\t"    \
    "sxtb16 %[c], %[c]\n\t"            \
    "smlad %[s], %[a], %[c], %[s]\n\t" \
    "smlad %[s], %[b], %[d], %[s]\n\t"
#define AX_DSP_1X1_OPERANDS                                                                         \
    : [s] "+r"(s), [x] "+r"(x), [w] "+r"(w), [a] "=&r"(a), [b] "=&r"(b), [c] "=&r"(c), [d] "=&r"(d) \
    : [end] "r"(end)                                                                                     \
    : "cc", "memory"
AX_DSP_TILE int32_t dot(const int8_t* x, const int8_t* w, size_t n) {
    int32_t s = 0;
#if AX_DSP_ASM
    const int8_t* const end = x + (n & ~size_t{3});
    uint32_t a, b, c, d;
    if (n & 4u) __asm volatile(AX_DSP_1X1_STEP AX_DSP_1X1_OPERANDS);
    if (n & 8u) __asm volatile(AX_DSP_1X1_STEP AX_DSP_1X1_STEP AX_DSP_1X1_OPERANDS);
    if (x != end)
        __asm volatile("1:\n\t" AX_DSP_1X1_STEP AX_DSP_1X1_STEP AX_DSP_1X1_STEP AX_DSP_1X1_STEP
                       "cmp %[x], %[end]\n\tbne 1b" AX_DSP_1X1_OPERANDS);
#endif
    for (size_t i = 0; i < n % kAsmInputs; ++i) s += int32_t{x[i]} * int32_t{w[i]};
    return s;
}
#undef AX_DSP_1X1_STEP
#undef AX_DSP_1X1_OPERANDS

// One row, four outputs per pass over the input row: each group of four inputs is loaded and sign-extended
// once for four weight rows (n inputs each, rows n apart). Four inputs cost five LDR, ten SXTB16 and eight
// SMLAD; thirteen values are live (four sums, four words, the input and two weight pointers, the stride, the
// end). x, w0 (rows 0 and 1) and w2 (rows 2 and 3) advance.
#define AX_DSP_1X4_STEP                  \
    "ldr %[e], [%[x]], #4\n\t"           \
    "sxtb16 %[o], %[e], ror #8\n\t"      \
    "sxtb16 %[e], %[e]\n\t"              \
    "ldr %[a], [%[w0], %[n]]\n\t"        \
    "sxtb16 %[b], %[a], ror #8\n\t"      \
    "sxtb16 %[a], %[a]\n\t"              \
    "smlad %[s1], %[e], %[a], %[s1]\n\t" \
    "smlad %[s1], %[o], %[b], %[s1]\n\t" \
    "ldr %[a], [%[w0]], #4\n\t"          \
    "sxtb16 %[b], %[a], ror #8\n\t"      \
    "sxtb16 %[a], %[a]\n\t"              \
    "smlad %[s0], %[e], %[a], %[s0]\n\t" \
    "smlad %[s0], %[o], %[b], %[s0]\n\t" \
    "ldr %[a], [%[w2], %[n]]\n\t"        \
    "sxtb16 %[b], %[a], ror #8\n\t"      \
    "sxtb16 %[a], %[a]\n\t"              \
    "smlad %[s3], %[e], %[a], %[s3]\n\t" \
    "smlad %[s3], %[o], %[b], %[s3]\n\t" \
    "ldr %[a], [%[w2]], #4\n\t"          \
    "sxtb16 %[b], %[a], ror #8\n\t"      \
    "sxtb16 %[a], %[a]\n\t"              \
    "smlad %[s2], %[e], %[a], %[s2]\n\t" \
    "smlad %[s2], %[o], %[b], %[s2]\n\t"
#define AX_DSP_1X4_OPERANDS                                                                                  \
    : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3), [x] "+r"(x), [w0] "+r"(w0), [w2] "+r"(w2), \
      [e] "=&r"(e), [o] "=&r"(o), [a] "=&r"(a), [b] "=&r"(b)                                                \
    : [n] "r"(n), [end] "r"(end)                                                                             \
    : "cc", "memory"
AX_DSP_TILE void dot1x4(const int8_t* x, const int8_t* w, size_t n, int32_t* acc) {
    int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    const int8_t* w0 = w;
    const int8_t* w2 = w + 2 * n;
#if AX_DSP_ASM
    const int8_t* const end = x + (n & ~size_t{3});
    uint32_t e, o, a, b;
    if (n & 4u) __asm volatile(AX_DSP_1X4_STEP AX_DSP_1X4_OPERANDS);
    if (x != end)
        __asm volatile("1:\n\t" AX_DSP_1X4_STEP AX_DSP_1X4_STEP "cmp %[x], %[end]\n\tbne 1b" AX_DSP_1X4_OPERANDS);
#endif
    // The last n % 4 inputs: the pointers have reached them.
    for (size_t i = 0; i < n % kAsmInputs; ++i) {
        const int32_t xi = x[i];
        s0 += xi * w0[i];
        s1 += xi * w0[n + i];
        s2 += xi * w2[i];
        s3 += xi * w2[n + i];
    }
    acc[0] = s0;
    acc[1] = s1;
    acc[2] = s2;
    acc[3] = s3;
}
#undef AX_DSP_1X4_STEP
#undef AX_DSP_1X4_OPERANDS

// Two rows x two outputs: x holds two input rows and w two weight rows, n inputs each, rows n apart; s gets
// {x0.w0, x0.w1, x1.w0, x1.w1}. Every loaded and expanded word serves two products, so four inputs of the
// tile cost four LDR, eight SXTB16 and eight SMLAD (the 1 x 4 tile: five, ten and eight). Fourteen values
// are live in the loop (four sums, six expanded words, two pointers, the stride, the end): all of the core's
// allocatable registers. xp and wp advance.
#define AX_DSP_2X2_STEP                    \
    "ldr %[a], [%[wp], %[n]]\n\t"          \
    "ldr %[c], [%[wp]], #4\n\t"            \
    "sxtb16 %[b], %[a], ror #8\n\t"        \
    "sxtb16 %[a], %[a]\n\t"                \
    "sxtb16 %[d], %[c], ror #8\n\t"        \
    "sxtb16 %[c], %[c]\n\t"                \
    "ldr %[e], [%[xp], %[n]]\n\t"          \
    "sxtb16 %[f], %[e], ror #8\n\t"        \
    "sxtb16 %[e], %[e]\n\t"                \
    "smlad %[s10], %[e], %[c], %[s10]\n\t" \
    "smlad %[s10], %[f], %[d], %[s10]\n\t" \
    "smlad %[s11], %[e], %[a], %[s11]\n\t" \
    "smlad %[s11], %[f], %[b], %[s11]\n\t" \
    "ldr %[e], [%[xp]], #4\n\t"            \
    "sxtb16 %[f], %[e], ror #8\n\t"        \
    "sxtb16 %[e], %[e]\n\t"                \
    "smlad %[s00], %[e], %[c], %[s00]\n\t" \
    "smlad %[s00], %[f], %[d], %[s00]\n\t" \
    "smlad %[s01], %[e], %[a], %[s01]\n\t" \
    "smlad %[s01], %[f], %[b], %[s01]\n\t"
#define AX_DSP_2X2_OPERANDS                                                                             \
    : [s00] "+r"(s00), [s01] "+r"(s01), [s10] "+r"(s10), [s11] "+r"(s11), [xp] "+r"(xp), [wp] "+r"(wp), \
      [a] "=&r"(a), [b] "=&r"(b), [c] "=&r"(c), [d] "=&r"(d), [e] "=&r"(e), [f] "=&r"(f)                \
    : [n] "r"(n), [end] "r"(end)                                                                          \
    : "cc", "memory"
AX_DSP_TILE void dot2x2(const int8_t* x, const int8_t* w, size_t n, int32_t* s) {
    int32_t s00 = 0, s01 = 0, s10 = 0, s11 = 0;
    const int8_t* xp = x;
    const int8_t* wp = w;
    // Eight inputs per loop pass (one compare and branch per 32 products), four more first when n % 8 >= 4.
#if AX_DSP_ASM
    const int8_t* const end = x + (n & ~size_t{3});
    uint32_t a, b, c, d, e, f;
    if (n & 4u) __asm volatile(AX_DSP_2X2_STEP AX_DSP_2X2_OPERANDS);
    if (xp != end)
        __asm volatile("1:\n\t" AX_DSP_2X2_STEP AX_DSP_2X2_STEP "cmp %[xp], %[end]\n\tbne 1b" AX_DSP_2X2_OPERANDS);
#endif
    // The last n % 4 inputs: xp and wp have reached them.
    for (size_t i = 0; i < n % kAsmInputs; ++i) {
        const int32_t x0 = xp[i], x1 = xp[n + i], w0 = wp[i], w1 = wp[n + i];
        s00 += x0 * w0;
        s01 += x0 * w1;
        s10 += x1 * w0;
        s11 += x1 * w1;
    }
    s[0] = s00;
    s[1] = s01;
    s[2] = s10;
    s[3] = s11;
}
#undef AX_DSP_2X2_STEP
#undef AX_DSP_2X2_OPERANDS

// Inputs sign-extended ahead: a block of rows whose every input word would otherwise be loaded and
// sign-extended again for each output. extend_rows writes k inputs (k % 4 == 0) of `rows` rows (x rows `in`
// apart) into xe, per four inputs and per row two words, SXTB16's even and odd halves: {x0, x2}, {x1, x3}.
// Each row of four inputs costs one LDR, two SXTB16 and one STRD, once per block instead of once per output.
AX_DSP_TILE void extend_rows(const int8_t* x, size_t in, size_t rows, size_t k, uint32_t* xe) {
    const size_t step = 2 * rows;  // words per four inputs
    for (size_t r = 0; r < rows; ++r) {
        const int8_t* xr = x + r * in;
        uint32_t* dst = xe + 2 * r;
        for (size_t i = 0; i < k; i += 4, dst += step) {
            uint32_t v;
            __builtin_memcpy(&v, xr + i, 4);
#if defined(__OPTIMIZE__)
            uint32_t odd;
            __asm("sxtb16 %0, %1, ror #8" : "=r"(odd) : "r"(v));
            __asm("sxtb16 %0, %1" : "=r"(dst[0]) : "r"(v));
            dst[1] = odd;
#else
            const auto half = [](int8_t lo, int8_t hi) {
                return static_cast<uint32_t>(static_cast<uint16_t>(int16_t{lo})) |
                       (static_cast<uint32_t>(static_cast<uint16_t>(int16_t{hi})) << 16);
            };
            dst[0] = half(xr[i], xr[i + 2]);
            dst[1] = half(xr[i + 1], xr[i + 3]);
#endif
        }
    }
}

// Four rows x one output over k inputs (k % 4 == 0, k > 0) of inputs extended by extend_rows: s[0..3] += the
// four rows' sums with the weight row w (s = the sums when add is false). Four inputs cost one LDR and two SXTB16 of
// the weights (each extended weight word serves the four rows), four LDRD of the extended rows and eight SMLAD: fifteen
// instructions per sixteen products, against twenty for the 2 x 2 tile. Eleven values are live (four sums, two
// weight halves, two input halves, two pointers, the end).
#define AX_DSP_4X1_STEP                  \
    "ldr %[a], [%[w]], #4\n\t"           \
    "sxtb16 %[b], %[a], ror #8\n\t"      \
    "sxtb16 %[a], %[a]\n\t"              \
    "ldrd %[e], %[o], [%[xe]], #8\n\t"   \
    "smlad %[s0], %[e], %[a], %[s0]\n\t" \
    "smlad %[s0], %[o], %[b], %[s0]\n\t" \
    "ldrd %[e], %[o], [%[xe]], #8\n\t"   \
    "smlad %[s1], %[e], %[a], %[s1]\n\t" \
    "smlad %[s1], %[o], %[b], %[s1]\n\t" \
    "ldrd %[e], %[o], [%[xe]], #8\n\t"   \
    "smlad %[s2], %[e], %[a], %[s2]\n\t" \
    "smlad %[s2], %[o], %[b], %[s2]\n\t" \
    "ldrd %[e], %[o], [%[xe]], #8\n\t"   \
    "smlad %[s3], %[e], %[a], %[s3]\n\t" \
    "smlad %[s3], %[o], %[b], %[s3]\n\t"
#define AX_DSP_4X1_OPERANDS                                                                                 \
    : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3), [xe] "+r"(xe), [w] "+r"(w), [a] "=&r"(a), \
      [b] "=&r"(b), [e] "=&r"(e), [o] "=&r"(o)                                                             \
    : [end] "r"(end)                                                                                       \
    : "cc", "memory"
AX_DSP_TILE void dot4x1_extended(const uint32_t* xe, const int8_t* w, size_t k, bool add, int32_t* s) {
    int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    if (add) {
        s0 = s[0];
        s1 = s[1];
        s2 = s[2];
        s3 = s[3];
    }
#if AX_DSP_ASM
    const uint32_t* const end = xe + 2 * k;
    uint32_t a, b, e, o;
    if (k & 4u) __asm volatile(AX_DSP_4X1_STEP AX_DSP_4X1_OPERANDS);
    if (k & 8u) __asm volatile(AX_DSP_4X1_STEP AX_DSP_4X1_STEP AX_DSP_4X1_OPERANDS);
    if (xe != end)
        __asm volatile("1:\n\t" AX_DSP_4X1_STEP AX_DSP_4X1_STEP AX_DSP_4X1_STEP AX_DSP_4X1_STEP
                       "cmp %[xe], %[end]\n\tbne 1b" AX_DSP_4X1_OPERANDS);
#else
    // The halves as SMLAD reads them: {x0, x2} against bytes 0 and 2, {x1, x3} against bytes 1 and 3.
    const auto lo = [](uint32_t v) { return int32_t{static_cast<int16_t>(v & 0xffffu)}; };
    const auto hi = [](uint32_t v) { return int32_t{static_cast<int16_t>(v >> 16)}; };
    int32_t* sums[4] = {&s0, &s1, &s2, &s3};
    for (size_t i = 0; i < k; i += 4, xe += 8)
        for (size_t r = 0; r < 4; ++r) {
            const uint32_t ev = xe[2 * r], od = xe[2 * r + 1];
            *sums[r] += lo(ev) * w[i] + hi(ev) * w[i + 2] + lo(od) * w[i + 1] + hi(od) * w[i + 3];
        }
#endif
    s[0] = s0;
    s[1] = s1;
    s[2] = s2;
    s[3] = s3;
}
#undef AX_DSP_4X1_STEP
#undef AX_DSP_4X1_OPERANDS

// One row extended by extend_rows x four outputs over k inputs (k % 4 == 0, k > 0): weight rows n bytes apart,
// s[0..3] = the four sums, plus s's values when add is true. Four inputs cost one LDRD of the row, and per
// output one LDR, two SXTB16 and two SMLAD: 21 instructions per 16 products, against 23 for dot1x4. Thirteen
// values are live (four sums, two input halves, two weight halves, the input and two weight pointers, the
// stride, the end).
#define AX_DSP_1X4E_STEP                 \
    "ldrd %[e], %[o], [%[xe]], #8\n\t"   \
    "ldr %[a], [%[w0], %[n]]\n\t"        \
    "sxtb16 %[b], %[a], ror #8\n\t"      \
    "sxtb16 %[a], %[a]\n\t"              \
    "smlad %[s1], %[e], %[a], %[s1]\n\t" \
    "smlad %[s1], %[o], %[b], %[s1]\n\t" \
    "ldr %[a], [%[w0]], #4\n\t"          \
    "sxtb16 %[b], %[a], ror #8\n\t"      \
    "sxtb16 %[a], %[a]\n\t"              \
    "smlad %[s0], %[e], %[a], %[s0]\n\t" \
    "smlad %[s0], %[o], %[b], %[s0]\n\t" \
    "ldr %[a], [%[w2], %[n]]\n\t"        \
    "sxtb16 %[b], %[a], ror #8\n\t"      \
    "sxtb16 %[a], %[a]\n\t"              \
    "smlad %[s3], %[e], %[a], %[s3]\n\t" \
    "smlad %[s3], %[o], %[b], %[s3]\n\t" \
    "ldr %[a], [%[w2]], #4\n\t"          \
    "sxtb16 %[b], %[a], ror #8\n\t"      \
    "sxtb16 %[a], %[a]\n\t"              \
    "smlad %[s2], %[e], %[a], %[s2]\n\t" \
    "smlad %[s2], %[o], %[b], %[s2]\n\t"
#define AX_DSP_1X4E_OPERANDS                                                                                   \
    : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3), [xe] "+r"(xe), [w0] "+r"(w0), [w2] "+r"(w2), \
      [e] "=&r"(e), [o] "=&r"(o), [a] "=&r"(a), [b] "=&r"(b)                                                 \
    : [n] "r"(n), [end] "r"(end)                                                                              \
    : "cc", "memory"
AX_DSP_TILE void dot1x4_extended(const uint32_t* xe, const int8_t* w, size_t n, size_t k, bool add, int32_t* s) {
    int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    if (add) {
        s0 = s[0];
        s1 = s[1];
        s2 = s[2];
        s3 = s[3];
    }
    const int8_t* w0 = w;
    const int8_t* w2 = w + 2 * n;
#if AX_DSP_ASM
    const uint32_t* const end = xe + k / 2;
    uint32_t e, o, a, b;
    if (k & 4u) __asm volatile(AX_DSP_1X4E_STEP AX_DSP_1X4E_OPERANDS);
    if (k & 8u) __asm volatile(AX_DSP_1X4E_STEP AX_DSP_1X4E_STEP AX_DSP_1X4E_OPERANDS);
    if (xe != end)
        __asm volatile("1:\n\t" AX_DSP_1X4E_STEP AX_DSP_1X4E_STEP AX_DSP_1X4E_STEP AX_DSP_1X4E_STEP
                       "cmp %[xe], %[end]\n\tbne 1b" AX_DSP_1X4E_OPERANDS);
#else
    const auto lo = [](uint32_t v) { return int32_t{static_cast<int16_t>(v & 0xffffu)}; };
    const auto hi = [](uint32_t v) { return int32_t{static_cast<int16_t>(v >> 16)}; };
    int32_t* sums[4] = {&s0, &s1, &s2, &s3};
    for (size_t i = 0; i < k; i += 4, xe += 2)
        for (size_t j = 0; j < 4; ++j) {
            const int8_t* wj = (j < 2 ? w0 : w2) + (j % 2) * n + i;
            *sums[j] += lo(xe[0]) * wj[0] + hi(xe[0]) * wj[2] + lo(xe[1]) * wj[1] + hi(xe[1]) * wj[3];
        }
#endif
    s[0] = s0;
    s[1] = s1;
    s[2] = s2;
    s[3] = s3;
}
#undef AX_DSP_1X4E_STEP
#undef AX_DSP_1X4E_OPERANDS

#undef AX_DSP_TILE
#undef AX_DSP_ASM
}  // namespace
}  // namespace ax::mcu::dsp
