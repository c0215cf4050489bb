// On the board: the integer-only kernels give the host's bits (the digest tests/test_integer_kernels.cpp
// holds on the host, over every kernel's outputs on the same pseudo-random inputs), and the table the board
// hands out (the mcu port's, ports/mcu/integer_mcu.h) gives generic's bits over the shapes its own loops
// take apart: one row and blocks of rows, inputs a multiple of four or not and past the extended-input limit,
// outputs past the last group of four.
#include "tests/firmware/doctest_config.h"

#include "ports/generic/integer_generic.h"
#include "ports/integer_ports.h"
#include "tests/integer_kernel_digest.h"

TEST_CASE("the integer kernels give the host's bits on the board") {
    CHECK(ax::test::integer_kernel_digest(2026) == ax::test::kIntegerKernelDigest);
}

TEST_CASE("the board's integer table gives generic's bits") {
    using ax::fixed::Requant;
    const ax::IntegerKernels& k = ax::best_integer_kernels();
    const ax::IntegerKernels& g = ax::generic_integer_kernels();
    constexpr size_t kMaxRows = 9, kMaxIn = 260, kMaxOut = 19;
    static int8_t x[kMaxRows * kMaxIn], w[kMaxOut * kMaxIn], got8[kMaxRows * kMaxOut], want8[kMaxRows * kMaxOut];
    static int16_t got16[kMaxRows * kMaxOut], want16[kMaxRows * kMaxOut];
    static int32_t bias[kMaxOut], got32[kMaxOut], want32[kMaxOut];
    static Requant m[kMaxOut];
    ax::test::DigestRng rng(77);
    for (int8_t& v : x) v = rng.i8();
    for (int8_t& v : w) v = rng.i8();
    for (size_t o = 0; o < kMaxOut; ++o) {
        bias[o] = rng.range(-100000, 100000);
        m[o] = Requant{rng.range(1 << 30, INT32_MAX), rng.range(-20, -5)};
    }
    const size_t rows_list[] = {1, 2, 3, 4, 5, 9};
    const size_t in_list[] = {1, 3, 4, 37, 64, 128, 132, 256, 260};
    const size_t out_list[] = {1, 3, 4, 7, 16, 19};
    // Factors of both rescale forms: below 1/2 (the assembly epilogue) and, for every third output, above
    // (generic's); the clamp the assembly takes (int8's range, ReLU's too) and others; with and without bias.
    static Requant mixed[kMaxOut], m16[kMaxOut];
    static int16_t x16[kMaxRows * kMaxIn];
    for (int16_t& v : x16) v = rng.i16();
    for (size_t o = 0; o < kMaxOut; ++o) m16[o] = Requant{m[o].multiplier, m[o].shift - 8};
    for (size_t o = 0; o < kMaxOut; ++o) mixed[o] = o % 3 == 1 ? Requant{m[o].multiplier, rng.range(-1, 3)} : m[o];
    for (size_t rows : rows_list)
        for (size_t in : in_list)
            for (size_t out : out_list) {
                INFO("rows " << rows << " in " << in << " out " << out);
                k.linear_q8(x, rows, in, w, bias, m, out, -5, -128, 127, got8);
                g.linear_q8(x, rows, in, w, bias, m, out, -5, -128, 127, want8);
                CHECK(__builtin_memcmp(got8, want8, rows * out) == 0);
                k.linear_q8(x, rows, in, w, bias, m, out, -128, -128, 127, got8);  // a fused ReLU
                g.linear_q8(x, rows, in, w, bias, m, out, -128, -128, 127, want8);
                CHECK(__builtin_memcmp(got8, want8, rows * out) == 0);
                k.linear_q8(x, rows, in, w, bias, m, out, 3, -20, 90, got8);
                g.linear_q8(x, rows, in, w, bias, m, out, 3, -20, 90, want8);
                CHECK(__builtin_memcmp(got8, want8, rows * out) == 0);
                k.linear_q8(x, rows, in, w, bias, mixed, out, 7, -128, 127, got8);
                g.linear_q8(x, rows, in, w, bias, mixed, out, 7, -128, 127, want8);
                CHECK(__builtin_memcmp(got8, want8, rows * out) == 0);
                k.linear_q8(x, rows, in, w, nullptr, m, out, 0, -128, 127, got8);
                g.linear_q8(x, rows, in, w, nullptr, m, out, 0, -128, 127, want8);
                CHECK(__builtin_memcmp(got8, want8, rows * out) == 0);
                k.linear_q8_to_q16(x, rows, in, w, nullptr, m, out, 0, INT16_MIN, INT16_MAX, got16);
                g.linear_q8_to_q16(x, rows, in, w, nullptr, m, out, 0, INT16_MIN, INT16_MAX, want16);
                CHECK(__builtin_memcmp(got16, want16, rows * out * sizeof(int16_t)) == 0);
                k.linear_q8_to_q16(x, rows, in, w, bias, mixed, out, 0, INT16_MIN, INT16_MAX, got16);
                g.linear_q8_to_q16(x, rows, in, w, bias, mixed, out, 0, INT16_MIN, INT16_MAX, want16);
                CHECK(__builtin_memcmp(got16, want16, rows * out * sizeof(int16_t)) == 0);
                // int16 inputs (the model's input rows): the int64 sums may pass int32 and saturate.
                k.linear_q16_to_q8(x16, rows, in, w, bias, m16, out, -3, -128, 127, got8);
                g.linear_q16_to_q8(x16, rows, in, w, bias, m16, out, -3, -128, 127, want8);
                CHECK(__builtin_memcmp(got8, want8, rows * out) == 0);
                k.linear_q16_to_q8(x16, rows, in, w, nullptr, mixed, out, 0, -40, 127, got8);
                g.linear_q16_to_q8(x16, rows, in, w, nullptr, mixed, out, 0, -40, 127, want8);
                CHECK(__builtin_memcmp(got8, want8, rows * out) == 0);
            }
    // Attention scores: keys a stride apart, head widths odd and even, key counts past groups of four.
    const size_t keys_list[] = {1, 4, 7, 19}, width_list[] = {1, 5, 32, 37};
    for (size_t n_keys : keys_list)
        for (size_t n : width_list) {
            INFO("keys " << n_keys << " width " << n);
            k.attention_scores_q8(x, w + 3, 41, n_keys, n, got32);
            g.attention_scores_q8(x, w + 3, 41, n_keys, n, want32);
            CHECK(__builtin_memcmp(got32, want32, n_keys * sizeof(int32_t)) == 0);
        }
}

TEST_CASE("the board's integer attention values and residual step give generic's bits") {
    using ax::fixed::Requant;
    const ax::IntegerKernels& k = ax::best_integer_kernels();
    const ax::IntegerKernels& g = ax::generic_integer_kernels();
    constexpr size_t kMaxKeys = 51, kStride = 45, kMaxN = 1030;
    static int8_t v[kMaxKeys * kStride + 3], a[kMaxN + 1], b[kMaxN + 1], got8[kStride], want8[kStride];
    static int16_t got16[kMaxN], want16[kMaxN];
    static int32_t scores[kMaxKeys];
    ax::test::DigestRng rng(78);
    for (int8_t& e : v) e = rng.i8();
    for (int8_t& e : a) e = rng.i8();
    for (int8_t& e : b) e = rng.i8();
    // Probabilities from the softmax (a row with one key far ahead gives it 32768, which the DSP loop cannot
    // take), widths past groups of four, values unaligned, factors of both rescale forms.
    const size_t keys_list[] = {1, 2, 3, 8, 25, 51}, width_list[] = {1, 4, 7, 32, 45}, offsets[] = {0, 1};
    const int spreads[] = {0, 3, 12, 30};
    const Requant factors[] = {Requant{rng.range(1 << 30, INT32_MAX), -14}, Requant{rng.range(1 << 30, INT32_MAX), 2}};
    for (size_t n_keys : keys_list)
        for (int spread : spreads)
            for (size_t n : width_list)
                for (const Requant& m : factors)
                    for (size_t offset : offsets) {
                        INFO("keys " << n_keys << " spread " << spread << " width " << n << " shift " << m.shift);
                        for (size_t j = 0; j < n_keys; ++j) scores[j] = rng.range(-(1 << spread), 1 << spread);
                        if (spread == 30) scores[n_keys / 2] = INT32_MAX;
                        g.softmax_q15(scores, n_keys, Requant{1 << 30, -8});
                        k.attention_values_q15(scores, v + offset, kStride, n_keys, n, m, got8);
                        g.attention_values_q15(scores, v + offset, kStride, n_keys, n, m, want8);
                        CHECK(__builtin_memcmp(got8, want8, n) == 0);
                    }
    // Factors onto the int16 scale of both widths' ranges, one too large for the 32-bit form; lengths of one
    // value to a whole tile; inputs unaligned.
    const Requant add_factors[] = {Requant{rng.range(1 << 30, INT32_MAX), 7},
                                   Requant{rng.range(1 << 30, INT32_MAX), -3},
                                   Requant{rng.range(1 << 30, INT32_MAX), 25}, Requant{0, 0}};
    const size_t lengths[] = {1, 2, 128, 1024, 1029};
    for (const Requant& ma : add_factors)
        for (const Requant& mb : add_factors)
            for (size_t n : lengths) {
                INFO("shifts " << ma.shift << " " << mb.shift << " n " << n);
                k.add_q8_to_q16(a + 1, ma, b, mb, n, got16);
                g.add_q8_to_q16(a + 1, ma, b, mb, n, want16);
                CHECK(__builtin_memcmp(got16, want16, n * sizeof(int16_t)) == 0);
            }
}
