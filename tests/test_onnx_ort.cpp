// The host reference evaluator against a second oracle, ONNX Runtime: PyTorch's outputs say what the model
// computes, ONNX Runtime's (NAME.ort.txt, written by gen_onnx_ort_outputs.js with onnxruntime-node, committed)
// what the exported graph computes. The evaluator follows the graph: it agrees with ONNX Runtime on every
// fixture, including the two torch 1.13 exports whose graphs differ from PyTorch's forward, where ONNX Runtime
// and the evaluator agree with each other and not with PyTorch.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "tests/onnx_fixture.h"
#include "tools/onnx/onnx_reader.h"

using namespace ax;

namespace {

// Largest |a - b| over two outputs of one shape, and max |b|.
std::pair<double, double> differences(const onnx::Tensor& a, const onnx::Tensor& b) {
    REQUIRE(a.shape == b.shape);
    REQUIRE(a.f.size() == b.f.size());
    double worst = 0, largest = 0;
    for (size_t k = 0; k < b.f.size(); ++k) {
        largest = std::max(largest, std::fabs(double{b.f[k]}));
        worst = std::max(worst, std::fabs(double{a.f[k]} - b.f[k]));
    }
    return {worst, largest};
}

// Every fixture with an ONNX Runtime output: "NAME" for NAME.txt, "NAME.other" for NAME.other.txt, with the
// folder below tests/fixtures/onnx/ ("" or "external/").
std::vector<std::pair<std::string, std::string>> ort_cases() {
    std::vector<std::pair<std::string, std::string>> cases;
    for (const std::string folder : {"", "external/"}) {
        for (const auto& e : std::filesystem::directory_iterator(test::fixture_path("onnx/" + folder))) {
            const std::string file = e.path().filename().string();
            const std::string tail = ".ort.txt";
            if (file.size() > tail.size() && file.compare(file.size() - tail.size(), tail.size(), tail) == 0)
                cases.push_back({folder, file.substr(0, file.size() - tail.size())});
        }
    }
    std::sort(cases.begin(), cases.end());
    return cases;
}

}  // namespace

TEST_CASE("onnx: the reference evaluator agrees with ONNX Runtime on every exported fixture") {
    const auto cases = ort_cases();
    CHECK(cases.size() >= 17);
    for (const auto& [folder, stem] : cases) {
        const std::string model_stem = stem.substr(0, stem.find('.'));
        const onnx::Model m = onnx::read_onnx_file(test::fixture_path("onnx/" + folder + model_stem + ".onnx"));
        const test::OnnxCase pytorch = test::read_onnx_case(folder + stem + ".txt");
        const test::OnnxCase ort = test::read_onnx_case(folder + stem + ".ort.txt");
        const onnx::Values out = onnx::run_graph(m, pytorch.inputs);
        REQUIRE(ort.outputs.size() == pytorch.outputs.size());
        for (const onnx::Tensor& want : ort.outputs) {
            INFO(folder << stem << " output " << want.name);
            const auto [worst, largest] = differences(out.at(want.name), want);
            const double bound = 1e-5 * std::max(1.0, largest);
            MESSAGE(folder << stem << " " << want.name << ": max |evaluator - ONNX Runtime| = " << worst << " (bound "
                           << bound << ")");
            CHECK(worst <= bound);
            CHECK(largest > 0);
        }
    }
}

TEST_CASE("onnx: ONNX Runtime confirms torch 1.13's circular padding and unfold(-1) graphs differ from PyTorch") {
    for (const char* name : {"circular_pad", "unfold_last_dim"}) {
        const auto [off, largest] = differences(test::read_onnx_case(std::string(name) + ".ort.txt").outputs[0],
                                                test::read_onnx_case(std::string(name) + ".txt").outputs[0]);
        MESSAGE(std::string(name) << ": max |ONNX Runtime - PyTorch| = " << off);
        CHECK(off > 0.1);
        CHECK(largest > 0);
    }
}
