// int8 and f16 weights: conversion rules, kernels against a plain float reference, and whole models
// against their float32 originals.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "ports/generic/generic.h"
#include "ports/ports.h"
#include "runtime/half.h"
#include "tests/test_support.h"
#include "tools/convert/converter.h"
#include "tools/text/csv.h"
#include "tools/host/host_session.h"

namespace {

using namespace ax;

std::vector<float> dequantize(const std::vector<int8_t>& q, const std::vector<float>& scales, size_t n) {
    std::vector<float> out(q.size());
    for (size_t i = 0; i < q.size(); ++i) out[i] = static_cast<float>(q[i]) * scales[i / n];
    return out;
}

}  // namespace

TEST_CASE("int8 per-row quantization round trips awkward rows within half a step") {
    const size_t n = 9;
    const std::vector<float> rows = {
        0,      0,       0,      0,    0,    0,      0,     0,  0,       // all zero
        0.01f,  -0.02f,  0.03f,  1e4f, 0.0f, -0.05f, 0.06f, 0,  0,       // one huge outlier
        -1,     -2,      -3,     -4,   -5,   -6,     -7,    -8, -9,      // negative only
        1e-30f, -2e-30f, 3e-30f, 0,    0,    0,      0,     0,  5e-30f,  // tiny
    };
    const size_t count = rows.size() / n;
    std::vector<int8_t> q(rows.size());
    std::vector<float> scales(count);
    generic::quantize_rows_i8(rows.data(), count, n, q.data(), scales.data());
    CHECK(scales[0] == 0.0f);
    for (size_t i = 0; i < n; ++i) CHECK(q[i] == 0);
    const std::vector<float> back = dequantize(q, scales, n);
    for (size_t r = 0; r < count; ++r) {
        float amax = 0;
        for (size_t i = 0; i < n; ++i) amax = std::fmax(amax, std::fabs(rows[r * n + i]));
        for (size_t i = 0; i < n; ++i) {
            INFO("row " << r << " column " << i);
            CHECK(q[r * n + i] >= -127);
            // Half a quantization step, plus float rounding of the step itself.
            CHECK(std::fabs(back[r * n + i] - rows[r * n + i]) <= scales[r] * 0.5f * 1.0001f);
            if (std::fabs(rows[r * n + i]) == amax && amax > 0) CHECK(std::abs(q[r * n + i]) == 127);
        }
    }
    // The outlier keeps its value; the small ones collapse to zero, as a per-row scheme must.
    CHECK(q[n + 3] == 127);
    CHECK(q[n + 0] == 0);
    // Negative-only: the largest magnitude maps to -127 exactly.
    CHECK(q[2 * n + 8] == -127);
    CHECK(back[2 * n + 8] == doctest::Approx(-9.0f).epsilon(1e-6));
}

TEST_CASE("int8 linear matches a plain float product of the dequantized operands") {
    std::mt19937 rng(7);
    std::normal_distribution<float> dist(0.0f, 1.0f);
    const size_t rows = 5, in = 37, out = 11;
    std::vector<float> x(rows * in), w(out * in), bias(out);
    for (float& v : x) v = dist(rng);
    for (float& v : w) v = dist(rng) * 0.2f;
    for (float& v : bias) v = dist(rng);
    std::vector<int8_t> xq(x.size()), wq(w.size());
    std::vector<float> xs(rows), ws(out), y(rows * out);
    generic::quantize_rows_i8(x.data(), rows, in, xq.data(), xs.data());
    generic::quantize_rows_i8(w.data(), out, in, wq.data(), ws.data());
    for (const Kernels* k : test::available_ports()) {
        INFO("port " << std::string(k->name));
        k->linear_i8(xq.data(), xs.data(), rows, in, wq.data(), ws.data(), bias.data(), out, y.data(), out);
        const std::vector<float> xd = dequantize(xq, xs, in), wd = dequantize(wq, ws, in);
        for (size_t r = 0; r < rows; ++r)
            for (size_t o = 0; o < out; ++o) {
                double ref = bias[o], mag = std::fabs(bias[o]);
                for (size_t i = 0; i < in; ++i) {
                    ref += static_cast<double>(xd[r * in + i]) * wd[o * in + i];
                    mag += std::fabs(static_cast<double>(xd[r * in + i]) * wd[o * in + i]);
                }
                CHECK(std::fabs(y[r * out + o] - ref) <= 1e-6 * mag);
            }
    }
}

TEST_CASE("half precision conversion round trips every finite half and rounds to nearest even") {
    for (uint32_t h = 0; h < 0x10000; ++h) {
        if ((h & 0x7c00u) == 0x7c00u && (h & 0x3ffu)) continue;  // NaN payloads need not survive
        const uint16_t back = float_to_half(half_to_float(static_cast<uint16_t>(h)));
        if (back != h) {
            INFO("half " << h);
            REQUIRE(back == h);
        }
    }
    CHECK(float_to_half(1.0f) == 0x3c00);
    CHECK(float_to_half(65504.0f) == 0x7bff);
    CHECK(float_to_half(65520.0f) == 0x7c00);            // rounds past the largest half
    CHECK(float_to_half(1.0f + 1.0f / 2048) == 0x3c00);  // tie, to even
    CHECK(float_to_half(1.0f + 3.0f / 2048) == 0x3c02);  // tie, to even (up)
    CHECK(float_to_half(5.9604645e-8f) == 0x0001);       // smallest subnormal
    CHECK(float_to_half(2.9802322e-8f) == 0x0000);       // half of it: tie to even, zero
    CHECK(half_to_float(0x0001) == 5.9604645e-8f);
    CHECK(float_to_half(-0.0f) == 0x8000);
}

TEST_CASE("int8 and f16 forecasters stay close to their float32 originals") {
    // Bounds relative to the outputs' RMS: f16 weights carry 2^-11 relative rounding, int8 per-row weights and
    // activations about 1/254 of each row's largest value; both pass through every layer.
    const char* const cases[] = {"post_relu_tril", "pre_gelu_none_final", "odd_sizes", "multi_out", "pre_relu_tril"};
    for (const char* name : cases) {
        const std::string dir = test::fixture_path(std::string("forecaster/") + name);
        const tools::Table src = tools::read_csv(dir + "/src.csv"), tgt = tools::read_csv(dir + "/tgt.csv");
        const tools::Table want = tools::read_csv(dir + "/run_out.csv");
        const double scale = test::rms(want.values);
        for (const auto& dtype_bound : {std::pair{format::DType::f16, 2e-3}, std::pair{format::DType::i8, 5e-2}}) {
            const format::DType dtype = dtype_bound.first;
            const double bound = dtype_bound.second;
            tools::ConvertOptions o;
            o.checkpoint_path = dir + "/model.pt";
            o.config_path = dir + "/config.json";
            o.dtype = dtype;
            const std::vector<uint8_t> bytes = tools::convert_model(o);
            const auto model = tools::load_model_bytes(bytes, name);
            for (const Kernels* k : test::available_ports()) {
                tools::HostSession s(*model, *k, src.rows, tgt.rows);
                const std::vector<float> got =
                    s.run(src.values.data(), src.rows, tgt.values.data(), tgt.rows, InputSpace::model);
                double worst = 0;
                for (size_t i = 0; i < got.size(); ++i) {
                    // A plain comparison, not std::fmax: gcc 12 for aarch64 fails to compile fmax in this loop.
                    const double d = std::fabs(got[i] - want.values[i]);
                    worst = d > worst ? d : worst;
                }
                INFO(std::string(name) << " dtype " << static_cast<int>(dtype) << " port " << std::string(k->name)
                                       << ": max error " << worst << ", output rms " << scale);
                CHECK(worst <= bound * scale);
            }
        }
    }
}

TEST_CASE("f16 and int8 keep the few small matrices float32 that the format spec names") {
    // multi_out: n_features 3, n_outputs 2, so the input embeddings are [d, 3] and the generator [2, d].
    const std::string dir = test::fixture_path("forecaster/multi_out");
    for (const format::DType dtype : {format::DType::f16, format::DType::i8}) {
        tools::ConvertOptions o;
        o.checkpoint_path = dir + "/model.pt";
        o.config_path = dir + "/config.json";
        o.dtype = dtype;
        const auto model = tools::load_model_bytes(tools::convert_model(o), "multi_out");
        size_t converted = 0;
        for (uint32_t i = 0; i < model->file.tensor_count(); ++i) {
            const TensorView v = model->file.tensor(i);
            INFO("dtype " << static_cast<int>(dtype) << ", tensor " << format::role_name(v.role));
            if (v.rank != 2) {
                CHECK(v.dtype == format::DType::f32);
                continue;
            }
            // int8 also keeps the input embeddings (docs/FORMAT.md, Quantization); the first attention
            // in-projections only when data showed raw columns of different magnitudes (none given here).
            const bool raw_input = v.role == format::Role::src_embed_weight || v.role == format::Role::tgt_embed_weight;
            const bool small =
                dtype == format::DType::f16 ? (v.dims[0] < 8 || v.dims[1] < 8) : v.dims[1] < 4 || raw_input;
            CHECK(v.dtype == (small ? format::DType::f32 : dtype));
            converted += small ? 0 : 1;
        }
        CHECK(converted > 0);
        // The embeddings stay float32 in both; the generator [2, d] only in f16.
        TensorView gen;
        REQUIRE(model->file.find(format::Role::generator_weight, format::kNoLayer, &gen));
        CHECK(gen.dtype == (dtype == format::DType::f16 ? format::DType::f32 : format::DType::i8));
    }
}
