// Fixed-point arithmetic of the integer-only mode (docs/integer-only.md): the few operations every integer
// kernel rescales with. Pure integer operations with one rounding rule, so a result has the same bits on
// every compiler, port and board, with or without a floating-point unit. The converter computes the
// multipliers (tools/convert/integer_params.h); the runtime never sees a float on this path.
#pragma once
#include <cstddef>
#include <cstdint>

namespace ax::fixed {

// The per-value steps, inlined even at -Os: a call costs more than their few instructions.
#define AX_FIXED_INLINE __attribute__((always_inline)) inline

// A real factor m = multiplier * 2^(shift - 31), multiplier in [2^30, 2^31) (or 0: the factor 0), shift in
// [kMinShift, kMaxShift]. Stored in a model file as two little-endian int32.
struct Requant {
    int32_t multiplier = 0;
    int32_t shift = 0;
};
constexpr int32_t kMinShift = -31;
constexpr int32_t kMaxShift = 30;

// round(x / 2^s) with halves rounded up (towards +infinity), for s in [1, 63]. The shift of a negative value
// is arithmetic on every compiler auspex supports (GCC and Clang define it; C++20 requires it).
AX_FIXED_INLINE int64_t shift_round(int64_t x, int s) { return (x + (int64_t{1} << (s - 1))) >> s; }

// Saturate to a type's range.
AX_FIXED_INLINE int32_t clamp_i32(int64_t x, int32_t lo, int32_t hi) {
    return x < lo ? lo : x > hi ? hi : static_cast<int32_t>(x);
}

// The exact product a * b as two 32-bit words (high signed, low unsigned) from four 16 x 16-bit products, each
// of which fits 32 bits, with 32-bit operations only. Armv6-M (Cortex-M0/M0+) has no 32 x 32 -> 64-bit
// multiply, and GCC makes a widened product there a call of libgcc's 64 x 64-bit multiply.
inline void mul_wide_words(int32_t a, int32_t b, uint32_t* high, uint32_t* low) {
    const uint32_t al = static_cast<uint32_t>(a) & 0xffffu, bl = static_cast<uint32_t>(b) & 0xffffu;
    const int32_t ah = a >> 16, bh = b >> 16;  // in [-2^15, 2^15): a = ah * 2^16 + al
    uint32_t lo = al * bl;
    uint32_t hi = static_cast<uint32_t>(ah * bh);
    const int32_t middle[2] = {ah * static_cast<int32_t>(bl), static_cast<int32_t>(al) * bh};
    for (int32_t m : middle) {  // + m * 2^16, the carry out of the low word into the high one
        const uint32_t add = static_cast<uint32_t>(m) << 16;
        lo += add;
        hi += static_cast<uint32_t>(m >> 16) + (lo < add ? 1u : 0u);
    }
    *high = hi;
    *low = lo;
}

inline int64_t from_words(uint32_t high, uint32_t low) {
    return static_cast<int64_t>((static_cast<uint64_t>(high) << 32) | low);
}

// requantize (below) in 32-bit operations: the product's words, the rounding half added with its carry, the
// arithmetic shift of the pair. The same value as requantize on every target; Armv6-M's requantize, which
// would otherwise call libgcc for the product, the shift and the half.
inline int64_t requantize_words(int32_t x, Requant m) {
    uint32_t hi, lo;
    mul_wide_words(x, m.multiplier, &hi, &lo);
    const int s = 31 - m.shift;  // [1, 62]
    if (s <= 32) {
        const uint32_t half = 1u << (s - 1);
        lo += half;
        hi += lo < half ? 1u : 0u;
    } else {
        hi += 1u << (s - 33);
    }
    const int32_t top = static_cast<int32_t>(hi);
    const uint32_t sign = static_cast<uint32_t>(top >> 31);
    if (s < 32) return from_words(static_cast<uint32_t>(top >> s), (lo >> s) | (hi << (32 - s)));
    if (s == 32) return from_words(sign, hi);
    return from_words(sign, static_cast<uint32_t>(top >> (s - 32)));
}

// Factors below 1/2 (shift <= kMaxSmallShift), the rescales of nearly every step, need only the product's high
// word: with s = 31 - shift >= 33, 2^(s-1) is a whole multiple of 2^32, so
//   floor((x M + 2^(s-1)) / 2^s) = floor((floor(x M / 2^32) + 2^(s-33)) / 2^(s-32)),
// and |x M| < 2^62 keeps the high word plus 2^(s-33) inside int32. On a 32-bit core that is one multiply (its
// high word), an add and an arithmetic shift, against a 64-bit add and a 64-bit variable shift.
constexpr int32_t kMaxSmallShift = -2;
AX_FIXED_INLINE int32_t requantize_small(int32_t x, Requant m) {
    const int32_t high = static_cast<int32_t>((static_cast<int64_t>(x) * m.multiplier) >> 32);
    const int k = -1 - m.shift;  // s - 32, in [1, 30]
    return (high + (int32_t{1} << (k - 1))) >> k;
}

// round(x * m) with one rounding (halves up) of the exact 64-bit product; x any int32.
AX_FIXED_INLINE int64_t requantize(int32_t x, Requant m) {
#if defined(__ARM_ARCH_6M__)
    return requantize_words(x, m);
#else
    if (m.shift <= kMaxSmallShift) return requantize_small(x, m);
    const int64_t product = static_cast<int64_t>(x) * m.multiplier;
    return shift_round(product, 31 - m.shift);
#endif
}

// A factor prepared once for many inputs of a known width (an elementwise step's int8 or int16 values): the
// input pre-scaled by 2^p so that every factor with s = 31 - shift in [input_bits + 2, 62] takes requantize_small's
// form, round(x m) = (high(x 2^p M) + 2^(k-1)) >> k:
//   s >= 33: p = 0, k = s - 32 (requantize_small);
//   s <= 32: p = 33 - s, k = 1: high(x 2^p M) = floor(x M / 2^(s-1)), and floor((floor(a) + 1) / 2) =
//            floor((a + 1) / 2), which is floor((x M + 2^(s-1)) / 2^s).
// |x| <= 2^(input_bits - 1) keeps x 2^p inside int32 (p <= 32 - input_bits). ok false: a factor too large for
// that (or Armv6-M, which has no 32 x 32 -> 64 multiply): requantize instead.
struct PreparedRequant {
    bool ok = false;
    int32_t multiplier = 0;
    int32_t scale = 1;  // 2^p
    int32_t half = 0;   // 2^(k-1)
    int k = 1;
};
inline PreparedRequant prepare_requant(Requant m, int input_bits) {
    PreparedRequant f;
#if !defined(__ARM_ARCH_6M__)
    const int s = 31 - m.shift;
    if (s < input_bits + 2) return f;
    const int p = s >= 33 ? 0 : 33 - s;
    f.ok = true;
    f.multiplier = m.multiplier;
    f.scale = int32_t{1} << p;
    f.k = s >= 33 ? s - 32 : 1;
    f.half = int32_t{1} << (f.k - 1);
#else
    (void)m;
    (void)input_bits;
#endif
    return f;
}
// round(x m) for |x| <= 2^(input_bits - 1) and f = prepare_requant(m, input_bits) with f.ok.
AX_FIXED_INLINE int32_t requantize_prepared(int32_t x, const PreparedRequant& f) {
    const int32_t high = static_cast<int32_t>((static_cast<int64_t>(x * f.scale) * f.multiplier) >> 32);
    return (high + f.half) >> f.k;
}

// Valid as stored in a file: a multiplier in range and a shift the rounding shift accepts.
inline bool requant_valid(Requant m) {
    if (m.shift < kMinShift || m.shift > kMaxShift) return false;
    return m.multiplier == 0 || (m.multiplier >= (int32_t{1} << 30));
}

// floor(sqrt(v)) of a 64-bit value, digit by digit (no division, no float): 32 steps.
inline uint32_t isqrt_u64(uint64_t v) {
    uint64_t root = 0;
    uint64_t bit = uint64_t{1} << 62;
    while (bit > v) bit >>= 2;
    while (bit != 0) {
        if (v >= root + bit) {
            v -= root + bit;
            root = (root >> 1) + bit;
        } else {
            root >>= 1;
        }
        bit >>= 2;
    }
    return static_cast<uint32_t>(root);
}

}  // namespace ax::fixed
