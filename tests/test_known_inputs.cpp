// Forecasters whose decoder reads inputs known ahead beside the target (a planned setpoint, a calendar
// feature), against their author's inference loop (tests/fixtures/gen_known_future_fixtures.py): the
// runtime's `future` rows, the CLI's --future file matched by timestamp and its calendar columns computed
// from the time column, the C API, and what is refused.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "ports/ports.h"
#include "runtime/api/auspex.h"
#include "tests/cli_support.h"
#include "tests/family_support.h"
#include "tests/test_support.h"
#include "tests/tolerances.h"
#include "tools/common/aligned_buffer.h"
#include "tools/common/tool_error.h"
#include "tools/host/calendar.h"
#include "tools/host/host_session.h"
#include "tools/host/model_loader.h"
#include "tools/text/csv.h"

namespace {

using namespace ax;

const std::string kCase = "forecaster_known/calendar_setpoint";

struct KnownCase {
    std::string dir;
    tools::Table history, future, forecast;
    std::vector<float> window;      // history with its hour_of_day column, as the model reads it
    std::vector<float> known_rows;  // the forecast's steps as `future` rows: setpoint and hour_of_day
};

float hour_of_day(const std::string& time) {
    tools::TimePoint p;
    REQUIRE(tools::time_point(time, false, p));
    return tools::calendar_value("hour_of_day", p);
}

KnownCase load() {
    KnownCase c;
    c.dir = test::fixture_path(kCase);
    c.history = tools::read_csv(c.dir + "/history.csv");
    c.future = tools::read_csv(c.dir + "/future.csv");
    c.forecast = tools::read_csv(c.dir + "/forecast.csv");
    for (size_t r = 0; r < c.history.rows; ++r) {
        for (size_t i = 0; i < 3; ++i) c.window.push_back(c.history.at(r, i));
        c.window.push_back(hour_of_day(c.history.times[r]));
    }
    // future.csv starts three rows before the forecast's first step.
    for (size_t t = 0; t + 1 < c.forecast.rows; ++t) {
        const size_t r = t + 3;
        c.known_rows.insert(c.known_rows.end(), {std::numeric_limits<float>::quiet_NaN(), 0.0f, c.future.at(r, 0),
                                                 hour_of_day(c.future.times[r])});
    }
    return c;
}

}  // namespace

TEST_CASE("calendar features: the Time-Series-Library's scaling, pandas' fields, ISO weeks") {
    // pandas: 2026-03-01 05:00 is a Sunday (dayofweek 6), day of year 60, ISO week 9; 2024-12-30 is in ISO week 1
    // (of 2025); 2021-01-03 in week 53 (of 2020); 2024-02-29 is day 60 of a leap year.
    auto at = [](const std::string& name, const std::string& time) {
        tools::TimePoint p;
        REQUIRE(tools::time_point(time, false, p));
        return tools::calendar_value(name, p);
    };
    CHECK(at("hour_of_day", "2026-03-01T05:00") == doctest::Approx(5.0 / 23.0 - 0.5));
    CHECK(at("day_of_week", "2026-03-01T05:00") == doctest::Approx(0.5));
    CHECK(at("day_of_year", "2026-03-01T05:00") == doctest::Approx(59.0 / 365.0 - 0.5));
    CHECK(at("week_of_year", "2026-03-01T05:00") == doctest::Approx(8.0 / 52.0 - 0.5));
    CHECK(at("month_of_year", "2026-03-01T05:00") == doctest::Approx(2.0 / 11.0 - 0.5));
    CHECK(at("day_of_month", "2026-03-01T05:00") == doctest::Approx(-0.5));
    CHECK(at("weekday", "2024-12-30T23:00") == 0.0f);
    CHECK(at("week_of_year", "2024-12-30T23:00") == doctest::Approx(-0.5));
    CHECK(at("week_of_year", "2021-01-03T00:00") == doctest::Approx(0.5));
    CHECK(at("dayofyear", "2024-02-29T12:30") == 60.0f);
    CHECK(at("minute", "2024-02-29T12:30") == 30.0f);
    CHECK(at("hour_cos", "2024-02-29T12:30") == doctest::Approx(-1.0));
    CHECK(at("month", "1969-12-31T23:59") == 12.0f);   // before the epoch
    CHECK(at("weekday", "1969-12-31T23:59") == 2.0f);  // a Wednesday
    tools::TimePoint number;
    REQUIRE(tools::time_point("17", false, number));
    CHECK_THROWS_AS(tools::calendar_value("hour_of_day", number), tools::ToolError);
}

TEST_CASE("known-future inputs: the forecast with each step's plan and hour matches the author's loop") {
    const KnownCase c = load();
    const auto model = tools::load_model_bytes(test::convert_case(c.dir), "known");
    const ForecasterConfig& cfg = model->as<Forecaster>().config();
    CHECK(cfg.known_inputs == 2);
    CHECK(cfg.decoder_features == 3);
    const size_t horizon = c.forecast.rows;
    for (const Kernels* k : test::available_ports()) {
        INFO("port " << std::string(k->name));
        tools::HostSession s(*model, *k, c.history.rows, horizon);
        const std::vector<float> fc =
            s.forecast(c.window.data(), c.history.rows, horizon, c.known_rows.data(), horizon - 1);
        test::check_close(fc, c.forecast.values, test::tolerance::forecaster, "forecast");
        test::check_close(
            s.forecast_recompute(c.window.data(), c.history.rows, horizon, c.known_rows.data(), horizon - 1), fc, 1e-5,
            "recomputed");
    }
    // Without the plan, or with NaN in it, the runtime refuses; a one-step forecast needs none.
    ForecastSession& session = *new ForecastSession;  // lives as long as the arena below
    tools::AlignedBuffer arena(model->as<Forecaster>().arena_bytes(c.history.rows, horizon));
    REQUIRE(
        session.init(model->as<Forecaster>(), generic_kernels(), arena.data(), arena.size(), c.history.rows, horizon)
            .is_ok());
    std::vector<float> out(horizon);
    CHECK(session.forecast(c.window.data(), c.history.rows, horizon, out.data()).code() ==
          StatusCode::invalid_argument);
    CHECK(session.forecast(c.window.data(), c.history.rows, horizon, out.data(), c.known_rows.data(), horizon - 2)
              .code() == StatusCode::invalid_argument);
    std::vector<float> bad = c.known_rows;
    bad[4 * 5 + 2] = std::nanf("");
    CHECK(session.forecast(c.window.data(), c.history.rows, horizon, out.data(), bad.data(), horizon - 1).code() ==
          StatusCode::bad_input);
    CHECK(session.forecast(c.window.data(), c.history.rows, 1, out.data()).is_ok());
    CHECK(out[0] == doctest::Approx(c.forecast.values[0]).epsilon(1e-4));
    delete &session;
}

TEST_CASE("known-future inputs through the C API") {
    const KnownCase c = load();
    const tools::AlignedBuffer bytes(test::convert_case(c.dir));
    static auspex_forecaster fc;
    REQUIRE(auspex_open(&fc, bytes.data(), bytes.size(), 1) == AUSPEX_OK);
    CHECK(auspex_known_inputs(&fc) == 2);
    const size_t horizon = c.forecast.rows;
    tools::AlignedBuffer arena(auspex_arena_bytes(&fc, c.history.rows, horizon));
    REQUIRE(auspex_session_init(&fc, arena.data(), arena.size(), c.history.rows, horizon) == AUSPEX_OK);
    std::vector<float> out(horizon);
    CHECK(auspex_forecast(&fc, c.window.data(), c.history.rows, horizon, out.data()) == AUSPEX_INVALID_ARGUMENT);
    REQUIRE(auspex_forecast_known(&fc, c.window.data(), c.history.rows, c.known_rows.data(), horizon - 1, horizon,
                                  out.data()) == AUSPEX_OK);
    test::check_close(out, c.forecast.values, test::tolerance::forecaster, "C API");
}

TEST_CASE("forecast --future: the plan matched by timestamp, the hour computed from the time column") {
    const KnownCase c = load();
    const std::string model = test::converted_fixture(kCase, "known.axm");
    const std::string out = (test::scratch_dir() / "known_forecast.csv").string();
    const test::Result r = test::auspex("forecast " + model + " --input " + c.dir +
                                        "/history.csv --horizon 12 --future " + c.dir + "/future.csv -o " + out);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    const tools::Table got = tools::read_csv(out);
    test::check_close(got.values, c.forecast.values, test::tolerance::forecaster, "forecast --future");
    CHECK(got.times.front() == "2026-03-13T12:00");  // the hour after the history's last

    test::check_error(test::auspex("forecast " + model + " --input " + c.dir + "/history.csv --horizon 12"), 1,
                      "the model's decoder reads \"setpoint\", which it does not predict");
    // A plan that stops early names the first step it lacks.
    std::string text = test::read_file(c.dir + "/future.csv");
    const std::vector<std::string> lines = test::lines_of(c.dir + "/future.csv");
    std::string shorter;
    for (size_t i = 0; i < 10; ++i) shorter += lines[i] + "\n";
    const std::string short_path = test::write_file("known_short_future.csv", shorter);
    test::check_error(
        test::auspex("forecast " + model + " --input " + c.dir + "/history.csv --horizon 12 --future " + short_path), 1,
        "has no row for 2026-03-13T18:00, forecast step 7");
    // Without timestamps the hour cannot be computed.
    std::string untimed;
    for (const std::string& line : test::lines_of(c.dir + "/history.csv"))
        untimed += line.substr(line.find(',') + 1) + "\n";
    const std::string untimed_path = test::write_file("known_untimed.csv", untimed);
    test::check_error(test::auspex("forecast " + model + " --input " + untimed_path + " --horizon 12 --future " +
                                   c.dir + "/future.csv"),
                      1, "has no time column: the model computes its calendar features from it");
}

TEST_CASE("decoder columns: the config names them, and a count or name the checkpoint contradicts is refused") {
    const std::string dir = test::fixture_path(kCase);
    const std::string checkpoint = dir + "/model.pt";
    auto convert_with = [&](const std::string& config) {
        return test::auspex("convert " + checkpoint + " --config " + test::write_file("known_config.json", config) +
                            " -o " + (test::scratch_dir() / "known_refused.axm").string());
    };
    const std::string base = R"("arch": "forecaster", "nhead": 4, "memory_mask": "tril",
        "decoder_positional_encoding": "none", "features": ["load", "temperature", "setpoint", "hour_of_day"],
        "outputs": ["load"])";
    test::check_error(convert_with("{" + base + "}"), 1, "name the decoder's columns with \"decoder_features\"");
    test::check_error(convert_with("{" + base + R"(, "decoder_features": ["load", "setpoint"]})"), 1,
                      "config \"decoder_features\" names 2 columns, but the decoder's input Linear");
    test::check_error(convert_with("{" + base + R"(, "decoder_features": ["load", "setpoint", "hour"]})"), 1,
                      "config \"decoder_features\" names \"hour\", which is not one of \"features\"");
    test::check_error(
        convert_with(
            "{" + base +
            R"(, "decoder_features": ["load", "setpoint", "hour_of_day"], "calendar": {"hour_of_day": "hours"}})"),
        1, "config \"calendar\": \"hour_of_day\": \"hours\" is not a calendar feature");
}

TEST_CASE("known-future inputs quantized: f16 and int8 stay close to the author's loop on every port") {
    const KnownCase c = load();
    const size_t horizon = c.forecast.rows;
    // Quantization error follows the activations, whose scale is the inputs': bounded against the load
    // column of the history (this forecast happens to sit near zero, an order below the series' scale).
    double scale = 0;
    for (size_t r = 0; r < c.history.rows; ++r) scale += double{c.history.at(r, 0)} * c.history.at(r, 0);
    scale = std::sqrt(scale / static_cast<double>(c.history.rows));
    for (const auto& dtype_bound : {std::pair{format::DType::f16, 2e-3}, std::pair{format::DType::i8, 6e-2}}) {
        const format::DType dtype = dtype_bound.first;
        const double bound = dtype_bound.second;
        const auto model = tools::load_model_bytes(test::convert_case(c.dir, dtype), "known");
        for (const Kernels* k : test::available_ports()) {
            INFO("dtype " << static_cast<int>(dtype) << " port " << std::string(k->name));
            tools::HostSession s(*model, *k, c.history.rows, horizon);
            const std::vector<float> got =
                s.forecast(c.window.data(), c.history.rows, horizon, c.known_rows.data(), horizon - 1);
            double worst = 0;
            for (size_t i = 0; i < got.size(); ++i) worst = std::fmax(worst, std::fabs(got[i] - c.forecast.values[i]));
            CHECK(worst <= bound * scale);
        }
    }
}

TEST_CASE("verify --against on a model with inputs known ahead: plans from the rows after each window") {
    const std::string dir = test::fixture_path(kCase);
    const std::string f32 = test::converted_fixture(kCase, "known.axm");
    const std::string i8 = test::converted_fixture(kCase, "known_i8.axm", "--dtype int8");
    const test::Result r = test::auspex("verify " + i8 + " --against " + f32 + " --input " + dir +
                                        "/data.csv --window 24 --horizon 12 --stride 6");
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    CHECK(r.output.find("teacher-forced outputs") != std::string::npos);
    CHECK(r.output.find("forecasts (") != std::string::npos);
    CHECK(r.output.find("  load ") != std::string::npos);  // the output named by "outputs", not a feature's place
}

TEST_CASE("run: tgt holds the decoder's own columns, picked by name; calendar columns computed from times") {
    // The covariate tutorial's forward(src, tgt): src the three features, tgt the target only.
    const std::string dir = test::fixture_path("forecaster_covariates/tutorial");
    const std::string model = test::converted_fixture("forecaster_covariates/tutorial", "cov_tutorial.axm");
    const std::string out = (test::scratch_dir() / "cov_run.csv").string();
    const test::Result r =
        test::auspex("run " + model + " --src " + dir + "/check_src.csv --tgt " + dir + "/check_tgt.csv -o " + out);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    test::check_close(tools::read_csv(out).values, tools::read_csv(dir + "/check_out.csv").values,
                      test::tolerance::forecaster, "run");
    // The same with every feature in tgt: the decoder's column is picked, the others noted.
    const test::Result all =
        test::auspex("run " + model + " --src " + dir + "/check_src.csv --tgt " + dir + "/check_src.csv -o " + out);
    CHECK(all.exit_code == 0);
    CHECK(all.output.find("ignoring column(s) temperature, humidity") != std::string::npos);

    // The calendar model's teacher-forced pass over its history: the hour computed for src and tgt rows is
    // the one its forecast uses (the first output row is the forecast's first step from row 0's window).
    const KnownCase c = load();
    const std::string known = test::converted_fixture(kCase, "known.axm");
    const test::Result k =
        test::auspex("run " + known + " --src " + c.dir + "/history.csv --tgt " + c.dir + "/history.csv -o " + out);
    INFO(k.output);
    REQUIRE(k.exit_code == 0);
    const auto loaded = tools::load_model(known);
    tools::HostSession s(*loaded, generic_kernels(), c.history.rows, c.history.rows);
    std::vector<float> tgt;
    for (size_t r = 0; r < c.history.rows; ++r)
        tgt.insert(tgt.end(), {c.window[r * 4], c.window[r * 4 + 2], c.window[r * 4 + 3]});
    const std::vector<float> want = s.run(c.window.data(), c.history.rows, tgt.data(), c.history.rows, InputSpace::raw);
    test::check_close(tools::read_csv(out).values, want, 1e-6, "run with computed hours");
}
