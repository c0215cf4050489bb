// Chronos-Bolt's whole forecast (models/forecaster/chronos_bolt.h, from the published directory through
// tools/host/chronos_bolt_host.h) against tests/fixtures/chronos_bolt_reference.py's predict on the authors'
// dummy checkpoint and the scaled-down seeded one: contexts of 512, 37 and 700 values, with NaN cells
// (two whole patches missing), constant, and a horizon of 100 (past the model's 64: the quantile paths
// reduced to quantiles); within 1e-5 x max(1, max |out|) on every port.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "models/forecaster/chronos_bolt_file.h"
#include "models/forecaster/forecaster.h"
#include "tests/chronos_bolt_cases.h"
#include "runtime/instance_norm.h"
#include "tests/test_support.h"
#include "tools/common/aligned_buffer.h"
#include "tools/convert/chronos_bolt_convert.h"
#include "tools/host/chronos_bolt_host.h"

namespace {

using ForecastCase = ax::test::ChronosBoltCase;

ForecastCase read_case(const std::string& name) { return ax::test::read_chronos_bolt_case(name); }

}  // namespace

TEST_CASE("chronos-bolt forecast: dummy and scaled-down checkpoints match the PyTorch reference on every port") {
    for (const char* model : {"dummy", "small"}) {
        const ax::tools::ChronosBoltHost host(
            ax::tools::read_chronos_bolt(ax::test::fixture_path(std::string("chronos_bolt/") + model)));
        for (const char* name : {"c512", "c37", "c700", "nan", "constant", "h100"}) {
            const ForecastCase c = read_case(std::string(model) + "_" + name);
            REQUIRE(c.quantiles == host.config().quantiles.size());
            for (const ax::Kernels* k : ax::test::available_ports()) {
                const std::vector<float> got = host.forecast(*k, c.context, c.horizon);
                ax::test::check_chronos_bolt_case(got, c,
                                                  std::string("chronos-bolt ") + model + " " + name + ", " + k->name);
            }
        }
    }
}

TEST_CASE("chronos-bolt forecast: torch.quantile's interpolation of sorted values") {
    const float v[5] = {1, 2, 4, 8, 16};
    CHECK(ax::sorted_quantile(v, 5, 0.5f) == 4.0f);
    CHECK(ax::sorted_quantile(v, 5, 0.1f) == doctest::Approx(1.4f));
    CHECK(ax::sorted_quantile(v, 5, 0.9f) == doctest::Approx(12.8f));
    CHECK(ax::sorted_quantile(v, 1, 0.3f) == 1.0f);
}

TEST_CASE("chronos-bolt convert: the .axm opens with the runtime and forecasts the directory's bits") {
    for (const char* model : {"dummy", "small"}) {
        const std::string dir = ax::test::fixture_path(std::string("chronos_bolt/") + model);
        const std::vector<uint8_t> bytes = ax::tools::convert_chronos_bolt(dir);
        const ax::tools::AlignedBuffer buffer(bytes);
        ax::ModelFile file;
        REQUIRE(ax::ModelFile::open(buffer.data(), buffer.size(), ax::Checksum::verify, &file));
        CHECK(ax::is_chronos_bolt(file));
        // The file is a description of the forecaster's blocks, run by its session (and the C API on it).
        ax::Forecaster as_blocks;
        const ax::Status blocks = ax::Forecaster::open(file, &as_blocks);
        REQUIRE_MESSAGE(blocks, blocks.message());
        CHECK(as_blocks.config().loop == ax::ForecastLoop::quantile_paths);
        ax::ChronosBoltModel opened;
        const ax::Status s = ax::chronos_bolt_open(file, &opened);
        REQUIRE_MESSAGE(s, s.message());
        const ax::tools::ChronosBoltHost host(ax::tools::read_chronos_bolt(dir));
        for (const char* name : {"c37", "nan", "h100"}) {
            const ForecastCase c = read_case(std::string(model) + "_" + name);
            const ax::Kernels& k = *ax::test::available_ports().front();
            CHECK(ax::tools::chronos_bolt_forecast_host(k, opened.weights, c.context, c.horizon) ==
                  host.forecast(k, c.context, c.horizon));
            ax::tools::AlignedBuffer arena(as_blocks.arena_bytes(c.length, c.horizon));
            ax::ForecastSession session;
            REQUIRE(session.init(as_blocks, k, arena.data(), arena.size(), c.length, c.horizon));
            std::vector<float> got(as_blocks.config().output_values(c.horizon));
            REQUIRE(session.forecast(c.context.data(), c.length, c.horizon, got.data()));
            CHECK(got == host.forecast(k, c.context, c.horizon));
        }
        // A truncated file: refused with a message, never a crash.
        const std::vector<uint8_t> truncated(bytes.begin(), bytes.end() - 64);
        ax::ModelFile bad;
        CHECK_FALSE(ax::ModelFile::open(truncated.data(), truncated.size(), ax::Checksum::verify, &bad));
    }
}

TEST_CASE("chronos-bolt open: a file missing a tensor, with a wrong size or a foreign tensor is refused, never run") {
    const ax::tools::AxmModel good =
        ax::tools::chronos_bolt_axm(ax::tools::read_chronos_bolt(ax::test::fixture_path("chronos_bolt/dummy")));
    const auto open_status = [](const ax::tools::AxmModel& m) {
        const ax::tools::AlignedBuffer buffer(ax::tools::serialize_axm(m));
        ax::ModelFile file;
        ax::Status s = ax::ModelFile::open(buffer.data(), buffer.size(), ax::Checksum::verify, &file);
        static ax::ChronosBoltModel model;
        if (s) s = ax::chronos_bolt_open(file, &model);
        return std::string(s ? "" : s.message());
    };
    CHECK(open_status(good).empty());
    auto missing = good;
    missing.tensors.pop_back();  // the decoder's final norm
    CHECK(!open_status(missing).empty());
    auto wrong = good;
    for (auto& [key, value] : wrong.config)
        if (key == ax::format::ConfigKey::head_dim) value = 5;
    CHECK(!open_status(wrong).empty());
    auto layers = good;
    for (auto& [key, value] : layers.config)
        if (key == ax::format::ConfigKey::encoder_layers) value = 13;
    CHECK(open_status(layers).find("encoder_layers") != std::string::npos);
    auto extra = good;
    extra.tensors.push_back(extra.tensors.front());
    extra.tensors.back().layer = 1;  // quantile levels of a layer that does not exist
    CHECK(!open_status(extra).empty());
    auto levels = good;
    reinterpret_cast<float*>(levels.tensors.front().data.data())[3] = 0.05f;  // no longer rising
    CHECK(open_status(levels).find("quantile levels") != std::string::npos);
}

namespace {

// The model converted with `dtype` and opened, in a buffer that outlives the call's use of it.
struct OpenedModel {
    ax::tools::AlignedBuffer buffer;
    ax::ModelFile file;
    ax::ChronosBoltModel model;
};

void open_converted(const std::string& dir, ax::format::DType dtype, OpenedModel* out) {
    out->buffer = ax::tools::AlignedBuffer(ax::tools::convert_chronos_bolt(dir, dtype));
    REQUIRE(ax::ModelFile::open(out->buffer.data(), out->buffer.size(), ax::Checksum::verify, &out->file));
    const ax::Status s = ax::chronos_bolt_open(out->file, &out->model);
    REQUIRE_MESSAGE(s, s.message());
}

}  // namespace

TEST_CASE("chronos-bolt int8: weights one scale per row, forecasts near float32's") {
    // Measured: the largest difference from the float32 forecast over the cases, relative to the float32
    // forecast's largest magnitude, and the median's mean absolute difference relative to the context's
    // standard deviation (the scale the model forecasts in).
    for (const char* model : {"dummy", "small"}) {
        const std::string dir = ax::test::fixture_path(std::string("chronos_bolt/") + model);
        static OpenedModel f32, i8;
        open_converted(dir, ax::format::DType::f32, &f32);
        open_converted(dir, ax::format::DType::i8, &i8);
        CHECK(i8.model.weights.encoder[0].wi.dtype == ax::format::DType::i8);
        CHECK(i8.model.weights.input.hidden.dtype == ax::format::DType::i8);
        const ax::Kernels& k = *ax::test::available_ports().front();
        double worst = 0.0, median_worst = 0.0;
        for (const char* name : {"c512", "c37", "nan", "h100"}) {
            const ForecastCase c = read_case(std::string(model) + "_" + name);
            const auto a = ax::tools::chronos_bolt_forecast_host(k, f32.model.weights, c.context, c.horizon);
            const auto b = ax::tools::chronos_bolt_forecast_host(k, i8.model.weights, c.context, c.horizon);
            const ax::InstanceScale s = ax::instance_scale(c.context.data(), c.context.size(), 1e-5f);
            double scale = 1.0, diff = 0.0, median = 0.0;
            for (float v : a) scale = std::max(scale, static_cast<double>(std::fabs(v)));
            for (size_t i = 0; i < a.size(); ++i) diff = std::max(diff, static_cast<double>(std::fabs(a[i] - b[i])));
            const size_t mid = 4 * c.horizon;  // row of level 0.5
            for (size_t t = 0; t < c.horizon; ++t) median += std::fabs(a[mid + t] - b[mid + t]);
            worst = std::max(worst, diff / scale);
            median_worst = std::max(median_worst, median / static_cast<double>(c.horizon) / s.scale);
        }
        if (std::getenv("AUSPEX_REPORT_ERRORS"))
            std::printf("int8 %s: largest difference %.3g x max|f32|, median mean |difference| %.3g x std\n", model,
                        worst, median_worst);
        CHECK_MESSAGE(worst < 0.02, model << ": " << worst);
        CHECK_MESSAGE(median_worst < 0.06, model << ": " << median_worst);
        CHECK(worst > 0.0);  // int8 changed something: the weights are really int8
    }
}
