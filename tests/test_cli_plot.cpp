// forecast --plot as a person reads it: a sensor log with timestamps and named features, a model converted
// with a name. The SVG's x axis shows the log's times, a line marks where the forecast starts, the forecast
// line starts at the last observed point, and the title and legend name the model and the features.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli_support.h"
#include "tests/test_support.h"

namespace {

using ax::test::auspex;
using ax::test::Result;
using ax::test::scratch_dir;

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// The points of the first polyline drawn in `color`, as "x,y" texts.
std::vector<std::string> first_polyline(const std::string& svg, const std::string& color) {
    const size_t at = svg.find("<polyline fill=\"none\" stroke=\"" + color + "\"");
    REQUIRE(at != std::string::npos);
    const size_t from = svg.find("points=\"", at) + 8;
    std::istringstream points(svg.substr(from, svg.find('"', from) - from));
    std::vector<std::string> out;
    for (std::string p; points >> p;) out.push_back(p);
    return out;
}

// An hourly log: "time,temp,pressure" and the norm_global case's history as its two value columns.
std::string hourly_log() {
    std::ifstream in(ax::test::fixture_path("forecaster/norm_global/history.csv"));
    std::string text = "time,temp,pressure\n", line;
    for (int hour = 0; std::getline(in, line); ++hour) {
        char stamp[32];
        std::snprintf(stamp, sizeof stamp, "2026-03-%02dT%02d:00:00,", 1 + hour / 24, hour % 24);
        text += stamp + line + "\n";
    }
    return ax::test::write_file("boiler_log.csv", text);
}

}  // namespace

TEST_CASE("cli: forecast --plot shows the log's timestamps, where the forecast starts, and names model and features") {
    const std::string model =
        ax::test::converted_fixture("forecaster/norm_global", "boiler.axm", "--model-name boiler-v2");
    const std::string svg_path = (scratch_dir() / "boiler.svg").string();
    const Result r = auspex("forecast " + model + " --input " + hourly_log() + " --horizon 6 --plot " + svg_path);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    const std::string svg = ax::test::read_file(svg_path);
    INFO(svg);
    CHECK(has(svg, "<title>boiler-v2: 6-step forecast of temp, pressure from 36 rows</title>"));
    CHECK(has(svg, ">forecast by boiler-v2</text>"));
    CHECK(has(svg, ">history (boiler_log.csv)</text>"));
    CHECK(has(svg, "font-weight=\"bold\">temp</text>"));
    CHECK(has(svg, "font-weight=\"bold\">pressure</text>"));
    // The x axis: the log's times on round steps (every 12 hours from midnight, short labels) and, past its
    // end, the forecast's; each panel's quantity up its y axis.
    CHECK(has(svg, ">03-01 00:00</text>"));
    CHECK(has(svg, ">03-01 12:00</text>"));
    CHECK(has(svg, ">03-02 12:00</text>"));
    CHECK(!has(svg, "T00:00:00</text>"));
    CHECK(has(svg, "rotate(-90 14 "));
    CHECK(has(svg, ")\">pressure</text>"));
    CHECK(has(svg, ">time</text>"));
    CHECK(!has(svg, ">time step</text>"));
    CHECK(has(svg, ">forecast starts</text>"));

    // The forecast line begins where the history line ends, and the marker stands there.
    const std::vector<std::string> history = first_polyline(svg, "#1f77b4");
    const std::vector<std::string> forecast = first_polyline(svg, "#d62728");
    REQUIRE(history.size() == 36);
    REQUIRE(forecast.size() == 7);
    CHECK(forecast.front() == history.back());
    const std::string x = history.back().substr(0, history.back().find(','));
    CHECK(has(svg, "<line x1=\"" + x + "\""));
}

TEST_CASE("cli: forecast --plot without timestamps numbers the rows and names the model by its file") {
    const std::string model = ax::test::converted_fixture("forecaster/norm_global", "unnamed_plot.axm");
    const std::string svg_path = (scratch_dir() / "unnamed.svg").string();
    const Result r =
        auspex("forecast " + model + " --input " + ax::test::fixture_path("forecaster/norm_global/history.csv") +
               " --horizon 6 --plot " + svg_path);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    const std::string svg = ax::test::read_file(svg_path);
    INFO(svg);
    CHECK(has(svg, "<title>unnamed_plot.axm: 6-step forecast of"));
    CHECK(has(svg, ">forecast by unnamed_plot.axm</text>"));
    CHECK(has(svg, ">forecast starts</text>"));
    CHECK(has(svg, ">row of the window (the forecast continues it)</text>"));
}
