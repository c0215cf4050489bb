// Rename maps (tools/import/rename_map.h): the rule language, q/k/v packing, Conv1d reshaping, zero biases, and the
// two shipped maps (tools/import/maps/) converting hand-written PyTorch modules that match PyTorch within
// tests/tolerances.h.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <unistd.h>

#include "tests/family_support.h"
#include "tools/host/family_sessions.h"
#include "tools/import/rename_map.h"
#include "tools/common/tool_error.h"

namespace {

using namespace ax;

std::string map_path(const std::string& name) { return std::string(AUSPEX_SOURCE_DIR) + "/tools/import/maps/" + name; }

tools::HostTensor tensor(std::vector<int64_t> shape, float first) {
    tools::HostTensor t;
    t.shape = shape;
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    for (int64_t i = 0; i < n; ++i) t.data.push_back(first + static_cast<float>(i));
    t.source_dtype = "float32";
    return t;
}

bool throws_with(const std::function<void()>& f, const std::string& phrase) {
    try {
        f();
    } catch (const tools::ToolError& e) {
        INFO("message: " << e.what());
        CHECK(std::string(e.what()).find(phrase) != std::string::npos);
        return true;
    }
    return false;
}

}  // namespace

TEST_CASE("rename map: rules rename, capture, drop, pack q/k/v, reshape Conv1d and add zero biases") {
    const tools::RenameMap map = tools::RenameMap::parse(
        "# a comment line\n"
        "\n"
        "blocks.{N}.att.q.{p} -> encoder.layers.{N}.self_attn.in_proj_{p}[q]   # trailing comment\n"
        "blocks.{N}.att.k.{p} -> encoder.layers.{N}.self_attn.in_proj_{p}[k]\n"
        "blocks.{N}.att.v.{p} -> encoder.layers.{N}.self_attn.in_proj_{p}[v]\n"
        "blocks.{N}.att.o.weight -> encoder.layers.{N}.self_attn.out_proj.weight\n"
        "blocks.{N}.conv1.{p} -> encoder.layers.{N}.linear1.{p}\n"
        "blocks.{N}.step -> -\n",
        "test.map");
    CHECK(map.rule_count() == 6);
    tools::TensorMap in;
    in["blocks.1.att.q.weight"] = tensor({2, 2}, 0);
    in["blocks.1.att.k.weight"] = tensor({2, 2}, 10);
    in["blocks.1.att.v.weight"] = tensor({2, 2}, 20);
    in["blocks.1.att.o.weight"] = tensor({2, 2}, 30);
    in["blocks.1.conv1.weight"] = tensor({3, 2, 1}, 40);
    in["blocks.1.conv1.bias"] = tensor({3}, 50);
    in["blocks.1.step"] = tensor({1}, 0);
    in["untouched.weight"] = tensor({4}, 0);
    const tools::TensorMap out = map.apply(in);
    const auto& packed = out.at("encoder.layers.1.self_attn.in_proj_weight");
    CHECK(packed.shape == std::vector<int64_t>{6, 2});
    CHECK(packed.data == std::vector<float>{0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23});
    CHECK(out.at("encoder.layers.1.self_attn.in_proj_bias").data == std::vector<float>(6, 0.0f));  // bias-free
    CHECK(out.at("encoder.layers.1.self_attn.out_proj.bias").data == std::vector<float>(2, 0.0f));
    CHECK(out.at("encoder.layers.1.linear1.weight").shape == std::vector<int64_t>{3, 2});  // Conv1d k=1
    CHECK(out.at("encoder.layers.1.linear1.bias").data[0] == 50);
    CHECK(out.count("blocks.1.step") == 0);
    CHECK(out.count("untouched.weight") == 1);
    CHECK(out.size() == 7);
}

TEST_CASE("rename map: malformed maps and inconsistent results are refused with the line or tensor") {
    CHECK(throws_with([] { tools::RenameMap::parse("a.b c.d\n", "m.map"); }, "m.map:1: expected one rule"));
    CHECK(throws_with([] { tools::RenameMap::parse("# only\n\na -> b -> c\n", "m.map"); }, "m.map:3"));
    CHECK(throws_with([] { tools::RenameMap::parse("a.{N}.w -> b.{M}.w\n", "m.map"); }, "{M} is not captured"));
    CHECK(throws_with([] { tools::RenameMap::parse("a.{N.w -> b\n", "m.map"); }, "unmatched"));
    CHECK(throws_with([] { tools::RenameMap::parse("a.{N}.{N} -> b\n", "m.map"); }, "twice"));
    CHECK(throws_with([] { tools::RenameMap::parse("a.{x-y} -> b\n", "m.map"); }, "letters, digits"));
    CHECK(throws_with([] { tools::RenameMap::parse("# nothing\n", "m.map"); }, "no rule"));
    CHECK(throws_with([] { tools::RenameMap::read("/nonexistent.map"); }, "/nonexistent.map"));

    const tools::RenameMap map = tools::RenameMap::parse(
        "x.{N}.q -> encoder.layers.{N}.self_attn.in_proj_weight[q]\n"
        "x.{N}.k -> encoder.layers.{N}.self_attn.in_proj_weight[k]\n"
        "x.{N}.v -> encoder.layers.{N}.self_attn.in_proj_weight[v]\n"
        "y.{a} -> same\n",
        "m.map");
    tools::TensorMap missing;
    missing["x.0.q"] = tensor({2, 2}, 0);
    missing["x.0.k"] = tensor({2, 2}, 0);
    CHECK(throws_with([&] { map.apply(missing); }, "in_proj_weight[v] is missing"));
    tools::TensorMap shapes = missing;
    shapes["x.0.v"] = tensor({3, 2}, 0);
    CHECK(throws_with([&] { map.apply(shapes); }, "has shape [3, 2]"));
    tools::TensorMap clash;
    clash["y.a"] = tensor({1}, 0);
    clash["y.b"] = tensor({1}, 0);
    CHECK(throws_with([&] { map.apply(clash); }, "both become same"));
}

TEST_CASE("rename maps: the shipped maps convert hand-written modules that then match PyTorch") {
    {
        const std::string dir = test::fixture_path("seq2seq/bentrevett_map");
        const std::string map = map_path("bentrevett_seq2seq.map");
        const double worst = test::check_seq2seq_model(
            dir, test::convert_case(dir, format::DType::f32, "model.pt", map), "bentrevett_map");
        MESSAGE("bentrevett seq2seq through its map: max mixed error vs PyTorch " << worst);
        for (format::DType dtype : {format::DType::f16, format::DType::i8}) {
            const auto model = tools::open_model_bytes(test::convert_case(dir, dtype, "model.pt", map), "bt");
            tools::HostSeq2Seq s(*model, *test::available_ports()[0], 12, 12);
            CHECK(test::all_finite(s.run({4, 5, 6, 3}, {2, 6, 5})));
        }
        // Without the map, the importer says what it expected and what it found.
        CHECK(throws_with([&] { test::convert_case(dir); }, "found encoder stacks: none"));
        CHECK(throws_with([&] { test::convert_case(dir); }, "--map"));
    }
    {
        const std::string dir = test::fixture_path("tvae/conv1d_map");
        const std::string map = map_path("ts_vae_conv1d.map");
        const double worst =
            test::check_tvae_model(dir, test::convert_case(dir, format::DType::f32, "model.pt", map), "conv1d_map");
        MESSAGE("hand-written time-series VAE through its map: max mixed error vs PyTorch " << worst);
        test::check_tvae_model(dir, test::convert_case(dir, format::DType::f32, "model.safetensors", map),
                               "conv1d_map (.safetensors)");
        const auto model = tools::open_model_bytes(test::convert_case(dir, format::DType::f32, "model.pt", map), "ts");
        CHECK(model->as<Tvae>().config().stack.layer.eps == 1e-12f);
        CHECK(throws_with([&] { test::convert_case(dir); }, "found encoder stacks: none"));
    }
}

TEST_CASE("rename map: {name*} spans several name components") {
    const tools::RenameMap map = tools::RenameMap::parse(
        "encoder_layer.{rest*} -> -\n"
        "model.{path*}.fc.{p} -> net.{path}.linear.{p}\n",
        "span.map");
    tools::TensorMap in;
    in["encoder_layer.self_attn.in_proj_weight"] = tensor({3}, 0);
    in["encoder_layer.norm1.bias"] = tensor({3}, 0);
    in["encoder_layer2.norm1.bias"] = tensor({3}, 0);  // another module: not under encoder_layer.
    in["model.a.b.fc.weight"] = tensor({2}, 0);
    in["model.a.fc.bias"] = tensor({2}, 5);
    const tools::TensorMap out = map.apply(in);
    CHECK(out.count("encoder_layer.self_attn.in_proj_weight") == 0);
    CHECK(out.count("encoder_layer.norm1.bias") == 0);
    CHECK(out.count("encoder_layer2.norm1.bias") == 1);
    CHECK(out.count("net.a.b.linear.weight") == 1);
    CHECK(out.at("net.a.linear.bias").data[0] == 5);
    CHECK(out.size() == 3);
}

TEST_CASE("rename maps: a layer tensor nothing provided is reported with the tensors nothing matched there") {
    // A misspelt module name (in the model or in the map) leaves the layer's tensors unmatched.
    const std::string dir = test::fixture_path("seq2seq/bentrevett_map");
    std::ifstream in(map_path("bentrevett_seq2seq.map"));
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (size_t at = text.find("positionwise_feedforward"); at != std::string::npos;
         at = text.find("positionwise_feedforward", at + 1))
        text.replace(at, 24, "potisionwise_feedforward");
    const std::string path =
        std::filesystem::temp_directory_path() / ("auspex_typo_" + std::to_string(::getpid()) + ".map");
    std::ofstream(path) << text;
    CHECK(throws_with([&] { test::convert_case(dir, format::DType::f32, "model.pt", path); },
                      "tensors nothing matched there: encoder.layers.0.positionwise_feedforward.fc_1.bias"));
    std::filesystem::remove(path);
}
