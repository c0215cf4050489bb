// The ONNX fixtures of tests/fixtures/onnx/ (gen_onnx_fixtures.py): a model and the inputs PyTorch was given
// and the outputs it returned, read from NAME.txt.
#pragma once
#include <fstream>
#include <string>
#include <vector>

#include "tests/test_support.h"
#include "tools/onnx/onnx_eval.h"

namespace ax::test {

struct OnnxCase {
    onnx::Values inputs;
    std::vector<onnx::Tensor> outputs;  // in the graph's order
};

// Blocks of "input|output NAME RANK d0 d1 ..." then the values; throws on a malformed file.
inline OnnxCase read_onnx_case(const std::string& relative) {
    std::ifstream in(fixture_path("onnx/" + relative));
    if (!in) throw std::runtime_error("cannot open fixture onnx/" + relative);
    OnnxCase c;
    std::string kind;
    while (in >> kind) {
        onnx::Tensor t;
        size_t rank = 0;
        in >> t.name >> rank;
        t.shape.resize(rank);
        size_t n = 1;
        for (int64_t& d : t.shape) {
            in >> d;
            n *= static_cast<size_t>(d);
        }
        t.f.resize(n);
        for (float& v : t.f) in >> v;
        if (!in) throw std::runtime_error("malformed fixture onnx/" + relative);
        if (kind == "input")
            c.inputs[t.name] = t;
        else
            c.outputs.push_back(t);
    }
    return c;
}

}  // namespace ax::test
