// The CLI on Chronos-Bolt: `convert DIR -o m.axm` with no config, `forecast m.axm --input series.csv` writing
// one column per quantile level that matches the PyTorch reference (tests/fixtures/chronos_bolt/cases/) within
// 1e-5 x max(1, max |out|) for the authors' dummy checkpoint and the scaled-down seeded one, missing cells
// read as missing, --quantiles, and the refusals.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli_support.h"
#include "tests/test_support.h"

namespace {

struct Case {
    size_t length = 0, horizon = 0, quantiles = 0;
    std::vector<std::string> context;
    std::vector<std::vector<double>> want;  // [quantile][step]
};

Case read_case(const std::string& name) {
    std::ifstream in(ax::test::fixture_path("chronos_bolt/cases/" + name + ".txt"));
    REQUIRE(in.good());
    Case c;
    in >> c.length >> c.horizon >> c.quantiles;
    c.context.resize(c.length);
    for (auto& v : c.context) in >> v;
    c.want.assign(c.quantiles, std::vector<double>(c.horizon));
    for (auto& row : c.want)
        for (double& v : row) in >> v;
    REQUIRE(!in.fail());
    return c;
}

// The case's context as a one-column CSV, missing values written as NA.
std::string series_csv(const Case& c, const std::string& name) {
    std::string text = "value\n";
    for (const std::string& v : c.context) text += (v == "nan" ? std::string("NA") : v) + "\n";
    return ax::test::write_file(name, text);
}

}  // namespace

TEST_CASE("cli chronos-bolt: convert the published directory, forecast quantile columns as PyTorch does") {
    for (const char* model : {"dummy", "small"}) {
        const std::string axm = (ax::test::scratch_dir() / (std::string("cb_") + model + ".axm")).string();
        const auto conv =
            ax::test::auspex("convert " + ax::test::fixture_path(std::string("chronos_bolt/") + model) + " -o " + axm);
        REQUIRE_MESSAGE(conv.exit_code == 0, conv.output);
        for (const char* name : {"c512", "nan", "constant", "h100"}) {
            const Case c = read_case(std::string(model) + "_" + name);
            const std::string csv = series_csv(c, std::string("cb_") + model + "_" + name + ".csv");
            const std::string out = (ax::test::scratch_dir() / "cb_forecast.csv").string();
            const auto r = ax::test::auspex("forecast " + axm + " --input " + csv + " --horizon " +
                                            std::to_string(c.horizon) + " -o " + out);
            REQUIRE_MESSAGE(r.exit_code == 0, r.output);
            const auto lines = ax::test::lines_of(out);
            REQUIRE(lines.size() == c.horizon + 1);
            CHECK(lines[0] == "q0.1,q0.2,q0.3,q0.4,q0.5,q0.6,q0.7,q0.8,q0.9");
            double scale = 1.0, worst = 0.0;
            for (const auto& row : c.want)
                for (double v : row) scale = std::max(scale, std::fabs(v));
            for (size_t t = 0; t < c.horizon; ++t) {
                std::stringstream line(lines[t + 1]);
                std::string cell;
                for (size_t q = 0; q < c.quantiles; ++q) {
                    REQUIRE(std::getline(line, cell, ','));
                    worst = std::max(worst, std::fabs(std::stod(cell) - c.want[q][t]) / scale);
                }
            }
            CHECK_MESSAGE(worst <= 1e-5, model << " " << name << ": worst " << worst);
        }
    }
}

TEST_CASE("cli chronos-bolt: --quantiles picks levels, the directory forecasts directly, refusals name the cause") {
    const Case c = read_case("dummy_c37");
    const std::string csv = series_csv(c, "cb_c37.csv");
    const std::string dir = ax::test::fixture_path("chronos_bolt/dummy");
    const auto r =
        ax::test::auspex_stdout("forecast " + dir + " --input " + csv + " --horizon 2 --quantiles 0.1,0.5,0.9");
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    CHECK(r.output.rfind("q0.1,q0.5,q0.9\n", 0) == 0);
    ax::test::check_error(ax::test::auspex("forecast " + dir + " --input " + csv + " --quantiles 0.25"), 1,
                          "levels between them are not interpolated");
    ax::test::check_error(ax::test::auspex("convert " + dir + " -o x.axm --config c.json"), 2,
                          "--config does not apply to a Chronos-Bolt directory");
    // f16: every weight matrix half, the tables float32 (inspect counts them; bench names the storage).
    const std::string half = (ax::test::scratch_dir() / "cb_f16.axm").string();
    const auto converted = ax::test::auspex("convert " + dir + " -o " + half + " --dtype f16");
    REQUIRE_MESSAGE(converted.exit_code == 0, converted.output);
    CHECK(converted.output.find("weights f16") != std::string::npos);
    const auto half_inspected = ax::test::auspex("inspect " + half);
    REQUIRE_MESSAGE(half_inspected.exit_code == 0, half_inspected.output);
    CHECK_MESSAGE(half_inspected.output.find(" f16, 0 int8 and ") != std::string::npos, half_inspected.output);
    const auto half_bench = ax::test::auspex("bench " + half + " --runs 1 --port generic");
    REQUIRE_MESSAGE(half_bench.exit_code == 0, half_bench.output);
    CHECK_MESSAGE(half_bench.output.find("(Chronos-Bolt, f16 weights)") != std::string::npos, half_bench.output);
    const std::string axm = (ax::test::scratch_dir() / "cb_inspect.axm").string();
    REQUIRE(ax::test::auspex("convert " + dir + " -o " + axm).exit_code == 0);
    const auto inspected = ax::test::auspex("inspect " + axm);
    REQUIRE_MESSAGE(inspected.exit_code == 0, inspected.output);
    CHECK(inspected.output.find("d_model 8, 4 heads of 4, d_ff 8 (relu), 4+4 layers") != std::string::npos);
    CHECK(inspected.output.find("bytes of working memory for a 64-step forecast") != std::string::npos);
    CHECK(inspected.output.find("blocks:   normalization instance, input_embedding patch_mlp, positional_encoding "
                                "relative, layer_kind t5, decoding start_token, head residual_mlp") !=
          std::string::npos);
    // --truth scores the median and the quantile loss; --plot draws the median and the band.
    std::string truth_text = "value\n";
    for (size_t t = 0; t < 10; ++t) truth_text += std::to_string(c.want[4][t] + 0.5) + "\n";
    const std::string truth = ax::test::write_file("cb_truth.csv", truth_text);
    const std::string plot = (ax::test::scratch_dir() / "cb.svg").string();
    const std::string out = (ax::test::scratch_dir() / "cb_truth_out.csv").string();
    const auto scored = ax::test::auspex("forecast " + dir + " --input " + csv + " --horizon 10 --truth " + truth +
                                         " --plot " + plot + " -o " + out);
    REQUIRE_MESSAGE(scored.exit_code == 0, scored.output);
    const size_t at = scored.output.find("truth: 10 of 10 steps; q0.5 mean absolute error ");
    REQUIRE_MESSAGE(at != std::string::npos, scored.output);
    // The truth is the reference median + 0.5 (written with 6 decimals).
    CHECK(std::stod(scored.output.substr(at + 48)) == doctest::Approx(0.5).epsilon(1e-4));
    CHECK(scored.output.find("quantile loss") != std::string::npos);
    CHECK(ax::test::read_file(plot).find("q0.5 (median)") != std::string::npos);
    CHECK(ax::test::read_file(plot).find("q0.9 (band)") != std::string::npos);
    const std::string two = ax::test::write_file("cb_two.csv", "a,b\n1,2\n3,4\n");
    ax::test::check_error(ax::test::auspex("forecast " + dir + " --input " + two), 1, "forecasts one series");
}
