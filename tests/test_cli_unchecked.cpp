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

TEST_CASE("cli: verify --expected on an int8 model says the tolerance is float32's and the rest quantization") {
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
