// A covariate forecaster's logs read wherever a log is read, as forecast reads its input: calendar columns
// computed from the time column (header --history, convert --calib), and a truth file that holds the
// outputs only or the whole log (forecast --truth).
#include <doctest/doctest.h>

#include <cstdio>
#include <string>

#include "tests/cli_support.h"
#include "tests/test_support.h"
#include "tools/text/csv.h"

namespace {

using namespace ax;

const std::string kCase = "forecaster_known/calendar_setpoint";

}  // namespace

TEST_CASE("header --history: the window's calendar columns computed, and a gap refused as forecast refuses it") {
    const std::string dir = test::fixture_path(kCase);
    const std::string model = test::converted_fixture(kCase, "known.axm");
    const std::string out = (test::scratch_dir() / "known_model.h").string();
    const test::Result r = test::auspex("header " + model + " --history " + dir + "/history.csv --window 24 -o " + out);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    // The window as the model reads it: the CSV's three columns and hour_of_day from the time column.
    const tools::Table window = tools::read_csv(dir + "/window.csv");
    const std::string text = test::read_file((test::scratch_dir() / "known_model_history.h").string());
    CHECK(text.find("_COLS 4") != std::string::npos);
    char last[64];
    std::snprintf(last, sizeof last, "%.9g", static_cast<double>(window.at(window.rows - 1, 3)));
    CHECK(text.find(last) != std::string::npos);
    test::check_error(test::auspex("header " + model + " --history " + dir + "/gap_history.csv --window 20 -o " + out),
                      1, "2 rows are missing");
}

TEST_CASE("forecast --truth: the outputs' columns picked by name from the log, or the outputs alone") {
    const std::string dir = test::fixture_path(kCase);
    const std::string model = test::converted_fixture(kCase, "known.axm");
    const std::string run = "forecast " + model + " --input " + dir + "/history.csv --horizon 12 --future " + dir +
                            "/future.csv -o " + (test::scratch_dir() / "truth_fc.csv").string() + " --truth ";
    // The log itself (load, temperature, setpoint; no hour_of_day column): load is picked by its name.
    const test::Result whole = test::auspex(run + dir + "/data.csv");
    INFO(whole.output);
    REQUIRE(whole.exit_code == 0);
    CHECK(whole.output.find("12 steps") != std::string::npos);
    // The same truth as a file of the output alone gives the same report.
    std::string only;
    for (const std::string& line : test::lines_of(dir + "/data.csv")) {
        const size_t second = line.find(',', line.find(',') + 1);
        only += line.substr(0, second) + "\n";
    }
    const test::Result alone = test::auspex(run + test::write_file("truth_load.csv", only));
    INFO(alone.output);
    REQUIRE(alone.exit_code == 0);
    CHECK(alone.output == whole.output);
    // A file without the output's column says what it needs.
    std::string other;
    for (const std::string& line : test::lines_of(dir + "/data.csv"))
        other += line.substr(line.find(',', line.find(',') + 1) + 1) + "\n";
    test::check_error(test::auspex(run + test::write_file("truth_other.csv", other)), 1, "load");
}
