// NEON-specific checks of the NEON port against generic (skipped where the port is not built; doctest's
// summary counts them as skipped): every tile
// shape and tail of the blocked matrix kernels, full-range int8, every half value, quantization ties and
// the rows where ARMv7's flush-to-zero NEON arithmetic could differ. tests/test_ports.cpp holds the checks
// every port must pass; these target the edges of this port's own code paths.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "ports/generic/generic.h"
#include "ports/ports.h"
#if defined(AUSPEX_HAVE_NEON)
#include "ports/neon/neon.h"
#endif
#include "runtime/half.h"

namespace {

using namespace ax;

uint32_t bits_of(float f) {
    uint32_t b;
    std::memcpy(&b, &f, sizeof b);
    return b;
}

bool same_float(float a, float b) { return (std::isnan(a) && std::isnan(b)) || bits_of(a) == bits_of(b); }

// |a - b| within 1e-5 absolute below 1, relative above.
bool close(float a, float b) { return std::fabs(a - b) <= 1e-5f * std::fmax(1.0f, std::fabs(b)); }

std::vector<float> random_floats(std::mt19937& rng, size_t n, float scale = 1.0f) {
    std::uniform_real_distribution<float> d(-scale, scale);
    std::vector<float> v(n);
    for (float& x : v) x = d(rng);
    return v;
}

std::vector<int8_t> random_i8(std::mt19937& rng, size_t n) {
    std::uniform_int_distribution<int> d(-128, 127);
    std::vector<int8_t> v(n);
    for (int8_t& x : v) x = static_cast<int8_t>(d(rng));
    return v;
}

}  // namespace

TEST_CASE("neon: matrix kernels match generic on every tile shape and tail" *
          doctest::skip(ax::neon_kernels() == nullptr)) {
    const Kernels* neon = neon_kernels();
    if (!neon) return;
    const Kernels& ref = generic_kernels();
    std::mt19937 rng(11);
    const size_t ins[] = {1, 3, 4, 5, 7, 8, 15, 16, 17, 31, 32, 33, 47, 64, 67};
    // Outputs: every count up to 9, and around the int8 one-row blocks (8 outputs on ARMv7, 16 on AArch64,
    // then 4s, then singles).
    const size_t outs[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 20, 21, 33};
    for (size_t rows = 1; rows <= 9; ++rows) {
        for (size_t out : outs) {
            for (size_t in : ins) {
                INFO("rows " << rows << " in " << in << " out " << out);
                const std::vector<float> x = random_floats(rng, rows * in);
                const std::vector<float> w = random_floats(rng, out * in, 0.5f);
                const std::vector<float> bias = random_floats(rng, out);
                std::vector<uint16_t> wh(w.size());
                for (size_t i = 0; i < w.size(); ++i) wh[i] = float_to_half(w[i]);
                const std::vector<int8_t> xq = random_i8(rng, rows * in), wq = random_i8(rng, out * in);
                const std::vector<float> xs = random_floats(rng, rows, 0.1f), ws = random_floats(rng, out, 0.1f);
                std::vector<float> want(rows * out), got(rows * out);
                for (const float* b : {bias.data(), static_cast<const float*>(nullptr)}) {
                    ref.linear_f32(x.data(), rows, in, w.data(), b, out, want.data(), out);
                    neon->linear_f32(x.data(), rows, in, w.data(), b, out, got.data(), out);
                    for (size_t i = 0; i < got.size(); ++i) REQUIRE(close(got[i], want[i]));
                    ref.linear_f16(x.data(), rows, in, wh.data(), b, out, want.data(), out);
                    neon->linear_f16(x.data(), rows, in, wh.data(), b, out, got.data(), out);
                    for (size_t i = 0; i < got.size(); ++i) REQUIRE(close(got[i], want[i]));
                    ref.linear_i8(xq.data(), xs.data(), rows, in, wq.data(), ws.data(), b, out, want.data(), out);
                    neon->linear_i8(xq.data(), xs.data(), rows, in, wq.data(), ws.data(), b, out, got.data(), out);
                    for (size_t i = 0; i < got.size(); ++i) REQUIRE(same_float(got[i], want[i]));
                }
            }
        }
    }
}

TEST_CASE("neon: int8 products are exact at the extremes of the int8 range" *
          doctest::skip(ax::neon_kernels() == nullptr)) {
    const Kernels* neon = neon_kernels();
    if (!neon) return;
    // All -128: every product is 2^14, the case a 16-bit pairwise sum overflows; long rows with every tail.
    for (size_t in : {16u, 4095u, 4096u, 4097u, 4111u}) {
        for (int8_t v : {int8_t(-128), int8_t(127)}) {
            const size_t rows = 5, out = 6;
            std::vector<int8_t> xq(rows * in, int8_t(-128)), wq(out * in, v);
            std::vector<float> xs(rows, 1.0f), ws(out, 1.0f), got(rows * out), want(rows * out);
            generic_kernels().linear_i8(xq.data(), xs.data(), rows, in, wq.data(), ws.data(), nullptr, out, want.data(),
                                        out);
            neon->linear_i8(xq.data(), xs.data(), rows, in, wq.data(), ws.data(), nullptr, out, got.data(), out);
            for (size_t i = 0; i < got.size(); ++i) {
                INFO("in " << in << " w " << int(v));
                REQUIRE(bits_of(got[i]) == bits_of(want[i]));
                REQUIRE(got[i] == static_cast<float>(-128 * int32_t(v) * int32_t(in)));
            }
        }
    }
}

TEST_CASE("neon: half weights convert exactly, every one of the 65536" * doctest::skip(ax::neon_kernels() == nullptr)) {
    const Kernels* neon = neon_kernels();
    if (!neon) return;
    // One input of 1.0 times each half as a weight row: y[o] is the half's value, exactly (-0 turns into +0
    // in the sum, as in generic, so zeros compare by value).
    const size_t out = 0x10000;
    std::vector<uint16_t> w(out);
    for (size_t i = 0; i < out; ++i) w[i] = static_cast<uint16_t>(i);
    const float x = 1.0f;
    std::vector<float> y(out);
    neon->linear_f16(&x, 1, 1, w.data(), nullptr, out, y.data(), out);
    for (size_t i = 0; i < out; ++i) {
        const float want = half_to_float(static_cast<uint16_t>(i));
        const bool ok = (std::isnan(y[i]) && std::isnan(want)) || y[i] == want;
        if (!ok) {
            INFO("half " << i << ": " << y[i] << " want " << want);
            REQUIRE(ok);
        }
    }
    // And four (and eight) at a time, through the vector conversion.
    std::vector<float> xs(8, 1.0f);
    for (size_t in : {4u, 8u}) {
        const size_t rows_out = out / in;
        std::vector<float> ys(rows_out), want(rows_out);
        std::vector<uint16_t> wf(w);
        // Keep the sums finite and NaN-free so they compare: replace infinities and NaN by 1.
        for (uint16_t& h : wf)
            if ((h & 0x7c00u) == 0x7c00u) h = 0x3c00;
        neon->linear_f16(xs.data(), 1, in, wf.data(), nullptr, rows_out, ys.data(), rows_out);
        generic_kernels().linear_f16(xs.data(), 1, in, wf.data(), nullptr, rows_out, want.data(), rows_out);
        for (size_t o = 0; o < rows_out; ++o) REQUIRE(close(ys[o], want[o]));
    }
}

TEST_CASE("neon: quantization is bit-identical to generic, ties and awkward rows included" *
          doctest::skip(ax::neon_kernels() == nullptr)) {
    const Kernels* neon = neon_kernels();
    if (!neon) return;
    const float denorm = std::numeric_limits<float>::denorm_min();
    std::vector<std::vector<float>> rows = {
        {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        {-0.0f, 0.0f, -0.0f, 0, 0, 0, 0, 0, 0},
        // amax 127: x * inv is x itself, so halves are exact ties and must round to even.
        {127, 0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 3.5f, 125.5f, -126.5f, 63.5f, -64.5f, 0.49999997f, 100.5f, -100.5f,
         4.5f, 5.5f},
        // amax 254: x * inv = x / 2, ties again.
        {254, 1, 3, 5, 7, -1, -3, -5, -7, 9, 11, 13, 15, -17, -19, -21, 251, -253},
        {1e-38f, -2e-38f, 5e-39f, denorm, -denorm, 0, 3e-39f, 1e-39f, 2e-38f},  // denormals, tiny amax
        {3e-36f, 1e-38f, denorm * 100, -1e-37f, 2e-36f, -3e-36f, 5e-39f, 0, 1e-36f},
        {denorm, 0, 0, 0, 0, 0, 0, 0, -denorm},
        {1e38f, -3e38f, 1, -1, 1e-30f, 2e37f, 5e30f, -2.9e38f, 3.4e38f},
    };
    std::mt19937 rng(5);
    for (size_t n : {1u, 7u, 8u, 9u, 15u, 16u, 17u, 63u, 64u, 257u}) {
        rows.push_back(random_floats(rng, n, 3.0f));
        std::vector<float> r = random_floats(rng, n, 1.0f);
        for (float& v : r) v = std::round(v * 64.0f) / 64.0f;  // many exact ties
        r[0] = 1.0f;
        rows.push_back(r);
    }
    for (size_t k = 0; k < rows.size(); ++k) {
        const std::vector<float>& x = rows[k];
        const size_t n = x.size();
        std::vector<int8_t> qa(2 * n), qb(2 * n);
        std::vector<float> sa(2), sb(2);
        std::vector<float> two(x);
        two.insert(two.end(), x.rbegin(), x.rend());
        generic_kernels().quantize_rows_i8(two.data(), 2, n, qa.data(), sa.data());
        neon->quantize_rows_i8(two.data(), 2, n, qb.data(), sb.data());
        INFO("row " << k);
        CHECK(bits_of(sa[0]) == bits_of(sb[0]));
        CHECK(bits_of(sa[1]) == bits_of(sb[1]));
        for (size_t i = 0; i < 2 * n; ++i) {
            INFO("element " << i);
            REQUIRE(int(qa[i]) == int(qb[i]));
        }
    }
}

TEST_CASE("neon: vector kernels" * doctest::skip(ax::neon_kernels() == nullptr)) {
    const Kernels* neon = neon_kernels();
    if (!neon) return;
    const Kernels& ref = generic_kernels();
    std::mt19937 rng(3);
    for (size_t n = 0; n <= 70; ++n) {
        INFO("n " << n);
        const std::vector<float> a = random_floats(rng, n), b = random_floats(rng, n);
        std::vector<float> ya = b, yb = b;
#if defined(AUSPEX_HAVE_NEON) && defined(__ARM_NEON)
        // Not in the table (no layer calls them): the port's own functions.
        CHECK(close(neon::dot_f32(a.data(), b.data(), n), generic::dot_f32(a.data(), b.data(), n)));
        generic::axpy_f32(n, 0.37f, a.data(), ya.data());
        neon::axpy_f32(n, 0.37f, a.data(), yb.data());
        for (size_t i = 0; i < n; ++i) CHECK(close(yb[i], ya[i]));
        ya = b, yb = b;
#endif
        ref.add_f32(ya.data(), a.data(), n);
        neon->add_f32(yb.data(), a.data(), n);
        for (size_t i = 0; i < n; ++i) CHECK(close(yb[i], ya[i]));
    }
    // ReLU exactly as generic: -0 and NaN become +0.
    std::vector<float> r = {-0.0f, 0.0f, -1.0f, 2.0f, std::nanf(""), -std::nanf(""), 1e-3f, -1e30f, 5.0f};
    std::vector<float> ra = r, rb = r;
    ref.relu_f32(ra.data(), ra.size());
    neon->relu_f32(rb.data(), rb.size());
    for (size_t i = 0; i < r.size(); ++i) CHECK(bits_of(ra[i]) == bits_of(rb[i]));
}
