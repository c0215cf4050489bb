// Chronos-Bolt's runtime pieces one by one against the function of the same role in
// tests/fixtures/chronos_bolt_reference.py (goldens in tests/fixtures/chronos_bolt/pieces/, written by
// gen_chronos_bolt_fixtures.py with the scaled-down seeded checkpoint): RMS norm, T5's relative buckets at every
// distance up to 600, NaN-aware instance normalization (constant, all-missing, large offsets), patches with
// their mask channel, the residual MLP, T5 attention with the relative bias and a masked key, the encoder
// and decoder stacks; on every port.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "runtime/instance_norm.h"
#include "runtime/patch_rows.h"
#include "runtime/relative_position.h"
#include "runtime/residual_mlp.h"
#include "runtime/rms_norm.h"
#include "runtime/t5_layer.h"
#include "tests/test_support.h"
#include "tools/host/chronos_bolt_host.h"

namespace {

std::ifstream open_piece(const std::string& name) {
    std::ifstream in(ax::test::fixture_path("chronos_bolt/pieces/" + name));
    REQUIRE_MESSAGE(in.good(), "missing fixture chronos_bolt/pieces/" << name);
    return in;
}

// Reads n numbers, "nan" included (operator>> does not take it).
std::vector<float> read_floats(std::istream& in, size_t n) {
    std::vector<float> v(n);
    for (float& x : v) {
        std::string word;
        in >> word;
        REQUIRE_MESSAGE(!in.fail(), "fixture shorter than its sizes say");
        x = word == "nan" ? std::nanf("") : std::stof(word);
    }
    return v;
}

const ax::tools::ChronosBoltHost& small_model() {
    static const ax::tools::ChronosBoltHost host(
        ax::tools::read_chronos_bolt(ax::test::fixture_path("chronos_bolt/small")));
    return host;
}

}  // namespace

TEST_CASE("chronos-bolt pieces: RMS norm as T5LayerNorm") {
    auto in = open_piece("rms_norm.txt");
    size_t rows = 0, d = 0;
    float eps = 0;
    in >> rows >> d >> eps;
    const auto weight = read_floats(in, d);
    const auto x = read_floats(in, rows * d);
    const auto want = read_floats(in, rows * d);
    std::vector<float> y(rows * d);
    ax::rms_norm_rows(x.data(), rows, d, weight.data(), eps, y.data());
    ax::test::check_close(y, want, 1e-6, "rms_norm");
}

TEST_CASE("chronos-bolt pieces: T5's relative buckets, bidirectional and causal, every distance to 600") {
    auto in = open_piece("buckets.txt");
    size_t nb = 0, md = 0;
    long lo = 0, hi = 0;
    in >> nb >> md >> lo >> hi;
    for (bool bidirectional : {true, false}) {
        size_t wrong = 0;
        for (long r = lo; r <= hi; ++r) {
            size_t want = 0;
            in >> want;
            if (ax::t5_relative_bucket(r, bidirectional, nb, md) != want) ++wrong;
        }
        CHECK_MESSAGE(wrong == 0, (bidirectional ? "bidirectional" : "causal") << ": " << wrong << " buckets differ");
    }
    // The bias by distance: entry (key - query) + origin of each head is the table's row of that bucket.
    const float table[4 * 2] = {1, 2, 3, 4, 5, 6, 7, 8};
    const auto span = ax::relative_bias_span(0, 3, 3);
    CHECK(span.span == 5);
    std::vector<float> bias(2 * span.span);
    ax::relative_bias_by_distance(table, 2, 4, 8, true, 0, 3, 3, bias.data());
    // 4 buckets bidirectional: 2 per side, max_exact 1: distance 0 -> 0, -1/-2 -> 1, +1/+2 -> 3.
    CHECK(bias[0 * span.span + span.origin] == 1.0f);
    CHECK(bias[1 * span.span + span.origin + 1] == 8.0f);
    CHECK(bias[0 * span.span + span.origin - 2] == 3.0f);
}

TEST_CASE("chronos-bolt pieces: NaN-aware instance normalization, constant and all-missing contexts") {
    auto in = open_piece("instance_norm.txt");
    size_t cases = 0;
    in >> cases;
    REQUIRE(cases >= 5);
    for (size_t c = 0; c < cases; ++c) {
        size_t n = 0;
        in >> n;
        const auto x = read_floats(in, n);
        const auto loc_scale = read_floats(in, 2);
        const auto want = read_floats(in, n);
        const ax::InstanceScale s = ax::instance_scale(x.data(), n, 1e-5f);
        CHECK_MESSAGE(s.loc == doctest::Approx(loc_scale[0]).epsilon(1e-6), "case " << c);
        CHECK_MESSAGE(s.scale == doctest::Approx(loc_scale[1]).epsilon(1e-6), "case " << c);
        std::vector<float> y(n);
        ax::instance_normalize(x.data(), n, s, y.data());
        for (size_t i = 0; i < n; ++i) {
            CHECK_MESSAGE(std::isnan(y[i]) == std::isnan(want[i]), "case " << c << " value " << i);
            if (!std::isnan(want[i]))
                CHECK_MESSAGE(std::fabs(y[i] - want[i]) <= 1e-5 * std::max(1.0f, std::fabs(want[i])),
                              "case " << c << " value " << i << ": " << y[i] << " vs " << want[i]);
        }
        std::vector<float> back = y;
        ax::instance_denormalize(back.data(), n, s);
        for (size_t i = 0; i < n; ++i)
            if (!std::isnan(x[i])) CHECK(back[i] == doctest::Approx(x[i]).epsilon(1e-5));
    }
}

TEST_CASE("chronos-bolt pieces: patches with left padding, the mask channel and the attention flags") {
    auto in = open_piece("patches.txt");
    size_t length = 0, patch = 0, patches = 0;
    in >> length >> patch >> patches;
    REQUIRE(ax::patch_count(length, patch) == patches);
    const auto x = read_floats(in, length);
    const auto valid_want = read_floats(in, patches);
    const auto rows_want = read_floats(in, patches * 2 * patch);
    std::vector<float> rows(patches * 2 * patch);
    std::vector<uint8_t> valid(patches);
    ax::patch_rows(x.data(), length, patch, rows.data(), valid.data());
    CHECK(rows == rows_want);
    for (size_t p = 0; p < patches; ++p) CHECK(valid[p] == static_cast<uint8_t>(valid_want[p]));
}

TEST_CASE("chronos-bolt pieces: the residual MLP (input patch embedding) on every port") {
    auto pin = open_piece("patches.txt");
    size_t length = 0, patch = 0, patches = 0;
    pin >> length >> patch >> patches;
    const auto x = read_floats(pin, length);
    std::vector<float> rows(patches * 2 * patch);
    std::vector<uint8_t> valid(patches);
    ax::patch_rows(x.data(), length, patch, rows.data(), valid.data());
    auto in = open_piece("residual_mlp.txt");
    size_t n = 0, out = 0;
    in >> n >> out;
    const auto want = read_floats(in, n * out);
    const ax::ChronosBoltWeights& bolt = small_model().weights();
    const ax::ResidualMlpWeights& w = bolt.input;
    for (const ax::Kernels* k : ax::test::available_ports()) {
        std::vector<float> y(n * out), hidden(n * bolt.shape.stack.d_ff), tmp(n * out);
        ax::residual_mlp_forward(*k, w, rows.data(), n, y.data(), hidden.data(), tmp.data(), {});
        ax::test::check_close(y, want, 1e-5, std::string("residual mlp, ") + k->name);
    }
}

TEST_CASE("chronos-bolt pieces: T5 attention with the relative bias and a masked key, the encoder and decoder") {
    auto in = open_piece("t5_stack.txt");
    size_t n = 0, d = 0;
    in >> n >> d;
    const auto valid_f = read_floats(in, n);
    const auto x = read_floats(in, n * d);
    const auto att_want = read_floats(in, n * d);
    const auto mem_want = read_floats(in, n * d);
    const auto dec_want = read_floats(in, d);
    const auto y3 = read_floats(in, 3 * d);
    const auto dec3_want = read_floats(in, 3 * d);
    std::vector<uint8_t> valid(n);
    for (size_t i = 0; i < n; ++i) valid[i] = static_cast<uint8_t>(valid_f[i]);
    const ax::ChronosBoltWeights& bolt = small_model().weights();
    const ax::T5StackOptions& o = bolt.shape.stack;
    REQUIRE(o.d_model == d);
    for (const ax::Kernels* k : ax::test::available_ports()) {
        const std::string port = k->name;
        std::vector<float> floats(ax::t5_scratch_floats(o, n, n));
        ax::T5Scratch s = ax::t5_scratch(o, n, n, floats.data());
        // Layer 0's attention alone on x (no norm), as the reference's t5_attention was called.
        const auto span = ax::relative_bias_span(0, n, n);
        ax::relative_bias_by_distance(bolt.encoder_bias, o.nhead, o.num_buckets, o.max_distance, true, 0, n, n, s.bias);
        const auto& a = bolt.encoder[0].self_attn;
        ax::linear_forward(*k, a.q, x.data(), n, s.q, s.quant);
        ax::linear_forward(*k, a.k, x.data(), n, s.k, s.quant);
        ax::linear_forward(*k, a.v, x.data(), n, s.v, s.quant);
        ax::t5_attend(*k, s.q, s.k, s.v, n, n, o.nhead, o.d_kv, s.bias, span, 0, false, valid.data(), s.scores, s.att);
        std::vector<float> att(n * d);
        ax::linear_forward(*k, a.o, s.att, n, att.data(), s.quant);
        ax::test::check_close(att, att_want, 1e-5, "t5 attention, " + port);
        std::vector<float> mem = x;
        ax::t5_encode(*k, o, bolt.encoder, bolt.shape.encoder_layers, bolt.encoder_bias, bolt.encoder_norm, mem.data(),
                      n, valid.data(), s);
        ax::test::check_close(mem, mem_want, 1e-5, "t5 encoder, " + port);
        std::vector<float> y(bolt.shared, bolt.shared + d);
        ax::t5_decode(*k, o, bolt.decoder, bolt.shape.decoder_layers, bolt.decoder_bias, bolt.decoder_norm, y.data(), 1,
                      mem_want.data(), n, valid.data(), s);
        ax::test::check_close(y, dec_want, 1e-5, "t5 decoder step, " + port);
        // Three decoder rows at once: causal self-attention with the decoder's relative bias between them.
        std::vector<float> y3_out = y3;
        ax::t5_decode(*k, o, bolt.decoder, bolt.shape.decoder_layers, bolt.decoder_bias, bolt.decoder_norm,
                      y3_out.data(), 3, mem_want.data(), n, valid.data(), s);
        ax::test::check_close(y3_out, dec3_want, 1e-5, "t5 decoder, 3 rows, " + port);
    }
}
