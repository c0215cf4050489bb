// auspex header --history: the rows a firmware forecasts from, read as `forecast` reads them (a logger's
// timestamps and header), the model's stored window by default, each value the same float32 the host reads;
// --future: the inputs known ahead of the forecast's steps (a plan and calendar columns), each row the one
// `forecast --future` hands the session, compared with the rows the PyTorch fixture's own loop fed its
// decoder (tests/fixtures/gen_known_future_fixtures.py).
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli_support.h"
#include "tests/test_support.h"
#include "tools/text/csv.h"

namespace {

using ax::test::auspex;
using ax::test::check_error;
using ax::test::Result;
using ax::test::scratch_dir;

bool has(const Result& r, const std::string& text) { return r.output.find(text) != std::string::npos; }

// A log of `rows` hourly rows with a timestamp column: the window48 case's history, repeated.
std::string timestamped_log(const std::string& name, size_t rows) {
    const ax::tools::Table h = ax::tools::read_csv(ax::test::fixture_path("forecaster/window48/history.csv"));
    std::string text = "time,value\n";
    for (size_t r = 0; r < rows; ++r) {
        char line[96];
        std::snprintf(line, sizeof line, "2025-06-%02zuT%02zu:00:00,%.9g\n", 1 + r / 24, r % 24,
                      static_cast<double>(h.values[r % h.rows]));
        text += line;
    }
    return ax::test::write_file(name, text);
}

// The float literals of a generated header's array, in order (comments skipped).
std::vector<float> header_values(const std::string& path) {
    const std::string text = ax::test::read_file(path);
    std::vector<float> out;
    std::istringstream in(text.substr(text.find("] = {") + 5));
    for (std::string v; in >> v && v != "};";) {
        if (v == "/*") {
            while (in >> v && v != "*/") {
            }
            continue;
        }
        out.push_back(std::strtof(v.c_str(), nullptr));
    }
    return out;
}

std::string known_dir() { return ax::test::fixture_path("forecaster_known/calendar_setpoint"); }

}  // namespace

TEST_CASE("cli: header --history takes the model's stored window from a timestamped log, as forecast does") {
    const std::string model = ax::test::converted_fixture("forecaster/window48", "hist48.axm");
    const std::string log = timestamped_log("hourly.csv", 200);
    const std::string out = (scratch_dir() / "hist_model.h").string();
    const Result r = auspex("header " + model + " -o " + out + " --history " + log + " --horizon 12");
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    CHECK_MESSAGE(has(r, "hist_model_history.h: hist_model_history[48 x 1], the last 48 rows of " + log +
                             " (the model's training window)"),
                  r.output);
    CHECK(has(r, "for window 48, horizon 12"));
    const std::string text = ax::test::read_file((scratch_dir() / "hist_model_history.h").string());
    CHECK(text.find("#define HIST_MODEL_HISTORY_ROWS 48") != std::string::npos);
    CHECK(text.find("#define HIST_MODEL_HISTORY_COLS 1") != std::string::npos);
    // The last 48 rows, bit for bit as the host's reader has them.
    const ax::tools::Table all = ax::tools::read_csv(log);
    const std::vector<float> want(all.values.end() - 48, all.values.end());
    CHECK(header_values((scratch_dir() / "hist_model_history.h").string()) == want);

    // --window other than the training window: those rows, with the note; names of the user's choosing.
    const std::string h32 = (scratch_dir() / "h32.h").string();
    const Result w = auspex("header " + model + " -o " + (scratch_dir() / "m32.h").string() + " --history " + log +
                            " --window 32 --history-output " + h32 + " --history-name recent");
    REQUIRE_MESSAGE(w.exit_code == 0, w.output);
    CHECK(has(w, "note: --window 32 differs from the 48-row window"));
    CHECK(has(w, "for window 32, horizon 24"));
    CHECK(ax::test::read_file(h32).find("static const float recent[RECENT_ROWS * RECENT_COLS]") != std::string::npos);

    // A log shorter than the window asked for cannot fill the session.
    check_error(
        auspex("header " + model + " -o " + out + " --history " + timestamped_log("short.csv", 20) + " --window 48"), 1,
        "has 20 rows, fewer than --window 48");
    check_error(auspex("header " + model + " -o " + out + " --history-name x"), 2, "go with --history");
}

TEST_CASE("cli: header --future writes a step's plan and calendar columns, matched by timestamp") {
    const std::string model = ax::test::converted_fixture("forecaster_known/calendar_setpoint", "known_header.axm");
    const std::string out = (scratch_dir() / "known_model.h").string();
    const Result r = auspex("header " + model + " -o " + out + " --history " + known_dir() + "/history.csv" +
                            " --future " + known_dir() + "/future.csv --horizon 12");
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    // A step-by-step decoder feeds back 11 of 12 predictions: it reads the known inputs of 11 steps.
    CHECK_MESSAGE(has(r, "known_model_future.h: known_model_future[11 x 4], the known inputs of forecast steps 1..11"),
                  r.output);
    const std::string path = (scratch_dir() / "known_model_future.h").string();
    const std::string text = ax::test::read_file(path);
    CHECK(text.find("#define KNOWN_MODEL_FUTURE_ROWS 11") != std::string::npos);
    CHECK(text.find("#define KNOWN_MODEL_FUTURE_COLS 4") != std::string::npos);
    CHECK(text.find("The model reads: setpoint; hour_of_day (calendar, from the step's timestamp).") !=
          std::string::npos);
    // Each row is stamped with the step it belongs to: the history ends at 11:00, the first step is 12:00
    // (future.csv starts three hours earlier; its rows are taken by timestamp, not in file order).
    CHECK(text.find("/* 2026-03-13T12:00 */") != std::string::npos);

    // The known columns (setpoint, hour_of_day) are PyTorch's rows; the columns the model predicts are 0.
    const ax::tools::Table want = ax::tools::read_csv(known_dir() + "/future_rows.csv");
    const std::vector<float> got = header_values(path);
    REQUIRE(got.size() == 11 * 4);
    for (size_t t = 0; t < 11; ++t) {
        INFO("step " << t + 1);
        CHECK(got[t * 4 + 0] == 0.0f);
        CHECK(got[t * 4 + 1] == 0.0f);
        CHECK(got[t * 4 + 2] == want.at(t, 2));
        CHECK(got[t * 4 + 3] == want.at(t, 3));
    }
    // The history's calendar column is computed from its timestamps too (the CSV has none).
    const ax::tools::Table window = ax::tools::read_csv(known_dir() + "/window.csv");
    const std::vector<float> history = header_values((scratch_dir() / "known_model_history.h").string());
    REQUIRE(history.size() == window.values.size());
    for (size_t i = 0; i < history.size(); ++i) CHECK(history[i] == window.values[i]);
}

TEST_CASE("cli: header --future refuses a plan that misses a step, and goes with --history") {
    const std::string model = ax::test::converted_fixture("forecaster_known/calendar_setpoint", "known_header.axm");
    const std::string out = (scratch_dir() / "known_bad.h").string();
    // The plan's first five rows only (09:00 to 13:00): the forecast's 14:00 step is not in it.
    const ax::tools::Table plan = ax::tools::read_csv(known_dir() + "/future.csv");
    std::string text = "time,setpoint\n";
    for (size_t r = 0; r < 5; ++r) text += plan.times[r] + "," + std::to_string(plan.values[r]) + "\n";
    const std::string short_plan = ax::test::write_file("short_plan.csv", text);
    check_error(auspex("header " + model + " -o " + out + " --history " + known_dir() + "/history.csv --future " +
                       short_plan + " --horizon 12"),
                1, "2026-03-13T14:00");
    check_error(auspex("header " + model + " -o " + out + " --future " + known_dir() + "/future.csv"), 2,
                "go with --history");
    check_error(auspex("header " + model + " -o " + out + " --history " + known_dir() + "/history.csv --future " +
                       known_dir() + "/future.csv --future-name 9x"),
                2, "--future-name must be a C identifier");

    // Without a plan, the history alone is written, with a note that the forecast needs one.
    const Result alone = auspex("header " + model + " -o " + out + " --history " + known_dir() + "/history.csv");
    REQUIRE_MESSAGE(alone.exit_code == 0, alone.output);
    CHECK(has(alone, "note: the model's decoder reads inputs known ahead"));
    CHECK(has(alone, "give --future PLAN.csv"));
}

TEST_CASE("cli: header --future-output for a model reading no input known ahead writes no rows") {
    const std::string model =
        ax::test::converted_fixture("forecaster_onepass/flatten_covariates", "flatten_header.axm");
    const std::string dir = ax::test::fixture_path("forecaster_onepass/flatten_covariates");
    const std::string out = (scratch_dir() / "flat.h").string();
    const Result r = auspex("header " + model + " -o " + out + " --history " + dir + "/history.csv --future-output " +
                            (scratch_dir() / "flat_plan.h").string());
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    CHECK(has(r, "flat_plan.h: flat_future, no rows: the model's decoder reads no input known ahead"));
    const std::string text = ax::test::read_file((scratch_dir() / "flat_plan.h").string());
    CHECK(text.find("#define FLAT_FUTURE_ROWS 0") != std::string::npos);
    CHECK(text.find("#define FLAT_FUTURE_COLS 3") != std::string::npos);
    CHECK(text.find("static const float flat_future[1]") != std::string::npos);
}
