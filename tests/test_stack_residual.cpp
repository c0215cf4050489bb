// A residual around each whole stack (`memory = x + encoder(x)`, `y = t + decoder(t, memory)`), against its
// author's loop (tests/fixtures/gen_residual_fixtures.py): on every port, quantized, and what the weights
// cannot tell changing the forecast.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tests/cli_support.h"
#include "tests/family_support.h"
#include "tests/fixture_case.h"
#include "tests/test_support.h"
#include "tests/tolerances.h"
#include "ports/ports.h"
#include "tools/convert/converter.h"
#include "tools/host/host_session.h"
#include "tools/host/model_loader.h"
#include "tools/text/csv.h"

namespace {

using namespace ax;

std::vector<float> forecast_with(const test::ForecastCase& c, const std::string& config_text, const Kernels& k,
                                 format::DType dtype = format::DType::f32) {
    test::CaseConversion how;
    how.dtype = dtype;
    how.config_text = config_text;
    return test::forecast_case(c, k, how);
}

}  // namespace

TEST_CASE("a residual around each whole stack matches its author's loop on every port, quantized too") {
    const test::ForecastCase c = test::load_forecast_case("forecaster_residual", "stacks");
    const tools::Table& forecast = c.forecast;
    const double scale = test::rms(forecast.values);
    for (const Kernels* k : test::available_ports()) {
        INFO("port " << std::string(k->name));
        test::check_close(forecast_with(c, "", *k), forecast.values, test::tolerance::forecaster, "forecast");
        for (const auto& dtype_bound : {std::pair{format::DType::f16, 2e-3}, std::pair{format::DType::i8, 6e-2}}) {
            const format::DType dtype = dtype_bound.first;
            const double bound = dtype_bound.second;
            INFO("dtype " << static_cast<int>(dtype));
            CHECK(test::max_abs_error(forecast_with(c, "", *k, dtype), forecast.values) <= bound * scale);
        }
    }
    // Each residual changes the forecast: the weights cannot tell, the config says.
    const std::string base = R"({"arch": "forecaster", "nhead": 4, "features": ["a", "b"])";
    CHECK(test::max_mixed_error(forecast_with(c, base + R"(, "decoder_residual": true})", generic_kernels()),
                                forecast.values) > 1e-2);
    CHECK(test::max_mixed_error(forecast_with(c, base + R"(, "encoder_residual": true})", generic_kernels()),
                                forecast.values) > 1e-2);
}

TEST_CASE("decoder_residual on a model without a decoder is refused") {
    const std::string dir = test::fixture_path("forecaster_onepass/last_row_causal");
    std::string config = test::read_file(dir + "/config.json");
    config.insert(config.find('{') + 1, "\"decoder_residual\": true, ");
    const test::Result r =
        test::auspex("convert " + dir + "/model.pt --config " + test::write_file("residual_refused.json", config) +
                     " -o " + (test::scratch_dir() / "residual_refused.axm").string());
    test::check_error(r, 1, "config \"decoder_residual\" needs a decoder; this model has none");
}
