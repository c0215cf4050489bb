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

std::vector<float> forecast_with(const std::string& dir, const std::string& config_text, const Kernels& k,
                                 format::DType dtype = format::DType::f32) {
    tools::ConvertOptions o;
    o.checkpoint_path = dir + "/model.pt";
    o.config_path = config_text.empty() ? dir + "/config.json" : test::write_file("patchtst_config.json", config_text);
    o.map_path = map_path();
    o.dtype = dtype;
    const auto model = tools::load_model_bytes(tools::convert_model(o), "patchtst");
    const tools::Table history = tools::read_csv(dir + "/history.csv");
    tools::HostSession s(*model, k, history.rows, 8);
    return s.forecast(history.values.data(), history.rows, 8);
}

}  // namespace

TEST_CASE("official PatchTST: residual attention, BatchNorm, its head's order and RevIN, as its forward") {
    const std::string dir = test::fixture_path(kCase);
    const tools::Table forecast = tools::read_csv(dir + "/forecast.csv");
    for (const Kernels* k : test::available_ports()) {
        INFO("port " << std::string(k->name));
        test::check_close(forecast_with(dir, "", *k), forecast.values, test::tolerance::forecaster, "forecast");
    }
    // What the weights cannot tell changes the forecast: without residual attention, or with the head read
    // in rows order, it is another model.
    std::string config = test::read_file(dir + "/config.json");
    std::string plain = config;
    plain.replace(plain.find("\"res_attention\": true"), 21, "\"res_attention\": false");
    CHECK(test::max_mixed_error(forecast_with(dir, plain, generic_kernels()), forecast.values) > 1e-2);
    std::string rows = config;
    rows.replace(rows.find("\"d_model_first\""), 15, "\"rows\"");
    CHECK(test::max_mixed_error(forecast_with(dir, rows, generic_kernels()), forecast.values) > 1e-2);
}

TEST_CASE("official PatchTST quantized: f16 and int8 stay close to its forward on every port") {
    const std::string dir = test::fixture_path(kCase);
    const tools::Table forecast = tools::read_csv(dir + "/forecast.csv");
    const tools::Table history = tools::read_csv(dir + "/history.csv");
    for (const auto& dtype_bound : {std::pair{format::DType::f16, 2e-3}, std::pair{format::DType::i8, 6e-2}}) {
        const format::DType dtype = dtype_bound.first;
        const double bound = dtype_bound.second;
        for (const Kernels* k : test::available_ports()) {
            INFO("dtype " << static_cast<int>(dtype) << " port " << std::string(k->name));
            const std::vector<float> got = forecast_with(dir, "", *k, dtype);
            // Per column: RevIN puts each column back at its own scale.
            for (size_t c = 0; c < forecast.cols; ++c) {
                double scale = 0, worst = 0;
                for (size_t r = 0; r < history.rows; ++r) scale = std::fmax(scale, std::fabs(history.at(r, c)));
                for (size_t r = 0; r < forecast.rows; ++r)
                    worst = std::fmax(worst, std::fabs(got[r * forecast.cols + c] - forecast.at(r, c)));
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
