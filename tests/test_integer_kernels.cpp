// The integer-only kernels (runtime/integer_kernels.h) against double-precision references of the real
// computation they stand for, at stated tolerances in output steps (LSB), and their fixed-point pieces
// against exact arithmetic. The digest case pins their bits: the same constant on every port and board
// (tests/firmware/test_integer_kernels_on_board.cpp holds the boards to it).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "ports/generic/integer_generic.h"
#include "runtime/fixed_point.h"
#include "runtime/integer_kernels.h"
#include "tests/integer_kernel_digest.h"
#include "tools/convert/integer_params.h"
#include "tools/common/tool_error.h"

namespace {

using ax::fixed::Requant;
using ax::test::DigestRng;
namespace g = ax::generic;
namespace t = ax::tools;

double uniform(DigestRng& rng, double lo, double hi) {
    return lo + (hi - lo) * static_cast<double>(rng.next() >> 11) / 9007199254740992.0;
}

int8_t quantize8(double x, double scale) {
    return static_cast<int8_t>(std::fmax(-127.0, std::fmin(127.0, std::round(x / scale))));
}

int16_t quantize16(double x, double scale) {
    return static_cast<int16_t>(std::fmax(-32767.0, std::fmin(32767.0, std::round(x / scale))));
}

}  // namespace

TEST_CASE("requantize: one rounding of the exact product, halves up") {
    DigestRng rng(1);
    for (int trial = 0; trial < 20000; ++trial) {
        const int32_t x = static_cast<int32_t>(rng.next());
        const Requant m{rng.range(1 << 30, INT32_MAX), rng.range(ax::fixed::kMinShift, ax::fixed::kMaxShift)};
        const int s = 31 - m.shift;
        // floor((p + 2^(s-1)) / 2^s), exactly, in 64 bits (every target has them; not all have 128): |p| < 2^62.
        const int64_t p = static_cast<int64_t>(x) * m.multiplier;
        int64_t want = 0;  // s >= 63: |p| < 2^(s-1), so p / 2^s + 1/2 lies in (0, 1)
        if (s <= 62) {
            const int64_t num = p + (int64_t{1} << (s - 1));
            const int64_t den = int64_t{1} << s;
            want = num / den;
            if (num % den != 0 && num < 0) want -= 1;
        }
        REQUIRE(ax::fixed::requantize(x, m) == want);
    }
    CHECK(ax::fixed::requantize(3, Requant{1 << 30, 0}) == 2);    // 1.5 -> 2
    CHECK(ax::fixed::requantize(-3, Requant{1 << 30, 0}) == -1);  // -1.5 -> -1
    CHECK(ax::fixed::requantize(123, Requant{0, 0}) == 0);
}

TEST_CASE("requantize_words (the Cortex-M0+ requantize) is requantize, its product the exact one") {
    const int32_t edges[] = {INT32_MIN, INT32_MIN + 1, -65537, -65536, -65535, -32769, -32768,  -1,       0,
                             1,         32767,         32768,  65535,  65536,  65537,  1 << 30, INT32_MAX};
    const auto product = [](int32_t a, int32_t b) {
        uint32_t hi, lo;
        ax::fixed::mul_wide_words(a, b, &hi, &lo);
        return ax::fixed::from_words(hi, lo);
    };
    for (int32_t a : edges)
        for (int32_t b : edges) REQUIRE(product(a, b) == static_cast<int64_t>(a) * b);
    DigestRng rng(7);
    for (int trial = 0; trial < 100000; ++trial) {
        const int32_t a = static_cast<int32_t>(rng.next()), b = static_cast<int32_t>(rng.next());
        REQUIRE(product(a, b) == static_cast<int64_t>(a) * b);
        const Requant m{rng.range(1 << 30, INT32_MAX), rng.range(ax::fixed::kMinShift, ax::fixed::kMaxShift)};
        REQUIRE(ax::fixed::requantize_words(a, m) == ax::fixed::requantize(a, m));
    }
    for (int32_t a : edges)
        for (int32_t shift = ax::fixed::kMinShift; shift <= ax::fixed::kMaxShift; ++shift)
            for (int32_t mult : {0, 1 << 30, INT32_MAX}) {
                const Requant m{mult, shift};
                REQUIRE(ax::fixed::requantize_words(a, m) == ax::fixed::requantize(a, m));
            }
}

TEST_CASE("requantize_small and requantize_prepared (32-bit forms) are the exact rounding") {
    // The definition in 64 bits: floor((x M + 2^(s-1)) / 2^s), s = 31 - shift in [1, 62], the shift arithmetic.
    const auto exact = [](int32_t x, Requant m) {
        return ax::fixed::shift_round(static_cast<int64_t>(x) * m.multiplier, 31 - m.shift);
    };
    const int32_t edges[] = {INT32_MIN, INT32_MIN + 1, -65536, -32768, -129, -128, -1, 0, 1, 127, 32767, INT32_MAX};
    const int32_t multipliers[] = {0, 1 << 30, (1 << 30) + 1, INT32_MAX - 1, INT32_MAX};
    for (int32_t shift = ax::fixed::kMinShift; shift <= ax::fixed::kMaxShift; ++shift)
        for (int32_t mult : multipliers) {
            const Requant m{mult, shift};
            if (shift <= ax::fixed::kMaxSmallShift)
                for (int32_t x : edges) REQUIRE(ax::fixed::requantize_small(x, m) == exact(x, m));
            const ax::fixed::PreparedRequant f8 = ax::fixed::prepare_requant(m, 8);
            const ax::fixed::PreparedRequant f16 = ax::fixed::prepare_requant(m, 16);
            CHECK(f8.ok == (31 - shift >= 10));  // every factor below 2^21 takes the 32-bit form for int8 inputs
            CHECK(f16.ok == (31 - shift >= 18));
            if (f8.ok)
                for (int32_t x = -128; x <= 127; ++x) REQUIRE(ax::fixed::requantize_prepared(x, f8) == exact(x, m));
            if (f16.ok) {
                for (int32_t x = -32768; x <= 32767; x += 7)
                    REQUIRE(ax::fixed::requantize_prepared(x, f16) == exact(x, m));
                REQUIRE(ax::fixed::requantize_prepared(32767, f16) == exact(32767, m));
            }
        }
    DigestRng rng(11);
    for (int trial = 0; trial < 100000; ++trial) {
        const Requant m{rng.range(1 << 30, INT32_MAX), rng.range(ax::fixed::kMinShift, ax::fixed::kMaxSmallShift)};
        const int32_t x = static_cast<int32_t>(rng.next());
        REQUIRE(ax::fixed::requantize_small(x, m) == exact(x, m));
        const Requant m16{m.multiplier, rng.range(ax::fixed::kMinShift, 13)};
        const int32_t x16 = rng.i16();
        REQUIRE(ax::fixed::requantize_prepared(x16, ax::fixed::prepare_requant(m16, 16)) == exact(x16, m16));
    }
}

TEST_CASE("requant_of: within 2^-31 relative of the real factor, refuses what does not fit") {
    DigestRng rng(2);
    for (int trial = 0; trial < 5000; ++trial) {
        const double m = std::ldexp(uniform(rng, 0.5, 1.0), rng.range(-31, 29));
        const Requant r = t::requant_of(m);
        REQUIRE(ax::fixed::requant_valid(r));
        REQUIRE(std::fabs(t::requant_value(r) - m) <= m * std::ldexp(1.0, -31));
    }
    CHECK(t::requant_of(0.0).multiplier == 0);
    CHECK(t::requant_of(1e-12).multiplier == 0);
    CHECK(t::requant_of(1.0).multiplier == (1 << 30));
    CHECK(t::requant_of(1.0).shift == 1);
    CHECK_THROWS_AS(t::requant_of(std::ldexp(1.0, 31)), ax::tools::ToolError);
    CHECK_THROWS_AS(t::requant_of(-1.0), ax::tools::ToolError);
    CHECK_THROWS_AS(t::requant_of(NAN), ax::tools::ToolError);
}

TEST_CASE("isqrt_u64 is the floor of the square root over the whole range") {
    DigestRng rng(3);
    for (int trial = 0; trial < 20000; ++trial) {
        const uint64_t v = rng.next() >> rng.range(0, 63);
        const uint64_t r = ax::fixed::isqrt_u64(v);
        REQUIRE(r <= UINT32_MAX);
        REQUIRE(r * r <= v);
        REQUIRE((r == UINT32_MAX || (r + 1) * (r + 1) > v));  // (2^32)^2 is past every v
    }
    CHECK(ax::fixed::isqrt_u64(0) == 0);
    CHECK(ax::fixed::isqrt_u64(UINT64_MAX) == UINT32_MAX);
}

TEST_CASE("the softmax's exponential table is exp(-i / 32) * 32768 rounded") {
    for (size_t i = 0; i < ax::fixed::kExpTableSize; ++i)
        REQUIRE(ax::fixed::kExpQ15[i] ==
                static_cast<uint16_t>(std::lround(std::exp(-static_cast<double>(i) / 32.0) * 32768.0)));
    CHECK(ax::fixed::kExpQ15[ax::fixed::kExpTableSize - 1] == 0);
    CHECK(ax::fixed::kExpQ15[ax::fixed::kExpTableSize - 2] != 0);
}

// Every linear variant against the real product of the real (dequantized) inputs and weights with a float
// bias: the integer result is that value rounded once, through a factor within 2^-31, and a bias rounded to
// the accumulator's step, so within 1 output step.
TEST_CASE("integer linear layers: within one output step of the real product of their inputs") {
    DigestRng rng(4);
    const size_t shapes[][3] = {{1, 1, 1}, {3, 37, 19}, {8, 128, 128}, {5, 256, 3}, {2, 1024, 7}};
    for (const auto& shape : shapes) {
        const size_t rows = shape[0], in = shape[1], out = shape[2];
        CAPTURE(in);
        CAPTURE(out);
        const double x_scale = 0.03, y_scale = 0.05 * std::sqrt(static_cast<double>(in)) / 4;
        std::vector<double> xr(rows * in), wr(out * in), br(out);
        for (double& v : xr) v = uniform(rng, -3.8, 3.8);
        for (double& v : wr) v = uniform(rng, -0.2, 0.2);
        for (double& v : br) v = uniform(rng, -1, 1);
        std::vector<int8_t> x8(rows * in), w(out * in);
        std::vector<int16_t> x16(rows * in);
        for (size_t i = 0; i < xr.size(); ++i) {
            x8[i] = quantize8(xr[i], x_scale);
            x16[i] = quantize16(xr[i], x_scale / 256);
        }
        std::vector<double> w_scale(out);
        for (size_t o = 0; o < out; ++o) {
            double top = 0;
            for (size_t i = 0; i < in; ++i) top = std::fmax(top, std::fabs(wr[o * in + i]));
            w_scale[o] = t::symmetric_scale(top, 127);
            for (size_t i = 0; i < in; ++i) w[o * in + i] = quantize8(wr[o * in + i], w_scale[o]);
        }
        for (const int width : {8, 16}) {
            CAPTURE(width);
            const double xs = width == 8 ? x_scale : x_scale / 256;
            const double ys = y_scale;
            std::vector<int32_t> bias(out);
            std::vector<Requant> m(out);
            for (size_t o = 0; o < out; ++o) {
                bias[o] = static_cast<int32_t>(std::lround(br[o] / (xs * w_scale[o])));
                m[o] = t::requant_of(xs * w_scale[o] / ys);
            }
            std::vector<int8_t> y(rows * out);
            if (width == 8)
                g::linear_q8(x8.data(), rows, in, w.data(), bias.data(), m.data(), out, 0, -128, 127, y.data());
            else
                g::linear_q16_to_q8(x16.data(), rows, in, w.data(), bias.data(), m.data(), out, 0, -128, 127, y.data());
            double worst = 0;
            for (size_t r = 0; r < rows; ++r)
                for (size_t o = 0; o < out; ++o) {
                    double real = br[o];
                    for (size_t i = 0; i < in; ++i)
                        real += (width == 8 ? x8[r * in + i] : x16[r * in + i]) * xs * w[o * in + i] * w_scale[o];
                    const double want = std::fmax(-128, std::fmin(127, real / ys));
                    worst = std::fmax(worst, std::fabs(y[r * out + o] - want));
                }
            CHECK(worst <= 1.0);
        }
        // int16 outputs, with a zero point and a ReLU: 256 times finer, the same bound in their steps.
        std::vector<int32_t> bias(out);
        std::vector<Requant> m(out);
        const double ys16 = y_scale / 256;
        for (size_t o = 0; o < out; ++o) {
            bias[o] = static_cast<int32_t>(std::lround(br[o] / (x_scale * w_scale[o])));
            m[o] = t::requant_of(x_scale * w_scale[o] / ys16);
        }
        std::vector<int16_t> y16(rows * out);
        g::linear_q8_to_q16(x8.data(), rows, in, w.data(), bias.data(), m.data(), out, -100, -100, INT16_MAX,
                            y16.data());
        double worst = 0;
        for (size_t r = 0; r < rows; ++r)
            for (size_t o = 0; o < out; ++o) {
                double real = br[o];
                for (size_t i = 0; i < in; ++i) real += x8[r * in + i] * x_scale * w[o * in + i] * w_scale[o];
                const double want = std::fmin(INT16_MAX, -100 + std::fmax(0.0, real) / ys16);
                worst = std::fmax(worst, std::fabs(y16[r * out + o] - want));
            }
        CHECK(worst <= 1.0);
    }
}

// Each input is rounded once onto y's scale (at most half a step each) through a factor within 2^-31 of the
// real one (at most 32767 * 2^-30 steps more): the sum is within a step and 1e-4.
TEST_CASE("integer residual add: within one int16 step of the real sum") {
    const double kAddBound = 1.0 + 1e-4;
    DigestRng rng(5);
    const size_t n = 301;
    const double a_scale = 0.02, b_scale = 0.05, y_scale = 8.0 / 32767;
    std::vector<int8_t> a8(n), b(n);
    std::vector<int16_t> a16(n), y(n);
    for (size_t i = 0; i < n; ++i) {
        a8[i] = static_cast<int8_t>(rng.range(-127, 127));
        a16[i] = static_cast<int16_t>(rng.range(-32767, 32767));
        b[i] = static_cast<int8_t>(rng.range(-127, 127));
    }
    const Requant mb = t::requant_of(b_scale / y_scale);
    g::add_q8_to_q16(a8.data(), t::requant_of(a_scale / y_scale), b.data(), mb, n, y.data());
    double worst = 0;
    for (size_t i = 0; i < n; ++i) {
        const double want = std::fmax(-32768, std::fmin(32767, (a8[i] * a_scale + b[i] * b_scale) / y_scale));
        worst = std::fmax(worst, std::fabs(y[i] - want));
    }
    CHECK(worst <= kAddBound);
    const double a16_scale = 3.0 / 32767;
    g::add_q16_q8_to_q16(a16.data(), t::requant_of(a16_scale / y_scale), b.data(), mb, n, y.data());
    worst = 0;
    for (size_t i = 0; i < n; ++i) {
        const double want = std::fmax(-32768, std::fmin(32767, (a16[i] * a16_scale + b[i] * b_scale) / y_scale));
        worst = std::fmax(worst, std::fabs(y[i] - want));
    }
    CHECK(worst <= kAddBound);
    // Onto an int8 scale, saturating.
    std::vector<int8_t> y8(n);
    const double y8_scale = 6.0 / 127;
    g::add_q8_to_q8(a8.data(), t::requant_of(a_scale / y8_scale), b.data(), t::requant_of(b_scale / y8_scale), n,
                    y8.data());
    worst = 0;
    for (size_t i = 0; i < n; ++i) {
        const double want = std::fmax(-128, std::fmin(127, (a8[i] * a_scale + b[i] * b_scale) / y8_scale));
        worst = std::fmax(worst, std::fabs(y8[i] - want));
    }
    CHECK(worst <= kAddBound);
    // In place, y == a.
    std::vector<int16_t> inplace = a16;
    g::add_q16_q8_to_q16(inplace.data(), t::requant_of(a16_scale / y_scale), b.data(), mb, n, inplace.data());
    CHECK(inplace == y);
}

// torch.nn.LayerNorm's formula in double precision on the real inputs: the integer kernel is within one
// output step (its own rounding of z to 2^-12, of the mean to the input's step and of the square root, all
// far below the int8 output's step, plus the output's rounding).
TEST_CASE("integer LayerNorm: within one output step of LayerNorm in double precision") {
    DigestRng rng(6);
    for (const size_t n : {size_t{1}, size_t{2}, size_t{7}, size_t{128}, size_t{1000}}) {
        for (const double spread : {1e-3, 0.5, 20.0}) {
            CAPTURE(n);
            CAPTURE(spread);
            std::vector<double> x(n);
            const double offset = uniform(rng, -spread, spread);
            double top = 0;
            for (double& v : x) {
                v = offset + uniform(rng, -spread, spread);
                top = std::fmax(top, std::fabs(v));
            }
            const double x_scale = t::symmetric_scale(top, 32767);
            std::vector<int16_t> q(n);
            for (size_t i = 0; i < n; ++i) q[i] = quantize16(x[i], x_scale);
            std::vector<float> gamma(n), beta(n);
            for (size_t i = 0; i < n; ++i) {
                gamma[i] = static_cast<float>(uniform(rng, 0.2, 2.0));
                beta[i] = static_cast<float>(uniform(rng, -0.5, 0.5));
            }
            const double eps = 1e-5, y_scale = 4.0 / 127;
            const t::LayerNormQ p = t::layer_norm_params(gamma.data(), beta.data(), n, eps, x_scale, y_scale);
            std::vector<int8_t> y(n);
            g::layer_norm_q16_to_q8(q.data(), n, p.gamma.data(), p.beta.data(), p.shift, p.eps, y.data());
            double mean = 0, var = 0;
            for (size_t i = 0; i < n; ++i) mean += q[i] * x_scale;
            mean /= static_cast<double>(n);
            for (size_t i = 0; i < n; ++i) var += (q[i] * x_scale - mean) * (q[i] * x_scale - mean);
            var /= static_cast<double>(n);
            double worst = 0;
            for (size_t i = 0; i < n; ++i) {
                const double real = (q[i] * x_scale - mean) / std::sqrt(var + eps) * gamma[i] + beta[i];
                worst = std::fmax(worst, std::fabs(y[i] - std::fmax(-128, std::fmin(127, real / y_scale))));
            }
            CHECK(worst <= 1.0);
        }
    }
}

TEST_CASE("integer LayerNorm: the bits of its definition in 64-bit arithmetic, every shift, wide and narrow rows") {
    // runtime/integer_kernels.h's formula, step by step in int64 (the kernel regroups the last steps into 32-bit
    // words where that is exact).
    const auto reference = [](const int16_t* x, size_t n, const int32_t* gamma, const int32_t* beta, int32_t shift,
                              uint64_t eps, int8_t* y) {
        int64_t sum = 0;
        for (size_t i = 0; i < n; ++i) sum += x[i];
        const int64_t count = static_cast<int64_t>(n);
        const int64_t shifted = sum + count / 2;
        const int64_t mean = shifted >= 0 ? shifted / count : -((-shifted + count - 1) / count);
        uint64_t squares = 0;
        for (size_t i = 0; i < n; ++i) squares += static_cast<uint64_t>((x[i] - mean) * (x[i] - mean));
        const uint64_t v = squares / n + eps;
        uint32_t root = ax::fixed::isqrt_u64(v);
        if (static_cast<uint64_t>(root) * root + root < v) ++root;
        if (root == 0) root = 1;
        const int64_t inv = ((int64_t{1} << 46) + root / 2) / root;
        for (size_t i = 0; i < n; ++i) {
            const int64_t z = ax::fixed::shift_round((x[i] - mean) * inv, 34);
            const int64_t acc = z * gamma[i] + static_cast<int64_t>(beta[i]) * (int64_t{1} << (4 + shift));
            y[i] = static_cast<int8_t>(ax::fixed::clamp_i32(ax::fixed::shift_round(acc, 12 + shift), -128, 127));
        }
    };
    DigestRng rng(16);
    for (int trial = 0; trial < 3000; ++trial) {
        const size_t n = static_cast<size_t>(rng.range(1, 300));
        const int32_t shift = rng.range(0, 30);
        const int32_t spread = rng.range(0, 15);  // values within 2^spread of an offset: narrow to full range
        const int32_t offset = rng.range(-20000, 20000);
        std::vector<int16_t> x(n);
        for (int16_t& v : x) {
            const int32_t w = offset + rng.range(-(1 << spread), 1 << spread);
            v = static_cast<int16_t>(w < -32768 ? -32768 : w > 32767 ? 32767 : w);
        }
        std::vector<int32_t> gamma(n), beta(n);
        const int32_t top = trial % 3 == 0 ? INT32_MAX : (1 << 30) - 1;  // the converter keeps gamma below 2^30
        for (size_t i = 0; i < n; ++i) {
            gamma[i] = rng.range(-top, top);
            beta[i] = rng.range(-(1 << 20), 1 << 20);
        }
        const uint64_t eps = trial % 5 == 0 ? 0 : rng.next() % (uint64_t{1} << rng.range(0, 40));
        std::vector<int8_t> got(n), want(n);
        g::layer_norm_q16_to_q8(x.data(), n, gamma.data(), beta.data(), shift, eps, got.data());
        reference(x.data(), n, gamma.data(), beta.data(), shift, eps, want.data());
        CAPTURE(trial);
        REQUIRE(got == want);
    }
}

TEST_CASE("integer softmax: the bits of its definition in 64-bit arithmetic") {
    // runtime/integer_kernels.h's formula in int64 (the kernel computes it in 32-bit words where that is exact).
    const auto reference = [](int32_t* s, size_t n, Requant to_exp) {
        int32_t top = s[0];
        for (size_t j = 1; j < n; ++j) top = s[j] > top ? s[j] : top;
        constexpr int64_t kLast = static_cast<int64_t>(ax::fixed::kExpTableSize) - 1;
        uint64_t sum = 0;
        for (size_t j = 0; j < n; ++j) {
            const int64_t below = static_cast<int64_t>(top) - s[j];
            const int32_t distance = below > INT32_MAX ? INT32_MAX : static_cast<int32_t>(below);
            const int64_t t =
                ax::fixed::shift_round(static_cast<int64_t>(distance) * to_exp.multiplier, 31 - to_exp.shift);
            const int64_t i = t >> 8;
            int64_t e = 0;
            if (i < kLast) {
                const int64_t hi = ax::fixed::kExpQ15[i], lo = ax::fixed::kExpQ15[i + 1];
                e = hi - ax::fixed::shift_round((hi - lo) * (t & 255), 8);
            }
            s[j] = static_cast<int32_t>(e);
            sum += static_cast<uint64_t>(e);
        }
        const int64_t inv = static_cast<int64_t>(((uint64_t{1} << 46) + sum / 2) / sum);
        for (size_t j = 0; j < n; ++j) s[j] = static_cast<int32_t>(ax::fixed::shift_round(s[j] * inv, 31));
    };
    DigestRng rng(17);
    for (int trial = 0; trial < 5000; ++trial) {
        const size_t n = static_cast<size_t>(rng.range(1, 100));
        const int32_t spread = rng.range(0, 31);
        std::vector<int32_t> scores(n);
        for (int32_t& v : scores)
            v = spread == 31 ? static_cast<int32_t>(rng.next()) : rng.range(-(1 << spread), 1 << spread);
        // Factors of both of requantize's forms (shift up to -2, and above), down to ones that zero every key
        // but the largest and up to ones whose distances pass the table's end.
        const Requant to_exp{trial % 50 == 0 ? 0 : rng.range(1 << 30, INT32_MAX),
                             rng.range(ax::fixed::kMinShift, ax::fixed::kMaxShift)};
        std::vector<int32_t> got = scores, want = scores;
        g::softmax_q15(got.data(), n, to_exp);
        reference(want.data(), n, to_exp);
        CAPTURE(trial);
        REQUIRE(got == want);
    }
}

TEST_CASE("GELU, ELU and ReLU through lookup_q8: the table's entry for each code, in place") {
    const double x_scale = 6.0 / 127, y_scale = 6.0 / 127;
    for (const auto activation :
         {ax::format::Activation::gelu, ax::format::Activation::elu, ax::format::Activation::relu}) {
        const std::vector<int8_t> table = t::activation_table(activation, x_scale, y_scale);
        std::vector<int8_t> x(256);
        for (int i = 0; i < 256; ++i) x[i] = static_cast<int8_t>(i - 128);
        g::lookup_q8(x.data(), x.size(), table.data(), x.data());
        double worst = 0;
        for (int i = 0; i < 256; ++i)
            worst = std::fmax(worst, std::fabs(x[i] - t::activation_value(activation, (i - 128) * x_scale) / y_scale));
        CHECK(worst <= 0.5);
    }
    CHECK(t::activation_value(ax::format::Activation::gelu, 1.0) == doctest::Approx(0.8413447460685429));
}

// Softmax of real scores s * scale: the Q15 probabilities are within 2e-4 of the exact ones (the table's
// interpolation, at most 1.2e-4 of the largest term, its rounding, and the final rounding), and sum to 1
// within one step per key.
TEST_CASE("integer softmax: within 2e-4 of exact probabilities") {
    DigestRng rng(7);
    for (const size_t n : {size_t{1}, size_t{2}, size_t{5}, size_t{48}, size_t{513}}) {
        for (const double spread : {0.1, 3.0, 40.0}) {
            CAPTURE(n);
            CAPTURE(spread);
            const double unit = 1.0 / 1000;  // real score per integer score step
            std::vector<int32_t> s(n);
            for (int32_t& v : s) v = static_cast<int32_t>(std::lround(uniform(rng, -spread, spread) / unit));
            std::vector<double> want(n);
            double top = -1e300, sum = 0;
            for (int32_t v : s) top = std::fmax(top, v * unit);
            for (size_t j = 0; j < n; ++j) sum += want[j] = std::exp(s[j] * unit - top);
            for (double& w : want) w /= sum;
            g::softmax_q15(s.data(), n, t::requant_of(unit * ax::fixed::kExpUnitsPerOne));
            double worst = 0;
            int64_t total = 0;
            for (size_t j = 0; j < n; ++j) {
                worst = std::fmax(worst, std::fabs(s[j] / 32768.0 - want[j]));
                total += s[j];
            }
            CHECK(worst <= 2e-4);
            CHECK(std::llabs(total - 32768) <= static_cast<long long>(n));
        }
    }
    // Scores so far apart that their difference exceeds int32: the smaller ones get 0, nothing overflows.
    int32_t s[3] = {INT32_MAX, INT32_MIN, 0};
    g::softmax_q15(s, 3, t::requant_of(1.0));
    CHECK(s[0] == 32768);
    CHECK(s[1] == 0);
    CHECK(s[2] == 0);
}

TEST_CASE("integer attention: exact scores, values within one output step of the real weighted sum") {
    DigestRng rng(8);
    const size_t keys = 23, head = 11, stride = 29;
    std::vector<int8_t> q(head), k(keys * stride), v(keys * stride);
    for (int8_t& x : q) x = rng.i8();
    for (int8_t& x : k) x = rng.i8();
    for (int8_t& x : v) x = static_cast<int8_t>(rng.range(-127, 127));
    std::vector<int32_t> s(keys);
    g::attention_scores_q8(q.data(), k.data(), stride, keys, head, s.data());
    for (size_t j = 0; j < keys; ++j) {
        int32_t want = 0;
        for (size_t i = 0; i < head; ++i) want += q[i] * k[j * stride + i];
        REQUIRE(s[j] == want);
    }
    g::softmax_q15(s.data(), keys, t::requant_of(0.0004 * ax::fixed::kExpUnitsPerOne));
    const double v_scale = 0.04, out_scale = 3.0 / 127;
    std::vector<int8_t> out(head);
    g::attention_values_q15(s.data(), v.data(), stride, keys, head, t::requant_of(v_scale / (32768 * out_scale)),
                            out.data());
    double worst = 0;
    for (size_t c = 0; c < head; ++c) {
        double real = 0;
        for (size_t j = 0; j < keys; ++j) real += s[j] / 32768.0 * v[j * stride + c] * v_scale;
        worst = std::fmax(worst, std::fabs(out[c] - std::fmax(-128, std::fmin(127, real / out_scale))));
    }
    CHECK(worst <= 1.0);
}

TEST_CASE("the integer kernels' outputs are the same bits everywhere") {
    // Recompute the constant with: AUSPEX_PRINT_DIGEST=1 build/auspex_tests -tc='*same bits everywhere*'
    const uint64_t digest = ax::test::integer_kernel_digest(2026);
    if (std::getenv("AUSPEX_PRINT_DIGEST"))
        std::printf("integer kernel digest: 0x%016llxull\n", static_cast<unsigned long long>(digest));
    CHECK(digest == ax::test::kIntegerKernelDigest);
    CHECK(ax::test::integer_kernel_digest(2026) == digest);  // no state carried between runs
}
