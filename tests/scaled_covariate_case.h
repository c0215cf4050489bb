// The building-load covariate fixtures (tests/fixtures/gen_scaled_covariate_fixtures.py) as the model reads
// them, for the suites that run them.
#pragma once
#include <doctest/doctest.h>

#include <limits>
#include <string>
#include <vector>

#include "tests/test_support.h"
#include "tools/host/calendar.h"
#include "tools/text/csv.h"

namespace ax::test {

// The rows as the model reads them: history (load, temperature, occupancy) with hour_sin and hour_cos from its
// time column, and each step's known inputs (the plan and the hour; the rest NaN: never read).
struct ScaledCase {
    std::string dir;
    tools::Table history, future, forecast;
    std::vector<float> window, known_rows;
};

inline void append_hours(const std::string& time, std::vector<float>& row) {
    tools::TimePoint p;
    REQUIRE(tools::time_point(time, false, p));
    row.push_back(tools::calendar_value("hour_sin", p));
    row.push_back(tools::calendar_value("hour_cos", p));
}

inline ScaledCase load_scaled_case(const std::string& fixture) {
    ScaledCase c;
    c.dir = test::fixture_path(fixture);
    c.history = tools::read_csv(c.dir + "/history.csv");
    c.future = tools::read_csv(c.dir + "/future.csv");
    c.forecast = tools::read_csv(c.dir + "/forecast.csv");
    for (size_t r = 0; r < c.history.rows; ++r) {
        for (size_t i = 0; i < 3; ++i) c.window.push_back(c.history.at(r, i));
        append_hours(c.history.times[r], c.window);
    }
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (size_t t = 0; t < c.future.rows; ++t) {
        c.known_rows.insert(c.known_rows.end(), {nan, nan, c.future.at(t, 0)});
        append_hours(c.future.times[t], c.known_rows);
    }
    return c;
}

}  // namespace ax::test
