// The ONNX reader (tools/onnx/): the protobuf wire format it decodes, what it reads from exported files (opsets,
// shapes with dynamic dimensions, initializers, external data, float64), and that damaged or hostile files end
// in one clear ToolError, never a crash or a read outside the buffer or the model's folder.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "tests/cli_support.h"
#include "tests/onnx_fixture.h"
#include "tools/common/tool_error.h"
#include "tools/onnx/onnx_fold.h"
#include "tools/onnx/onnx_reader.h"
#include "tools/onnx/protobuf_reader.h"

using namespace ax;

namespace {

// A few bytes of protobuf, written by hand.
struct Proto {
    std::string bytes;
    Proto& varint(uint64_t v) {
        do {
            bytes += static_cast<char>((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
            v >>= 7;
        } while (v);
        return *this;
    }
    Proto& key(uint32_t field, int wire) { return varint((uint64_t{field} << 3) | static_cast<uint64_t>(wire)); }
    Proto& field(uint32_t f, uint64_t v) { return key(f, 0).varint(v); }
    Proto& field(uint32_t f, const std::string& s) {
        key(f, 2).varint(s.size());
        bytes += s;
        return *this;
    }
    Proto& field(uint32_t f, const Proto& p) { return field(f, p.bytes); }
    Proto& fixed32(uint32_t f, uint32_t v) {
        key(f, 5);
        for (int k = 0; k < 4; ++k) bytes += static_cast<char>((v >> (8 * k)) & 0xff);
        return *this;
    }
};

std::vector<uint8_t> bytes_of(const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); }

onnx::Model read(const std::string& s, const std::string& folder = "") {
    const std::vector<uint8_t> b = bytes_of(s);
    return onnx::read_onnx_bytes(b.data(), b.size(), folder, "test.onnx");
}

// A model of one Add node over an initializer given as float_data and a 2-D input with a dynamic first axis.
Proto small_model() {
    Proto dims;
    dims.field(1, Proto().field(2, "batch")).field(1, Proto().field(1, 2));
    Proto type;
    type.field(1, Proto().field(1, 1).field(2, dims));
    Proto weight;
    weight.field(1, 2).field(2, 1).field(8, "w");
    weight.fixed32(4, 0x3f800000).fixed32(4, 0x40000000);  // 1.0, 2.0 unpacked
    Proto node;
    node.field(1, "x").field(1, "w").field(2, "y").field(3, "/add").field(4, "Add");
    Proto graph;
    graph.field(1, node).field(5, weight).field(11, Proto().field(1, "x").field(2, type));
    graph.field(12, Proto().field(1, "y").field(2, type));
    Proto model;
    model.field(1, 8).field(2, "hand").field(8, Proto().field(2, 17)).field(7, graph);
    return model;
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

TEST_CASE("onnx reader: varints, fixed-width numbers and packed repeated fields") {
    Proto p;
    p.field(1, 300).field(2, uint64_t{1} << 63).fixed32(3, 0x40490fdb);
    Proto packed;
    packed.varint(1).varint(300).varint(static_cast<uint64_t>(int64_t{-2}));
    p.field(4, packed);
    const std::vector<uint8_t> b = bytes_of(p.bytes);
    onnx::ProtoReader r(b.data(), b.size(), b.data(), "test", 0);
    onnx::Field f;
    REQUIRE(r.next(&f));
    CHECK(r.varint(f) == 300);
    REQUIRE(r.next(&f));
    CHECK(r.varint(f) == uint64_t{1} << 63);
    REQUIRE(r.next(&f));
    CHECK(r.float32(f) == doctest::Approx(3.14159265));
    REQUIRE(r.next(&f));
    std::vector<int64_t> values;
    r.int64s(f, &values);
    CHECK(values == std::vector<int64_t>{1, 300, -2});
    CHECK(!r.next(&f));
    CHECK_THROWS_WITH_AS(r.float32(onnx::Field{}), doctest::Contains("has wire type 0, the schema says 5"),
                         tools::ToolError);
}

TEST_CASE("onnx reader: a hand-written model: opsets, shapes with dynamic dimensions, unpacked floats") {
    const onnx::Model m = read(small_model().bytes);
    CHECK(m.ir_version == 8);
    CHECK(m.producer_name == "hand");
    CHECK(m.default_opset() == 17);
    REQUIRE(m.graph.nodes.size() == 1);
    CHECK(m.graph.nodes[0].describe() == "Add node /add (inputs x, w)");
    REQUIRE(m.fed_inputs().size() == 1);
    CHECK(onnx::dims_text(m.fed_inputs()[0]->dims) == "[batch, 2]");
    CHECK(m.graph.initializers[0].f == std::vector<float>{1.0f, 2.0f});
    const onnx::Values out = onnx::run_graph(m, {{"x", onnx::make_float({3, 2}, {0, 0, 1, 1, 2, 2})}});
    CHECK(out.at("y").f == std::vector<float>{1, 2, 2, 3, 3, 4});
}

TEST_CASE("onnx reader: what torch.onnx.export writes (names, initializers, dynamic axes, float64, Constant nodes)") {
    const onnx::Model pre = onnx::read_onnx_file(test::fixture_path("onnx/transformer_pre_gelu.onnx"));
    CHECK(pre.producer_name == "pytorch");
    REQUIRE(pre.fed_inputs().size() == 2);
    CHECK(onnx::dims_text(pre.fed_inputs()[0]->dims) == "[batch, seq_src, 3]");
    CHECK(onnx::dims_text(pre.graph.outputs[0].dims) == "[batch, seq_out, 2]");
    bool layer_norm = false, module_path = false;
    for (const onnx::Node& n : pre.graph.nodes) {
        layer_norm = layer_norm || n.op_type == "LayerNormalization";
        module_path = module_path || n.name.find("/transformer/encoder/layers.0/") == 0;
    }
    CHECK(layer_norm);   // opset 17 writes the op itself
    CHECK(module_path);  // node names are PyTorch module paths
    const onnx::Model f64 = onnx::read_onnx_file(test::fixture_path("onnx/float64.onnx"));
    CHECK(f64.fed_inputs()[0]->type == onnx::DataType::float64);
    bool double_weight = false;
    for (const onnx::Tensor& t : f64.graph.initializers)
        double_weight = double_weight || t.type == onnx::DataType::float64;
    CHECK(double_weight);
    // Without constant folding, torch leaves constants as Constant nodes with tensor attributes.
    const onnx::Model nofold = onnx::read_onnx_file(test::fixture_path("onnx/transformer_post_gelu.onnx"));
    size_t tensor_constants = 0;
    for (const onnx::Node& n : nofold.graph.nodes)
        if (n.op_type == "Constant" && n.attribute("value") && n.attribute("value")->t) ++tensor_constants;
    CHECK(tensor_constants > 10);
}

TEST_CASE("onnx reader: external data beside the model is read; a location leaving its folder is refused") {
    const std::string folder = test::fixture_path("onnx/external");
    const onnx::Model m = onnx::read_onnx_file(folder + "/model.onnx");
    const test::OnnxCase c = test::read_onnx_case("external/model.txt");
    const onnx::Tensor y = onnx::run_graph(m, c.inputs).at("y");
    REQUIRE(y.f.size() == c.outputs[0].f.size());
    for (size_t k = 0; k < y.f.size(); ++k) CHECK(std::fabs(y.f[k] - c.outputs[0].f[k]) <= 1e-5);
    CHECK_THROWS_WITH_AS(onnx::read_onnx_file(folder + "/hostile_parent.onnx"),
                         doctest::Contains("\"../outside.bin\" leaves the model's folder: refused"), tools::ToolError);
    CHECK_THROWS_WITH_AS(onnx::read_onnx_file(folder + "/hostile_absolute.onnx"),
                         doctest::Contains("\"/etc/passwd\" is not a file name relative to the model's folder"),
                         tools::ToolError);
    // From bytes there is no folder to read from.
    const std::vector<uint8_t> b = bytes_of(read_file(folder + "/model.onnx"));
    CHECK_THROWS_WITH_AS(onnx::read_onnx_bytes(b.data(), b.size(), "", "m.onnx"),
                         doctest::Contains("external data is read only from a model file"), tools::ToolError);
    // A link inside the folder that points out of it is refused too.
    const std::string dir = (test::scratch_dir() / "onnx_link").string();
    std::filesystem::create_directories(dir);
    std::filesystem::copy_file(folder + "/model.onnx", dir + "/model.onnx",
                               std::filesystem::copy_options::overwrite_existing);
    std::filesystem::remove(dir + "/external_weights.bin");
    std::filesystem::create_symlink(folder + "/external_weights.bin", dir + "/external_weights.bin");
    CHECK_THROWS_WITH_AS(onnx::read_onnx_file(dir + "/model.onnx"), doctest::Contains("outside the model's folder"),
                         tools::ToolError);
    // A data file shorter than its entries say.
    std::filesystem::remove(dir + "/external_weights.bin");
    std::ofstream(dir + "/external_weights.bin") << "short";
    CHECK_THROWS_WITH_AS(onnx::read_onnx_file(dir + "/model.onnx"), doctest::Contains("runs past the end"),
                         tools::ToolError);
}

TEST_CASE("onnx reader: hostile and damaged files end in a clear error") {
    SUBCASE("a length beyond the buffer") {
        Proto p;
        p.field(1, 8).key(7, 2).varint(1000).bytes += "abc";
        CHECK_THROWS_WITH_AS(read(p.bytes), doctest::Contains("claims 1000 bytes, 3 remain"), tools::ToolError);
    }
    SUBCASE("a varint longer than 64 bits") {
        CHECK_THROWS_WITH_AS(read(std::string("\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f", 11)),
                             doctest::Contains("longer than 64 bits"), tools::ToolError);
    }
    SUBCASE("graphs nested in attributes deeper than the limit") {
        Proto g;  // a graph holding a node whose attribute is a graph holding ...
        for (int k = 0; k < 20; ++k) {
            Proto attr;
            attr.field(1, "body").field(20, 5).field(6, g);
            Proto node;
            node.field(4, "Loop").field(5, attr);
            g = Proto().field(1, node);
        }
        CHECK_THROWS_WITH_AS(read(Proto().field(1, 8).field(7, g).bytes), doctest::Contains("nested more than 32 deep"),
                             tools::ToolError);
    }
    SUBCASE("a tensor whose data does not fill its shape") {
        Proto t;
        t.field(1, 1000).field(1, 1000).field(2, 1).field(8, "w").field(9, std::string(8, '\0'));
        Proto graph;
        graph.field(5, t);
        CHECK_THROWS_WITH_AS(read(Proto().field(1, 8).field(8, Proto().field(2, 13)).field(7, graph).bytes),
                             doctest::Contains("needs 4000000 bytes of raw_data, it has 8"), tools::ToolError);
    }
    SUBCASE("a shape of more elements than can be held") {
        Proto t;
        for (int k = 0; k < 8; ++k) t.field(1, 1000000);
        t.field(2, 1).field(8, "w");
        CHECK_THROWS_WITH_AS(
            read(Proto().field(1, 8).field(8, Proto().field(2, 13)).field(7, Proto().field(5, t)).bytes),
            doctest::Contains("elements"), tools::ToolError);
    }
    SUBCASE("not a model at all") {
        CHECK_THROWS_WITH_AS(read(Proto().field(2, "x").bytes), doctest::Contains("not an ONNX model"),
                             tools::ToolError);
        CHECK_THROWS_WITH_AS(read(""), doctest::Contains("not an ONNX model"), tools::ToolError);
    }
}

TEST_CASE("onnx reader: every truncation and byte flip of an exported model is an error or a model, never a crash") {
    const std::string whole = read_file(test::fixture_path("onnx/qkv_learned_pos.onnx"));
    REQUIRE(whole.size() > 1000);
    size_t errors = 0, models = 0;
    auto attempt = [&](const std::string& bytes) {
        try {
            const onnx::Model m = read(bytes);
            ++models;
            // Whatever was read folds or fails cleanly too.
            try {
                onnx::fold_graph(m, onnx::input_shapes(m, {}));
            } catch (const tools::ToolError&) {
            }
        } catch (const tools::ToolError& e) {
            ++errors;
            CHECK(std::string(e.what()).find("test.onnx") == 0);
        }
    };
    for (size_t n = 0; n < whole.size(); n += 7) attempt(whole.substr(0, n));
    uint32_t state = 12345;
    for (int k = 0; k < 400; ++k) {
        std::string bytes = whole;
        state = state * 1664525u + 1013904223u;
        bytes[state % bytes.size()] = static_cast<char>(state >> 24);
        attempt(bytes);
    }
    MESSAGE(errors << " damaged files refused, " << models << " still read as a model");
    CHECK(errors > whole.size() / 7 / 2);
}

// Found by fuzz_onnx: an empty packed float field copied from a null pointer (undefined behaviour that only the
// sanitizer build reports).
TEST_CASE("fuzz regression: empty packed float and double fields read as no values") {
    Proto p;
    p.field(4, "").field(10, "");
    const std::vector<uint8_t> b = bytes_of(p.bytes);
    onnx::ProtoReader r(b.data(), b.size(), b.data(), "test", 0);
    onnx::Field f;
    std::vector<float> floats;
    std::vector<double> doubles;
    REQUIRE(r.next(&f));
    r.float32s(f, &floats);
    REQUIRE(r.next(&f));
    r.float64s(f, &doubles);
    CHECK(floats.empty());
    CHECK(doubles.empty());
}
