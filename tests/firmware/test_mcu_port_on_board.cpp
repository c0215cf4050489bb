// On the board: the mcu port's int8 product (the DSP and Helium register tiles of one and two rows), its 4-bit
// product, its
// int8 quantization, its attention (float and int8 caches), layer norm, ReLU and add give generic's bits, on shapes
// with every tail of the 4-input (DSP) and 16-input (Helium) steps, odd row and output counts, unaligned buffers, and
// operands that force the Helium paths' scalar fallbacks (tiny or huge scales, subnormal or NaN biases, queries,
// weights).
#include "tests/firmware/doctest_config.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "ports/generic/generic.h"
#include "ports/ports.h"
#include "tests/exact_math_checks.h"

namespace {

using ax::test::BitsRng;
using ax::test::float_bits;

constexpr size_t kMaxRows = 9, kMaxIn = 257, kMaxOut = 33;
alignas(16) int8_t g_xq[kMaxRows * kMaxIn + 16], g_w[kMaxOut * kMaxIn + 16];
alignas(16) float g_xs[kMaxRows + 4], g_ws[kMaxOut + 4], g_bias[kMaxOut + 4];
alignas(16) float g_want[kMaxRows * kMaxOut + 4], g_got[kMaxRows * kMaxOut + 4];

int8_t rnd_i8(BitsRng& rng) { return static_cast<int8_t>(rng.next() >> 24); }  // -128 included

}  // namespace

TEST_CASE("the mcu port's linear_i8 on the board is bit-identical to generic, every tile and tail") {
    const ax::Kernels* mcu = ax::kernels_by_name("mcu");
    if (!mcu) return;
    const ax::Kernels& ref = ax::generic_kernels();
    const float denorm = std::numeric_limits<float>::denorm_min();
    BitsRng rng{0x2545f491u};
    size_t index = 0, mismatches = 0, cases = 0;
    for (size_t rows : {1u, 2u, 3u, 5u, 8u, 9u}) {
        for (size_t in : {1u, 3u, 4u, 5u, 8u, 15u, 16u, 17u, 31u, 33u, 64u, 65u, 129u, 257u}) {
            for (size_t out : {1u, 2u, 3u, 4u, 5u, 7u, 8u, 9u, 17u, 33u}) {
                ++index;
                const size_t off = index % 2;  // int8 buffers one byte off, float buffers one float off
                int8_t* xq = g_xq + off;
                int8_t* w = g_w + off;
                float* xs = g_xs + off;
                float* ws = g_ws + off;
                float* bias = g_bias + off;
                for (size_t i = 0; i < rows * in; ++i) xq[i] = rnd_i8(rng);
                for (size_t i = 0; i < out * in; ++i) w[i] = rnd_i8(rng);
                for (size_t r = 0; r < rows; ++r) xs[r] = 1e-3f + 0.05f * std::fabs(rng.uniform(1.0f));
                for (size_t o = 0; o < out; ++o) ws[o] = 1e-3f + 0.05f * std::fabs(rng.uniform(1.0f));
                for (size_t o = 0; o < out; ++o) bias[o] = rng.uniform(2.0f);
                // Every fourth shape, operands outside the four-lane epilogue's range: one each.
                switch (index % 16) {
                    case 3:
                        xs[rows - 1] = 1e-25f;
                        break;
                    case 7:
                        ws[out - 1] = 3e20f;
                        break;
                    case 11:
                        bias[0] = (index % 32 == 11) ? denorm : 1e-35f;
                        break;
                    case 15:
                        bias[out / 2] = std::numeric_limits<float>::quiet_NaN();
                        break;
                    default:
                        break;
                }
                const bool with_bias = (index / 2) % 2 == 0;
                const float* b = with_bias ? bias : nullptr;
                ref.linear_i8(xq, xs, rows, in, w, ws, b, out, g_want, out);
                mcu->linear_i8(xq, xs, rows, in, w, ws, b, out, g_got, out);
                size_t bad = 0;
                for (size_t i = 0; i < rows * out; ++i) {
                    // NaN bias: any NaN (which operand's payload an add passes on is the compiler's choice).
                    const bool both_nan = g_want[i] != g_want[i] && g_got[i] != g_got[i];
                    if (!both_nan && float_bits(g_want[i]) != float_bits(g_got[i])) ++bad;
                }
                if (bad) {
                    INFO("rows " << rows << " in " << in << " out " << out << " offset " << off
                                 << (with_bias ? " bias" : " no bias"));
                    CHECK(bad == 0);
                }
                mismatches += bad;
                ++cases;
            }
        }
    }
    CHECK(mismatches == 0);
    CHECK(cases == 6 * 14 * 10);
}

TEST_CASE("the mcu port's linear_i8 on the board is bit-identical to generic on rows longer than its expanded blocks") {
    // The DSP tiles expand 128 inputs of four rows, or 512 of one row, at a time and keep the sums in y between
    // blocks: 1031 inputs are two and a half such blocks of one row (eight of four rows) plus a tail of three.
    const ax::Kernels* mcu = ax::kernels_by_name("mcu");
    if (!mcu) return;
    const ax::Kernels& ref = ax::generic_kernels();
    constexpr size_t kIn = 1031, kRows = 5, kOut = 5;
    static int8_t xq[kRows * kIn], w[kOut * kIn];
    static float want[kRows * kOut], got[kRows * kOut];
    float xs[kRows], ws[kOut], bias[kOut];
    BitsRng rng{0x7f4a7c15u};
    for (int8_t& v : xq) v = rnd_i8(rng);
    for (int8_t& v : w) v = rnd_i8(rng);
    for (float& v : xs) v = 1e-3f + 0.05f * std::fabs(rng.uniform(1.0f));
    for (float& v : ws) v = 1e-3f + 0.05f * std::fabs(rng.uniform(1.0f));
    for (float& v : bias) v = rng.uniform(2.0f);
    for (size_t rows : {1u, 4u, 5u}) {
        ref.linear_i8(xq, xs, rows, kIn, w, ws, bias, kOut, want, kOut);
        mcu->linear_i8(xq, xs, rows, kIn, w, ws, bias, kOut, got, kOut);
        size_t bad = 0;
        for (size_t i = 0; i < rows * kOut; ++i) bad += float_bits(want[i]) != float_bits(got[i]);
        INFO("rows " << rows);
        CHECK(bad == 0);
    }
}

TEST_CASE("the mcu port's linear_i4 on the board is bit-identical to generic, every tile and tail") {
    // 4-bit weights over the whole nibble range, half scales of every kind (zero, subnormal, the largest,
    // negative), rows and outputs around the four-output tile, buffers one byte or float off.
    const ax::Kernels* mcu = ax::kernels_by_name("mcu");
    if (!mcu) return;
    const ax::Kernels& ref = ax::generic_kernels();
    static uint8_t w4[kMaxOut * 256 / 2 + 4];
    static uint16_t ws4[kMaxOut * 256 / 32 + 4];
    BitsRng rng{0x41c64e6du};
    size_t index = 0, mismatches = 0, cases = 0;
    for (size_t rows : {1u, 2u, 3u, 5u, 9u}) {
        for (size_t in : {32u, 64u, 96u, 256u}) {
            for (size_t out : {1u, 3u, 4u, 5u, 7u, 8u, 9u, 33u}) {
                ++index;
                const size_t off = index % 2;
                int8_t* xq = g_xq + off;
                uint8_t* w = w4 + off;
                uint16_t* ws = ws4 + off;
                float* xs = g_xs + off;
                float* bias = g_bias + off;
                for (size_t i = 0; i < rows * in; ++i) xq[i] = rnd_i8(rng);
                for (size_t i = 0; i < out * in / 2; ++i) w[i] = static_cast<uint8_t>(rng.next() >> 24);
                for (size_t i = 0; i < out * in / 32; ++i) {
                    const uint32_t pick = rng.next() >> 26;  // 0..63
                    const uint16_t normal = static_cast<uint16_t>(0x1c00u + (rng.next() >> 22) % 0x1800u);
                    ws[i] = pick == 0 ? 0 : pick == 1 ? 3 : pick == 2 ? 0x7bff : pick == 3 ? 0x8000u | normal : normal;
                }
                for (size_t r = 0; r < rows; ++r) xs[r] = 1e-3f + 0.05f * std::fabs(rng.uniform(1.0f));
                if (index % 7 == 0) xs[0] = 1e-38f;  // results of subnormal size
                for (size_t o = 0; o < out; ++o) bias[o] = rng.uniform(2.0f);
                const float* b = (index / 2) % 2 == 0 ? bias : nullptr;
                ref.linear_i4(xq, xs, rows, in, w, ws, b, out, g_want, out);
                mcu->linear_i4(xq, xs, rows, in, w, ws, b, out, g_got, out);
                size_t bad = 0;
                for (size_t i = 0; i < rows * out; ++i) bad += float_bits(g_want[i]) != float_bits(g_got[i]);
                if (bad) {
                    INFO("rows " << rows << " in " << in << " out " << out << " offset " << off);
                    CHECK(bad == 0);
                }
                mismatches += bad;
                ++cases;
            }
        }
    }
    CHECK(mismatches == 0);
    CHECK(cases == 5 * 4 * 8);
}

TEST_CASE("the mcu port's quantize_rows_i8 on the board is bit-identical to generic, edge rows included") {
    const ax::Kernels* mcu = ax::kernels_by_name("mcu");
    if (!mcu) return;
    const ax::Kernels& ref = ax::generic_kernels();
    const float denorm = std::numeric_limits<float>::denorm_min();
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    static float x[2 * 300 + 4];
    static int8_t qa[2 * 300 + 4], qb[2 * 300 + 4];
    float sa[2], sb[2];
    // Edge rows (9 values each), then random rows of every length mod 4 and mod 8.
    const float edges[][9] = {
        {0, 0, 0, 0, 0, 0, 0, 0, 0},
        {-0.0f, 0.0f, -0.0f, 0, 0, 0, 0, 0, 0},
        {127, 0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 125.5f, -126.5f},
        {63.5f, 0.25f, 0.75f, 1.25f, -0.25f, -0.75f, -1.25f, 62.25f, -62.75f},
        {1e-38f, -2e-38f, 5e-39f, denorm, -denorm, 3e-39f, 1e-39f, 2e-38f, -1e-45f},
        {1e-30f, denorm, -denorm, 1e-38f, -3e-39f, 5e-31f, 7.9e-31f, -1e-30f, 2e-31f},
        {5e-31f, denorm, -denorm, 1e-38f, -3e-39f, 1e-31f, -4e-31f, 2.5e-31f, 1e-45f},
        {1e38f, -3e38f, 1, -1, 1e-30f, 2e37f, 5e30f, -2.9e38f, 3.4e38f},
        {nan, 1.0f, -2.0f, 0.5f, 0.25f, -1.5f, 3.0f, nan, 2.5f},
        {nan, nan, nan, nan, nan, nan, nan, nan, nan},
        {inf, 1.0f, -2.0f, 0.5f, -inf, 7.0f, 0, 0, 1},
        {127, 0.49999997f, 0.50000006f, 1.4999999f, 1.5000001f, -2.4999998f, -2.5000002f, 0, 0},
    };
    BitsRng rng{99};
    const size_t n_edges = sizeof edges / sizeof edges[0];
    const size_t lengths[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 64, 65, 127, 128, 300};
    size_t mismatches = 0;
    for (size_t k = 0; k < n_edges + 2 * (sizeof lengths / sizeof lengths[0]); ++k) {
        size_t n = 9;
        float row[300];
        if (k < n_edges) {
            std::memcpy(row, edges[k], sizeof edges[k]);
        } else {
            const size_t j = k - n_edges;
            n = lengths[j / 2];
            for (size_t i = 0; i < n; ++i) row[i] = rng.uniform(3.0f);
            if (j % 2) {  // exact ties: multiples of 1/64 with amax 1
                for (size_t i = 0; i < n; ++i) row[i] = static_cast<float>(static_cast<int>(row[i] * 21.0f)) / 64.0f;
                row[0] = 1.0f;
            }
        }
        for (size_t off : {0u, 1u, 3u}) {
            // The row twice, the second reversed, one or three floats (and bytes) off alignment.
            float* xr = x + off;
            for (size_t i = 0; i < n; ++i) xr[i] = xr[2 * n - 1 - i] = row[i];
            ref.quantize_rows_i8(xr, 2, n, qa + off, sa);
            mcu->quantize_rows_i8(xr, 2, n, qb + off, sb);
            size_t bad = float_bits(sa[0]) != float_bits(sb[0]) || float_bits(sa[1]) != float_bits(sb[1]);
            for (size_t i = 0; i < 2 * n; ++i) bad += qa[off + i] != qb[off + i];
            if (bad) {
                INFO("row " << k << " (n " << n << ") offset " << off);
                CHECK(bad == 0);
            }
            mismatches += bad;
        }
    }
    CHECK(mismatches == 0);
}

namespace {

// generic's bits, or both NaN (which operand's payload an operation passes on is the compiler's choice).
size_t count_mismatches(const float* want, const float* got, size_t n) {
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
        const bool both_nan = want[i] != want[i] && got[i] != got[i];
        if (!both_nan && float_bits(want[i]) != float_bits(got[i])) ++bad;
    }
    return bad;
}

}  // namespace

TEST_CASE("the mcu port's int8-cache attention on the board is bit-identical to generic, edge operands included") {
    const ax::Kernels* mcu = ax::kernels_by_name("mcu");
    if (!mcu) return;
    const ax::Kernels& ref = ax::generic_kernels();
    const float denorm = std::numeric_limits<float>::denorm_min();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    constexpr size_t kMaxKeys = 49, kMaxN = 65, kStrideExtra = 3;
    static int8_t kv[kMaxKeys * (kMaxN + kStrideExtra) + 4];
    static float q[kMaxN + 4], scales[kMaxKeys + 4], p[kMaxKeys + 4];
    static float want[kMaxKeys + kMaxN + 4], got[kMaxKeys + kMaxN + 4];
    BitsRng rng{0x5eed1234u};
    size_t index = 0, mismatches = 0, cases = 0;
    for (size_t n : {1u, 3u, 4u, 5u, 8u, 15u, 16u, 17u, 20u, 31u, 32u, 33u, 65u}) {
        for (size_t n_keys : {1u, 2u, 3u, 4u, 5u, 7u, 8u, 9u, 17u, 49u}) {
            ++index;
            const size_t stride = n + index % (kStrideExtra + 1);  // rows packed or a few bytes apart
            const size_t off = index % 2;
            int8_t* rows = kv + off;
            for (size_t i = 0; i < n_keys * stride; ++i) rows[i] = rnd_i8(rng);
            for (size_t i = 0; i < n; ++i) q[i] = rng.uniform(2.0f);
            for (size_t j = 0; j < n_keys; ++j) scales[j] = 1e-3f + 0.05f * std::fabs(rng.uniform(1.0f));
            for (size_t j = 0; j < n_keys; ++j) p[j] = std::fabs(rng.uniform(1.0f));
            float out_start[kMaxN];
            for (size_t c = 0; c < n; ++c) out_start[c] = index % 3 == 0 ? 0.0f : rng.uniform(1.0f);
            // Operands the lanes cannot take, one per shape on most shapes: tiny, subnormal, huge or NaN
            // queries; tiny or subnormal weights (keys from there on take generic's loop) and start values.
            switch (index % 10) {
                case 1:
                    q[n / 2] = (index % 20 == 1) ? denorm : 1e-35f;
                    break;
                case 2:
                    q[n - 1] = 1e35f;
                    break;
                case 3:
                    q[0] = nan;
                    break;
                case 4:
                    p[n_keys / 2] = (index % 20 == 4) ? denorm : 1e-33f;
                    break;
                case 5:
                    scales[n_keys - 1] = 1e-38f;
                    break;
                case 6:
                    out_start[n - 1] = -denorm;
                    break;
                case 7:
                    q[n / 3] = -0.0f;
                    p[0] = 0.0f;
                    break;
                default:
                    break;
            }
            ref.attention_scores_i8(q, rows, scales, stride, n_keys, n, 0.25f, want);
            mcu->attention_scores_i8(q, rows, scales, stride, n_keys, n, 0.25f, got);
            size_t bad = count_mismatches(want, got, n_keys);
            for (size_t c = 0; c < n; ++c) want[c] = got[c] = out_start[c];
            ref.attention_values_i8(p, rows, scales, stride, n_keys, n, want);
            mcu->attention_values_i8(p, rows, scales, stride, n_keys, n, got);
            bad += count_mismatches(want, got, n);
            if (bad) {
                INFO("n " << n << " keys " << n_keys << " stride " << stride << " case " << index % 10);
                CHECK(bad == 0);
            }
            mismatches += bad;
            ++cases;
        }
    }
    CHECK(mismatches == 0);
    CHECK(cases == 13 * 10);
}

TEST_CASE("the mcu port's float attention on the board is bit-identical to generic") {
    const ax::Kernels* mcu = ax::kernels_by_name("mcu");
    if (!mcu) return;
    const ax::Kernels& ref = ax::generic_kernels();
    const float denorm = std::numeric_limits<float>::denorm_min();
    constexpr size_t kMaxKeys = 49, kMaxN = 65, kStrideExtra = 3;
    static float kv[kMaxKeys * (kMaxN + kStrideExtra) + 4];
    static float q[kMaxN + 4], p[kMaxKeys + 4];
    static float want[kMaxKeys + kMaxN + 4], got[kMaxKeys + kMaxN + 4];
    BitsRng rng{0x0ddba11u};
    size_t index = 0, mismatches = 0, cases = 0;
    for (size_t n : {1u, 3u, 4u, 5u, 7u, 8u, 9u, 16u, 17u, 31u, 32u, 65u}) {
        for (size_t n_keys : {1u, 2u, 3u, 4u, 5u, 8u, 9u, 48u, 49u}) {
            ++index;
            const size_t stride = n + index % (kStrideExtra + 1);
            float* rows = kv + index % 2;
            for (size_t i = 0; i < n_keys * stride; ++i) rows[i] = rng.uniform(2.0f);
            for (size_t i = 0; i < n; ++i) q[i] = rng.uniform(1.0f);
            for (size_t j = 0; j < n_keys; ++j) p[j] = std::fabs(rng.uniform(1.0f));
            float out_start[kMaxN];
            for (size_t c = 0; c < n; ++c) out_start[c] = index % 3 == 0 ? 0.0f : rng.uniform(1.0f);
            if (index % 4 == 1) {  // subnormal products and sums: the scalar FPU keeps them, as generic
                q[n / 2] = 1e-38f;
                p[n_keys / 2] = denorm;
                rows[0] = -3e-39f;
            }
            ref.attention_scores_f32(q, rows, stride, n_keys, n, 0.125f, want);
            mcu->attention_scores_f32(q, rows, stride, n_keys, n, 0.125f, got);
            size_t bad = count_mismatches(want, got, n_keys);
            for (size_t c = 0; c < n; ++c) want[c] = got[c] = out_start[c];
            ref.attention_values_f32(p, rows, stride, n_keys, n, want);
            mcu->attention_values_f32(p, rows, stride, n_keys, n, got);
            bad += count_mismatches(want, got, n);
            if (bad) {
                INFO("n " << n << " keys " << n_keys << " stride " << stride);
                CHECK(bad == 0);
            }
            mismatches += bad;
            ++cases;
        }
    }
    CHECK(mismatches == 0);
    CHECK(cases == 12 * 9);
}

TEST_CASE("the mcu port's layer norm, ReLU and add on the board are bit-identical to generic") {
    const ax::Kernels* mcu = ax::kernels_by_name("mcu");
    if (!mcu) return;
    const ax::Kernels& ref = ax::generic_kernels();
    constexpr size_t kMaxN = 131;
    static float x[kMaxN + 1], gamma[kMaxN], beta[kMaxN], want[kMaxN + 1], got[kMaxN + 1];
    BitsRng rng{0xbeefu};
    size_t mismatches = 0;
    for (size_t n : {1u, 2u, 3u, 4u, 5u, 7u, 8u, 9u, 31u, 64u, 127u, 128u, 131u}) {
        for (size_t i = 0; i < n; ++i) {
            x[i] = rng.uniform(3.0f) + (i % 5 == 0 ? 10.0f : 0.0f);
            gamma[i] = rng.uniform(1.5f);
            beta[i] = rng.uniform(0.5f);
        }
        x[n / 2] = -0.0f;
        ref.layer_norm_f32(x, n, gamma, beta, 1e-5f, want);
        mcu->layer_norm_f32(x, n, gamma, beta, 1e-5f, got);
        size_t bad = count_mismatches(want, got, n);
        for (size_t i = 0; i < n; ++i) want[i] = got[i] = x[i];  // in place, as the layers call it
        ref.layer_norm_f32(want, n, gamma, beta, 1e-5f, want);
        mcu->layer_norm_f32(got, n, gamma, beta, 1e-5f, got);
        bad += count_mismatches(want, got, n);
        for (size_t i = 0; i < n; ++i) want[i] = got[i] = x[i];
        ref.add_f32(want, gamma, n);
        mcu->add_f32(got, gamma, n);
        bad += count_mismatches(want, got, n);
        want[0] = got[0] = std::numeric_limits<float>::quiet_NaN();
        ref.relu_f32(want, n);
        mcu->relu_f32(got, n);
        for (size_t i = 0; i < n; ++i) bad += float_bits(want[i]) != float_bits(got[i]);  // NaN -> +0 in both
        if (bad) {
            INFO("n " << n);
            CHECK(bad == 0);
        }
        mismatches += bad;
    }
    CHECK(mismatches == 0);
}
