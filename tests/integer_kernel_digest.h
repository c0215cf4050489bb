// A digest of every integer-only kernel's outputs on fixed pseudo-random inputs (odd sizes, saturating
// values, tails): one FNV-1a 64 over all their bytes. The kernels are integer arithmetic only, so the digest is
// the same on every port, compiler and board; the host suite and the firmware suite both hold it to one
// constant, which is what "bit-exact everywhere" means in a test. Header-only so the firmware image, which
// has no tools layer, builds it as well.
#pragma once
#include <cstddef>
#include <cstdint>

#include "ports/generic/integer_generic.h"

namespace ax::test {

// The digest the generic kernels give (computed by this header on x86-64; tests compare against it).
constexpr uint64_t kIntegerKernelDigest = 0xcb8e28529b43168eull;

class IntegerDigest {
public:
    void add(const void* data, size_t bytes) {
        const uint8_t* p = static_cast<const uint8_t*>(data);
        for (size_t i = 0; i < bytes; ++i) h_ = (h_ ^ p[i]) * 0x100000001b3ull;
    }
    uint64_t value() const { return h_; }

private:
    uint64_t h_ = 0xcbf29ce484222325ull;
};

// splitmix64: the same stream with every compiler.
class DigestRng {
public:
    explicit DigestRng(uint64_t seed) : s_(seed) {}
    uint64_t next() {
        uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    int8_t i8() { return static_cast<int8_t>(next() & 0xff); }
    int16_t i16() { return static_cast<int16_t>(next() & 0xffff); }
    // [lo, hi], the span in 64 bits (hi - lo overflows int32 for the widest ranges).
    int32_t range(int32_t lo, int32_t hi) {
        const uint64_t span = static_cast<uint64_t>(int64_t{hi} - int64_t{lo}) + 1;
        return static_cast<int32_t>(int64_t{lo} + static_cast<int64_t>(next() % span));
    }

private:
    uint64_t s_;
};

// Runs every kernel on inputs from `seed` and digests the outputs. Buffers are static: the board's stack is
// small, and the sizes are fixed.
inline uint64_t integer_kernel_digest(uint64_t seed) {
    namespace g = ax::generic;
    using fixed::Requant;
    constexpr size_t kRows = 3, kIn = 37, kOut = 19, kKeys = 29, kHead = 13;
    static int8_t x8[kRows * kIn], w[kOut * kIn], y8[kRows * kIn], table[256], v8[kKeys * kIn];
    static int16_t x16[kRows * kIn], y16[kRows * kIn];
    static int32_t bias[kOut], gamma[kIn], beta[kIn], scores[kKeys];
    static Requant m[kOut];
    DigestRng rng(seed);
    IntegerDigest digest;
    for (int8_t& v : x8) v = rng.i8();
    for (int8_t& v : w) v = static_cast<int8_t>(rng.range(-127, 127));
    for (int16_t& v : x16) v = rng.i16();
    for (int8_t& v : table) v = rng.i8();
    for (int8_t& v : v8) v = rng.i8();
    for (size_t o = 0; o < kOut; ++o) {
        bias[o] = rng.range(-100000, 100000);
        m[o] = Requant{rng.range(1 << 30, INT32_MAX), rng.range(-20, -5)};
    }
    for (size_t i = 0; i < kIn; ++i) {
        gamma[i] = rng.range(-(1 << 29), 1 << 29);
        beta[i] = rng.range(-(1 << 20), 1 << 20);
    }
    g::linear_q8(x8, kRows, kIn, w, bias, m, kOut, 3, -128, 127, y8);
    digest.add(y8, kRows * kOut);
    g::linear_q8(x8, kRows, kIn, w, nullptr, m, kOut, -128, -128, 127, y8);  // a fused ReLU
    digest.add(y8, kRows * kOut);
    g::linear_q8_to_q16(x8, kRows, kIn, w, bias, m, kOut, 0, INT16_MIN, INT16_MAX, y16);
    digest.add(y16, kRows * kOut * sizeof(int16_t));
    for (Requant& r : m) r.shift -= 8;  // int16 inputs: 256 times the int8 sums
    g::linear_q16_to_q8(x16, kRows, kIn, w, bias, m, kOut, 0, -128, 127, y8);
    digest.add(y8, kRows * kOut);
    const Requant ma{rng.range(1 << 30, INT32_MAX), rng.range(-2, 8)};
    const Requant mb{rng.range(1 << 30, INT32_MAX), rng.range(-2, 8)};
    g::add_q8_to_q16(x8, ma, x8 + kIn, mb, kIn, y16);
    digest.add(y16, kIn * sizeof(int16_t));
    g::add_q16_q8_to_q16(x16, ma, x8, mb, kRows * kIn, y16);
    digest.add(y16, kRows * kIn * sizeof(int16_t));
    g::add_q8_to_q8(x8, ma, x8 + kIn, Requant{mb.multiplier, mb.shift - 8}, kIn, y8);
    digest.add(y8, kIn);
    for (size_t r = 0; r < kRows; ++r) {
        g::layer_norm_q16_to_q8(x16 + r * kIn, kIn, gamma, beta, static_cast<int32_t>(r * 7), 12345u * r, y8);
        digest.add(y8, kIn);
    }
    g::lookup_q8(x8, kRows * kIn, table, y8);
    digest.add(y8, kRows * kIn);
    g::attention_scores_q8(x8, v8, kIn, kKeys, kHead, scores);
    digest.add(scores, sizeof scores);
    g::softmax_q15(scores, kKeys, Requant{rng.range(1 << 30, INT32_MAX), rng.range(-4, 4)});
    digest.add(scores, sizeof scores);
    g::attention_values_q15(scores, v8 + 5, kIn, kKeys, kHead, Requant{rng.range(1 << 30, INT32_MAX), -15}, y8);
    digest.add(y8, kHead);
    return digest.value();
}

}  // namespace ax::test
