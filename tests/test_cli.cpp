// The auspex CLI end to end: the documented commands work, and bad input gives one clear error line and a
// non-zero exit, never a crash.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "tests/cli_support.h"
#include "tests/test_support.h"
#include "tests/tolerances.h"
#include "tools/axm/axm_writer.h"
#include "tools/text/csv.h"

namespace {

namespace fs = std::filesystem;

using ax::test::auspex;
using ax::test::check_error;
using ax::test::lines_of;
using ax::test::Result;
using ax::test::scratch_dir;
using ax::test::write_file;

std::string case_file(const std::string& c, const std::string& f) {
    return ax::test::fixture_path("forecaster/" + c + "/" + f);
}

std::string converted(const std::string& c) { return ax::test::converted_fixture("forecaster/" + c, c + ".axm"); }

}  // namespace

TEST_CASE("cli: convert, inspect, run and forecast reproduce PyTorch") {
    const std::string model = converted("norm_global");
    const Result info = auspex("inspect " + model + " --window 36 --horizon 24");
    CHECK(info.exit_code == 0);
    CHECK(info.output.find("family:   forecaster") != std::string::npos);
    CHECK(info.output.find("arena:") != std::string::npos);

    const std::string run_out = (scratch_dir() / "run.csv").string();
    REQUIRE(auspex("run " + model + " --model-space --src " + case_file("norm_global", "src.csv") + " --tgt " +
                   case_file("norm_global", "tgt.csv") + " -o " + run_out)
                .exit_code == 0);
    ax::test::check_close(ax::tools::read_csv(run_out).values,
                          ax::tools::read_csv(case_file("norm_global", "run_out.csv")).values,
                          ax::test::tolerance::forecaster, "cli run");

    const std::string fc_out = (scratch_dir() / "fc.csv").string();
    const std::string svg = (scratch_dir() / "fc.svg").string();
    const Result fc =
        auspex("forecast " + model + " --input " + case_file("norm_global", "history.csv") + " --horizon 24 -o " +
               fc_out + " --plot " + svg + " --truth " + case_file("norm_global", "forecast.csv"));
    REQUIRE_MESSAGE(fc.exit_code == 0, fc.output);
    ax::test::check_close(ax::tools::read_csv(fc_out).values,
                          ax::tools::read_csv(case_file("norm_global", "forecast.csv")).values,
                          ax::test::tolerance::forecaster, "cli forecast");
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
                          ax::tools::read_csv(case_file("post_relu_tril", "forecast.csv")).values,
                          ax::test::tolerance::forecaster, "windowed");
}

TEST_CASE("cli: bad input gives one clear error line and a non-zero exit") {
    const std::string model = converted("post_relu_tril");
    const std::string config = case_file("post_relu_tril", "config.json");
    const std::string history = case_file("post_relu_tril", "history.csv");

    check_error(auspex("convert /nonexistent.pt --config " + config + " -o x.axm"), 1, "/nonexistent.pt");
    check_error(auspex("convert " + ax::test::fixture_path("checkpoints/truncated.pt") + " --config " + config +
                       " -o " + (scratch_dir() / "t.axm").string()),
                1, "error");
    check_error(auspex("convert " + ax::test::fixture_path("checkpoints/whole_module.pt") + " --config " + config +
                       " -o " + (scratch_dir() / "t.axm").string()),
                1, "state_dict");
    const std::string wrong_d = write_file("wrong_d.json", R"({"arch": "forecaster", "nhead": 4, "d_model": 48})");
    check_error(auspex("convert " + case_file("post_relu_tril", "model.pt") + " --config " + wrong_d + " -o " +
                       (scratch_dir() / "t.axm").string()),
                1, "[96, 32]");
    const std::string typo = write_file("typo.json", R"({"arch": "forecaster", "nheads": 4})");
    check_error(auspex("convert " + case_file("post_relu_tril", "model.pt") + " --config " + typo + " -o " +
                       (scratch_dir() / "t.axm").string()),
                1, "nheads");
    const std::string heads = write_file("heads.json", R"({"arch": "forecaster", "nhead": 5})");
    check_error(auspex("convert " + case_file("post_relu_tril", "model.pt") + " --config " + heads + " -o " +
                       (scratch_dir() / "t.axm").string()),
                1, "multiple of nhead");

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
                       write_file("calib_cols.csv", "1,2\n3,4\n") + " -o " + out),
                1, "2 columns");
    check_error(auspex("convert " + model_pt + " --config " + config + " --calib " +
                       write_file("calib_nan.csv", "1\nnan\n") + " -o " + out),
                1, ":2");
}

// --- data CSVs as sensors and spreadsheets write them (issue 14) ------------------------------------------

namespace {

// post_relu_tril's history as a monthly sensor log: "YYYY-MM-15;value" with decimal commas, and the
// given extra column before the value.
std::string monthly_log(const std::string& name, const std::string& extra_header = "", const std::string& extra = "",
                        char separator = ';') {
    std::string text = "Zeit" + std::string(1, separator) + extra_header + "value\n";
    const std::vector<std::string> rows = lines_of(case_file("post_relu_tril", "history.csv"));
    for (size_t i = 0; i < rows.size(); ++i) {
        char date[48];
        std::snprintf(date, sizeof date, "%04zu-%02zu-15", 2000 + i / 12, i % 12 + 1);
        std::string value = rows[i];
        if (separator == ';') std::replace(value.begin(), value.end(), '.', ',');
        text += date + std::string(1, separator) + extra + value + "\n";
    }
    return write_file(name, text);
}

std::string model_with_features(const std::string& features) {
    const std::string out = (scratch_dir() / "features.axm").string();
    const std::string config = write_file("features.json", R"({"arch": "forecaster", "nhead": 4, "activation": "relu",
        "norm_first": false, "positional_encoding": "sinusoidal", "memory_mask": "tril", "features": )" +
                                                               features + "}");
    const Result r =
        auspex("convert " + case_file("post_relu_tril", "model.pt") + " --config " + config + " -o " + out);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    return out;
}

}  // namespace

TEST_CASE("cli: a monthly sensor log with ';' and decimal commas forecasts with its timestamps extrapolated") {
    const std::string model = converted("post_relu_tril");
    const std::string log = monthly_log("sensor.csv");
    const std::string out = (scratch_dir() / "sensor_fc.csv").string();
    const Result r = auspex("forecast " + model + " --input " + log + " --horizon 24 -o " + out);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    const std::vector<std::string> written = lines_of(out);
    REQUIRE(written.size() == 25);
    CHECK(written[0] == "Zeit;value");
    const size_t rows = lines_of(case_file("post_relu_tril", "history.csv")).size();
    char next[48];
    std::snprintf(next, sizeof next, "%04zu-%02zu-15;", 2000 + rows / 12, rows % 12 + 1);
    CHECK(written[1].rfind(next, 0) == 0);
    const ax::tools::Table fc = ax::tools::read_csv(out);
    CHECK(fc.times.size() == 24);
    CHECK(fc.decimal_comma);
    ax::test::check_close(fc.values, ax::tools::read_csv(case_file("post_relu_tril", "forecast.csv")).values, 1e-4,
                          "sensor log forecast");

    // run labels each row with the time it predicts: the month after its decoder input row's.
    const std::string run_out = (scratch_dir() / "sensor_run.csv").string();
    const Result run = auspex("run " + model + " --src " + log + " --tgt " + log + " -o " + run_out);
    REQUIRE_MESSAGE(run.exit_code == 0, run.output);
    CHECK(lines_of(run_out)[1].rfind("2000-02-15;", 0) == 0);
    CHECK(lines_of(run_out).back().rfind(next, 0) == 0);
}

TEST_CASE("cli: irregular timestamps are reported and the forecast rows numbered") {
    const std::string model = converted("post_relu_tril");
    std::ifstream in(monthly_log("irregular_src.csv"));
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    text.replace(text.find("2000-03-15"), 10, "2000-03-17");
    const std::string out = (scratch_dir() / "irregular_fc.csv").string();
    const Result r =
        auspex("forecast " + model + " --input " + write_file("irregular.csv", text) + " --horizon 3 -o " + out);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    CHECK(r.output.find(
              "not evenly spaced ('2000-03-17' to '2000-04-15' is 29 days, '2000-01-15' to '2000-02-15' 31 days)") !=
          std::string::npos);
    const std::vector<std::string> written = lines_of(out);
    REQUIRE(written.size() == 4);
    CHECK(written[0] == "step;value");
    CHECK(written[1].rfind("1;", 0) == 0);
    CHECK(written[3].rfind("3;", 0) == 0);
}

TEST_CASE("cli: --columns, --delimiter and --fill") {
    const std::string model = converted("post_relu_tril");
    const std::string log = monthly_log("wide.csv", "humidity,", "55,", ',');
    const std::string out = (scratch_dir() / "columns_fc.csv").string();
    check_error(auspex("forecast " + model + " --input " + log), 1, "feature column");
    const Result r = auspex("forecast " + model + " --input " + log + " --columns value --horizon 24 -o " + out);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    ax::test::check_close(ax::tools::read_csv(out).values,
                          ax::tools::read_csv(case_file("post_relu_tril", "forecast.csv")).values, 1e-4, "--columns");
    check_error(auspex("forecast " + model + " --input " + log + " --columns valeu"), 1,
                "no column 'valeu'; columns found: humidity, value");
    check_error(auspex("forecast " + model + " --input " + log + " --delimiter colon"), 2, "--delimiter");
    check_error(auspex("forecast " + model + " --input " + log + " --fill mean"), 2, "--fill");
    check_error(auspex("forecast " + model + " --input " + log + " --columns value,"), 2, "--columns");
    // ';' given explicitly reads the ','-separated file as one column of text.
    check_error(auspex("forecast " + model + " --input " + log + " --delimiter ';' --columns value"), 1, "no column");

    const std::string gaps = write_file("gaps.csv", "value\n1\n2\n\n4\n5\n6\n");
    check_error(auspex("forecast " + model + " --input " + write_file("gap_cell.csv", "t,value\n1,1\n2,\n3,3\n")), 1,
                "gap_cell.csv:3: column 2: empty field");
    check_error(auspex("forecast " + model + " --input " + gaps), 1, ":4: blank line");
    const Result filled =
        auspex("forecast " + model + " --input " + write_file("gap_fill.csv", "t,value\n1,1\n2,\n3,3\n4,4\n") +
               " --fill linear --horizon 2");
    REQUIRE_MESSAGE(filled.exit_code == 0, filled.output);
    CHECK(filled.output.find("filled 1 empty cell") != std::string::npos);
    CHECK(filled.output.find("t,value\n5,") != std::string::npos);
}

TEST_CASE("cli: feature names stored by convert pick the CSV's columns by name") {
    const std::string model = model_with_features(R"(["value"])");
    const std::string log = monthly_log("named.csv", "humidity;", "55;");
    const std::string out = (scratch_dir() / "named_fc.csv").string();
    const Result r = auspex("forecast " + model + " --input " + log + " --horizon 24 -o " + out);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    CHECK(r.output.find("ignoring column(s) humidity") != std::string::npos);
    ax::test::check_close(ax::tools::read_csv(out).values,
                          ax::tools::read_csv(case_file("post_relu_tril", "forecast.csv")).values, 1e-4, "features");
    check_error(auspex("forecast " + model + " --input " + write_file("no_value.csv", "time,humidity\n1,2\n2,3\n")), 1,
                "has no column 'value' (a feature the model was trained on: value); columns found: humidity");
    // Files without a header are taken in order, as before.
    const Result plain = auspex("forecast " + model + " --input " + case_file("post_relu_tril", "history.csv"));
    CHECK_MESSAGE(plain.exit_code == 0, plain.output);
    const Result calib =
        auspex("convert " + case_file("post_relu_tril", "model.pt") + " --config " +
               (scratch_dir() / "features.json").string() + " --calib " + log +
               " --calib-window 16 --calib-horizon 4 -o " + (scratch_dir() / "features_calib.axm").string());
    CHECK_MESSAGE(calib.exit_code == 0, calib.output);
    CHECK(calib.output.find("ignoring column(s) not among the features: humidity") != std::string::npos);

    const std::string pt = case_file("post_relu_tril", "model.pt");
    const std::string two =
        write_file("two_names.json", R"({"arch": "forecaster", "nhead": 4, "features": ["a", "b"]})");
    check_error(auspex("convert " + pt + " --config " + two + " -o " + (scratch_dir() / "t.axm").string()), 1,
                "lists 2 name(s), the model takes 1 feature(s)");
    const std::string dup =
        write_file("dup_names.json", R"({"arch": "forecaster", "nhead": 4, "features": ["a", "a"]})");
    check_error(auspex("convert " + pt + " --config " + dup + " -o " + (scratch_dir() / "t.axm").string()), 1,
                "listed twice");
    const std::string s2s = write_file("s2s_names.json", R"({"arch": "seq2seq", "nhead": 4, "features": ["a"]})");
    check_error(auspex("convert " + pt + " --config " + s2s + " -o " + (scratch_dir() / "t.axm").string()), 1,
                "do not apply to a seq2seq model: \"features\"");
}

TEST_CASE("cli: stored feature names are validated when a model opens") {
    const std::string model = model_with_features(R"(["co2 ppm"])");
    std::ifstream in(model, std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const Result shown = auspex("inspect " + model);
    REQUIRE(shown.exit_code == 0);
    CHECK(shown.output.find("features: co2 ppm") != std::string::npos);
    size_t at = 0;
    const size_t config_count = bytes[36] | (bytes[37] << 8);  // header field config_count (docs/FORMAT.md)
    for (size_t i = 64; i < 64 + 8 * config_count; i += 8)
        if (bytes[i] == 0x00 && bytes[i + 1] == 0x10 && bytes[i + 2] == 0 && bytes[i + 3] == 0) at = i;
    REQUIRE(at != 0);
    auto patched = [&](size_t offset, uint8_t value) {
        std::vector<uint8_t> b = bytes;
        b[offset] = value;
        ax::tools::reseal_axm(b);
        return write_file("patched.axm", std::string(b.begin(), b.end()));
    };
    check_error(auspex("inspect " + patched(at + 5, '\n')), 1, "feature names: 2 names for 1 features");
    check_error(auspex("inspect " + patched(at + 5, 0x01)), 1, "feature names: a control character");
    check_error(auspex("inspect " + patched(at + 5, 0xC3)), 1, "feature names: the text is not well-formed UTF-8");
    check_error(auspex("inspect " + patched(at + 4, 0)), 1, "feature names: a control character or zero byte");
    check_error(auspex("inspect " + patched(at + 1, 0x11)), 1, "feature names");  // key 0x1100: not a text record
}

TEST_CASE("cli: small things users hit (issue 14.7)") {
    const std::string model = converted("post_relu_tril");
    const std::string h = (scratch_dir() / "m.h").string();
    check_error(auspex("header " + model + " -o " + h + " --name int"), 2, "\"int\": it is a C or C++ keyword");
    check_error(auspex("header " + model + " -o " + h + " --name 9lives"), 2, "it starts with a digit");
    check_error(auspex("header " + model + " -o " + h + " --name __model"), 2, "reserved");
    check_error(auspex("header " + model + " -o " + h + " --name my-model"), 2, "'-' is not a letter, digit or _");
    check_error(auspex("header " + model + " -o " + (scratch_dir() / "for.h").string()), 2, "give --name");
    CHECK(auspex("header " + model + " -o " + h + " --name _model2").exit_code == 0);

    const std::string pt = case_file("post_relu_tril", "model.pt");
    const std::string out = (scratch_dir() / "t.axm").string();
    check_error(auspex("convert " + pt + " --config " +
                       write_file("typo2.json", R"({"arch": "forecaster", "nheads": 4})") + " -o " + out),
                1, "unknown config key \"nheads\" (did you mean \"nhead\"?)");
    check_error(
        auspex("convert " + pt + " --config " +
               write_file("typo3.json", R"({"arch": "forecaster", "nhead": 4, "normalization": {"mdoe": "none"}})") +
               " -o " + out),
        1, "unknown key \"mdoe\" (did you mean \"mode\"?)");
    check_error(auspex("forecast " + model + " --input x.csv --horizn 4"), 2,
                "unknown option --horizn (did you mean \"--horizon\"?)");
    check_error(auspex("forecast " + model + " --input x.csv --zzzzzz 4"), 2, "unknown option --zzzzzz\n");

    const Result noted = auspex("convert " + pt + " --config " +
                                write_file("dropout.json", R"({"arch": "forecaster", "nhead": 4, "memory_mask": "tril",
                                    "dropout": 0.1, "batch_first": true})") +
                                " -o " + out);
    REQUIRE_MESSAGE(noted.exit_code == 0, noted.output);
    CHECK(noted.output.find("ignoring config key(s) dropout, batch_first") != std::string::npos);
    check_error(
        auspex("convert " + pt + " --config " +
               write_file("pooling.json", R"({"arch": "forecaster", "nhead": 4, "pooling": "mean"})") + " -o " + out),
        1, "do not apply to a forecaster model: \"pooling\"");
    check_error(auspex("convert " + pt + " --config " + case_file("post_relu_tril", "config.json") +
                       " --state-dict-key ema -o " + out),
                1, "plain state_dict");
    check_error(auspex("convert " + ax::test::fixture_path("checkpoints/two_models.pt") + " --config " +
                       case_file("post_relu_tril", "config.json") + " -o " + out),
                1, "several nested tensor dicts ('a', 'b'); pick one with --state-dict-key NAME");
}

TEST_CASE("cli: bench --threads 1,2 times the forward pass and the forecast at each count") {
    // Times are not checked (a benchmark's, on a shared machine); the report's shape is: every count, both
    // passes, each speed-up against the first count, the arena each count's session asks for.
    const std::string model = converted("post_relu_tril");
    const ax::test::Result r = ax::test::auspex("bench " + model + " --threads 1,2 --runs 2 --json");
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    for (const char* key :
         {"\"threads\": 1", "\"threads\": 2", "\"forward_ms\"", "\"forecast_ms\"", "\"forecast_speedup\"",
          "\"arena_bytes\"", "\"fma_ceiling_before\"", "\"read_ceiling_before\"", "\"read_ceiling_after\"",
          "\"empty_split_step_ns\"", "\"split_profile\": {\"threads\": 2", "\"in_turn_ms\"", "\"split_steps\"",
          "\"caller_busy\"", "\"one_thread_by_core\": ["})
        CHECK_MESSAGE(r.output.find(key) != std::string::npos, key << " in " << r.output);
    // The empty split step is measured wherever there is a second hardware thread: a time, so only its sign
    // is checked.
    const std::string step_key = "\"empty_split_step_ns\": ";
    const size_t at = r.output.find(step_key);
    REQUIRE(at != std::string::npos);
    const double split_step = std::strtod(r.output.c_str() + at + step_key.size(), nullptr);
    const bool two_threads = std::thread::hardware_concurrency() > 1;
    CHECK((two_threads ? split_step > 0 : split_step == 0));
    const ax::test::Result text = ax::test::auspex("bench " + model + " --threads 1,2 --runs 2");
    REQUIRE_MESSAGE(text.exit_code == 0, text.output);
    CHECK(text.output.find("forecast (") != std::string::npos);
    CHECK(text.output.find("2 threads:") != std::string::npos);
    CHECK(text.output.find("split over 2 threads:") != std::string::npos);
    CHECK((text.output.find("split over 2 threads with nothing to do:") != std::string::npos) == two_threads);
}
