// The host reference evaluator against PyTorch: every fixture of tests/fixtures/onnx/ (exported by
// gen_onnx_fixtures.py with torch 1.13) evaluated op by op reproduces the outputs PyTorch's forward returned,
// within 1e-5 x max(1, max |output|), on the whole graph and on the graph left after constant and shape folding.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "tests/onnx_fixture.h"
#include "tools/common/tool_error.h"
#include "tools/onnx/onnx_fold.h"
#include "tools/onnx/onnx_reader.h"

using namespace ax;

namespace {

// The largest |got - want| over the output, and the bound 1e-5 x max(1, max |want|) it must stay within.
void check_output(const onnx::Tensor& got, const onnx::Tensor& want, const std::string& what) {
    INFO(what);
    REQUIRE(got.shape == want.shape);
    REQUIRE(got.f.size() == want.f.size());
    double worst = 0, largest = 0;
    for (size_t k = 0; k < want.f.size(); ++k) {
        largest = std::max(largest, std::fabs(double{want.f[k]}));
        worst = std::max(worst, std::fabs(double{got.f[k]} - want.f[k]));
    }
    const double bound = 1e-5 * std::max(1.0, largest);
    MESSAGE(what << ": max |evaluator - PyTorch| = " << worst << " (bound " << bound << ", max |out| " << largest
                 << ")");
    CHECK(worst <= bound);
    CHECK(largest > 0);  // a real output, not zeros
}

std::set<std::string> op_types(const onnx::Graph& g) {
    std::set<std::string> ops;
    for (const onnx::Node& n : g.nodes) ops.insert(n.op_type);
    return ops;
}

struct Expect {
    const char* name;
    int64_t opset;
    bool dynamic;
    bool folds;  // has shape arithmetic or constants to fold
};

const Expect kCases[] = {
    {"transformer_post_relu", 13, false, true},
    {"transformer_pre_gelu", 17, true, true},
    {"transformer_post_gelu", 14, true, true},
    {"encoder_flatten", 14, false, true},
    {"qkv_learned_pos", 17, true, true},
    {"conv_embed", 13, false, true},
    {"float64", 17, false, true},
    {"misc_ops", 17, true, true},
    {"gelu_op", 20, false, false},
    {"circular_pad_by_hand", 17, false, true},
    {"unfold_dim_2", 17, false, true},
};

}  // namespace

TEST_CASE("onnx: the reference evaluator reproduces PyTorch's outputs for every exported fixture") {
    for (const Expect& e : kCases) {
        const std::string name = e.name;
        const onnx::Model m = onnx::read_onnx_file(test::fixture_path("onnx/" + name + ".onnx"));
        const test::OnnxCase c = test::read_onnx_case(name + ".txt");
        CHECK(m.default_opset() == e.opset);
        bool dynamic = false;
        for (const onnx::ValueInfo* v : m.fed_inputs())
            for (const onnx::Dim& d : v->dims) dynamic = dynamic || (d.value < 0 && !d.param.empty());
        CHECK(dynamic == e.dynamic);
        const onnx::Values out = onnx::run_graph(m, c.inputs);
        REQUIRE(c.outputs.size() == m.graph.outputs.size());
        for (const onnx::Tensor& want : c.outputs) check_output(out.at(want.name), want, name + " (whole graph)");
    }
}

TEST_CASE("onnx: folding for the inputs' shapes leaves a compute graph with the same outputs") {
    // What never remains once the input shapes are known: shape reads and values made from shapes. Concat,
    // Unsqueeze, Where, ... may remain on activations (patches, masks applied to scores).
    const std::set<std::string> shape_ops = {"Shape", "Size", "Constant", "ConstantOfShape", "Range"};
    for (const Expect& e : kCases) {
        const std::string name = e.name;
        const onnx::Model m = onnx::read_onnx_file(test::fixture_path("onnx/" + name + ".onnx"));
        const test::OnnxCase c = test::read_onnx_case(name + ".txt");
        onnx::Shapes shapes;
        for (const auto& [input, t] : c.inputs) shapes[input] = t.shape;
        const onnx::FoldedGraph f = onnx::fold_graph(m, shapes);
        INFO(name);
        CHECK(f.not_evaluable.empty());
        CHECK(f.folded_nodes + f.model.graph.nodes.size() == m.graph.nodes.size());
        CHECK((f.folded_nodes > 0) == e.folds);
        for (const std::string& op : op_types(f.model.graph)) CHECK_MESSAGE(!shape_ops.count(op), op << " remains");
        // Every remaining node reads a value computed from the fed inputs: nothing computable ahead is left.
        std::set<std::string> constants;
        for (const onnx::Tensor& t : f.model.graph.initializers) constants.insert(t.name);
        for (const onnx::Node& n : f.model.graph.nodes) {
            size_t computed = 0;
            for (const std::string& input : n.inputs) computed += !input.empty() && !constants.count(input);
            CHECK_MESSAGE(computed > 0, n.describe() << " reads only constants");
        }
        size_t counted = 0;
        for (const auto& [op, n] : f.op_counts) counted += n;
        CHECK(counted == f.model.graph.nodes.size());
        for (const onnx::ValueInfo& v : m.graph.outputs) CHECK(f.shapes.count(v.name));
        const onnx::Values out = onnx::run_graph(f.model, c.inputs);
        for (const onnx::Tensor& want : c.outputs) check_output(out.at(want.name), want, name + " (folded)");
    }
}

TEST_CASE("onnx: dynamic-axes exports evaluated at other batch and sequence sizes than they were traced with") {
    for (const char* name : {"transformer_pre_gelu", "transformer_post_gelu", "qkv_learned_pos", "misc_ops"}) {
        const onnx::Model m = onnx::read_onnx_file(test::fixture_path(std::string("onnx/") + name + ".onnx"));
        const test::OnnxCase traced = test::read_onnx_case(std::string(name) + ".txt");
        const test::OnnxCase other = test::read_onnx_case(std::string(name) + ".other.txt");
        REQUIRE(other.inputs.begin()->second.shape != traced.inputs.begin()->second.shape);
        const onnx::Values out = onnx::run_graph(m, other.inputs);
        check_output(out.at("y"), other.outputs[0], std::string(name) + " (other sizes, whole graph)");
        onnx::Shapes shapes;
        for (const auto& [input, t] : other.inputs) shapes[input] = t.shape;
        const onnx::FoldedGraph f = onnx::fold_graph(m, shapes);
        check_output(onnx::run_graph(f.model, other.inputs).at("y"), other.outputs[0],
                     std::string(name) + " (other sizes, folded)");
        // A graph folded for the traced sizes is for those sizes only: its fixed inputs refuse the others.
        onnx::Shapes traced_shapes;
        for (const auto& [input, t] : traced.inputs) traced_shapes[input] = t.shape;
        CHECK_THROWS_WITH_AS(onnx::run_graph(onnx::fold_graph(m, traced_shapes).model, other.inputs),
                             doctest::Contains("the graph declares"), tools::ToolError);
    }
}

TEST_CASE("onnx: torch 1.13's circular padding and unfold(-1) export graphs that differ from PyTorch") {
    // The evaluator follows the graph: for these two exporter bugs it runs without error and gives other numbers
    // than PyTorch's forward, which only a comparison with PyTorch shows (docs/onnx.md). The same computations
    // written the other way (torch.cat, a dimension counted from the front) export right: see kCases.
    for (const char* name : {"circular_pad", "unfold_last_dim"}) {
        const onnx::Model m = onnx::read_onnx_file(test::fixture_path(std::string("onnx/") + name + ".onnx"));
        const test::OnnxCase c = test::read_onnx_case(std::string(name) + ".txt");
        const onnx::Tensor y = onnx::run_graph(m, c.inputs).at("y");
        REQUIRE(y.shape == c.outputs[0].shape);
        double worst = 0;
        for (size_t k = 0; k < y.f.size(); ++k) worst = std::max(worst, std::fabs(double{y.f[k]} - c.outputs[0].f[k]));
        MESSAGE(std::string(name) << ": the exported graph differs from PyTorch by up to " << worst);
        CHECK(worst > 0.1);
    }
    // PyTorch computes the same for both spellings; the fixtures hold the same outputs.
    CHECK(test::read_onnx_case("circular_pad.txt").outputs[0].f ==
          test::read_onnx_case("circular_pad_by_hand.txt").outputs[0].f);
    CHECK(test::read_onnx_case("unfold_last_dim.txt").outputs[0].f ==
          test::read_onnx_case("unfold_dim_2.txt").outputs[0].f);
}

TEST_CASE("onnx: the decoder's causal mask made from arange comparisons folds to a constant") {
    // Dynamic axes and no constant folding at export: the mask, the reshape sizes and the constants are all in
    // the graph as nodes.
    const onnx::Model m = onnx::read_onnx_file(test::fixture_path("onnx/transformer_post_gelu.onnx"));
    const test::OnnxCase c = test::read_onnx_case("transformer_post_gelu.txt");
    onnx::Shapes shapes;
    for (const auto& [input, t] : c.inputs) shapes[input] = t.shape;
    const std::set<std::string> before = op_types(m.graph);
    for (const char* op : {"Where", "Range", "Greater", "ConstantOfShape", "Shape", "Constant"})
        CHECK_MESSAGE(before.count(op), op);
    const onnx::FoldedGraph f = onnx::fold_graph(m, shapes);
    // What remains is the core of a post-norm GELU nn.Transformer at opset 14: LayerNorm decomposed.
    const std::set<std::string> after = op_types(f.model.graph);
    const std::set<std::string> core = {"Add",   "Transpose", "MatMul", "Reshape", "ReduceMean", "Div",     "Mul",
                                        "Slice", "Pow",       "Sqrt",   "Sub",     "Gemm",       "Softmax", "Erf"};
    CHECK(after == core);
    CHECK(f.model.graph.nodes.size() * 3 < m.graph.nodes.size());
}

TEST_CASE("onnx: a dynamic-axes export folds for other sequence lengths than it was exported with") {
    const onnx::Model m = onnx::read_onnx_file(test::fixture_path("onnx/qkv_learned_pos.onnx"));
    const onnx::Shapes shapes = onnx::input_shapes(m, {{"seq_x", 5}});
    CHECK(shapes.at("x") == std::vector<int64_t>{1, 5, 3});
    const onnx::FoldedGraph f = onnx::fold_graph(m, shapes);
    CHECK(f.not_evaluable.empty());
    CHECK(f.shapes.at("y") == std::vector<int64_t>{1, 5, 2});
    // The folded graph and the whole graph agree on a probe input of that shape.
    onnx::Values in{{"x", onnx::probe_tensor(*m.fed_inputs()[0], shapes.at("x"))}};
    const onnx::Tensor whole = onnx::run_graph(m, in).at("y"), folded = onnx::run_graph(f.model, in).at("y");
    CHECK(whole.f == folded.f);
    CHECK_THROWS_WITH_AS(onnx::input_shapes(m, {{"seq", 5}}),
                         doctest::Contains("no input has a dynamic dimension named seq"), tools::ToolError);
}

TEST_CASE("onnx: a node the evaluator cannot compute is refused naming its op type, name and inputs") {
    onnx::Model m = onnx::read_onnx_file(test::fixture_path("onnx/encoder_flatten.onnx"));
    const test::OnnxCase c = test::read_onnx_case("encoder_flatten.txt");
    onnx::Node* relu = nullptr;
    for (onnx::Node& n : m.graph.nodes)
        if (n.op_type == "Relu" && !relu) relu = &n;
    REQUIRE(relu);
    relu->op_type = "HardSwish";
    const std::string name = relu->name, input = relu->inputs[0];
    try {
        onnx::run_graph(m, c.inputs);
        FAIL("an unknown op was evaluated");
    } catch (const tools::ToolError& e) {
        const std::string what = e.what();
        CHECK(what.find("HardSwish node " + name) != std::string::npos);
        CHECK(what.find("(inputs " + input + ")") != std::string::npos);
        CHECK(what.find("has no HardSwish") != std::string::npos);
    }
    onnx::Shapes shapes{{"x", c.inputs.at("x").shape}};
    const onnx::FoldedGraph f = onnx::fold_graph(m, shapes);
    REQUIRE(f.not_evaluable.size() == 1);
    CHECK(f.model.graph.nodes[f.not_evaluable[0].first].name == name);
    CHECK(f.op_counts.at("HardSwish") == 1);
}

TEST_CASE("onnx: operator edge cases the exporters rely on") {
    using onnx::make_float;
    using onnx::make_int;
    auto node = [](const char* op) {
        onnx::Node n;
        n.op_type = op;
        n.name = std::string("/t/") + op;
        n.outputs = {"y"};
        return n;
    };
    SUBCASE("Slice with INT64_MAX ends and a negative step") {
        const onnx::Tensor x = make_float({5}, {0, 1, 2, 3, 4});
        const onnx::Tensor s = make_int({1}, {-1}), e = make_int({1}, {INT64_MIN}), a = make_int({1}, {0}),
                           st = make_int({1}, {-2});
        CHECK(onnx::evaluate_node(node("Slice"), {&x, &s, &e, &a, &st}, 13)[0].f == std::vector<float>{4, 2, 0});
        const onnx::Tensor s1 = make_int({1}, {1}), e1 = make_int({1}, {INT64_MAX});
        CHECK(onnx::evaluate_node(node("Slice"), {&x, &s1, &e1}, 13)[0].f == std::vector<float>{1, 2, 3, 4});
    }
    SUBCASE("Einsum of attention scores equals the batched MatMul with a transpose") {
        std::vector<float> q(2 * 3 * 4), k(2 * 5 * 4);
        for (size_t i = 0; i < q.size(); ++i) q[i] = static_cast<float>(std::sin(0.3 * static_cast<double>(i)));
        for (size_t i = 0; i < k.size(); ++i) k[i] = static_cast<float>(std::cos(0.7 * static_cast<double>(i)));
        const onnx::Tensor tq = make_float({2, 3, 4}, q), tk = make_float({2, 5, 4}, k);
        onnx::Node ein = node("Einsum");
        onnx::Attribute eq;
        eq.name = "equation";
        eq.s = "bqd, bkd -> bqk";
        ein.attributes.push_back(eq);
        const onnx::Tensor got = onnx::evaluate_node(ein, {&tq, &tk}, 17)[0];
        CHECK(got.shape == std::vector<int64_t>{2, 3, 5});
        onnx::Node tr = node("Transpose");
        onnx::Attribute perm;
        perm.name = "perm";
        perm.ints = {0, 2, 1};
        tr.attributes.push_back(perm);
        const onnx::Tensor kt = onnx::evaluate_node(tr, {&tk}, 17)[0];
        const onnx::Tensor want = onnx::evaluate_node(node("MatMul"), {&tq, &kt}, 17)[0];
        CHECK(got.f == want.f);
    }
    SUBCASE("Split into equal parts and Expand") {
        const onnx::Tensor x = make_float({1, 6}, {1, 2, 3, 4, 5, 6});
        onnx::Node split = node("Split");
        split.outputs = {"a", "b", "c"};
        onnx::Attribute axis;
        axis.name = "axis";
        axis.i = 1;
        split.attributes.push_back(axis);
        const std::vector<onnx::Tensor> parts = onnx::evaluate_node(split, {&x}, 13);
        REQUIRE(parts.size() == 3);
        CHECK(parts[2].f == std::vector<float>{5, 6});
        const onnx::Tensor shape = make_int({2}, {3, 1});
        const onnx::Tensor col = make_float({1}, {7});
        CHECK(onnx::evaluate_node(node("Expand"), {&col, &shape}, 13)[0].shape == std::vector<int64_t>{3, 1});
    }
    SUBCASE("shapes that do not fit are errors, not garbage") {
        const onnx::Tensor a = make_float({2, 3}, {1, 2, 3, 4, 5, 6}), b = make_float({2, 3}, {1, 2, 3, 4, 5, 6});
        CHECK_THROWS_WITH_AS(onnx::evaluate_node(node("MatMul"), {&a, &b}, 13),
                             doctest::Contains("MatMul of [2, 3] by [2, 3]"), tools::ToolError);
        const onnx::Tensor s = make_int({1}, {4});
        CHECK_THROWS_WITH_AS(onnx::evaluate_node(node("Reshape"), {&a, &s}, 13), doctest::Contains("cannot reshape"),
                             tools::ToolError);
        const onnx::Tensor c = make_float({4}, {1, 2, 3, 4});
        CHECK_THROWS_WITH_AS(onnx::evaluate_node(node("Add"), {&a, &c}, 13), doctest::Contains("do not broadcast"),
                             tools::ToolError);
    }
    // Found by fuzz_onnx: shape arithmetic past int64 (a hostile graph) was undefined behaviour; refused now.
    SUBCASE("integer arithmetic past int64 is refused, not wrapped") {
        const onnx::Tensor big = make_int({1}, {648518346341351424}), sixteen = make_int({1}, {16});
        const onnx::Tensor low = make_int({1}, {INT64_MIN}), top = make_int({1}, {INT64_MAX}),
                           minus = make_int({1}, {-1});
        auto refused = [&](const char* op, const onnx::Tensor& a, const onnx::Tensor& b) {
            CHECK_THROWS_WITH_AS(onnx::evaluate_node(node(op), {&a, &b}, 13), doctest::Contains("integer overflow"),
                                 tools::ToolError);
        };
        refused("Mul", big, sixteen);
        refused("Add", top, sixteen);
        refused("Sub", low, sixteen);
        refused("Div", low, minus);
        refused("Pow", sixteen, sixteen);
        const onnx::Tensor pair = make_float({2}, {1, 2}), huge = make_int({1}, {7061644215716937729});
        CHECK_THROWS_WITH_AS(onnx::evaluate_node(node("Tile"), {&pair, &huge}, 13), doctest::Contains("Tile's repeats"),
                             tools::ToolError);
        CHECK(onnx::evaluate_node(node("Pow"), {&minus, &big}, 13)[0].i == std::vector<int64_t>{1});
        CHECK(onnx::evaluate_node(node("Mul"), {&sixteen, &minus}, 13)[0].i == std::vector<int64_t>{-16});
    }
}
