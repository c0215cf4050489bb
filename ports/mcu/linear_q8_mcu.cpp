// The integer linear layers of the Cortex-M port (integer_mcu.h): exact int32 sums of int8 products, summed
// per core, each output finished by generic::linear_q_output, so every bit is generic's.
#include <cstddef>
#include <cstdint>
#include <limits>

#include "ports/generic/integer_generic.h"
#include "ports/mcu/integer_mcu.h"

#if defined(__ARM_ARCH_6M__) && defined(__OPTIMIZE__)
#define AX_MCU_Q_V6M 1
#elif defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1) && defined(__OPTIMIZE__)
#define AX_MCU_Q_MVE 1
#include "ports/mcu/tiles_mve.h"
#elif defined(__ARM_FEATURE_DSP)
#define AX_MCU_Q_DSP 1
#include "ports/mcu/tiles_dsp.h"
#endif

namespace ax::mcu {

namespace {

// The output of sum `acc` (int32: int8 inputs) for output o, bias added as generic adds it.
template <typename Out>
inline Out output(int32_t acc, const int32_t* bias, const fixed::Requant* m, size_t o, int32_t zero, int32_t lo,
                  int32_t hi) {
    return generic::linear_q_output<Out>(acc + (bias != nullptr ? bias[o] : 0), m[o], zero, lo, hi);
}

[[maybe_unused]] int32_t dot_c(const int8_t* x, const int8_t* w, size_t n) {
    int32_t s = 0;
    for (size_t i = 0; i < n; ++i) s += int32_t{x[i]} * int32_t{w[i]};
    return s;
}

#if defined(AX_MCU_Q_V6M)

// One product of the 1 x 4 step at index i: the input, then each weight row's byte times it into its sum.
// MULS overwrites its second operand, so each weight is loaded into t and multiplied there; ADD of a high
// register sets no flag, so the loop's SUBS decides the branch even with the steps after it.
#define AX_V6M_STEP                 \
    "ldrsb %[v], [%[xb], %[i]]\n\t" \
    "ldrsb %[t], [%[w0], %[i]]\n\t" \
    "muls %[t], %[v], %[t]\n\t"     \
    "add %[s0], %[t]\n\t"           \
    "ldrsb %[t], [%[w1], %[i]]\n\t" \
    "muls %[t], %[v], %[t]\n\t"     \
    "add %[s1], %[t]\n\t"           \
    "ldrsb %[t], [%[w2], %[i]]\n\t" \
    "muls %[t], %[v], %[t]\n\t"     \
    "add %[s2], %[t]\n\t"           \
    "ldrsb %[t], [%[w3], %[i]]\n\t" \
    "muls %[t], %[v], %[t]\n\t"     \
    "add %[s3], %[t]\n\t"           \
    "subs %[i], #1\n\t"
// s[0..3] = the sums over i < n (n >= 1) of x[i] * w[k * stride + i]. Thumb-1's LDRSB has only a register offset,
// so all five loads share one index, counting down to zero from n against bases one byte back: per input
// one load, and per product a load, a MULS and an ADD (3.6 instructions per product with the loop's SUBS and
// branch, two inputs per pass, an odd input first), the eight low registers holding the bases, the index and
// two values, the sums in four high ones. GCC spills the C version of this loop (7 instructions per product).
// The sums start at zero inside the assembly: four outputs tied to one constant would be one register.
__attribute__((noinline)) void dot1x4(const int8_t* x, const int8_t* w, size_t stride, size_t n, int32_t* s) {
    const uintptr_t xb = reinterpret_cast<uintptr_t>(x) - 1;
    const uintptr_t w0 = reinterpret_cast<uintptr_t>(w) - 1, w1 = w0 + stride, w2 = w1 + stride, w3 = w2 + stride;
    // The sums named into r8..r11: at -Os GCC gives an "h" operand one high register only.
    register int32_t s0 __asm("r8");
    register int32_t s1 __asm("r9");
    register int32_t s2 __asm("r10");
    register int32_t s3 __asm("r11");
    int32_t v, t;
    uint32_t i = static_cast<uint32_t>(n);
    __asm volatile(
        ".syntax unified\n\t"
        "movs %[t], #0\n\t"
        "mov %[s0], %[t]\n\t"
        "mov %[s1], %[t]\n\t"
        "mov %[s2], %[t]\n\t"
        "mov %[s3], %[t]\n\t"
        "lsrs %[v], %[i], #1\n\t"  // carry: n is odd
        "bcc 2f\n\t" AX_V6M_STEP
        "beq 3f\n"
        "2:\n\t" AX_V6M_STEP AX_V6M_STEP
        "bne 2b\n"
        "3:"
        : [s0] "=&r"(s0), [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3), [i] "+l"(i), [v] "=&l"(v), [t] "=&l"(t)
        : [xb] "l"(xb), [w0] "l"(w0), [w1] "l"(w1), [w2] "l"(w2), [w3] "l"(w3)
        : "cc", "memory");
    s[0] = s0;
    s[1] = s1;
    s[2] = s2;
    s[3] = s3;
}
#undef AX_V6M_STEP
#undef AX_V6M_OPERANDS

template <typename Out>
void linear(const int8_t* x, size_t rows, size_t in, const int8_t* w, const int32_t* bias, const fixed::Requant* m,
            size_t out, int32_t zero, int32_t lo, int32_t hi, Out* y) {
    for (size_t r = 0; r < rows; ++r) {
        const int8_t* xr = x + r * in;
        Out* yr = y + r * out;
        size_t o = 0;
        if (in != 0)
            for (; o + 4 <= out; o += 4) {
                int32_t s[4];
                dot1x4(xr, w + o * in, in, in, s);
                for (size_t k = 0; k < 4; ++k) yr[o + k] = output<Out>(s[k], bias, m, o + k, zero, lo, hi);
            }
        for (; o < out; ++o) yr[o] = output<Out>(dot_c(xr, w + o * in, in), bias, m, o, zero, lo, hi);
    }
}

// Four keys per pass: the query's values loaded once for the four.
void scores(const int8_t* q, const int8_t* k, size_t stride, size_t n_keys, size_t n, int32_t* out) {
    size_t j = 0;
    if (n != 0)
        for (; j + 4 <= n_keys; j += 4) dot1x4(q, k + j * stride, stride, n, out + j);
    for (; j < n_keys; ++j) out[j] = dot_c(q, k + j * stride, n);
}

#elif defined(AX_MCU_Q_MVE)

using namespace mve;

// Four outputs o..o+3 of one row from their sums v, on four lanes: the bias added, requantize_small's high-word
// multiply (VMULH) and rounding shift (VRSHL by -k = shift + 1: (high + 2^(k-1)) >> k), the zero point and
// the clamp, the low byte or half of each lane stored. Where a factor is 1/2 or more, generic's scalar
// epilogue. The same values either way (fixed_point.h), so generic's bits.
template <typename Out>
void finish4(int32x4_t v, const int32_t* bias, const fixed::Requant* m, size_t o, int32_t zero, int32_t lo, int32_t hi,
             Out* y) {
    const int32x4x2_t f = vld2q_s32(reinterpret_cast<const int32_t*>(m + o));  // multipliers, shifts
    if (bias != nullptr) v = vaddq_s32(v, vld1q_s32(bias + o));
    if (vcmpgtq_n_s32(f.val[1], fixed::kMaxSmallShift) != 0) {
        int32_t s[4];
        vst1q_s32(s, v);
        for (size_t k = 0; k < 4; ++k) y[k] = generic::linear_q_output<Out>(s[k], m[o + k], zero, lo, hi);
        return;
    }
    int32x4_t r = vrshlq_s32(vmulhq_s32(v, f.val[0]), vaddq_n_s32(f.val[1], 1));
    r = vminq_s32(vmaxq_s32(vaddq_n_s32(r, zero), vdupq_n_s32(lo)), vdupq_n_s32(hi));
    if constexpr (sizeof(Out) == 1)
        vstrbq_s32(y, r);
    else
        vstrhq_s32(y, r);
}

// Outputs [o, out) of one row past the groups of four: a dot product each.
template <typename Out>
void row_tail(const int8_t* xr, size_t in, const int8_t* w, const int32_t* bias, const fixed::Requant* m, size_t o,
              size_t out, int32_t zero, int32_t lo, int32_t hi, Out* yr) {
    for (; o < out; ++o) yr[o] = output<Out>(mve::dot(xr, w + o * in, in), bias, m, o, zero, lo, hi);
}

// The int8 mode's Helium tiles (tiles_mve.h): rows in pairs, 2 x 4 per pass; an odd row 1 x 4.
template <typename Out>
void linear(const int8_t* x, size_t rows, size_t in, const int8_t* w, const int32_t* bias, const fixed::Requant* m,
            size_t out, int32_t zero, int32_t lo, int32_t hi, Out* y) {
    if (in == 0) {  // the tiles' loops run at least once
        for (size_t r = 0; r < rows; ++r)
            for (size_t o = 0; o < out; ++o) y[r * out + o] = output<Out>(0, bias, m, o, zero, lo, hi);
        return;
    }
    const size_t out4 = out & ~size_t{3};
    size_t r = 0;
    for (; r + 2 <= rows; r += 2) {
        const int8_t* xr = x + r * in;
        Out* y0 = y + r * out;
        for (size_t o = 0; o < out4; o += 4) {
            int32x4_t v0, v1;
            dot2x4(xr, w + o * in, in, v0, v1);
            finish4(v0, bias, m, o, zero, lo, hi, y0 + o);
            finish4(v1, bias, m, o, zero, lo, hi, y0 + out + o);
        }
        row_tail(xr, in, w, bias, m, out4, out, zero, lo, hi, y0);
        row_tail(xr + in, in, w, bias, m, out4, out, zero, lo, hi, y0 + out);
    }
    if (r < rows) {
        const int8_t* xr = x + r * in;
        Out* yr = y + r * out;
        for (size_t o = 0; o < out4; o += 4) {
            int32x4_t v;
            dot1x4(xr, w + o * in, in, in, v);
            finish4(v, bias, m, o, zero, lo, hi, yr + o);
        }
        row_tail(xr, in, w, bias, m, out4, out, zero, lo, hi, yr);
    }
}

// Four keys per pass (keys `stride` apart), the query loaded once for the four.
void scores(const int8_t* q, const int8_t* k, size_t stride, size_t n_keys, size_t n, int32_t* out) {
    size_t j = 0;
    if (n != 0) {
        for (; j + 4 <= n_keys; j += 4) {
            int32x4_t v;
            dot1x4(q, k + j * stride, stride, n, v);
            vst1q_s32(out + j, v);
        }
        for (; j < n_keys; ++j) out[j] = mve::dot(q, k + j * stride, n);
    }
    for (; j < n_keys; ++j) out[j] = 0;
}

#elif defined(AX_MCU_Q_DSP)

using namespace dsp;

// Inputs of four rows extended once (1 KB of stack) per block of this many inputs.
constexpr size_t kExtendedInputs = 128;
// Outputs whose sums over four rows wait in a block (512 bytes of stack) while a long row's input blocks pass.
constexpr size_t kOutputBlock = 32;

size_t min_of(size_t a, size_t b) { return a < b ? a : b; }

// The epilogue. Where every output's factor is below 1/2 (every linear layer of a calibrated model), the
// clamp is int8's range (ReLU layers too: their zero point and lower bound are -128) and there is a bias, it
// is assembly: per value the bias added, requantize_small's multiply (its high word), rounding shift and the
// zero point, one SSAT and the store, with each output's factor loaded once for the rows that share it.
// Otherwise generic::linear_q_output per value. The same values either way (fixed_point.h), so generic's bits.
// (GCC at -Os spills this loop's values around every char store, which may alias them: 25 to 30 instructions
// per value in C against 8 to 14 here.)
template <typename Out>
struct Finish {
    const int32_t* bias;
    const fixed::Requant* m;
    int32_t zero, lo, hi;
    bool fast;

    Finish(const int32_t* b, const fixed::Requant* factors, int32_t z, int32_t l, int32_t h)
        : bias(b), m(factors), zero(z), lo(l), hi(h), fast(sizeof(Out) == 1 && b != nullptr && l == -128 && h == 127) {}

    void generic_row(const int32_t* s, size_t count, size_t o, Out* y) const {
        for (size_t j = 0; j < count; ++j)
            y[j] = generic::linear_q_output<Out>(s[j] + (bias != nullptr ? bias[o + j] : 0), m[o + j], zero, lo, hi);
    }

    // y[j * stride] for j < count: output o of the sums s[j].
    void column(const int32_t* s, size_t count, size_t o, Out* y, size_t stride) const {
        if (!fast || count != 4 || m[o].shift > fixed::kMaxSmallShift) {
            for (size_t j = 0; j < count; ++j)
                y[j * stride] =
                    generic::linear_q_output<Out>(s[j] + (bias != nullptr ? bias[o] : 0), m[o], zero, lo, hi);
            return;
        }
        const int32_t k = -1 - m[o].shift;
        const int32_t half = int32_t{1} << (k - 1);
        int32_t t, u;
        Out* y2 = y + 2 * stride;
#define AX_Q_COLUMN_VALUE(load, store)       \
    load "add %[t], %[t], %[b]\n\t"          \
         "smull %[u], %[t], %[t], %[mu]\n\t" \
         "add %[t], %[t], %[h]\n\t"          \
         "asr %[t], %[t], %[k]\n\t"          \
         "add %[t], %[t], %[z]\n\t"          \
         "ssat %[t], #8, %[t]\n\t" store
        __asm volatile(AX_Q_COLUMN_VALUE("ldr %[t], [%[s]]\n\t", "strb %[t], [%[y]]\n\t")
                           AX_Q_COLUMN_VALUE("ldr %[t], [%[s], #4]\n\t", "strb %[t], [%[y], %[st]]\n\t")
                               AX_Q_COLUMN_VALUE("ldr %[t], [%[s], #8]\n\t", "strb %[t], [%[y2]]\n\t")
                                   AX_Q_COLUMN_VALUE("ldr %[t], [%[s], #12]\n\t", "strb %[t], [%[y2], %[st]]\n\t")
                       : [t] "=&r"(t), [u] "=&r"(u)
                       : [s] "r"(s), [b] "r"(bias[o]), [mu] "r"(m[o].multiplier), [h] "r"(half), [k] "r"(k),
                         [z] "r"(zero), [y] "r"(y), [y2] "r"(y2), [st] "r"(stride)
                       : "memory");
#undef AX_Q_COLUMN_VALUE
    }

    // y[j] for j < count: outputs o + j of one row, sums s[j]. In the loop, (high + 2^(k-1)) >> k is computed
    // as ((high >> (k - 1)) + 1) >> 1, which needs no 2^(k-1) per output (floor((floor(a) + 1) / 2) =
    // floor((a + 1) / 2)); the loop ORs every k - 1 into `any`, and an output whose factor is outside
    // requantize_small's range (k - 1 < 0) sends the whole row through generic's epilogue again.
    void row(const int32_t* s, size_t count, size_t o, Out* y) const {
        if (!fast || count == 0) {
            generic_row(s, count, o, y);
            return;
        }
        const int32_t* sp = s;
        const int32_t* bp = bias + o;
        const fixed::Requant* mp = m + o;
        Out* yp = y;
        const Out* const end = y + count;
        int32_t t, u, b, mu, k, any = 0;
        __asm volatile(
            "1:\n\t"
            "ldr %[t], [%[s]], #4\n\t"
            "ldr %[b], [%[bp]], #4\n\t"
            "add %[t], %[t], %[b]\n\t"
            "ldrd %[mu], %[k], [%[mp]], #8\n\t"
            "mvn %[k], %[k]\n\t"  // k = -1 - shift
            "sub %[k], %[k], #1\n\t"
            "orr %[any], %[any], %[k]\n\t"
            "smull %[u], %[t], %[t], %[mu]\n\t"
            "asr %[t], %[t], %[k]\n\t"
            "add %[t], %[t], #1\n\t"
            "add %[t], %[z], %[t], asr #1\n\t"
            "ssat %[t], #8, %[t]\n\t"
            "strb %[t], [%[y]], #1\n\t"
            "cmp %[y], %[end]\n\t"
            "bne 1b"
            : [t] "=&r"(t), [u] "=&r"(u), [b] "=&r"(b), [mu] "=&r"(mu), [k] "=&r"(k), [any] "+r"(any), [s] "+r"(sp),
              [bp] "+r"(bp), [mp] "+r"(mp), [y] "+r"(yp)
            : [z] "r"(zero), [end] "r"(end)
            : "cc", "memory");
        if (any < 0) generic_row(s, count, o, y);
    }
};

// Four rows of at most kExtendedInputs inputs (in % 4 == 0), extended once, against one weight row at a time.
template <typename Out>
__attribute__((noinline)) void rows_4x1(const int8_t* xr, size_t in, const int8_t* w, const Finish<Out>& f, size_t out,
                                        Out* y) {
    alignas(8) uint32_t xe[kExtendedInputs * 2];
    extend_rows(xr, in, 4, in, xe);
    for (size_t o = 0; o < out; ++o) {
        int32_t s[4];
        dot4x1_extended(xe, w + o * in, in, false, s);
        f.column(s, 4, o, y + o, out);
    }
}

// Four longer rows (in % 4 == 0): kOutputBlock outputs at a time, their sums on the stack while the rows'
// inputs pass in blocks of kLongBlock, each block extended again per block of outputs (a few percent of the
// products' instructions). The extended block and the sums take the stack rows_4x1's one block does.
constexpr size_t kLongBlock = kExtendedInputs / 2;
template <typename Out>
__attribute__((noinline)) void rows_4x1_long(const int8_t* xr, size_t in, const int8_t* w, const Finish<Out>& f,
                                             size_t out, Out* y) {
    alignas(8) uint32_t xe[kLongBlock * 2];
    int32_t s[4 * kOutputBlock];
    for (size_t o0 = 0; o0 < out; o0 += kOutputBlock) {
        const size_t count = min_of(kOutputBlock, out - o0);
        for (size_t k0 = 0; k0 < in; k0 += kLongBlock) {
            const size_t k = min_of(kLongBlock, in - k0);
            extend_rows(xr + k0, in, 4, k, xe);
            for (size_t o = 0; o < count; ++o) dot4x1_extended(xe, w + (o0 + o) * in + k0, k, k0 != 0, s + 4 * o);
        }
        for (size_t o = 0; o < count; ++o) f.column(s + 4 * o, 4, o0 + o, y + o0 + o, out);
    }
}

// Two rows: 2 x 2 tiles, then the last output.
template <typename Out>
__attribute__((noinline)) void rows_2x2(const int8_t* xr, size_t in, const int8_t* w, const Finish<Out>& f, size_t out,
                                        Out* y0) {
    size_t o = 0;
    for (; o + 2 <= out; o += 2) {
        int32_t s[4];
        dot2x2(xr, w + o * in, in, s);
        f.row(s, 2, o, y0 + o);
        f.row(s + 2, 2, o, y0 + out + o);
    }
    if (o < out) {
        const int8_t* wo = w + o * in;
        const int32_t s0 = dot(xr, wo, in), s1 = dot(xr + in, wo, in);
        f.row(&s0, 1, o, y0 + o);
        f.row(&s1, 1, o, y0 + out + o);
    }
}

// One row (every decoder step): four outputs per pass, then one. The row's inputs are extended once when
// they fit (in % 4 == 0, in <= 512: 1 KB of stack), which spares each group of four outputs their SXTB16.
template <typename Out>
__attribute__((noinline)) void row_1x4(const int8_t* xr, size_t in, const int8_t* w, const Finish<Out>& f, size_t out,
                                       Out* yr) {
    alignas(8) uint32_t xe[kExtendedInputs * 2];
    const bool extended = in % 4 == 0 && in <= kExtendedInputs * 4 && out >= 4;
    if (extended) extend_rows(xr, in, 1, in, xe);
    size_t o = 0;
    for (; o + 4 <= out; o += 4) {
        int32_t s[4];
        if (extended)
            dot1x4_extended(xe, w + o * in, in, in, false, s);
        else
            dot1x4(xr, w + o * in, in, s);
        f.row(s, 4, o, yr + o);
    }
    for (; o < out; ++o) {
        const int32_t s = dot(xr, w + o * in, in);
        f.row(&s, 1, o, yr + o);
    }
}

template <typename Out>
void linear(const int8_t* x, size_t rows, size_t in, const int8_t* w, const int32_t* bias, const fixed::Requant* m,
            size_t out, int32_t zero, int32_t lo, int32_t hi, Out* y) {
    const Finish<Out> f(bias, m, zero, lo, hi);
    size_t r = 0;
    if (rows > 1 && in != 0) {
        if (in % 4 == 0) {
            for (; r + 4 <= rows; r += 4) {
                if (in <= kExtendedInputs)
                    rows_4x1(x + r * in, in, w, f, out, y + r * out);
                else
                    rows_4x1_long(x + r * in, in, w, f, out, y + r * out);
            }
        }
        for (; r + 2 <= rows; r += 2) rows_2x2(x + r * in, in, w, f, out, y + r * out);
    }
    for (; r < rows; ++r) row_1x4(x + r * in, in, w, f, out, y + r * out);
}

// Attention scores: the query extended once (head widths n % 4 == 0 up to 512), then four keys per pass
// through the one-row tile, keys `stride` apart; the keys past the last four, or any other width, one by one.
void scores(const int8_t* q, const int8_t* k, size_t stride, size_t n_keys, size_t n, int32_t* out) {
    size_t j = 0;
    if (n % 4 == 0 && n != 0 && n <= kExtendedInputs * 4 && n_keys >= 4) {
        alignas(8) uint32_t qe[kExtendedInputs * 2];
        extend_rows(q, n, 1, n, qe);
        for (; j + 4 <= n_keys; j += 4) dot1x4_extended(qe, k + j * stride, stride, n, false, out + j);
    }
    for (; j < n_keys; ++j) out[j] = dot(q, k + j * stride, n);
}

#endif

}  // namespace

#if defined(AX_MCU_Q_V6M) || defined(AX_MCU_Q_MVE) || defined(AX_MCU_Q_DSP)

const char* integer_variant() {
#if defined(AX_MCU_Q_V6M)
    return "armv6m";
#elif defined(AX_MCU_Q_MVE)
    return "helium";
#else
    return "dsp";
#endif
}

void linear_q8(const int8_t* x, size_t rows, size_t in, const int8_t* w, const int32_t* bias, const fixed::Requant* m,
               size_t out, int32_t zero, int32_t lo, int32_t hi, int8_t* y) {
    linear(x, rows, in, w, bias, m, out, zero, lo, hi, y);
}

void linear_q8_to_q16(const int8_t* x, size_t rows, size_t in, const int8_t* w, const int32_t* bias,
                      const fixed::Requant* m, size_t out, int32_t zero, int32_t lo, int32_t hi, int16_t* y) {
    linear(x, rows, in, w, bias, m, out, zero, lo, hi, y);
}

void attention_scores_q8(const int8_t* q, const int8_t* k, size_t stride, size_t n_keys, size_t n, int32_t* out) {
    scores(q, k, stride, n_keys, n, out);
}

// The model's input rows (int16, n_features wide: a handful of inputs per output): one output at a time, its
// int64 sum one SMLAL per input, the rescale inlined. Generic's four-output blocks keep four 64-bit sums and
// spill them at -Os: about 60 instructions per output against about 20 here.
void linear_q16_to_q8(const int16_t* x, size_t rows, size_t in, const int8_t* w, const int32_t* bias,
                      const fixed::Requant* m, size_t out, int32_t zero, int32_t lo, int32_t hi, int8_t* y) {
    for (size_t r = 0; r < rows; ++r) {
        const int16_t* xr = x + r * in;
        int8_t* yr = y + r * out;
        const int8_t* wo = w;
        for (size_t o = 0; o < out; ++o, wo += in) {
            int64_t acc = bias != nullptr ? bias[o] : 0;
            for (size_t i = 0; i < in; ++i) acc += int32_t{xr[i]} * int32_t{wo[i]};
            yr[o] = generic::linear_q_output<int8_t>(acc, m[o], zero, lo, hi);
        }
    }
}

#else

// A Cortex-M3, a Helium core's build without DSP, or a host build: generic's loops, which GCC compiles to one
// multiply-accumulate per product where there is one.
const char* integer_variant() { return "generic"; }

void linear_q8(const int8_t* x, size_t rows, size_t in, const int8_t* w, const int32_t* bias, const fixed::Requant* m,
               size_t out, int32_t zero, int32_t lo, int32_t hi, int8_t* y) {
    generic::linear_q8(x, rows, in, w, bias, m, out, zero, lo, hi, y);
}

void linear_q8_to_q16(const int8_t* x, size_t rows, size_t in, const int8_t* w, const int32_t* bias,
                      const fixed::Requant* m, size_t out, int32_t zero, int32_t lo, int32_t hi, int16_t* y) {
    generic::linear_q8_to_q16(x, rows, in, w, bias, m, out, zero, lo, hi, y);
}

void attention_scores_q8(const int8_t* q, const int8_t* k, size_t stride, size_t n_keys, size_t n, int32_t* out) {
    generic::attention_scores_q8(q, k, stride, n_keys, n, out);
}

void linear_q16_to_q8(const int16_t* x, size_t rows, size_t in, const int8_t* w, const int32_t* bias,
                      const fixed::Requant* m, size_t out, int32_t zero, int32_t lo, int32_t hi, int8_t* y) {
    generic::linear_q16_to_q8(x, rows, in, w, bias, m, out, zero, lo, hi, y);
}

#endif

}  // namespace ax::mcu
