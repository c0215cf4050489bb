// A forecast's window and plan on their timestamps: spacing in UTC (a daylight-saving change written with
// its offsets is no jump), a gap refused or filled with --fill, duplicates and disorder refused, the plan's
// rows matched by instant. The forecasts are checked against the author's loop run in PyTorch on the same
// log as the user keeps it (tests/fixtures/gen_known_future_fixtures.py, timestamp_cases: pandas' tz-aware
// index, resample + interpolate).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "tests/cli_support.h"
#include "tests/test_support.h"
#include "tests/tolerances.h"
#include "tools/text/csv.h"
#include "tools/text/time_grid.h"

namespace {

using namespace ax;

const std::string kCase = "forecaster_known/calendar_setpoint";

tools::TimeGrid grid_of(const std::vector<std::string>& times) {
    return tools::time_grid(times, false, tools::DateOrder::unknown);
}

// The file's lines, each of `changes` (line index -> new text; "" drops the line) applied.
std::string edited(const std::string& path, const std::vector<std::pair<size_t, std::string>>& changes) {
    std::vector<std::string> lines = test::lines_of(path);
    for (const auto& [i, text] : changes) lines[i] = text;
    std::string out;
    for (const std::string& l : lines)
        if (!l.empty()) out += l + "\n";
    return out;
}

}  // namespace

TEST_CASE("time grid: UTC spacing across a daylight-saving change, and the next steps on the last clock") {
    const std::vector<std::string> dst = {"2026-03-29T00:00+01:00", "2026-03-29T01:00+01:00", "2026-03-29T03:00+02:00",
                                          "2026-03-29T04:00+02:00"};
    const tools::TimeGrid g = grid_of(dst);
    REQUIRE(g.known);
    CHECK(g.step == "1 hour");
    CHECK(g.breaks.empty());
    const tools::NextTimes next = tools::next_times(dst, 2, false);
    REQUIRE(next.regular);
    CHECK(next.times == std::vector<std::string>{"2026-03-29T05:00+02:00", "2026-03-29T06:00+02:00"});
    // The autumn change: 02:00 twice, once per offset, an hour apart.
    CHECK(grid_of(
              {"2026-10-25T01:00+02:00", "2026-10-25T02:00+02:00", "2026-10-25T02:00+01:00", "2026-10-25T03:00+01:00"})
              .breaks.empty());
    // Written without offsets the same spring morning skips an hour: a gap of one row.
    const tools::TimeGrid local =
        grid_of({"2026-03-29T00:00", "2026-03-29T01:00", "2026-03-29T03:00", "2026-03-29T04:00"});
    REQUIRE(local.breaks.size() == 1);
    CHECK(local.breaks[0].kind == tools::GridBreak::Kind::gap);
    CHECK(local.breaks[0].missing == 1);
    // Daily rows at local midnight keep the wall clock across the change (23 hours apart in UTC).
    CHECK(grid_of(
              {"2026-03-28T00:00+01:00", "2026-03-29T00:00+01:00", "2026-03-30T00:00+02:00", "2026-03-31T00:00+02:00"})
              .breaks.empty());
    // The same instant matches across offsets; a time without an offset matches only one without.
    tools::TimePoint a, b, c;
    REQUIRE(tools::time_point("2026-03-29T03:00+02:00", false, a));
    REQUIRE(tools::time_point("2026-03-29T01:00Z", false, b));
    REQUIRE(tools::time_point("2026-03-29T01:00", false, c));
    CHECK(a == b);
    CHECK_FALSE(b == c);
}

TEST_CASE("time grid: gaps, duplicates, disorder and rows off the grid, each named; gaps filled on the grid") {
    const tools::TimeGrid g = grid_of({"2024-01-01 00:00", "2024-01-01 01:00", "2024-01-01 04:00", "2024-01-01 04:00",
                                       "2024-01-01 03:00", "2024-01-01 05:30"});
    REQUIRE(g.breaks.size() == 4);
    CHECK(g.breaks[0].kind == tools::GridBreak::Kind::gap);
    CHECK(g.breaks[0].row == 2);
    CHECK(g.breaks[0].missing == 2);
    CHECK(g.breaks[1].kind == tools::GridBreak::Kind::duplicate);
    CHECK(g.breaks[2].kind == tools::GridBreak::Kind::disorder);
    CHECK(g.breaks[3].kind == tools::GridBreak::Kind::off_grid);
    const std::vector<std::string> times = {"2024-01-01 00:00", "2024-01-01 01:00", "2024-01-01 04:00",
                                            "2024-01-01 04:00", "2024-01-01 03:00", "2024-01-01 05:30"};
    CHECK(tools::describe_break(g, times, g.breaks[0]) ==
          "the row at '2024-01-01 04:00' comes 3 hours after '2024-01-01 01:00', where the rows are 1 hour apart: "
          "2 rows are missing");
    CHECK(tools::describe_break(g, times, g.breaks[2]) ==
          "the row at '2024-01-01 03:00' comes after the row at '2024-01-01 04:00', which is later: the rows are not "
          "in time order");

    // Filling: timestamps on the grid in the row's style, values on the line between the neighbours or repeated.
    tools::Table t = tools::parse_csv("time,a,b\n2024-01-01 00:00,0,10\n2024-01-01 03:00,3,40\n2024-01-01 04:00,4,50\n",
                                      "gappy.csv");
    tools::Table linear = t, previous = t;
    CHECK(tools::fill_time_gaps(linear, grid_of(t.times), tools::Fill::linear) == 2);
    CHECK(linear.times == std::vector<std::string>{"2024-01-01 00:00", "2024-01-01 01:00", "2024-01-01 02:00",
                                                   "2024-01-01 03:00", "2024-01-01 04:00"});
    CHECK(linear.values == std::vector<float>{0, 10, 1, 20, 2, 30, 3, 40, 4, 50});
    CHECK(tools::fill_time_gaps(previous, grid_of(t.times), tools::Fill::previous) == 2);
    CHECK(previous.values == std::vector<float>{0, 10, 0, 10, 0, 10, 3, 40, 4, 50});
    // Months keep their day (or the month's end); numbers their decimals.
    tools::Table months = tools::parse_csv("date,v\n2024-01-31,1\n2024-04-30,4\n2024-05-31,5\n", "m.csv");
    CHECK(tools::fill_time_gaps(months, grid_of(months.times), tools::Fill::linear) == 2);
    CHECK(months.times ==
          std::vector<std::string>{"2024-01-31", "2024-02-29", "2024-03-31", "2024-04-30", "2024-05-31"});
    tools::Table numbers = tools::parse_csv("t,v\n0.5,1\n1.0,2\n2.5,5\n", "n.csv");
    CHECK(tools::fill_time_gaps(numbers, grid_of(numbers.times), tools::Fill::linear) == 2);
    CHECK(numbers.times == std::vector<std::string>{"0.5", "1.0", "1.5", "2.0", "2.5"});
    // Only gaps are filled: with a duplicate the table is left as it is.
    tools::Table dup =
        tools::parse_csv("time,a\n2024-01-01 00:00,0\n2024-01-01 00:00,0\n2024-01-01 03:00,3\n", "d.csv");
    CHECK(tools::fill_time_gaps(dup, grid_of(dup.times), tools::Fill::linear) == 0);
    CHECK(dup.rows == 3);
}

TEST_CASE("forecast on a log across a daylight-saving change, its plan starting 12 hours early: the author's loop") {
    const std::string dir = test::fixture_path(kCase);
    const std::string model = test::converted_fixture(kCase, "known.axm");
    const std::string out = (test::scratch_dir() / "dst_forecast.csv").string();
    const test::Result r = test::auspex("forecast " + model + " --input " + dir + "/dst_history.csv --horizon 12 " +
                                        "--future " + dir + "/dst_future.csv -o " + out);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    CHECK(r.output.find("not evenly spaced") == std::string::npos);
    const tools::Table got = tools::read_csv(out);
    test::check_close(got.values, tools::read_csv(dir + "/dst_forecast.csv").values, test::tolerance::forecaster,
                      "forecast across the change");
    CHECK(got.times.front() == "2026-03-29T15:00:00+02:00");
    // The plan without its time column cannot be matched to the steps: refused, not read in file order.
    std::string plan;
    for (const std::string& line : test::lines_of(dir + "/dst_future.csv"))
        plan += line.substr(line.find(',') + 1) + "\n";
    test::check_error(test::auspex("forecast " + model + " --input " + dir + "/dst_history.csv --horizon 12 --future " +
                                   test::write_file("untimed_plan.csv", plan)),
                      1, "untimed_plan.csv has no time column: its rows cannot be matched to the forecast's steps");
    // A plan that gives one step twice (the same instant under two offsets) is refused.
    const std::string twice = edited(dir + "/dst_future.csv", {{14, "2026-03-29T14:00:00+01:00,0.5"}});
    test::check_error(test::auspex("forecast " + model + " --input " + dir + "/dst_history.csv --horizon 12 --future " +
                                   test::write_file("twice_plan.csv", twice)),
                      1, "has two rows for 2026-03-29T15:00:00+02:00, forecast step 1");
}

TEST_CASE("forecast on a log with a gap: refused naming the rows, or filled as pandas' resample + interpolate") {
    const std::string dir = test::fixture_path(kCase);
    const std::string model = test::converted_fixture(kCase, "known.axm");
    const std::string gappy = dir + "/gap_history.csv";
    const std::string plan = " --horizon 12 --future " + dir + "/future.csv";
    test::check_error(test::auspex("forecast " + model + " --input " + gappy + plan), 1,
                      "gap_history.csv: the row at '2026-03-13T00:00' comes 3 hours after '2026-03-12T21:00', where "
                      "the rows are 1 hour apart: 2 rows are missing. The model reads the window as consecutive steps: "
                      "fill the missing rows with --fill linear or --fill previous");
    const std::string out = (test::scratch_dir() / "gap_forecast.csv").string();
    const test::Result r = test::auspex("forecast " + model + " --input " + gappy + plan + " --fill linear -o " + out);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    CHECK(r.output.find("inserted 2 missing row(s) (--fill linear") != std::string::npos);
    test::check_close(tools::read_csv(out).values, tools::read_csv(dir + "/gap_forecast.csv").values,
                      test::tolerance::forecaster, "forecast from the filled window");

    // A duplicated row and rows out of order are refused, with or without --fill.
    const std::string history = dir + "/history.csv";
    const std::vector<std::string> lines = test::lines_of(history);
    const std::string dup = edited(history, {{10, lines[9]}});
    test::check_error(
        test::auspex("forecast " + model + " --input " + test::write_file("dup.csv", dup) + plan + " --fill linear"), 1,
        "two rows at '2026-03-12T20:00' (a duplicated row");
    const std::string swapped = edited(history, {{10, lines[11]}, {11, lines[10]}});
    test::check_error(test::auspex("forecast " + model + " --input " + test::write_file("swapped.csv", swapped) + plan),
                      1, "comes after the row at '2026-03-12T22:00', which is later: the rows are not in time order");
    // A row off the hour: the model reads its hour and plan by timestamp, so it is refused too.
    std::string shifted = lines[10];
    shifted.replace(14, 2, "37");
    test::check_error(test::auspex("forecast " + model + " --input " +
                                   test::write_file("shifted.csv", edited(history, {{10, shifted}})) + plan),
                      1, "it is off that grid: the model reads inputs by timestamp");
}
