// Bit-identity of a port's softmax_f32 and gelu_f32 with generic's, for the ports that promise it (neon and
// mcu evaluate the reference's exp and erf lane by lane: ports/generic/float_math_lanes.h). Shared by the
// host suite (tests/test_float_math_lanes.cpp, run under qemu-user for the ARM Linux builds) and the on-board
// suite (tests/firmware/). Any NaN equals any NaN: which operand's payload a float add passes on depends on
// the order the compiler gives the operands, in generic itself (and ARMv7 NEON answers the default NaN).
#pragma once
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>

#include "runtime/kernels.h"

namespace ax::test {

inline uint32_t float_bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}

inline float float_from_bits(uint32_t u) {
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

// xorshift32: the same numbers on every target, no heap.
struct BitsRng {
    uint32_t s;
    uint32_t next() {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        return s;
    }
    float uniform(float scale) { return (static_cast<float>(next() >> 8) * (2.0f / 16777216.0f) - 1.0f) * scale; }
};

// Values where exp, erf and the flush-to-zero guards change behaviour, and their neighbours.
inline constexpr float kExactMathEdges[] = {0.0f,
                                            -0.0f,
                                            1e-45f,
                                            -1e-45f,
                                            1e-39f,
                                            -1e-39f,
                                            1.1754942e-38f,
                                            1.17549435e-38f,
                                            -1.17549435e-38f,
                                            1e-30f,
                                            -1e-30f,
                                            0x1p-99f,
                                            -0x1p-99f,
                                            0x1.fffffep-100f,
                                            1e-8f,
                                            -1e-8f,
                                            0.5f,
                                            -0.5f,
                                            0.34657359f,
                                            -0.34657359f,
                                            1.2374368f,
                                            -1.2374368f,
                                            1.2374369f,
                                            -1.2374367f,
                                            5.656854f,
                                            -5.656854f,
                                            5.6568537f,
                                            -5.6568546f,
                                            10.0f,
                                            -10.0f,
                                            -69.0f,
                                            -69.1f,
                                            -86.5f,
                                            -86.9f,
                                            -86.99f,
                                            -87.0f,
                                            -87.2f,
                                            -87.33654f,
                                            -87.33655f,
                                            -87.33653f,
                                            -87.4f,
                                            -88.0f,
                                            -100.0f,
                                            -1e30f,
                                            88.0f,
                                            88.3762626647949f,
                                            88.4f,
                                            88.72284f,
                                            88.72285f,
                                            1e30f,
                                            std::numeric_limits<float>::infinity(),
                                            -std::numeric_limits<float>::infinity(),
                                            std::numeric_limits<float>::quiet_NaN(),
                                            -std::numeric_limits<float>::quiet_NaN()};

inline bool same_float(float a, float b) { return float_bits(a) == float_bits(b) || (a != a && b != b); }

inline bool same_bits(const float* a, const float* b, size_t n) {
    for (size_t i = 0; i < n; ++i)
        if (!same_float(a[i], b[i])) return false;
    return true;
}

// gelu on a dense sweep, the edge values and random words (any bit pattern);
// softmax on rows whose maximum is 0 (so every edge value is an exponent e^x itself), on random rows of
// every length up to 70 with masked (-inf) entries, and on rows of random words.
inline void check_softmax_gelu_bit_identical(const Kernels& port, const Kernels& ref) {
    constexpr size_t kMax = 256;
    float a[kMax], b[kMax];
    BitsRng rng{0x1234567u};
    const size_t n_edges = sizeof kExactMathEdges / sizeof kExactMathEdges[0];

    // GELU: sweep [-12, 12) in chunks, then the edges at every offset within a vector, then random words.
    for (int start = -120000; start < 120000; start += static_cast<int>(kMax)) {
        for (size_t i = 0; i < kMax; ++i) a[i] = b[i] = static_cast<float>(start + static_cast<int>(i)) * 1e-4f;
        ref.gelu_f32(a, kMax);
        port.gelu_f32(b, kMax);
        if (!same_bits(a, b, kMax)) {
            INFO("gelu sweep from " << start * 1e-4);
            REQUIRE(same_bits(a, b, kMax));
        }
    }
    for (size_t shift = 0; shift < 5; ++shift) {
        const size_t n = shift + n_edges;
        for (size_t i = 0; i < n; ++i) a[i] = b[i] = i < shift ? 0.25f : kExactMathEdges[i - shift];
        ref.gelu_f32(a, n);
        port.gelu_f32(b, n);
        for (size_t i = 0; i < n; ++i) {
            INFO("gelu edge " << i << ": " << b[i] << ", generic " << a[i]);
            REQUIRE(same_float(a[i], b[i]));
        }
    }
    for (int round = 0; round < 200; ++round) {
        const size_t n = 1 + rng.next() % kMax;
        for (size_t i = 0; i < n; ++i) a[i] = b[i] = round % 2 ? float_from_bits(rng.next()) : rng.uniform(8.0f);
        ref.gelu_f32(a, n);
        port.gelu_f32(b, n);
        INFO("gelu random round " << round << ", n " << n);
        REQUIRE(same_bits(a, b, n));
    }

    // softmax: every edge value (at or below 0, or NaN) as x - max, max 0 at every position mod 4.
    for (size_t pos = 0; pos < 4; ++pos) {
        size_t n = 0;
        for (size_t i = 0; i < n_edges; ++i) {
            const float e = kExactMathEdges[i];
            if (!(e > 0.0f)) a[n++] = e;
        }
        for (size_t i = n; i > pos; --i) a[i] = a[i - 1];
        a[pos] = 0.0f;
        ++n;
        for (bool with_nan : {false, true}) {
            float row[kMax];
            size_t m = 0;
            for (size_t i = 0; i < n; ++i)
                if (with_nan || a[i] == a[i]) row[m++] = a[i];
            std::memcpy(b, row, m * sizeof(float));
            ref.softmax_f32(row, m);
            port.softmax_f32(b, m);
            for (size_t i = 0; i < m; ++i) {
                INFO("softmax edge row, max at " << pos << (with_nan ? ", NaN in it" : "") << ", element " << i);
                REQUIRE(same_float(row[i], b[i]));
            }
        }
    }
    for (size_t n = 1; n <= 70; ++n) {
        for (float spread : {0.001f, 1.0f, 10.0f, 60.0f, 100.0f, 200.0f}) {
            for (size_t i = 0; i < n; ++i) a[i] = b[i] = rng.uniform(spread) + 3.0f;
            if (n > 3 && spread == 10.0f) a[n / 2] = b[n / 2] = -std::numeric_limits<float>::infinity();
            ref.softmax_f32(a, n);
            port.softmax_f32(b, n);
            INFO("softmax random n " << n << " spread " << spread);
            REQUIRE(same_bits(a, b, n));
        }
    }
    for (int round = 0; round < 200; ++round) {
        const size_t n = 1 + rng.next() % 100;
        for (size_t i = 0; i < n; ++i) a[i] = b[i] = float_from_bits(rng.next());
        ref.softmax_f32(a, n);
        port.softmax_f32(b, n);
        INFO("softmax random words round " << round << ", n " << n);
        REQUIRE(same_bits(a, b, n));
    }
}

}  // namespace ax::test
