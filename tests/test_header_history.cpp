// auspex header --history: the rows a firmware forecasts from, read as `forecast` reads them (a logger's
// timestamps and header), the model's stored window by default, each value the same float32 the host reads.
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

// The float literals of a generated history header, in order.
std::vector<float> header_values(const std::string& path) {
    const std::string text = ax::test::read_file(path);
    std::vector<float> out;
    std::istringstream in(text.substr(text.find("] = {") + 5));
    for (std::string v; in >> v && v != "};";) out.push_back(std::strtof(v.c_str(), nullptr));
    return out;
}

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
