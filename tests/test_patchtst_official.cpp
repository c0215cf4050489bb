// PatchTST as its authors wrote it (tests/fixtures/gen_patchtst_fixtures.py, in the style of
// PatchTST_supervised) through its shipped rename map: W_Q/W_K/W_V attention with a frozen scale, residual
// attention, BatchNorm layers, the Flatten_Head reading [d_model x patch_num], RevIN; against the model's
// forward, and what the config must state because the weights cannot tell.
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
#include "tools/checkpoint/checkpoint.h"
#include "tools/common/tool_error.h"
#include "tools/convert/converter.h"
#include "tools/import/convert_config.h"
#include "tools/import/rename_map.h"
#include "tools/host/host_session.h"
#include "tools/host/model_loader.h"
#include "tools/text/csv.h"

namespace {

using namespace ax;

const std::string kCase = "forecaster_patchtst/official";

std::string map_path() { return std::string(AUSPEX_SOURCE_DIR) + "/tools/import/maps/patchtst.map"; }

test::ForecastCase official() { return test::load_forecast_case("forecaster_patchtst", "official"); }

std::vector<float> forecast_with(const test::ForecastCase& c, const std::string& config_text, const Kernels& k,
                                 format::DType dtype = format::DType::f32) {
    test::CaseConversion how;
    how.dtype = dtype;
    how.config_text = config_text;
    how.map_path = map_path();
    return test::forecast_case(c, k, how);
}

}  // namespace

TEST_CASE("official PatchTST: residual attention, BatchNorm, its head's order and RevIN, as its forward") {
    const test::ForecastCase c = official();
    const tools::Table& forecast = c.forecast;
    for (const Kernels* k : test::available_ports()) {
        INFO("port " << std::string(k->name));
        test::check_close(forecast_with(c, "", *k), forecast.values, test::tolerance::forecaster, "forecast");
    }
    // What the weights cannot tell changes the forecast: without residual attention, or with the head read
    // in rows order, it is another model.
    std::string config = test::read_file(c.dir + "/config.json");
    std::string plain = config;
    plain.replace(plain.find("\"res_attention\": true"), 21, "\"res_attention\": false");
    CHECK(test::max_mixed_error(forecast_with(c, plain, generic_kernels()), forecast.values) > 1e-2);
    std::string rows = config;
    rows.replace(rows.find("\"d_model_first\""), 15, "\"rows\"");
    CHECK(test::max_mixed_error(forecast_with(c, rows, generic_kernels()), forecast.values) > 1e-2);
}

TEST_CASE("official PatchTST quantized: f16 and int8 stay close to its forward on every port") {
    const test::ForecastCase official_case = official();
    const tools::Table& forecast = official_case.forecast;
    const tools::Table& history = official_case.history;
    for (const auto& dtype_bound : {std::pair{format::DType::f16, 2e-3}, std::pair{format::DType::i8, 6e-2}}) {
        const format::DType dtype = dtype_bound.first;
        const double bound = dtype_bound.second;
        for (const Kernels* k : test::available_ports()) {
            INFO("dtype " << static_cast<int>(dtype) << " port " << std::string(k->name));
            const std::vector<float> got = forecast_with(official_case, "", *k, dtype);
            // Per column: RevIN puts each column back at its own scale.
            for (size_t c = 0; c < forecast.cols; ++c) {
                double scale = 0, worst = 0;
                // Plain comparisons: aarch64 g++ 12's vectorizer fails on an fmax reduction here.
                for (size_t r = 0; r < history.rows; ++r)
                    scale = std::fabs(history.at(r, c)) > scale ? std::fabs(history.at(r, c)) : scale;
                for (size_t r = 0; r < forecast.rows; ++r)
                    worst = std::fabs(got[r * forecast.cols + c] - forecast.at(r, c)) > worst
                                ? std::fabs(got[r * forecast.cols + c] - forecast.at(r, c))
                                : worst;
                CHECK(worst <= bound * scale);
            }
        }
    }
}

TEST_CASE("official PatchTST: a learned attention scale is refused, the CLI forecasts with the map") {
    const std::string dir = test::fixture_path(kCase);
    tools::TensorMap tensors = tools::read_checkpoint(dir + "/model.pt");
    tensors.at("model.backbone.encoder.layers.1.self_attn.sdp_attn.scale").data[0] = 0.4f;
    const tools::RenameMap map = tools::RenameMap::read(map_path());
    try {
        tools::import_model(map.apply(tensors), tools::read_convert_config(dir + "/config.json"));
        FAIL("a learned scale converted");
    } catch (const tools::ToolError& e) {
        CHECK(std::string(e.what()).find("encoder.layers.1.self_attn.scale is 0.4") == 0);
    }
    const std::string model = test::converted_fixture(kCase, "patchtst.axm", "--map " + map_path());
    const std::string out = (test::scratch_dir() / "patchtst_forecast.csv").string();
    const test::Result r = test::auspex("forecast " + model + " --input " + dir + "/history.csv -o " + out);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    test::check_close(tools::read_csv(out).values, tools::read_csv(dir + "/forecast.csv").values,
                      test::tolerance::forecaster, "forecast");
}

TEST_CASE("official PatchTST: --find-config finds residual attention, the head's order and nhead from a check pair") {
    const std::string dir = test::fixture_path(kCase);
    const std::string config =
        test::write_file("patchtst_minimal.json",
                         R"({"arch": "forecaster", "activation": "gelu", "window": 32, "patch_len": 8, "stride": 4,
            "padding_patch": "end", "features": ["OT", "HULL", "MUFL"]})");
    const std::string found = (test::scratch_dir() / "patchtst_found.json").string();
    const test::Result r =
        test::auspex("convert " + dir + "/model.pt --config " + config + " --map " + map_path() + " --find-config " +
                     found + " --check-input " + dir + "/history.csv --check-output " + dir + "/forecast.csv -o " +
                     (test::scratch_dir() / "patchtst_found.axm").string());
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    const std::string text = test::read_file(found);
    CHECK(text.find("\"res_attention\": true") != std::string::npos);
    CHECK(text.find("\"head_flatten\": \"d_model_first\"") != std::string::npos);
    CHECK(text.find("\"nhead\": 4") != std::string::npos);
}

TEST_CASE("official PatchTST with RevIN(subtract_last=True): the window's last value out and back, as its forward") {
    const test::ForecastCase c = test::load_forecast_case("forecaster_patchtst", "subtract_last");
    for (const Kernels* k : test::available_ports()) {
        INFO("port " << std::string(k->name));
        test::check_close(forecast_with(c, "", *k), c.forecast.values, test::tolerance::forecaster, "forecast");
    }
    // The weights cannot tell: without the key RevIN takes the mean out, and the forecast is another one.
    std::string config = test::read_file(c.dir + "/config.json");
    const std::string key = ",\n  \"subtract_last\": true";
    REQUIRE(config.find(key) != std::string::npos);
    config.erase(config.find(key), key.size());
    CHECK(test::max_mixed_error(forecast_with(c, config, generic_kernels()), c.forecast.values) > 1e-2);
}

TEST_CASE("subtract_last on a model without RevIN is refused with the normalizer block's message") {
    const std::string dir = test::fixture_path("forecaster_onepass/last_row_causal");
    std::string config = test::read_file(dir + "/config.json");
    config.insert(config.find('{') + 1, "\"subtract_last\": true, ");
    const test::Result r =
        test::auspex("convert " + dir + "/model.pt --config " + test::write_file("last_refused.json", config) + " -o " +
                     (test::scratch_dir() / "last_refused.axm").string());
    test::check_error(r, 1, "subtract_last is RevIN's option: the model has no RevIN");
}
