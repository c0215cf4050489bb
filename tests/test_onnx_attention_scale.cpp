// convert MODEL.onnx: attention written by hand with its scores scaled otherwise than by 1/sqrt(head_dim)
// (1/sqrt(d_model), no scale, a learned temperature) converts with the scale folded into the query projection,
// reproduces PyTorch's forward and forecasts as the author's sliding loop (tests/fixtures/gen_onnx_scale_fixtures.py).
#include <doctest/doctest.h>

#include <string>

#include "tests/cli_support.h"
#include "tests/test_support.h"
#include "tools/text/csv.h"

using namespace ax;

namespace {

std::string scaled(const std::string& c, const std::string& f) {
    return test::fixture_path("onnx_scaled/" + c + "/" + f);
}

// Forecasts the case's history.csv with `model` and returns the largest difference from PyTorch's loop.
double forecast_error(const std::string& c, const std::string& model) {
    const std::string out = (test::scratch_dir() / ("onnx_scaled_" + c + "_forecast.csv")).string();
    const test::Result r =
        test::auspex("forecast " + model + " --input " + scaled(c, "history.csv") + " --horizon 6 -o " + out);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    const tools::Table got = tools::read_csv(out), want = tools::read_csv(scaled(c, "forecast.csv"));
    CHECK(got.header == want.header);
    return test::max_abs_error(got.values, want.values);
}

}  // namespace

TEST_CASE("onnx convert: attention scaled otherwise than by 1/sqrt(head_dim) folds the scale into its queries") {
    for (const char* name : {"scale_d_model", "scale_none", "scale_learned"}) {
        const std::string c = name;
        CAPTURE(c);
        const std::string model = (test::scratch_dir() / ("onnx_scaled_" + c + ".axm")).string();
        test::Result r = test::auspex("convert " + scaled(c, "model.onnx") + " --config " + scaled(c, "config.json") +
                                      " --check-input " + scaled(c, "src.csv") + " --check-output " +
                                      scaled(c, "run_out.csv") + " -o " + model);
        INFO(r.output);
        REQUIRE(r.exit_code == 0);
        CHECK(r.output.find("proof: the lowered model reproduces the ONNX graph") != std::string::npos);
        CHECK(r.output.find("check: the conversion matches PyTorch") != std::string::npos);
        const double diff = forecast_error(c, model);
        MESSAGE(c << ": forecast vs the author's loop in PyTorch, max difference " << diff);
        CHECK(diff < 1e-5);
    }
    // The folded queries quantize like any other weight: int8 stays near PyTorch's loop.
    const std::string q = (test::scratch_dir() / "onnx_scaled_int8.axm").string();
    const test::Result r = test::auspex("convert " + scaled("scale_none", "model.onnx") + " --config " +
                                        scaled("scale_none", "config.json") + " --dtype int8 -o " + q);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    const double diff = forecast_error("scale_none", q);
    MESSAGE("int8 forecast of scale_none vs PyTorch's loop: max difference " << diff);
    CHECK(diff < 0.05);
}
