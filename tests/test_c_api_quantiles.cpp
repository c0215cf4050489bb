// The C API on a quantile forecaster (Chronos-Bolt converted from its published directory): the number of
// levels and their values, the values a forecast writes, and auspex_forecast's [quantiles x horizon] against
// the PyTorch reference's cases (within 1e-5 x max(1, max |out|)), missing values passed as NaN.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "api/auspex.h"
#include "tests/chronos_bolt_cases.h"
#include "tests/test_support.h"
#include "tools/common/aligned_buffer.h"
#include "tools/convert/chronos_bolt_convert.h"

TEST_CASE("c api quantiles: levels, value counts and Chronos-Bolt forecasts as PyTorch gives them") {
    for (const char* model : {"dummy", "small"}) {
        const ax::tools::AlignedBuffer bytes(
            ax::tools::convert_chronos_bolt(ax::test::fixture_path(std::string("chronos_bolt/") + model)));
        static auspex_forecaster f;
        REQUIRE(auspex_open(&f, bytes.data(), bytes.size(), 1) == AUSPEX_OK);
        CHECK(auspex_n_features(&f) == 1);
        CHECK(auspex_n_outputs(&f) == 1);
        CHECK(auspex_window(&f) == 512);
        REQUIRE(auspex_quantiles(&f) == 9);
        float levels[9] = {};
        CHECK(auspex_quantile_levels(&f, levels, 9) == 9);
        for (size_t i = 0; i < 9; ++i) CHECK(levels[i] == doctest::Approx(0.1 * static_cast<double>(i + 1)));
        CHECK(auspex_quantile_levels(&f, nullptr, 0) == 9);
        CHECK(auspex_forecast_values(&f, 100) == 900);
        CHECK(auspex_run_rows(&f, 512, 0) == 64);
        const size_t bytes_needed = auspex_arena_bytes(&f, 512, 100);
        REQUIRE(bytes_needed > 0);
        ax::tools::AlignedBuffer arena(bytes_needed);
        REQUIRE(auspex_session_init(&f, arena.data(), arena.size(), 512, 100) == AUSPEX_OK);
        for (const char* name : {"c512", "c37", "c700", "nan", "constant", "h100"}) {
            const ax::test::ChronosBoltCase c = ax::test::read_chronos_bolt_case(std::string(model) + "_" + name);
            std::vector<float> out(auspex_forecast_values(&f, c.horizon));
            REQUIRE_MESSAGE(auspex_forecast(&f, c.context.data(), c.length, c.horizon, out.data()) == AUSPEX_OK,
                            auspex_status_message(&f));
            ax::test::check_chronos_bolt_case(out, c, std::string("c api ") + model + " " + name);
        }
        // One forward of the model: the first 64 steps of every level.
        const ax::test::ChronosBoltCase c = ax::test::read_chronos_bolt_case(std::string(model) + "_c512");
        std::vector<float> run(9 * 64);
        REQUIRE(auspex_run(&f, c.context.data(), c.length, nullptr, 0, 0, run.data()) == AUSPEX_OK);
        ax::test::check_chronos_bolt_case(run, c, std::string("c api run ") + model);
        // An infinite value is refused with a message; a point forecaster answers 0 levels.
        std::vector<float> bad = c.context;
        bad[7] = INFINITY;
        std::vector<float> out(9 * 64);
        CHECK(auspex_forecast(&f, bad.data(), bad.size(), 64, out.data()) == AUSPEX_BAD_INPUT);
        CHECK(std::string(auspex_status_message(&f)).find("infinite") != std::string::npos);
    }
    CHECK(auspex_quantiles(nullptr) == 0);
    CHECK(auspex_forecast_values(nullptr, 10) == 0);
}
