// Static calibration (convert --calib): every weight matrix gets the largest |input| the float32 model fed
// it over forecasts of the calibration data; the ranges are stored, validated and change no result.
#include <doctest/doctest.h>

#include <cmath>

#include "ports/ports.h"
#include "tests/test_support.h"
#include "tools/convert/calibrate.h"
#include "tools/checkpoint/checkpoint.h"
#include "tools/import/convert_config.h"
#include "tools/convert/converter.h"
#include "tools/text/csv.h"
#include "tools/import/forecaster_import.h"
#include "tools/host/host_session.h"
#include "tools/common/tool_error.h"

namespace {

using namespace ax;

tools::AxmModel fixture_model(const std::string& name) {
    const std::string dir = test::fixture_path("forecaster/" + name);
    return tools::import_forecaster(tools::read_checkpoint(dir + "/model.pt"),
                                    tools::read_convert_config(dir + "/config.json"));
}

}  // namespace

TEST_CASE("calibration records every matrix's input range; the source embedding's is the data's max |x|") {
    // post_relu_tril has no input normalization, so embedding_src multiplies the raw rows of each window.
    const tools::Table data = tools::read_csv(test::fixture_path("forecaster/post_relu_tril/history.csv"));
    tools::AxmModel model = fixture_model("post_relu_tril");
    const tools::CalibrationOptions options{12, 5};
    const size_t windows = tools::calibrate(model, data, options);
    CHECK(windows == (data.rows - 12) / 5 + 1);

    // Rows the windows (starting 0, 5, 10, ...) cover, computed from the CSV alone.
    float want = 0.0f;
    const size_t last_row = (windows - 1) * 5 + 12;
    for (size_t r = 0; r < last_row; ++r) want = std::fmax(want, std::fabs(data.at(r, 0)));
    size_t matrices = 0;
    for (const tools::AxmTensor& t : model.tensors) {
        INFO("role " << format::role_name(t.role) << " layer " << t.layer);
        if (t.dims.size() != 2) {
            CHECK(t.input_absmax == 0.0f);
            continue;
        }
        ++matrices;
        CHECK(std::isfinite(t.input_absmax));
        CHECK(t.input_absmax > 0.0f);
        if (t.role == format::Role::src_embed_weight) CHECK(t.input_absmax == want);
    }
    CHECK(matrices > 10);
}

TEST_CASE("a calibrated model stores its ranges and forecasts exactly as an uncalibrated one") {
    const std::string dir = test::fixture_path("forecaster/norm_last_value");
    for (const format::DType dtype : {format::DType::f32, format::DType::i8}) {
        tools::ConvertOptions plain;
        plain.checkpoint_path = dir + "/model.pt";
        plain.config_path = dir + "/config.json";
        plain.dtype = dtype;
        tools::ConvertOptions calibrated = plain;
        calibrated.calib_path = dir + "/history.csv";
        calibrated.calib_window = 16;
        calibrated.calib_horizon = 4;
        const auto a = tools::load_model_bytes(tools::convert_model(plain), "plain");
        const auto b = tools::load_model_bytes(tools::convert_model(calibrated), "calibrated");
        size_t ranges = 0;
        for (uint32_t i = 0; i < b->file.tensor_count(); ++i) ranges += b->file.tensor(i).input_absmax > 0.0f;
        CHECK(ranges > 0);
        const tools::Table history = tools::read_csv(dir + "/history.csv");
        tools::HostSession sa(*a, best_kernels(), history.rows, 8), sb(*b, best_kernels(), history.rows, 8);
        CHECK(sa.forecast(history.values.data(), history.rows, 8) ==
              sb.forecast(history.values.data(), history.rows, 8));
    }
}

TEST_CASE("calibration refuses data that does not fit the model") {
    tools::Table data;
    data.rows = 20;
    data.cols = 4;
    data.values.assign(80, 0.5f);
    // 4 features, 2 outputs: the decoder's other two columns are known ahead, read from the rows after each
    // window (20 rows: windows at 0, 4 and 8 leave the 3 rows a 4-step forecast reads after them).
    tools::AxmModel model = fixture_model("multi_out");
    CHECK(tools::calibrate(model, data, {8, 4}) == 3);
    tools::AxmModel one = fixture_model("post_relu_tril");
    CHECK_THROWS_WITH_AS(tools::calibrate(one, data, {8, 4}), doctest::Contains("4 columns, the model reads 1"),
                         tools::ToolError);
}
