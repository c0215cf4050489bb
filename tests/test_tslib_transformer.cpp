// The Time-Series-Library's vanilla Transformer (tests/fixtures/gen_tslib_fixtures.py, in that library's
// style) through its shipped rename map, against its experiment's inference: the circular Conv1d token
// embedding and the time-feature embedding folded into one input Linear (token_conv), separate q/k/v
// projections, Conv1d feed-forwards, the decoder run once over label_len observed rows and zero rows whose
// time features are known ahead.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "ports/ports.h"
#include "tests/cli_support.h"
#include "tests/family_support.h"
#include "tests/test_support.h"
#include "tests/tolerances.h"
#include "tools/host/calendar.h"
#include "tools/host/host_session.h"
#include "tools/host/model_loader.h"
#include "tools/text/csv.h"
#include "tools/text/csv_time.h"

namespace {

using namespace ax;

const std::string kCase = "forecaster_tslib/transformer_timef";
const char* const kMarks[] = {"hour_of_day", "day_of_week", "day_of_month", "day_of_year"};

std::string map_path() { return std::string(AUSPEX_SOURCE_DIR) + "/tools/import/maps/tslib_transformer.map"; }

// Rows of the values followed by the time features of each timestamp, as the model reads them.
std::vector<float> with_marks(const tools::Table& values, const std::vector<std::string>& times) {
    std::vector<float> rows;
    for (size_t r = 0; r < times.size(); ++r) {
        for (size_t i = 0; i < values.cols; ++i) rows.push_back(r < values.rows ? values.at(r, i) : 0.0f);
        tools::TimePoint p;
        REQUIRE(tools::time_point(times[r], false, p));
        for (const char* m : kMarks) rows.push_back(tools::calendar_value(m, p));
    }
    return rows;
}

struct TslibCase {
    std::string dir;
    tools::Table history, forecast;
    std::vector<float> window, future;
};

TslibCase load() {
    TslibCase c;
    c.dir = test::fixture_path(kCase);
    c.history = tools::read_csv(c.dir + "/history.csv");
    c.forecast = tools::read_csv(c.dir + "/forecast.csv");
    c.window = with_marks(c.history, c.history.times);
    const tools::NextTimes next = tools::next_times(c.history.times, c.forecast.rows, false);
    REQUIRE(next.regular);
    tools::Table none;
    none.cols = c.history.cols;
    c.future = with_marks(none, next.times);
    return c;
}

std::vector<uint8_t> convert(const std::string& dir, format::DType dtype = format::DType::f32) {
    return test::convert_case(dir, dtype, format::CacheType::f32, "model.pt", map_path());
}

}  // namespace

TEST_CASE("TSLib Transformer: token_conv, time features known ahead, one pass, as its experiment forecasts") {
    const TslibCase c = load();
    const auto model = tools::load_model_bytes(convert(c.dir), "tslib");
    const ForecasterConfig& cfg = model->as<Forecaster>().config();
    CHECK(cfg.input.token_conv());
    CHECK(cfg.time_marks == 4);
    CHECK(cfg.known_inputs == 4);
    CHECK(model->as<Forecaster>().future_rows(c.forecast.rows) == c.forecast.rows);
    for (const Kernels* k : test::available_ports()) {
        INFO("port " << std::string(k->name));
        tools::HostSession s(*model, *k, c.history.rows, c.forecast.rows);
        test::check_close(
            s.forecast(c.window.data(), c.history.rows, c.forecast.rows, c.future.data(), c.forecast.rows),
            c.forecast.values, test::tolerance::forecaster, "forecast");
    }
    // The circular convolution wraps around the decoder's last row: a shorter run of placeholders would change
    // every step, so only the trained horizon is PyTorch's forward.
    tools::HostSession shorter(*model, generic_kernels(), c.history.rows, c.forecast.rows);
    CHECK_THROWS_WITH(shorter.forecast(c.window.data(), c.history.rows, 3, c.future.data(), 3),
                      doctest::Contains("runs its trained horizon of 6 steps only"));
    // Without the time marks of the forecast's steps the runtime refuses.
    tools::HostSession s(*model, generic_kernels(), c.history.rows, c.forecast.rows);
    CHECK_THROWS(s.forecast(c.window.data(), c.history.rows, c.forecast.rows));
}

TEST_CASE("TSLib Transformer quantized: f16 and int8 stay close to PyTorch on every port") {
    const TslibCase c = load();
    double scale = 0;
    for (float v : c.history.values) scale += double{v} * v;
    scale = std::sqrt(scale / static_cast<double>(c.history.values.size()));
    for (const auto& dtype_bound : {std::pair{format::DType::f16, 2e-3}, std::pair{format::DType::i8, 6e-2}}) {
        const format::DType dtype = dtype_bound.first;
        const double bound = dtype_bound.second;
        const auto model = tools::load_model_bytes(convert(c.dir, dtype), "tslib");
        for (const Kernels* k : test::available_ports()) {
            INFO("dtype " << static_cast<int>(dtype) << " port " << std::string(k->name));
            tools::HostSession s(*model, *k, c.history.rows, c.forecast.rows);
            const std::vector<float> got =
                s.forecast(c.window.data(), c.history.rows, c.forecast.rows, c.future.data(), c.forecast.rows);
            const double worst = test::max_abs_error(got, c.forecast.values);
            CHECK(worst <= bound * scale);
        }
    }
}

TEST_CASE("TSLib Transformer from the CLI: time features computed from the timestamps, the arena exact") {
    const TslibCase c = load();
    const std::string model = test::converted_fixture(kCase, "tslib.axm", "--map " + map_path());
    const std::string out = (test::scratch_dir() / "tslib_forecast.csv").string();
    const test::Result r =
        test::auspex("forecast " + model + " --input " + c.dir + "/history.csv --horizon 6 -o " + out);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    const tools::Table got = tools::read_csv(out);
    CHECK(got.header == c.forecast.header);
    CHECK(got.times.front() == "2026-03-12 08:00:00");
    test::check_close(got.values, c.forecast.values, test::tolerance::forecaster, "forecast");
    test::check_error(test::auspex("forecast " + model + " --input " + c.dir + "/history.csv --horizon 3"), 1,
                      "only its trained horizon (6) is its forward");
    const std::string header = (test::scratch_dir() / "tslib_model.h").string();
    REQUIRE(test::auspex("header " + model + " -o " + header + " --name tsl").exit_code == 0);
    CHECK(test::read_file(header).find("#define TSL_KNOWN_INPUTS 4 /* input columns known ahead") != std::string::npos);
    const test::Result inspect = test::auspex("inspect " + model);
    CHECK(inspect.output.find("input_embedding token_conv") != std::string::npos);
    CHECK(inspect.output.find("the last 4 input column(s) are time marks, known ahead") != std::string::npos);
    // The embedding convolves whole sequences: a step-by-step decoder cannot run it.
    const std::string config = test::read_file(c.dir + "/config.json");
    std::string step = config;
    step.replace(step.find("\"one_pass\""), 10, "\"autoregressive\"");
    test::check_error(test::auspex("convert " + c.dir + "/model.pt --map " + map_path() + " --config " +
                                   test::write_file("tslib_step.json", step) + " -o " +
                                   (test::scratch_dir() / "tslib_step.axm").string()),
                      1, "the Time-Series-Library's token convolution reads whole sequences");
}
