// int8 dot-product tiles for Armv7E-M's DSP extension (Cortex-M4/M7): SXTB16 + SMLAD. int32 sums, exact.
// Included by linear_i8_mcu.cpp only, in the DSP branch.
//
// SXTB16 sign-extends bytes 0 and 2 of a word into two halfwords; with ROR #8 it takes bytes 1 and 3. SMLAD
// adds both 16x16 products of two such pairs to an accumulator: four int8 products cost two SXTB16 of each
// operand's word and two SMLAD, each product exact. LDR takes unaligned addresses on Armv7E-M.
//
// The loops are inline assembly: GCC 12 at -Os spills their pointers or sums (2.1 to 2.4 instructions per
// product for the C version of the 1 x 4 tile; the assembly 1.5), and ACLE has no rotated SXTB16. Each
// step macro is four inputs with post-incremented loads; the loops run eight inputs per pass (one compare
// and branch per two steps), one step first when n % 8 >= 4, and the last n % 4 inputs in C.
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
    if (x != end)
        __asm volatile("1:\n\t" AX_DSP_1X1_STEP AX_DSP_1X1_STEP "cmp %[x], %[end]\n\tbne 1b" AX_DSP_1X1_OPERANDS);
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

#undef AX_DSP_TILE
#undef AX_DSP_ASM
}  // namespace
}  // namespace ax::mcu::dsp
