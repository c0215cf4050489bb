// The CLI says what it did not check: a conversion no check pair proved, a window the model was not trained
// on, an int8 model measured against float32's tolerance, what --calib changes, and files that are not a
// model this auspex reads (a checkpoint, another format version), as a user meets them.
#include <doctest/doctest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "tests/cli_support.h"
#include "tests/test_support.h"

namespace {

using ax::test::auspex;
using ax::test::auspex_stdout;
using ax::test::check_error;
using ax::test::Result;
using ax::test::scratch_dir;

std::string fixture(const std::string& c, const std::string& f) {
    return ax::test::fixture_path("forecaster/" + c + "/" + f);
}

size_t count(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

bool has(const Result& r, const std::string& text) { return r.output.find(text) != std::string::npos; }

// post_relu_tril's config with nhead 2 instead of the 4 it was trained with: it loads, and computes
// something else.
std::string wrong_nhead_config() {
    std::string text = ax::test::read_file(fixture("post_relu_tril", "config.json"));
    const size_t at = text.find("\"nhead\": 4");
    REQUIRE(at != std::string::npos);
    text.replace(at, 10, "\"nhead\": 2");
    return ax::test::write_file("wrong_nhead.json", text);
}

const char* const kUnproven = "is unproven: it was converted without a check pair";

}  // namespace

TEST_CASE("cli: convert without a check pair says once that the config is unproven and how to prove it") {
    const std::string pt = fixture("post_relu_tril", "model.pt"), config = fixture("post_relu_tril", "config.json");
    const std::string out = (scratch_dir() / "no_check_pair.axm").string();
    const Result r = auspex("convert " + pt + " --config " + config + " -o " + out);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    INFO(r.output);
    CHECK(count(r.output, "unproven") == 1);
    CHECK(has(r, "--check-input IN --check-output PYTORCH_OUT.csv --check-target TGT"));

    const Result proven =
        auspex("convert " + pt + " --config " + config + " --check-input " + fixture("post_relu_tril", "src.csv") +
               " --check-target " + fixture("post_relu_tril", "tgt.csv") + " --check-output " +
               fixture("post_relu_tril", "run_out.csv") + " -o " + out);
    REQUIRE_MESSAGE(proven.exit_code == 0, proven.output);
    CHECK_MESSAGE(!has(proven, "unproven"), proven.output);
    CHECK(has(proven, "check: the conversion matches PyTorch"));
}

TEST_CASE("cli: --calib says what the recorded ranges change and what they do not") {
    const std::string out = (scratch_dir() / "calib_note.axm").string();
    const Result r =
        auspex("convert " + fixture("post_relu_tril", "model.pt") + " --config " +
               fixture("post_relu_tril", "config.json") + " --dtype int8 --calib " +
               fixture("post_relu_tril", "history.csv") + " --calib-window 16 --calib-horizon 4 -o " + out);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    INFO(r.output);
    CHECK(has(r, "integer-only runtime"));
    CHECK(has(r, "every forecast are the same as without --calib"));
}

TEST_CASE("cli: a --window other than the stored training window gets a note; the stored one none") {
    const std::string model = ax::test::converted_fixture("forecaster/window48", "window48.axm");
    const std::string history = fixture("window48", "history.csv");
    const Result other = auspex("forecast " + model + " --input " + history + " --window 32 --horizon 4");
    REQUIRE_MESSAGE(other.exit_code == 0, other.output);
    CHECK_MESSAGE(has(other, "note: --window 32 differs from the 48-row window the model was trained on"),
                  other.output);
    for (const std::string& window : {std::string(""), std::string(" --window 48")}) {
        const Result same = auspex("forecast " + model + " --input " + history + window + " --horizon 4");
        REQUIRE_MESSAGE(same.exit_code == 0, same.output);
        CHECK_MESSAGE(!has(same, "note:"), same.output);
    }
}

TEST_CASE("cli: verify --expected on an int8 model says the tolerance is float32's; a float32 model past it fails") {
    const std::string args = " --expected " + fixture("post_relu_tril", "run_out.csv") + " --input " +
                             fixture("post_relu_tril", "src.csv") + " --target " + fixture("post_relu_tril", "tgt.csv");
    const Result q =
        auspex("verify " +
               ax::test::converted_fixture("forecaster/post_relu_tril", "unchecked_i8.axm", "--dtype int8") + args);
    REQUIRE_MESSAGE(q.exit_code == 0, q.output);
    CHECK_MESSAGE(has(q, "the tolerance is float32's"), q.output);
    CHECK_MESSAGE(has(q, "weights are int8, so its difference from PyTorch is mostly quantization"), q.output);
    const Result f =
        auspex("verify " + ax::test::converted_fixture("forecaster/post_relu_tril", "unchecked_f32.axm") + args);
    REQUIRE_MESSAGE(f.exit_code == 0, f.output);
    CHECK_MESSAGE(!has(f, "quantization"), f.output);
    // The float32 model against outputs it does not reproduce (PyTorch's first value moved by 0.5): a wrong
    // conversion, so a non-zero exit a script sees; the int8 model is reported only (its bound is not float32's).
    std::ifstream in(fixture("post_relu_tril", "run_out.csv"));
    std::string first, rest((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    first = rest.substr(0, rest.find('\n'));
    rest = rest.substr(first.size());
    const std::string moved =
        ax::test::write_file("verify_moved_out.csv", std::to_string(std::stod(first) + 0.5) + rest);
    const std::string wrong = " --expected " + moved + " --input " + fixture("post_relu_tril", "src.csv") +
                              " --target " + fixture("post_relu_tril", "tgt.csv");
    const Result f_moved =
        auspex("verify " + ax::test::converted_fixture("forecaster/post_relu_tril", "unchecked_f32.axm") + wrong);
    CHECK_MESSAGE(f_moved.exit_code == 1, f_moved.output);
    CHECK_MESSAGE(has(f_moved, "its float32 outputs differ beyond the tolerance"), f_moved.output);
    CHECK_MESSAGE(has(f_moved, "|difference| 0.5 > tolerance"), f_moved.output);
    const Result q_moved =
        auspex("verify " +
               ax::test::converted_fixture("forecaster/post_relu_tril", "unchecked_i8.axm", "--dtype int8") + wrong);
    CHECK_MESSAGE(q_moved.exit_code == 0, q_moved.output);
}

TEST_CASE("cli: a checkpoint given where a model goes says to run auspex convert first") {
    for (const std::string& file :
         {fixture("post_relu_tril", "model.pt"), fixture("norm_global", "model.safetensors")}) {
        check_error(auspex("inspect " + file), 1, "run auspex convert first");
        check_error(auspex("forecast " + file + " --input " + fixture("post_relu_tril", "history.csv")), 1,
                    "run auspex convert first");
    }
}

TEST_CASE("cli: a model of another format version says which side to update") {
    const std::string model = ax::test::converted_fixture("forecaster/post_relu_tril", "versioned.axm");
    std::ifstream in(model, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::string newer = bytes, older = bytes;
    newer[8] = 2;  // the u32 version at byte 8, little-endian
    older[8] = 0;
    check_error(auspex("inspect " + ax::test::write_file("newer.axm", newer)), 1,
                "is model format version 2, newer than this auspex reads (version 1): update auspex");
    check_error(auspex("inspect " + ax::test::write_file("older.axm", older)), 1,
                "older than this auspex reads (version 1): convert the checkpoint again");
}

TEST_CASE("cli: a model no check pair proved says so on stderr wherever it is used; stdout stays the answer") {
    // The user's mistake the check pair would have caught: a wrong nhead converts and forecasts.
    const std::string model = (scratch_dir() / "wrong_nhead.axm").string();
    const std::string convert =
        "convert " + fixture("post_relu_tril", "model.pt") + " --config " + wrong_nhead_config() + " -o " + model;
    const Result converted = auspex(convert);
    REQUIRE_MESSAGE(converted.exit_code == 0, converted.output);
    // convert's notes (the unproven one among them) are on stderr: stdout holds the summary alone.
    const Result convert_stdout = auspex_stdout(convert);
    REQUIRE(convert_stdout.exit_code == 0);
    CHECK_MESSAGE(!has(convert_stdout, "note:"), convert_stdout.output);
    CHECK(has(convert_stdout, "wrote " + model));

    const std::string history = fixture("post_relu_tril", "history.csv");
    const Result forecast = auspex("forecast " + model + " --input " + history + " --horizon 4");
    REQUIRE_MESSAGE(forecast.exit_code == 0, forecast.output);
    CHECK_MESSAGE(count(forecast.output, kUnproven) == 1, forecast.output);
    CHECK(has(forecast, "convert again with --check-input IN --check-output PYTORCH_OUT.csv --check-target TGT"));
    // stdout is the forecast: a header and 4 rows, no warning.
    const Result table = auspex_stdout("forecast " + model + " --input " + history + " --horizon 4");
    REQUIRE(table.exit_code == 0);
    CHECK_MESSAGE(count(table.output, "\n") == 5, table.output);
    CHECK(!has(table, "unproven"));

    const std::string pair = " --input " + fixture("post_relu_tril", "src.csv") + " --target " +
                             fixture("post_relu_tril", "tgt.csv") + " --expected " +
                             fixture("post_relu_tril", "run_out.csv");
    // verify against PyTorch's outputs catches the wrong nhead: a non-zero exit naming the model.
    const Result verify = auspex("verify " + model + pair);
    REQUIRE_MESSAGE(verify.exit_code == 1, verify.output);
    CHECK_MESSAGE(has(verify, model + " does not reproduce"), verify.output);
    CHECK_MESSAGE(count(verify.output, kUnproven) == 1, verify.output);

    const Result inspect = auspex("inspect " + model);
    REQUIRE_MESSAGE(inspect.exit_code == 0, inspect.output);
    CHECK(has(inspect, "proof:    unproven (converted without a check pair: nothing compared it with PyTorch)"));
    CHECK_MESSAGE(count(inspect.output, kUnproven) == 1, inspect.output);
    CHECK(!has(auspex_stdout("inspect " + model), kUnproven));

    // An error stays one line: the warning follows success only.
    check_error(auspex("forecast " + model + " --input " + history + " --horizon 0"), 2, "--horizon");
}

TEST_CASE("cli: a proven model says what proved it in inspect and nothing elsewhere; an older file not recorded") {
    const std::string model = (scratch_dir() / "proven.axm").string();
    const Result converted =
        auspex("convert " + fixture("post_relu_tril", "model.pt") + " --config " +
               fixture("post_relu_tril", "config.json") + " --check-input " + fixture("post_relu_tril", "src.csv") +
               " --check-target " + fixture("post_relu_tril", "tgt.csv") + " --check-output " +
               fixture("post_relu_tril", "run_out.csv") + " -o " + model);
    REQUIRE_MESSAGE(converted.exit_code == 0, converted.output);
    const Result inspect = auspex("inspect " + model);
    REQUIRE_MESSAGE(inspect.exit_code == 0, inspect.output);
    CHECK_MESSAGE(has(inspect,
                      "proof:    proven: the float32 model reproduced PyTorch's output run_out.csv "
                      "(max difference "),
                  inspect.output);
    CHECK(has(inspect, "when converted"));
    CHECK(!has(inspect, "unproven"));
    const Result forecast =
        auspex("forecast " + model + " --input " + fixture("post_relu_tril", "history.csv") + " --horizon 4");
    REQUIRE_MESSAGE(forecast.exit_code == 0, forecast.output);
    CHECK_MESSAGE(!has(forecast, "unproven"), forecast.output);

    // Converted before the record existed: inspect says it does not know, forecast stays quiet.
    const std::string old = fixture("window48", "old_format.axm");
    const Result old_inspect = auspex("inspect " + old);
    REQUIRE_MESSAGE(old_inspect.exit_code == 0, old_inspect.output);
    CHECK(has(old_inspect, "proof:    not recorded"));
    const Result old_forecast = auspex("forecast " + old + " --input " + fixture("window48", "history.csv"));
    REQUIRE_MESSAGE(old_forecast.exit_code == 0, old_forecast.output);
    CHECK_MESSAGE(!has(old_forecast, "unproven"), old_forecast.output);
}
