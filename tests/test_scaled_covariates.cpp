// The usual building-load forecaster (tests/fixtures/gen_scaled_covariate_fixtures.py): load, temperature, an
// occupancy plan and the hour as sin/cos in, load out. z-scored by a StandardScaler over every input column,
// its normalization is stated in the config and the forecast in raw kW must be the user's own loop's; trained
// on raw units, its int8 forecast must stay near its float32 one (the input embeddings and first attention
// in-projections stay float32).
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "api/auspex.h"
#include "models/forecaster/forecaster_integer.h"
#include "ports/ports.h"
#include "tests/cli_support.h"
#include "tests/family_support.h"
#include "tests/scaled_covariate_case.h"
#include "tests/test_support.h"
#include "tests/tolerances.h"
#include "tools/common/aligned_buffer.h"
#include "tools/common/tool_error.h"
#include "tools/convert/input_magnitudes.h"
#include "tools/host/host_session.h"
#include "tools/host/model_loader.h"
#include "tools/text/csv.h"

namespace {

using namespace ax;

using test::ScaledCase;
const std::string kZscored = "forecaster_scaled/zscored";
const std::string kRaw = "forecaster_scaled/raw";

double max_abs(const std::vector<float>& v) {
    double m = 0;
    for (float x : v) m = std::max(m, std::fabs(double{x}));
    return m;
}

}  // namespace

TEST_CASE("normalization per column: a z-scored covariate model forecasts the user's raw kW on every port") {
    const ScaledCase c = test::load_scaled_case(kZscored);
    const auto model = tools::load_model_bytes(test::convert_case(c.dir), "zscored");
    const ForecasterConfig& cfg = model->as<Forecaster>().config();
    REQUIRE(cfg.normalizer.kind == format::Normalization::global);
    CHECK(cfg.n_outputs == 1);
    CHECK(cfg.n_features == 5);
    CHECK(cfg.known_inputs == 3);
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

    // A teacher-forced pass in raw units is the model-units pass of the scaled rows, its output scaled back
    // with the load column's mean and scale: src by every column's, the decoder's rows by their own columns'.
    const Forecaster& f = model->as<Forecaster>();
    const size_t n = cfg.n_features, m = cfg.decoder_features, rows = c.history.rows, tgt_rows = 6;
    std::vector<float> tgt_raw, src_z(c.window.size()), tgt_z;
    for (size_t r = rows - tgt_rows; r < rows; ++r)
        for (size_t j = 0; j < m; ++j) tgt_raw.push_back(c.window[r * n + f.decoder_column(j)]);
    for (size_t i = 0; i < src_z.size(); ++i) src_z[i] = (c.window[i] - f.input_mean()[i % n]) / f.input_scale()[i % n];
    for (size_t i = 0; i < tgt_raw.size(); ++i) {
        const size_t column = f.decoder_column(i % m);
        tgt_z.push_back((tgt_raw[i] - f.input_mean()[column]) / f.input_scale()[column]);
    }
    tools::HostSession s(*model, generic_kernels(), rows, tgt_rows);
    const std::vector<float> raw = s.run(c.window.data(), rows, tgt_raw.data(), tgt_rows, InputSpace::raw);
    std::vector<float> scaled = s.run(src_z.data(), rows, tgt_z.data(), tgt_rows, InputSpace::model);
    for (float& v : scaled) v = v * f.input_scale()[0] + f.input_mean()[0];
    test::check_close(raw, scaled, 1e-5, "run in raw units");
}

TEST_CASE("forecast --input raw.csv --future plan.csv: a z-scored covariate model's forecast in the user's kW") {
    const ScaledCase c = test::load_scaled_case(kZscored);
    const std::string model = test::converted_fixture(kZscored, "scaled_zscored.axm");
    const std::string out = (test::scratch_dir() / "scaled_forecast.csv").string();
    const test::Result r = test::auspex("forecast " + model + " --input " + c.dir +
                                        "/history.csv --horizon 12 --future " + c.dir + "/future.csv -o " + out);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    test::check_close(tools::read_csv(out).values, c.forecast.values, test::tolerance::forecaster, "forecast --future");
}

TEST_CASE("normalization: one mean and scale per input column, in the order of the features") {
    const std::string dir = test::fixture_path(kZscored);
    std::string config = test::read_file(dir + "/config.json");
    // Drop the last scale value: four for five input columns.
    const size_t scale = config.find("\"scale\"");
    REQUIRE(scale != std::string::npos);
    const size_t last = config.rfind(',', config.find(']', scale));
    config.erase(last, config.find(']', scale) - last);
    const test::Result r =
        test::auspex("convert " + dir + "/model.pt --config " + test::write_file("scaled_short.json", config) + " -o " +
                     (test::scratch_dir() / "scaled_refused.axm").string());
    test::check_error(r, 1, "normalization mean/scale need one value per input column (5, in the order of");
}

TEST_CASE("calibration and the integer-only mode take a covariate model, its plan and calendar known ahead") {
    const ScaledCase c = test::load_scaled_case(kZscored);
    tools::ConvertOptions o;
    o.checkpoint_path = c.dir + "/model.pt";
    o.config_path = c.dir + "/config.json";
    o.dtype = format::DType::i8;
    o.calib_path = c.dir + "/calib.csv";  // 48 rows: windows of 24, forecasts of 12 reading 11 plan rows after
    o.calib_window = 24;
    o.calib_horizon = 12;
    const auto calibrated = tools::load_model_bytes(tools::convert_model(o), "calibrated");
    size_t ranges = 0;
    for (uint32_t i = 0; i < calibrated->file.tensor_count(); ++i)
        ranges += calibrated->file.tensor(i).input_absmax > 0.0f;
    CHECK(ranges > 10);

    // Integer-only: the decoder's rows are the prediction beside the step's plan and hour, in int16 model
    // units. Measured: 0.52 kW from the user's loop at most over a forecast of ~120 kW (0.43%).
    o.integer_only = true;
    const std::vector<uint8_t> bytes = tools::convert_model(o);
    const auto integer = tools::load_model_bytes(bytes, "integer-only");
    REQUIRE(integer->as<Forecaster>().integer_plan() != nullptr);
    const size_t horizon = c.forecast.rows;
    tools::HostSession s(*integer, generic_kernels(), c.history.rows, horizon);
    const std::vector<float> got =
        s.forecast(c.window.data(), c.history.rows, horizon, c.known_rows.data(), horizon - 1);
    CHECK(test::max_abs_error(got, c.forecast.values) <= 1e-2 * max_abs(c.forecast.values));
    // Without the plan it refuses, naming what is missing.
    CHECK_THROWS_WITH_AS(s.forecast(c.window.data(), c.history.rows, horizon), doctest::Contains("known ahead"),
                         tools::ToolError);
    // The C API runs it with the same bits.
    const tools::AlignedBuffer file(bytes);
    static auspex_forecaster fc;
    REQUIRE(auspex_open(&fc, file.data(), file.size(), 1) == AUSPEX_OK);
    tools::AlignedBuffer arena(auspex_arena_bytes(&fc, c.history.rows, horizon));
    REQUIRE(auspex_session_init(&fc, arena.data(), arena.size(), c.history.rows, horizon) == AUSPEX_OK);
    std::vector<float> api(horizon);
    REQUIRE(auspex_forecast_known(&fc, c.window.data(), c.history.rows, c.known_rows.data(), horizon - 1, horizon,
                                  api.data()) == AUSPEX_OK);
    CHECK(std::memcmp(api.data(), got.data(), got.size() * sizeof(float)) == 0);
    // A NaN in the plan is refused as the float modes refuse it, never quantized into the forecast.
    std::vector<float> holed = c.known_rows;
    holed[3 * integer->as<Forecaster>().config().n_features + 2] = std::nanf("");  // row 3's occupancy
    CHECK(auspex_forecast_known(&fc, c.window.data(), c.history.rows, holed.data(), horizon - 1, horizon, api.data()) ==
          AUSPEX_BAD_INPUT);
    CHECK(std::string(auspex_status_message(&fc)).find("future row 3 holds NaN") != std::string::npos);
}

TEST_CASE("the integer-only mode refuses a model with more outputs than input columns, saying what to use") {
    ForecasterConfig c;
    c.stack.decoder_layers = 1;
    c.n_features = 2;
    c.n_outputs = 3;
    c.decoder_features = 2;
    const char* why = integer_mode_unsupported(c);
    REQUIRE(why != nullptr);
    CHECK(std::string(why).find("convert with --dtype int8, without --integer-only") != std::string::npos);
}

TEST_CASE("int8 of a raw-unit covariate model stays within 0.5% of its float32 forecast") {
    // Measured (docs/quantization.md): max |int8 - f32| 3.56 kW when every matrix was int8, 0.26 kW with the
    // input embeddings and the first attention in-projections kept float32, over a forecast of ~120 kW.
    const ScaledCase c = test::load_scaled_case(kRaw);
    const size_t horizon = c.forecast.rows;
    const auto f32 = tools::load_model_bytes(test::convert_case(c.dir), "raw f32");
    // The calibration log shows the columns' magnitudes (load ~100 kW beside hour_sin in [-1, 1]), so int8 keeps
    // the matrices that read them float32; without data it cannot tell, keeps only the embeddings, and says so.
    tools::ConvertOptions o;
    o.checkpoint_path = c.dir + "/model.pt";
    o.config_path = c.dir + "/config.json";
    o.dtype = format::DType::i8;
    std::vector<std::string> blind_notes;
    o.notes = &blind_notes;
    const auto blind = tools::load_model_bytes(tools::convert_model(o), "raw int8 without data");
    bool said = false;
    for (const std::string& n : blind_notes)
        said = said || n.find("convert with --calib DATA.csv or a check pair") != std::string::npos;
    CHECK(said);
    o.calib_path = c.dir + "/calib.csv";
    o.calib_window = 24;
    o.calib_horizon = 12;
    const auto i8 = tools::load_model_bytes(tools::convert_model(o), "raw int8");
    tools::HostSession reference(*f32, generic_kernels(), c.history.rows, horizon);
    const std::vector<float> want =
        reference.forecast(c.window.data(), c.history.rows, horizon, c.known_rows.data(), horizon - 1);
    test::check_close(want, c.forecast.values, test::tolerance::forecaster, "float32 against the user's loop");
    // (How close the ports' int8 forecasts are to each other is held by tests/test_int8_goldens.cpp.)
    for (const Kernels* k : test::available_ports()) {
        INFO("port " << std::string(k->name));
        tools::HostSession s(*i8, *k, c.history.rows, horizon);
        const std::vector<float> got =
            s.forecast(c.window.data(), c.history.rows, horizon, c.known_rows.data(), horizon - 1);
        CHECK(test::max_abs_error(got, want) <= 5e-3 * max_abs(want));
    }
    // The matrices that read the columns as they come stayed float32: the two input embeddings, and with the
    // data the two first in-projections.
    auto kept = [](const tools::LoadedModel& m) {
        size_t n = 0;
        for (uint32_t i = 0; i < m.file.tensor_count(); ++i) {
            const TensorView t = m.file.tensor(i);
            if (t.rank == 2 && t.dtype == format::DType::f32) ++n;
        }
        return n;
    };
    CHECK(kept(*i8) == 4);
    CHECK(kept(*blind) == 2);
}

TEST_CASE("the input columns' magnitudes: a note when one int8 scale would cover columns 10x apart") {
    tools::Table t;
    t.rows = 2;
    t.cols = 3;
    t.values = {120.0f, 21.0f, -1.0f, 95.0f, 18.0f, 0.5f};
    const std::string note = tools::magnitude_spread_note(t, {"load", "temperature", "hour_sin"});
    CHECK(note.find("\"load\" reaches 120, \"hour_sin\" 1") != std::string::npos);
    CHECK(note.find("\"normalization\"") != std::string::npos);
    t.values = {1.2f, 0.3f, -1.0f, 0.9f, 0.2f, 0.5f};
    CHECK(tools::magnitude_spread_note(t, {"load", "temperature", "hour_sin"}).empty());
}
