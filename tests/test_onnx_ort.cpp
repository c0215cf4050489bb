// The host reference evaluator against a second oracle, ONNX Runtime: PyTorch's outputs say what the model
// computes, ONNX Runtime's (NAME.ort.txt, written by gen_onnx_ort_outputs.js with onnxruntime-node, committed)
// what the exported graph computes. The evaluator follows the graph: it agrees with ONNX Runtime on every
// fixture, including the two torch 1.13 exports whose graphs differ from PyTorch's forward, where ONNX Runtime
// and the evaluator agree with each other and not with PyTorch.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "tests/cli_support.h"
#include "tests/onnx_fixture.h"
#include "tests/test_support.h"
#include "tools/onnx/onnx_reader.h"
#include "tools/text/csv.h"

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
    for (const auto& c : cases) {
        // Named copies, not structured bindings: doctest's INFO/CAPTURE capture them in a lambda (clang refuses
        // bindings there in C++17).
        const std::string folder = c.first, stem = c.second;
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

namespace {

// A fixture's CSV rows as a graph input, by the rule gen_onnx_ort_outputs.js feeds ONNX Runtime with: input k reads
// the src table (k = 0, or k < 2 of four inputs) or the tgt table; of four inputs (the Time-Series-Library's x_enc,
// x_mark_enc, x_dec, x_mark_dec) the even ones take the file's first columns and the odd ones the rest; a rank-3
// input whose second axis is the batch (named so, or 1 beside a longer first) is fed [rows, 1, columns].
onnx::Tensor fixture_input(const onnx::ValueInfo& v, size_t k, size_t inputs, const std::string& src,
                           const std::string& tgt) {
    const tools::Table t = tools::read_csv(k == 0 || (inputs == 4 && k < 2) ? src : tgt);
    size_t first = 0, cols = t.cols;
    if (inputs == 4) {
        const int64_t width = v.dims.size() == 3 ? v.dims[2].value : -1;
        REQUIRE(width > 0);
        cols = static_cast<size_t>(width);
        first = k % 2 == 0 ? 0 : t.cols - cols;
    }
    onnx::Tensor x;
    x.name = v.name;
    for (size_t r = 0; r < t.rows; ++r)
        for (size_t c = first; c < first + cols; ++c) x.f.push_back(t.values[r * t.cols + c]);
    const auto rows = static_cast<int64_t>(t.rows), width = static_cast<int64_t>(cols);
    const bool sequence_first = v.dims.size() == 3 && (v.dims[1].param.find("batch") != std::string::npos ||
                                                       (v.dims[1].value == 1 && v.dims[0].value > 1));
    if (v.dims.size() == 2)
        x.shape = {rows, width};
    else
        x.shape = sequence_first ? std::vector<int64_t>{rows, 1, width} : std::vector<int64_t>{1, rows, width};
    return x;
}

}  // namespace

TEST_CASE("onnx: the graphs the converter lowers: the evaluator agrees with ONNX Runtime and PyTorch") {
    // NAME.ort.csv (gen_onnx_ort_outputs.js) beside every fixture of onnx_convert/ and onnx_tvae/ with a
    // NAME.src.csv; ort.csv in the onnx_quirks/ cases it lists (model.onnx, src.csv, tgt.csv, run_out.csv).
    struct Case {
        std::string name, model, src, tgt, ort, pytorch;
    };
    std::vector<Case> cases;
    for (const char* dir : {"onnx_convert/", "onnx_tvae/"}) {
        const std::string folder = test::fixture_path(dir);
        for (const auto& e : std::filesystem::directory_iterator(folder)) {
            const std::string file = e.path().filename().string();
            const std::string tail = ".ort.csv";
            if (file.size() <= tail.size() || file.compare(file.size() - tail.size(), tail.size(), tail) != 0) continue;
            const std::string stem = folder + file.substr(0, file.size() - tail.size());
            cases.push_back({file.substr(0, file.size() - tail.size()), stem + ".onnx", stem + ".src.csv",
                             stem + ".tgt.csv", stem + ".ort.csv", stem + ".out.csv"});
        }
    }
    size_t quirks = 0;
    for (const auto& e : std::filesystem::directory_iterator(test::fixture_path("onnx_quirks"))) {
        const std::string folder = e.path().string() + "/";
        if (!std::filesystem::exists(folder + "ort.csv")) continue;
        cases.push_back({e.path().filename().string(), folder + "model.onnx", folder + "src.csv", folder + "tgt.csv",
                         folder + "ort.csv", folder + "run_out.csv"});
        ++quirks;
    }
    std::sort(cases.begin(), cases.end(), [](const Case& a, const Case& b) { return a.ort < b.ort; });
    CHECK(cases.size() >= 20);
    CHECK(quirks >= 2);
    for (const Case& c : cases) {
        const std::string stem = c.name;
        CAPTURE(stem);
        const onnx::Model m = onnx::read_onnx_file(c.model);
        const std::vector<const onnx::ValueInfo*> fed = m.fed_inputs();
        onnx::Values feeds;
        for (size_t k = 0; k < fed.size(); ++k)
            feeds[fed[k]->name] = fixture_input(*fed[k], k, fed.size(), c.src, c.tgt);
        const onnx::Tensor y = onnx::run_graph(m, feeds).at(m.graph.outputs[0].name);
        const tools::Table ort = tools::read_csv(c.ort), pytorch = tools::read_csv(c.pytorch);
        const std::vector<float>& got = y.f;
        double largest = 0;
        for (float v : ort.values) largest = std::max(largest, std::fabs(double{v}));
        const double bound = 1e-5 * std::max(1.0, largest);
        const double vs_ort = test::max_abs_error(got, ort.values);
        const double ort_vs_pytorch = test::max_abs_error(ort.values, pytorch.values);
        MESSAGE(stem << ": max |evaluator - ONNX Runtime| = " << vs_ort
                     << ", max |ONNX Runtime - PyTorch| = " << ort_vs_pytorch << " (bound " << bound << ")");
        CHECK(vs_ort <= bound);
        CHECK(ort_vs_pytorch <= bound);
        CHECK(largest > 0);
    }
}
