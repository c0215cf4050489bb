// The auspex CLI end to end: the documented commands work, and bad input gives one clear error line and a
// non-zero exit, never a crash.
#include <doctest/doctest.h>


#include <filesystem>
#include <fstream>
#include <string>

#include "tests/cli_support.h"
#include "tests/test_support.h"
#include "tests/tolerances.h"
#include "tools/text/csv.h"

namespace {

namespace fs = std::filesystem;

using ax::test::auspex;
using ax::test::check_error;
using ax::test::Result;
using ax::test::scratch_dir;
using ax::test::write_file;

std::string case_file(const std::string& c, const std::string& f) { return ax::test::fixture_path("forecaster/" + c + "/" + f); }

std::string converted(const std::string& c) {
    const std::string out = (scratch_dir() / (c + ".axm")).string();
    if (!fs::exists(out)) {
        const Result r = auspex("convert " + case_file(c, "model.pt") + " --config " + case_file(c, "config.json") + " -o " + out);
        REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    }
    return out;
}

}  // namespace

TEST_CASE("cli: convert, inspect, run and forecast reproduce PyTorch") {
    const std::string model = converted("norm_global");
    const Result info = auspex("inspect " + model + " --window 36 --horizon 24");
    CHECK(info.exit_code == 0);
    CHECK(info.output.find("family:   forecaster") != std::string::npos);
    CHECK(info.output.find("arena:") != std::string::npos);

    const std::string run_out = (scratch_dir() / "run.csv").string();
    REQUIRE(auspex("run " + model + " --model-space --src " + case_file("norm_global", "src.csv") + " --tgt " +
                   case_file("norm_global", "tgt.csv") + " -o " + run_out).exit_code == 0);
    ax::test::check_close(ax::tools::read_csv(run_out).values,
                          ax::tools::read_csv(case_file("norm_global", "run_out.csv")).values, ax::test::tolerance::forecaster, "cli run");

    const std::string fc_out = (scratch_dir() / "fc.csv").string();
    const std::string svg = (scratch_dir() / "fc.svg").string();
    const Result fc = auspex("forecast " + model + " --input " + case_file("norm_global", "history.csv") +
                             " --horizon 24 -o " + fc_out + " --plot " + svg + " --truth " +
                             case_file("norm_global", "forecast.csv"));
    REQUIRE_MESSAGE(fc.exit_code == 0, fc.output);
    ax::test::check_close(ax::tools::read_csv(fc_out).values,
                          ax::tools::read_csv(case_file("norm_global", "forecast.csv")).values, ax::test::tolerance::forecaster, "cli forecast");
    CHECK(fs::file_size(svg) > 1000);
}

TEST_CASE("cli: --window keeps the last rows of the input") {
    const std::string model = converted("post_relu_tril");
    std::ifstream in(case_file("post_relu_tril", "history.csv"));
    const std::string history((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string longer = write_file("longer.csv", "value\n9\n8\n7\n" + history);
    const std::string out = (scratch_dir() / "window.csv").string();
    const Result r = auspex("forecast " + model + " --input " + longer + " --window 32 --horizon 24 -o " + out);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    ax::test::check_close(ax::tools::read_csv(out).values,
                          ax::tools::read_csv(case_file("post_relu_tril", "forecast.csv")).values, ax::test::tolerance::forecaster, "windowed");
}

TEST_CASE("cli: bad input gives one clear error line and a non-zero exit") {
    const std::string model = converted("post_relu_tril");
    const std::string config = case_file("post_relu_tril", "config.json");
    const std::string history = case_file("post_relu_tril", "history.csv");

    check_error(auspex("convert /nonexistent.pt --config " + config + " -o x.axm"), 1, "/nonexistent.pt");
    check_error(auspex("convert " + ax::test::fixture_path("checkpoints/truncated.pt") + " --config " + config +
                       " -o " + (scratch_dir() / "t.axm").string()), 1, "error");
    check_error(auspex("convert " + ax::test::fixture_path("checkpoints/whole_module.pt") + " --config " + config +
                       " -o " + (scratch_dir() / "t.axm").string()), 1, "state_dict");
    const std::string wrong_d = write_file("wrong_d.json", R"({"arch": "forecaster", "nhead": 4, "d_model": 48})");
    check_error(auspex("convert " + case_file("post_relu_tril", "model.pt") + " --config " + wrong_d + " -o " +
                       (scratch_dir() / "t.axm").string()), 1, "[96, 32]");
    const std::string typo = write_file("typo.json", R"({"arch": "forecaster", "nheads": 4})");
    check_error(auspex("convert " + case_file("post_relu_tril", "model.pt") + " --config " + typo + " -o " +
                       (scratch_dir() / "t.axm").string()), 1, "nheads");
    const std::string heads = write_file("heads.json", R"({"arch": "forecaster", "nhead": 5})");
    check_error(auspex("convert " + case_file("post_relu_tril", "model.pt") + " --config " + heads + " -o " +
                       (scratch_dir() / "t.axm").string()), 1, "multiple of nhead");

    std::ifstream in(model, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    bytes[bytes.size() / 2] ^= 0x55;
    check_error(auspex("inspect " + write_file("corrupt.axm", bytes)), 1, "checksum");
    check_error(auspex("inspect " + write_file("short.axm", bytes.substr(0, 100))), 1, "truncated");
    check_error(auspex("inspect " + write_file("empty.axm", "")), 1, "shorter than");

    check_error(auspex("forecast " + model + " --input " + write_file("nan.csv", "1\n2\nnan\n4\n")), 1, ":3");
    check_error(auspex("forecast " + model + " --input " + write_file("cols.csv", "1\n2,3\n")), 1, ":2");
    check_error(auspex("forecast " + model + " --input " + write_file("text.csv", "1\nabc\n")), 1, ":2");
    check_error(auspex("forecast " + model + " --input " + write_file("none.csv", "")), 1, "error");
    check_error(auspex("forecast " + model + " --input " + write_file("two.csv", "1,2\n3,4\n")), 1, "feature column");
    check_error(auspex("forecast " + model + " --input " + history + " --horizon 0"), 2, "--horizon");
    check_error(auspex("forecast " + model + " --input " + history + " --horizn 4"), 2, "unknown option");
    check_error(auspex("forecast " + model + " --input " + history + " --port nosuch"), 2, "nosuch");
    check_error(auspex("frobnicate"), 2, "unknown command");
}

TEST_CASE("cli: convert --calib records input ranges that inspect shows; its flags are checked") {
    const std::string model_pt = case_file("post_relu_tril", "model.pt");
    const std::string config = case_file("post_relu_tril", "config.json");
    const std::string history = case_file("post_relu_tril", "history.csv");
    const std::string out = (scratch_dir() / "calibrated.axm").string();
    const Result r = auspex("convert " + model_pt + " --config " + config + " --dtype int8 --calib " + history +
                            " --calib-window 16 --calib-horizon 4 -o " + out);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    CHECK(r.output.find("calibrated input ranges") != std::string::npos);
    const Result shown = auspex("inspect " + out);
    REQUIRE_MESSAGE(shown.exit_code == 0, shown.output);
    CHECK(shown.output.find("input |x| max") != std::string::npos);

    check_error(auspex("convert " + model_pt + " --config " + config + " --calib-window 8 -o " + out), 1, "--calib");
    check_error(auspex("convert " + model_pt + " --config " + config + " --calib " +
                       write_file("calib_cols.csv", "1,2\n3,4\n") + " -o " + out), 1, "2 columns");
    check_error(auspex("convert " + model_pt + " --config " + config + " --calib " +
                       write_file("calib_nan.csv", "1\nnan\n") + " -o " + out), 1, ":2");
}
