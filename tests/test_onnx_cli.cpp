// auspex inspect and run on an .onnx file: what inspect reports after folding, and run's outputs from the host
// reference evaluator against PyTorch's, fed by name from CSVs.
#include <doctest/doctest.h>

#include <cmath>
#include <sstream>

#include "tests/cli_support.h"
#include "tests/onnx_fixture.h"

using namespace ax;

namespace {

// The tensor as a CSV: one column per value of its last dimension.
std::string csv_of(const onnx::Tensor& t) {
    const size_t cols = static_cast<size_t>(t.shape.back());
    std::ostringstream s;
    s.precision(9);
    for (size_t k = 0; k < t.f.size(); ++k) s << t.f[k] << (k % cols == cols - 1 ? "\n" : ",");
    return s.str();
}

std::vector<float> csv_values(const std::string& path) {
    std::vector<float> v;
    for (const std::string& line : test::lines_of(path)) {
        if (line.empty() || std::isalpha(static_cast<unsigned char>(line[0]))) continue;  // the header
        std::stringstream s(line);
        std::string cell;
        while (std::getline(s, cell, ',')) v.push_back(std::stof(cell));
    }
    return v;
}

}  // namespace

TEST_CASE("cli: auspex inspect MODEL.onnx reports opsets, shapes and the op types left after folding") {
    const std::string model = test::fixture_path("onnx/transformer_pre_gelu.onnx");
    const test::Result r = test::auspex("inspect " + model + " --dim seq_src=7 --dim seq_tgt=5");
    INFO(r.output);
    CHECK(r.exit_code == 0);
    CHECK(r.output.find("opsets:   ai.onnx 17") != std::string::npos);
    CHECK(r.output.find("input:    src float32 [batch, seq_src, 3], folded for [1, 7, 3]") != std::string::npos);
    CHECK(r.output.find("input:    tgt float32 [batch, seq_tgt, 3], folded for [1, 5, 3]") != std::string::npos);
    CHECK(r.output.find("output:   y float32 [batch, seq_out, 2], [1, 5, 2] for these inputs") != std::string::npos);
    CHECK(r.output.find("LayerNormalization") != std::string::npos);
    CHECK(r.output.find("Shape ") == std::string::npos);  // folded away
    CHECK(r.output.find("every remaining node is evaluable") != std::string::npos);
    CHECK(r.output.find("convert:  lowers onto the forecaster's blocks") != std::string::npos);
    test::check_error(test::auspex("inspect " + model + " --dim seq=3"), 1,
                      "no input has a dynamic dimension named seq");
    test::check_error(test::auspex("inspect " + model + " --dim seq_src"), 2, "--dim takes NAME=VALUE");
}

TEST_CASE("cli: auspex run MODEL.onnx --input NAME=FILE.csv reproduces PyTorch's outputs") {
    const test::OnnxCase c = test::read_onnx_case("transformer_post_gelu.txt");
    const std::string src = test::write_file("onnx_src.csv", csv_of(c.inputs.at("src")));
    const std::string tgt = test::write_file("onnx_tgt.csv", csv_of(c.inputs.at("tgt")));
    const std::string out = (test::scratch_dir() / "onnx_y.csv").string();
    const std::string model = test::fixture_path("onnx/transformer_post_gelu.onnx");
    const test::Result r = test::auspex("run " + model + " --input src=" + src + " --input tgt=" + tgt + " -o " + out);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    const std::vector<float> got = csv_values(out), want = c.outputs[0].f;
    REQUIRE(got.size() == want.size());
    double worst = 0, largest = 0;
    for (size_t k = 0; k < want.size(); ++k) {
        worst = std::max(worst, std::fabs(double{got[k]} - want[k]));
        largest = std::max(largest, std::fabs(double{want[k]}));
    }
    MESSAGE("run vs PyTorch: max error " << worst);
    CHECK(worst <= 1e-5 * std::max(1.0, largest));
    test::check_error(test::auspex("run " + model + " --input src=" + src), 1, "input tgt is not given");
    test::check_error(test::auspex("run " + model + " --input source=" + src + " --input tgt=" + tgt), 1,
                      "the graph has no input source (its inputs: src, tgt)");
    test::check_error(
        test::auspex("run " + model + " --input src=" + tgt + " --input tgt=" + tgt + " --input src=" + src), 2,
        "--input src is given twice");
    test::check_error(test::auspex("run " + model + " --input src=" + src + " --input tgt=" + tgt + " -o " + tgt), 1,
                      "is the same file as --input tgt");
    CHECK(test::read_file(tgt) == csv_of(c.inputs.at("tgt")));
    const std::string wide = test::write_file("onnx_wide.csv", "1,2,3,4\n5,6,7,8\n");
    test::check_error(test::auspex("run " + model + " --input src=" + wide + " --input tgt=" + tgt), 1,
                      "has 4 columns");
}

TEST_CASE("cli: auspex run --help says an .onnx graph runs on the host reference, not the device path") {
    const test::Result r = test::auspex("run --help");
    CHECK(r.exit_code == 0);
    CHECK(r.output.find("host reference evaluator") != std::string::npos);
    CHECK(r.output.find("not the device path") != std::string::npos);
    const std::string bad = test::write_file("broken.onnx", std::string("\x08\x08\x3a\xff\x01", 5));
    test::check_error(test::auspex("inspect " + bad), 1, "claims 255 bytes");
}

TEST_CASE("cli: an .onnx file given to convert or to a command that takes an .axm says what it can do with it") {
    const std::string model = test::fixture_path("onnx/encoder_flatten.onnx");
    test::check_error(
        test::auspex("bench " + model), 1,
        "is an ONNX graph, not an auspex model: convert it first (auspex convert " + model + " -o MODEL.axm)");
}
