// Inputs the fuzz targets (tests/fuzz/) found to crash, hang or misbehave, reduced to the smallest case that
// shows the bug. Each test names the target that found it. Several only fail loudly under `make test-sanitize`
// (the undefined behaviour is silent in a plain build), so keep them in the suite that runs there.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "ports/generic/generic.h"
#include "ports/ports.h"
#include "tests/test_support.h"
#include "tools/checkpoint/checkpoint.h"
#include "tools/import/convert_config.h"
#include "tools/convert/converter.h"
#include "tools/text/csv.h"
#include "tools/import/forecaster_import.h"
#include "tools/host/host_session.h"
#include "tools/host/model_loader.h"
#include "tools/checkpoint/pickle_reader.h"
#include "tools/import/rename_map.h"
#include "tools/common/tool_error.h"
#include "tools/onnx/onnx_fold.h"
#include "tools/onnx/onnx_reader.h"
#include "tools/onnx/onnx_tensor.h"
#include "tools/onnx_import/lower_graph.h"

using namespace ax;
using namespace ax::tools;

namespace {

// A safetensors file from its JSON header and data section.
std::vector<uint8_t> safetensors(const std::string& header, const std::vector<uint8_t>& data) {
    std::vector<uint8_t> out;
    out.reserve(8 + header.size() + data.size());
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>(static_cast<uint64_t>(header.size()) >> (8 * i)));
    for (char c : header) out.push_back(static_cast<uint8_t>(c));
    for (uint8_t b : data) out.push_back(b);
    return out;
}

// A torch state_dict pickle (protocol 2) holding one float tensor `name` of the given sizes and strides
// (each an int, LONG1 for the big ones) viewing a one-element storage.
std::string u32le(uint32_t v) {
    std::string s(4, '\0');
    for (int i = 0; i < 4; ++i) s[i] = static_cast<char>(v >> (8 * i));
    return s;
}
std::string pickled_int(int64_t v) {
    std::string s = "\x8a\x08";  // LONG1, 8 bytes
    for (int i = 0; i < 8; ++i) s += static_cast<char>(static_cast<uint64_t>(v) >> (8 * i));
    return s;
}
std::string pickled_text(const std::string& t) { return "X" + u32le(static_cast<uint32_t>(t.size())) + t; }
std::string state_dict_pickle(const std::string& name, const std::vector<int64_t>& size,
                              const std::vector<int64_t>& stride) {
    std::string p = "\x80\x02}(" + pickled_text(name) + "ctorch._utils\n_rebuild_tensor_v2\n(";
    p += "(" + pickled_text("storage") + "ctorch\nFloatStorage\n" + pickled_text("0") + pickled_text("cpu") +
         "K\x01tQ";              // persistent id -> storage
    p += std::string("K\0", 2);  // storage offset 0
    p += "(";
    for (int64_t v : size) p += pickled_int(v);
    p += "t(";
    for (int64_t v : stride) p += pickled_int(v);
    p += "t\x89"
         "ccollections\nOrderedDict\n)R";  // requires_grad, backward hooks
    p += "tRu.";
    return p;
}

ConvertConfig plain_config() {
    ConvertConfig c;
    c.arch = format::Family::forecaster;
    c.nhead = 1;
    return c;
}

}  // namespace

// fuzz_model_run: a mutated int8 model whose weights hold NaN made an activation NaN, and the per-row
// quantization cast NaN to int8 (undefined behaviour, reported by UBSan). The same happens with finite
// input: a row whose largest magnitude is below 127 / FLT_MAX (~3.7e-37) makes 127 / amax infinite, and its
// zeros become 0 * inf = NaN. Every element must map into [-127, 127], zeros to 0, and every port must give
// generic's bytes (the SIMD ports already turn a NaN product into 0).
TEST_CASE("fuzz regression: int8 activation quantization of NaN, Inf and tiny rows is defined") {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    const size_t n = 4;
    const std::vector<float> rows = {
        nan,    1.0f, -1.0f,   0.0f,     // NaN among finite values
        inf,    1.0f, 0.0f,    -2.0f,    // infinite maximum: 127 / amax = 0, inf * 0 = NaN
        2e-38f, 0.0f, -1e-38f, 0.0f,     // tiny maximum: 127 / amax overflows to inf, 0 * inf = NaN
        1e-37f, 0.0f, 3e-37f,  -2e-37f,  // still below 127 / FLT_MAX
    };
    const size_t count = rows.size() / n;
    std::vector<int8_t> want_q(rows.size());
    std::vector<float> want_scales(count);
    generic::quantize_rows_i8(rows.data(), count, n, want_q.data(), want_scales.data());
    for (const Kernels* k : test::available_ports()) {
        CAPTURE(k->name);
        std::vector<int8_t> q(rows.size(), 99);
        std::vector<float> scales(count, -1.0f);
        k->quantize_rows_i8(rows.data(), count, n, q.data(), scales.data());
        for (size_t i = 0; i < rows.size(); ++i) {
            CAPTURE(i);
            CHECK(q[i] >= -127);
            CHECK(q[i] <= 127);
            if (rows[i] == 0.0f) CHECK(q[i] == 0);
            CHECK(q[i] == want_q[i]);
        }
        for (size_t r = 0; r < count; ++r) {
            CAPTURE(r);
            CHECK(std::memcmp(&scales[r], &want_scales[r], sizeof(float)) == 0);
            if (r >= 2) CHECK(std::isfinite(scales[r]));  // finite rows: a finite scale
        }
    }
}

// The same bug reached from a valid int8 model and finite user input: the encoder's input embedding
// quantizes each source row before its int8 product.
TEST_CASE("fuzz regression: an int8 model runs on a source row of tiny values") {
    ConvertOptions options;
    options.checkpoint_path = test::fixture_path("forecaster/multi_out/model.pt");
    options.config_path = test::fixture_path("forecaster/multi_out/config.json");
    options.dtype = format::DType::i8;
    const auto model = load_model_bytes(convert_model(options), "multi_out int8");
    const size_t nf = model->as<Forecaster>().config().n_features;  // 4
    HostSession session(*model, generic_kernels(), 4, 2);
    std::vector<float> src(4 * nf, 0.5f), tgt(2 * nf, 0.25f);
    for (size_t i = 0; i < nf; ++i) src[i] = i == 0 ? 2e-38f : 0.0f;  // first row: one tiny value, zeros
    const std::vector<float> out = session.run(src.data(), 4, tgt.data(), 2, InputSpace::model);
    for (float v : out) CHECK(std::isfinite(v));
}

// fuzz_safetensors: a checkpoint whose attention weights are [0, 0] gives d_model 0, and a `pe` buffer of
// shape [5, 1, 0] then passed the shape check and divided its element count by d_model = 0 (SIGFPE in
// tools/import/forecaster_import.cpp). The importer must refuse a zero d_model with a ToolError.
TEST_CASE("fuzz regression: a checkpoint implying d_model 0 is refused, not divided by") {
    const std::string header =
        R"({"encoder.layers.0.self_attn.in_proj_weight":{"dtype":"F32","shape":[0,0],"data_offsets":[0,0]},)"
        R"("decoder.layers.0.self_attn.in_proj_weight":{"dtype":"F32","shape":[0,0],"data_offsets":[0,0]},)"
        R"("decoder.layers.0.multihead_attn.in_proj_weight":{"dtype":"F32","shape":[0,0],"data_offsets":[0,0]},)"
        R"("encoder.layers.0.linear1.weight":{"dtype":"F32","shape":[1,0],"data_offsets":[0,0]},)"
        R"("embedding_src.weight":{"dtype":"F32","shape":[0,1],"data_offsets":[0,0]},)"
        R"("embedding_src.bias":{"dtype":"F32","shape":[0],"data_offsets":[0,0]},)"
        R"("embedding_tgt.weight":{"dtype":"F32","shape":[0,1],"data_offsets":[0,0]},)"
        R"("embedding_tgt.bias":{"dtype":"F32","shape":[0],"data_offsets":[0,0]},)"
        R"("generator.weight":{"dtype":"F32","shape":[1,0],"data_offsets":[0,0]},)"
        R"("generator.bias":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
        R"("pos_encoder.pe":{"dtype":"F32","shape":[5,1,0],"data_offsets":[0,0]}})";
    const std::vector<uint8_t> file = safetensors(header, {0, 0, 0, 0});
    const TensorMap tensors = read_safetensors_bytes(file.data(), file.size());
    CHECK_THROWS_AS(import_forecaster(tensors, plain_config()), ToolError);
}

// fuzz_csv: a quoted header name starting with a UTF-8 byte order mark was written back unquoted; as the
// first column it then sat at the start of the file, where the reader drops a BOM, so the table did not read
// back (here the name became empty). Fixed in tools/text/csv.cpp: such names are written quoted.
TEST_CASE("fuzz regression: a header name starting with a byte order mark survives a CSV round trip") {
    for (const std::string& text :
         {std::string("\"\xEF\xBB\xBF\"\n6\n"), std::string("\"\xEF\xBB\xBFtime\",b\n1,2\n")}) {
        const Table table = parse_csv(text, "bom.csv");
        REQUIRE(table.header.size() == table.cols);
        CHECK(table.header[0].compare(0, 3, "\xEF\xBB\xBF") == 0);
        const Table again = parse_csv(format_csv(table), "rewritten.csv");
        CHECK(again.header == table.header);
        CHECK(again.values == table.values);
    }
}

// fuzz_safetensors / fuzz_torch_checkpoint (found by reading what the convert path does with names): the
// importers (tools/import/forecaster_import.cpp, tools/import/import_common.cpp) and rename maps match every tensor
// name with std::regex, whose libstdc++ matcher recurses once per character: a tensor name of ~50 KB overflowed the
// stack (SIGSEGV in a release `auspex convert`). Fixed in the readers, which refuse names over 1024 bytes.
TEST_CASE("fuzz regression: checkpoint readers refuse absurdly long tensor names") {
    const std::string name = "encoder.layers." + std::string(100000, 'a') + ".0.self_attn.in_proj_weight";
    const std::string header = "{\"" + name + "\":{\"dtype\":\"F32\",\"shape\":[3,1],\"data_offsets\":[0,12]}}";
    const std::vector<uint8_t> file = safetensors(header, std::vector<uint8_t>(12, 0));
    CHECK_THROWS_WITH_AS(read_safetensors_bytes(file.data(), file.size()), doctest::Contains("limit of 1024"),
                         ToolError);

    const std::string pickle = state_dict_pickle(name, {1}, {1});
    CHECK_THROWS_WITH_AS(parse_torch_pickle(reinterpret_cast<const uint8_t*>(pickle.data()), pickle.size()),
                         doctest::Contains("limit of 1024"), ToolError);
    // The same pickle with a normal name is read, so the refusal is about the length.
    const std::string ok = state_dict_pickle("w", {1}, {1});
    CHECK(parse_torch_pickle(reinterpret_cast<const uint8_t*>(ok.data()), ok.size()).tensors.size() == 1);
}

// fuzz_safetensors: a tensor with no elements may still claim any dimension: shape [0, 2^62] for an
// in_proj_weight made tools/import/forecaster_import.cpp compute 3 * 2^62 (signed overflow, UBSan). Fixed in the
// readers, which refuse any dimension above 2^31 - 1 (the .axm format stores 32-bit dims).
TEST_CASE("fuzz regression: checkpoint readers refuse huge dimensions even on empty tensors") {
    const std::string header =
        R"({"encoder.layers.0.self_attn.in_proj_weight":{"dtype":"F32","shape":[0,4611686018427387904],)"
        R"("data_offsets":[0,0]}})";
    const std::vector<uint8_t> file = safetensors(header, {});
    CHECK_THROWS_WITH_AS(read_safetensors_bytes(file.data(), file.size()), doctest::Contains("above the limit"),
                         ToolError);

    const std::string pickle = state_dict_pickle("w", {0, int64_t{1} << 62}, {1, 1});
    CHECK_THROWS_WITH_AS(parse_torch_pickle(reinterpret_cast<const uint8_t*>(pickle.data()), pickle.size()),
                         doctest::Contains("exceeds the limit"), ToolError);
}

// fuzz_rename_map: a rename-map rule was compiled into a std::regex, and libstdc++'s regex compiler recurses
// once per pattern character: one rule line of ~100 KB overflowed the stack (SIGSEGV) in RenameMap::parse.
// Fixed in tools/import/rename_map.cpp: rules are matched without std::regex and lines over 4096 bytes are refused.
TEST_CASE("fuzz regression: a rename map with an absurdly long rule is refused, not a stack overflow") {
    const std::string text = std::string(200000, 'a') + "{x} -> b{x}\n";
    CHECK_THROWS_WITH_AS(RenameMap::parse(text, "long.map"), doctest::Contains("longer than 4096"), ToolError);
}

// The matcher that replaced std::regex remembers dead ends, so a rule with many captures against a name
// built to make it backtrack still answers (and answers right).
TEST_CASE("rename map matching stays linear-ish on names built to backtrack") {
    std::string pattern, name;
    for (int i = 0; i < 12; ++i) pattern += "{c" + std::to_string(i) + "}_";
    pattern += "end";
    name = std::string(1000, 'x');
    for (size_t i = 1; i < name.size(); i += 2) name[i] = '_';  // x_x_x_... with no "end"
    const RenameMap map = RenameMap::parse(pattern + " -> renamed\n", "many.map");
    TensorMap tensors;
    tensors[name].shape = {1};
    tensors[name].data = {1.0f};
    tensors["a_b_c_d_e_f_g_h_i_j_k_l_end"].shape = {1};
    tensors["a_b_c_d_e_f_g_h_i_j_k_l_end"].data = {2.0f};
    const TensorMap out = map.apply(tensors);
    REQUIRE(out.count("renamed") == 1);
    CHECK(out.at("renamed").data[0] == 2.0f);
    CHECK(out.count(name) == 1);
}

// fuzz_csv: a headerless `;` table whose first column is a timestamp with a decimal comma. The writer quotes
// that timestamp (it holds a comma), and the reader took the quoted first field for a header name, so the
// written table had no data rows. Fixed in tools/text/csv.cpp: a quoted timestamp in column 1 is data.
TEST_CASE("fuzz regression: a quoted timestamp with a decimal comma reads back as data") {
    const ax::tools::Table t = ax::tools::parse_csv("2024-01-31T12:00:01,5;4001,5;40,21\n", "fuzz.csv");
    REQUIRE(t.rows == 1);
    REQUIRE(t.cols == 2);
    const ax::tools::Table again = ax::tools::parse_csv(ax::tools::format_csv(t), "rewritten.csv");
    CHECK(again.rows == 1);
    CHECK(again.cols == 2);
    CHECK(again.times == t.times);
    CHECK(again.header == t.header);
    CHECK(std::memcmp(again.values.data(), t.values.data(), t.values.size() * sizeof(float)) == 0);
}

// fuzz_onnx: a graph whose ReduceMean axes are a float constant of 1.65e28 (RevIN's statistics, reduce_axes): reading
// it as an integer converted the float to int64 out of range (undefined behaviour). Floats read as integers now
// saturate at +-2^62, which the axis check refuses.
TEST_CASE("fuzz regression: float constants read as integers saturate instead of overflowing int64") {
    const onnx::Tensor t = onnx::make_float({4}, {1.65e28f, -1e30f, std::nanf(""), -2.75f});
    CHECK(t.integer(0) == int64_t{1} << 62);
    CHECK(t.integer(1) == -(int64_t{1} << 62));
    CHECK(t.integer(2) == -(int64_t{1} << 62));
    CHECK(t.integer(3) == -2);
    // The fuzzer's graph itself, through the steps fuzz_onnx runs: a ToolError or a lowering, nothing else.
    const onnx::Model m = onnx::read_onnx_file(test::fixture_path("fuzz_regressions/onnx_float_axes.onnx"));
    try {
        const onnx::FoldedGraph f = onnx::fold_graph(m, onnx::input_shapes(m, {}, 2));
        (void)onnx_import::lower_graph(m, f);
    } catch (const tools::ToolError&) {
    }
}
