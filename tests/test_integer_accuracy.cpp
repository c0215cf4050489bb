// The integer-only mode on two real series besides the bundled example (tests/fixtures/integer_accuracy/,
// written by its make_fixtures.py): a small forecaster trained with PyTorch on the first part of each
// series, forecasts from held-out windows in the second part. The integer mode, calibrated on the training
// part only, must forecast within 3% of the float32 model's mean absolute error; the float32 conversion must
// give PyTorch's forecasts, so the float32 MAE is PyTorch's.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "ports/ports.h"
#include "tests/test_support.h"
#include "tests/tolerances.h"
#include "tools/convert/converter.h"
#include "tools/host/host_session.h"
#include "tools/host/integer_host_session.h"
#include "tools/text/csv.h"

namespace {

using namespace ax;

struct Accuracy {
    double float_mae = 0;    // PyTorch's forecasts (float_forecast.csv)
    double integer_mae = 0;  // the integer-only conversion's
    size_t forecasts = 0;
};

Accuracy measure(const std::string& name) {
    const std::string dir = test::fixture_path("integer_accuracy/" + name);
    const tools::Table series = tools::read_csv(dir + "/series.csv");
    const tools::Table origins = tools::read_csv(dir + "/origins.csv");
    const tools::Table torch_fc = tools::read_csv(dir + "/float_forecast.csv");
    tools::ConvertOptions o;
    o.checkpoint_path = dir + "/model.pt";
    o.config_path = dir + "/config.json";
    o.dtype = format::DType::f32;
    const auto f32 = tools::load_model_bytes(tools::convert_model(o), name + " f32");
    o.dtype = format::DType::i8;
    o.integer_only = true;
    o.calib_path = dir + "/calib.csv";
    const auto q = tools::load_model_bytes(tools::convert_model(o), name + " integer");

    const size_t window = f32->as<Forecaster>().config().window;
    const size_t horizon = torch_fc.rows / origins.rows;
    REQUIRE(window > 0);
    REQUIRE(horizon * origins.rows == torch_fc.rows);
    tools::HostSession float_session(*f32, generic_kernels(), window, horizon);
    tools::IntegerHostSession integer(*q, window, horizon);
    Accuracy a;
    std::vector<float> got(horizon);
    for (size_t k = 0; k < origins.rows; ++k) {
        const size_t origin = static_cast<size_t>(origins.values[k]);
        REQUIRE(origin >= window);
        REQUIRE(origin + horizon <= series.rows);
        const float* history = series.values.data() + origin - window;
        const float* truth = series.values.data() + origin;
        const float* want = torch_fc.values.data() + k * horizon;
        const std::vector<float> f = float_session.forecast(history, window, horizon);
        test::check_close(f, std::vector<float>(want, want + horizon), test::tolerance::forecaster,
                          "float32 conversion against PyTorch");
        REQUIRE(integer.session.forecast(history, window, horizon, got.data()));
        for (size_t t = 0; t < horizon; ++t) {
            a.float_mae += std::fabs(static_cast<double>(want[t]) - truth[t]);
            a.integer_mae += std::fabs(static_cast<double>(got[t]) - truth[t]);
        }
        a.forecasts += 1;
    }
    a.float_mae /= static_cast<double>(a.forecasts * horizon);
    a.integer_mae /= static_cast<double>(a.forecasts * horizon);
    std::printf(
        "integer-only accuracy, %s: %zu held-out forecasts of %zu steps, MAE float32 (PyTorch) %.4f, "
        "integer-only %.4f (%+.1f%%)\n",
        name.c_str(), a.forecasts, horizon, a.float_mae, a.integer_mae, 100.0 * (a.integer_mae / a.float_mae - 1.0));
    return a;
}

}  // namespace

TEST_CASE("integer-only accuracy on real series: held-out MAE within 3% of the float32 model's") {
    for (const char* name : {"sunspots", "elnino"}) {
        INFO("series " << std::string(name));
        const Accuracy a = measure(name);
        CHECK(a.forecasts > 10);
        CHECK(a.integer_mae <= 1.03 * a.float_mae);
    }
}
