// Fixed-point arithmetic of the integer-only mode (docs/integer-only.md): the few operations every integer
// kernel rescales with. Pure integer operations with one rounding rule, so a result has the same bits on
// every compiler, port and board, with or without a floating-point unit. The converter computes the
// multipliers (tools/convert/integer_params.h); the runtime never sees a float on this path.
#pragma once
#include <cstddef>
#include <cstdint>

namespace ax::fixed {

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
inline int64_t shift_round(int64_t x, int s) { return (x + (int64_t{1} << (s - 1))) >> s; }

// Saturate to a type's range.
inline int32_t clamp_i32(int64_t x, int32_t lo, int32_t hi) {
    return x < lo ? lo : x > hi ? hi : static_cast<int32_t>(x);
}

// round(x * m) with one rounding (halves up) of the exact 64-bit product; x any int32.
inline int64_t requantize(int32_t x, Requant m) {
    const int64_t product = static_cast<int64_t>(x) * m.multiplier;
    return shift_round(product, 31 - m.shift);
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
